package ib

import (
	"math/rand/v2"
	"testing"
)

// The hostile inputs, one packet per op. Before the tables were
// kept on LRU/FIFO lists, a full table was scanned for its oldest entry on
// every insertion: 1M READ requests with random PSNs took 46 s, and SEND
// Firsts on new QPs ran 22 times slower than SEND Onlys.

// BenchmarkReadRequestsRandomPSN: READ requests at random PSNs, so the
// table of outstanding requests stays full and evicts on every one.
func BenchmarkReadRequestsRandomPSN(b *testing.B) {
	a := New()
	r := rand.New(rand.NewPCG(1, 2))
	p := Packet{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, HasRETH: true, VA: 0x1000, RKey: 3, DMALen: 4096}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.PSN, p.Frame = r.Uint32()&psnMask, uint64(i)
		a.Add(&p)
	}
}

// BenchmarkSendFirstNewQP: every packet a SEND First on a QP not seen
// before, so the table of messages in progress stays full.
func BenchmarkSendFirstNewQP(b *testing.B) {
	a := New()
	pay := make([]byte, 64)
	p := Packet{Src: a1, Dst: a2, Opcode: 0x00, Payload: pay}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.DestQP, p.PSN, p.Frame = uint32(i)&0xFFFFFF, uint32(i)&psnMask, uint64(i)
		a.Add(&p)
	}
}

// BenchmarkSendOnly: the common case the two above are compared with.
func BenchmarkSendOnly(b *testing.B) {
	a := New()
	pay := make([]byte, 64)
	p := Packet{Src: a1, Dst: a2, Opcode: 0x04, Payload: pay}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.DestQP, p.PSN, p.Frame = uint32(i)&7, uint32(i/8)&psnMask, uint64(i)
		a.Add(&p)
	}
}
