package rds

import (
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// BenchmarkIBFragments offers RDS/IB messages of two fragments on eight
// QPs, interleaved: every SEND moves its QP in the budget's LRU list and
// charges what it holds. ns/op and allocs/op are per SEND.
func BenchmarkIBFragments(b *testing.B) {
	d := New(nil)
	const qps = 8
	var first, last [qps][]byte
	for i := range qps {
		first[i] = ibFrag(1, 5000, 4000, 4001, 4096)
		last[i] = ibFrag(1, 5000, 4000, 4001, 904)
	}
	var f dissect.Frame
	frames := make([]uint64, 1)
	m := ibasm.Message{Kind: ibasm.KindSend, Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2"), Frames: frames}
	var p ib.Packet
	seq := uint64(1)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		i := n % (2 * qps)
		if i == 0 && n > 0 {
			seq++
			h := HeaderFields{Seq: seq, Len: 5000, Sport: 4000, Dport: 4001, SetCsum: true}
			if h.Encode(first[0][:0]); Header(first[0]).Csum() == 0 {
				h.Sport = 4002 // a checksum of 0 reads as unset: change the header
			}
			for q := range qps {
				h.Encode(first[q][:0])
				h.Encode(last[q][:0])
			}
		}
		data := first[i%qps]
		if i >= qps {
			data = last[i%qps]
		}
		f.Num, f.PDUs, f.Findings, f.Checks = uint64(n+1), f.PDUs[:0], f.Findings[:0], f.Checks[:0]
		frames[0] = f.Num
		m.QP, m.Len, m.Data = uint32(0x21+i%qps), len(data), data
		if !d.IBMessage(&f, &p, &m) || len(f.Findings) != 0 {
			b.Fatalf("SEND %d: %+v", n, f.Findings)
		}
	}
}
