package ddp

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// messageFeed returns a function feeding segment n (0, 1, 2, ...) of Send
// messages of two segments on eight connections, interleaved, and a Read
// Request answered by a Read Response each round: every segment links,
// moves or unlinks an entry of the LRU lists. It returns the frame.
func messageFeed(d *State) func(n int) *dissect.Frame {
	var keys [8]tcp.FlowKey
	for i := range keys {
		keys[i], _ = tcp.NewFlowKey(netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), uint16(1+i)), netip.MustParseAddrPort("10.0.0.2:2"))
	}
	var f dissect.Frame
	u := mpa.ULPDU{Off: -1}
	pay := make([]byte, 512)
	var segs [][]byte
	var dirs []tcp.Dir
	var conn []int
	for i := range keys {
		segs = append(segs, EncodeUntagged(nil, false, OpSend, 0, 0, 1, 0, pay))
		dirs, conn = append(dirs, 0), append(conn, i)
	}
	for i := range keys {
		segs = append(segs, EncodeUntagged(nil, true, OpSend, 0, 0, 1, 512, pay))
		dirs, conn = append(dirs, 0), append(conn, i)
	}
	rr := make([]byte, ReadReqLen)
	binary.BigEndian.PutUint32(rr, 0x1234)
	binary.BigEndian.PutUint32(rr[12:], 8)
	segs = append(segs, EncodeUntagged(nil, true, OpReadRequest, 0, 1, 1, 0, rr))
	dirs, conn = append(dirs, 0), append(conn, 0)
	segs = append(segs, EncodeTagged(nil, true, OpReadResponse, 0x1234, 0, make([]byte, 8)))
	dirs, conn = append(dirs, 1), append(conn, 0)
	msn := uint32(1)
	num := uint64(0)
	return func(n int) *dissect.Frame {
		i := n % len(segs)
		if i == 0 {
			msn++
		}
		s := segs[i]
		if !Tagged(s) { // renumber the messages of this round
			binary.BigEndian.PutUint32(s[10:], msn)
		}
		num++
		f.Reset()
		f.Num = num
		u.Key, u.Dir, u.Data = keys[conn[i]], dirs[i], s
		d.ULPDU(&f, &u)
		return &f
	}
}

// BenchmarkMessages: messageFeed's segments; ns/op and allocs/op are per
// segment.
func BenchmarkMessages(b *testing.B) {
	feed := messageFeed(New())
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if f := feed(n); len(f.Findings) != 0 {
			b.Fatalf("segment %d: %+v", n, f.Findings)
		}
	}
}

// TestSteadyMessagesAllocNothing: once the first messages and Read
// Requests are done, the next ones reuse them and their buffers (a Send
// message allocated its struct and data, a Read Request its own, before).
func TestSteadyMessagesAllocNothing(t *testing.T) {
	feed := messageFeed(New())
	n := 0
	for ; n < 1000; n++ {
		feed(n) // warm: spares, maps, the learned map's growth
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if f := feed(n); len(f.Findings) != 0 {
			t.Fatalf("segment %d: %+v", n, f.Findings)
		}
		n++
	})
	if allocs != 0 {
		t.Errorf("%.2f allocations per segment", allocs)
	}
}
