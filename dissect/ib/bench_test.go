package ib_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

func loadFrames(b testing.TB, name string) []frame {
	return run(b, pcapDir+name+".pcap", nil)
}

// BenchmarkDissect decodes RoCEv2, RoCEv1 and native-IB frames (engine,
// ICRC/VCRC, PSN tracking) and builds each summary: 0 allocs/op.
func BenchmarkDissect(b *testing.B) {
	for _, name := range []string{"roce_write_bw", "rocev1", "infiniband_erf"} {
		frs := loadFrames(b, name)
		b.Run(name, func(b *testing.B) {
			eng := dissect.NewEngine(dissect.Options{})
			buf := make([]byte, 0, 512)
			var bytes int64
			for _, fr := range frs {
				bytes += int64(len(fr.pkt.Data))
			}
			// warm up: pools and QP tables reach their steady state
			for i, fr := range frs {
				eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: fr.pkt.TimeNS, CapLen: fr.pkt.CapLen, WireLen: fr.pkt.WireLen, LinkType: fr.pkt.LinkType, Data: fr.pkt.Data})
			}
			b.SetBytes(bytes / int64(len(frs)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%len(frs) == 0 {
					eng.Rewind() // replaying repeats PSNs: start the PSN state afresh
				}
				fr := &frs[i%len(frs)]
				f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: fr.pkt.TimeNS, CapLen: fr.pkt.CapLen, WireLen: fr.pkt.WireLen, LinkType: fr.pkt.LinkType, Data: fr.pkt.Data})
				buf = buf[:0]
				for _, p := range f.PDUs {
					buf = p.Summary(buf)
				}
			}
		})
	}
}

// TestZeroAlloc enforces what the benchmark shows.
func TestZeroAlloc(t *testing.T) {
	frs := loadFrames(t, "roce_write_bw")
	eng := dissect.NewEngine(dissect.Options{})
	buf := make([]byte, 0, 512)
	i := 0
	step := func() {
		fr := &frs[i%len(frs)]
		i++
		f := eng.Decode(dissect.Packet{Num: uint64(i), TimeNS: fr.pkt.TimeNS, CapLen: fr.pkt.CapLen, WireLen: fr.pkt.WireLen, LinkType: fr.pkt.LinkType, Data: fr.pkt.Data})
		buf = buf[:0]
		for _, p := range f.PDUs {
			buf = p.Summary(buf)
		}
	}
	for range frs {
		step()
	}
	// Replaying the capture repeats PSNs (duplicate findings allocate their
	// message), so each pass starts with the PSN state rewound.
	if n := testing.AllocsPerRun(3, func() {
		eng.Rewind()
		for range frs {
			step()
		}
	}); n != 0 {
		t.Errorf("%v allocs per pass", n)
	}
}
