package pipeline_test

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

// rxCapture writes n packets of genrx's traffic (Rx DATA, 8-packet FS
// FetchData calls, one host pair) as a pcap.
func rxCapture(tb testing.TB, n int) string {
	eth := make([]byte, 14)
	binary.BigEndian.PutUint16(eth[12:], 0x0800)
	h := rx.HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0000, Type: rx.TypeData, ServiceID: 1}
	pkts := make([]capture.Packet, n)
	for i := range pkts {
		frame := testpkt.UDP4(eth, testpkt.Client, testpkt.Server, 7001, 7000, make([]byte, 28+64))
		udp := frame[14+20:]
		h.CallNumber, h.Seq, h.Serial = uint32(i/8+1), uint32(i%8+1), uint32(i+1)
		h.Flags = rx.FlagClientInitiated
		if i%8 == 7 {
			h.Flags |= rx.FlagLastPacket
		}
		h.Encode(udp[8:8])
		if h.Seq == 1 {
			binary.BigEndian.PutUint32(udp[8+28:], 130)
		}
		pkts[i] = capture.Packet{Data: frame, CapLen: len(frame), WireLen: len(frame), LinkType: capture.LinkEthernet,
			TimeNS: int64(1_700_000_000)*1e9 + int64(i)*1000}
	}
	path := filepath.Join(tb.TempDir(), "rx.pcap")
	writePcap(tb, path, pkts, 1)
	return path
}

// BenchmarkFields runs -T fields with 4 fields and a -Y filter on
// synthesized Rx and RoCEv2 NFS traffic, beside the summary of the same
// capture: sparse trees make them cost the fields they name, not a whole
// tree per frame. Time and allocations per frame, the run's set-up spread
// over the frames.
func BenchmarkFields(b *testing.B) {
	for _, sc := range []struct {
		name   string
		fields []string
		filter string
	}{
		{"rx", []string{"rx.seq", "rx.callnumber", "rx.type", "ip.src"}, "rx.type == 1 && rx.seq > 1"},
		{"roce-nfs", []string{"infiniband.bth.opcode", "infiniband.bth.psn", "rpc.xid", "ip.src"}, "infiniband.bth.psn > 10"},
	} {
		var path string
		var n int
		if sc.name == "rx" {
			path, n = rxCapture(b, 50000), 50000
		} else {
			path, n = synthCapture(b, sc.name, 5000)
		}
		frames := float64(n)
		for _, m := range []struct {
			name string
			cfg  pipeline.Config
		}{
			{"summary", pipeline.Config{}},
			{"fields4", pipeline.Config{Print: pipeline.Print{Format: "fields", Fields: sc.fields}}},
			{"filter", pipeline.Config{Filter: sc.filter}},
			{"filter-fields", pipeline.Config{Filter: sc.filter, Print: pipeline.Print{Format: "fields", Fields: sc.fields[:1]}}},
		} {
			b.Run(sc.name+"/"+m.name, func(b *testing.B) {
				runPerFrame(b, m.cfg, path, frames)
			})
		}
	}
}
