package tcp

import (
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
