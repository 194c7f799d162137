package ib

import (
	"net/netip"
	"testing"
)

var a1, a2 = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")

func TestSendAcrossPSNWrap(t *testing.T) {
	a := New()
	ps := []Packet{
		{Src: a1, Dst: a2, Opcode: 0x00, DestQP: 5, PSN: 0xFFFFFF, Payload: []byte("ab"), Frame: 1},
		{Src: a1, Dst: a2, Opcode: 0x01, DestQP: 5, PSN: 0, Payload: []byte("cd"), Frame: 2},
		{Src: a1, Dst: a2, Opcode: 0x02, DestQP: 5, PSN: 1, Payload: []byte("e"), Frame: 3},
	}
	var m *Message
	var ev Event
	for i := range ps {
		m, ev = a.Add(&ps[i])
	}
	if ev != Complete || string(m.Data) != "abcde" || len(m.Frames) != 3 || m.Kind != KindSend {
		t.Fatalf("got %v %+v", ev, m)
	}
}

func TestGapAndRead(t *testing.T) {
	a := New()
	a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x06, DestQP: 5, PSN: 10, HasRETH: true, VA: 0x100, RKey: 9, DMALen: 4, Payload: []byte("ab")})
	if _, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x08, DestQP: 5, PSN: 12, Payload: []byte("cd")}); ev != Gap {
		t.Fatalf("want gap, got %v", ev)
	}
	a.Add(&Packet{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, PSN: 50, HasRETH: true, VA: 0x200, RKey: 3, DMALen: 3, Frame: 4})
	m, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x10, DestQP: 5, PSN: 50, Payload: []byte("xyz"), Frame: 5})
	if ev != Complete || m.Kind != KindRead || m.VA != 0x200 || m.RKey != 3 || m.ReqFrame != 4 {
		t.Fatalf("read: %v %+v", ev, m)
	}
	if _, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x10, DestQP: 5, PSN: 51, Payload: []byte("q")}); ev != Unmatched {
		t.Fatalf("want unmatched, got %v", ev)
	}
}

func FuzzIBAssembly(f *testing.F) {
	f.Add([]byte{0x00, 0, 0x01, 1, 0x02, 2, 0x0C, 3, 0x0D, 3, 0x0E, 4, 0x0F, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		a := New()
		for i := 0; i+1 < len(b); i += 2 {
			p := Packet{Src: a1, Dst: a2, Opcode: b[i], DestQP: uint32(b[i+1] & 3), PSN: uint32(b[i+1]) * 0x10101 & psnMask,
				HasRETH: true, VA: uint64(b[i+1]), RKey: 1, DMALen: 8, Payload: b[i:], Frame: uint64(i)}
			if b[i]&0x80 != 0 { // swap direction
				p.Src, p.Dst = a2, a1
			}
			m, ev := a.Add(&p)
			if (m != nil) != (ev == Complete) {
				t.Fatalf("message %v with event %v", m != nil, ev)
			}
			if m != nil && (len(m.Data) > m.Len || len(m.Frames) != len(m.Sizes)) {
				t.Fatalf("inconsistent message %+v", m)
			}
		}
		if o, r := a.Open(); o > maxOpen || r > maxReads {
			t.Fatal("tables over their bounds")
		}
	})
}
