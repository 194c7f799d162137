package tcp

import (
	"fmt"
	"net/netip"
	"testing"
)

type nopConsumer struct{ n int }

func (c *nopConsumer) Data(ch *Chunk)             { c.n += len(ch.Bytes) }
func (c *nopConsumer) Gap(*Gap)                   {}
func (c *nopConsumer) Anomaly(*Anomaly)           {}
func (c *nopConsumer) Close(FlowKey, CloseReason) {}

// BenchmarkInOrder measures the steady state: 1448-byte in-order segments of
// one connection (history on, the default).
func BenchmarkInOrder(b *testing.B) {
	for _, hist := range []struct {
		name string
		n    int
	}{{"history", 0}, {"nohistory", -1}} {
		b.Run(hist.name, func(b *testing.B) {
			cons := &nopConsumer{}
			a := NewAssembler(Config{History: hist.n, NewConsumer: func(FlowKey) Consumer { return cons }})
			k, d := NewFlowKey(client, server)
			a.Segment(k, d, Segment{Seq: 0xfffff000, SYN: true})
			p := make([]byte, 1448)
			seq := uint32(0xfffff001)
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a.Segment(k, d, Segment{Seq: seq, Payload: p, Frame: uint64(i)})
				seq += uint32(len(p))
			}
		})
	}
}

// BenchmarkReorder swaps every pair of segments: the held path.
func BenchmarkReorder(b *testing.B) {
	cons := &nopConsumer{}
	a := NewAssembler(Config{NewConsumer: func(FlowKey) Consumer { return cons }})
	k, d := NewFlowKey(client, server)
	a.Segment(k, d, Segment{Seq: 0, SYN: true})
	p := make([]byte, 1448)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		j := i ^ 1
		a.Segment(k, d, Segment{Seq: 1 + uint32(j*len(p)), Payload: p})
	}
}

// BenchmarkShortConns: one SYN, one request, FIN both ways per connection.
func BenchmarkShortConns(b *testing.B) {
	a := NewAssembler(Config{MaxStreams: 1024})
	p := make([]byte, 200)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		k := FlowKey{A: client, B: server}
		k.A = netip.AddrPortFrom(k.A.Addr(), uint16(i))
		a.Segment(k, 0, Segment{Seq: 1, SYN: true})
		a.Segment(k, 0, Segment{Seq: 2, Payload: p})
		a.Segment(k, 0, Segment{Seq: 202, FIN: true})
		a.Segment(k, 1, Segment{Seq: 9, FIN: true})
	}
}

// holesLimits holds every hole of BenchmarkManyHoles, so the benchmark
// measures the held-segment structure and not the limits.
var holesLimits = Config{MaxBufferedPerStream: 1 << 30, MaxBufferedTotal: 1 << 31, MaxSegmentsPerStream: 1 << 22}

// feedHoles sends n one-octet segments that each leave a one-octet hole
// before them (offsets 1, 3, 5, ...), then the n fills (0, 2, 4, ...): every
// fill releases one held segment from the front. Pattern "reverse" holds the
// segments in descending order (every insert at the front), "middle" in an
// order that inserts in the middle of what is held.
func feedHoles(a *Assembler, n int, pattern string) {
	k, d := NewFlowKey(client, server)
	a.Segment(k, d, Segment{Seq: 0, SYN: true})
	p := []byte{'x'}
	order := func(i int) int { return i }
	switch pattern {
	case "reverse":
		order = func(i int) int { return n - 1 - i }
	case "middle":
		// 0, n-1, 1, n-2, ...: each insert lands between the two halves.
		order = func(i int) int {
			if i%2 == 0 {
				return i / 2
			}
			return n - 1 - i/2
		}
	}
	for i := range n {
		a.Segment(k, d, Segment{Seq: 1 + uint32(2*order(i)+1), Payload: p, Frame: uint64(i)})
	}
	for i := range n {
		a.Segment(k, d, Segment{Seq: 1 + uint32(2*i), Payload: p, Frame: uint64(n + i)})
	}
}

// BenchmarkManyHoles: n one-octet holes in one stream (issue 10: 50k took
// 3.4 s, 200k 61 s). ns/op over n shows whether the cost is linear.
func BenchmarkManyHoles(b *testing.B) {
	for _, pattern := range []string{"forward", "reverse", "middle"} {
		for _, n := range []int{50000, 200000} {
			b.Run(fmt.Sprintf("%s/%dk", pattern, n/1000), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					cons := &nopConsumer{}
					cfg := holesLimits
					cfg.NewConsumer = func(FlowKey) Consumer { return cons }
					a := NewAssembler(cfg)
					feedHoles(a, n, pattern)
					if cons.n != 2*n {
						b.Fatalf("delivered %d of %d octets", cons.n, 2*n)
					}
				}
			})
		}
	}
}
