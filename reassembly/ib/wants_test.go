package ib

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// Wants must be false only for packets Add does nothing with: an assembler
// fed every packet and one fed only those Wants accepts (as dissect/ib
// does) give the same events and messages, through gaps that make streams
// hold packets (when ACKs count) and every opcode with and without an AETH
// and a RETH.
func TestWantsMatchesAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ops := []uint8{0x00, 0x01, 0x02, 0x04, 0x06, 0x07, 0x08, 0x0A, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x81, 0x64, 0x6C, 0x24}
	all, some := New(), New()
	psn := [2]uint32{100, 5000}
	skipped := 0
	his := map[streamKey]uint32{}
	for i := range 50000 {
		op := ops[rng.IntN(len(ops))]
		if rng.IntN(50) == 0 {
			op = uint8(rng.IntN(256))
		}
		dir := rng.IntN(2)
		p := Packet{Src: a1, Dst: a2, Opcode: op, DestQP: uint32(5 + dir), PSN: psn[dir],
			HasRETH: rng.IntN(2) == 0, VA: 0x1000, RKey: 7, DMALen: uint32(rng.IntN(3000)),
			HasAETH: rng.IntN(2) == 0, Syndrome: uint8(rng.IntN(2)) * 0x60, Payload: []byte{byte(i), 1, 2}, Frame: uint64(i)}
		if dir == 1 {
			p.Src, p.Dst = a2, a1
		}
		switch rng.IntN(10) {
		case 0: // a gap
			psn[dir] = (psn[dir] + 2) & psnMask
		case 1: // a retransmission
			psn[dir] = (psn[dir] - 3) & psnMask
		default:
			psn[dir] = (psn[dir] + 1) & psnMask
		}
		want := some.Wants(p.Opcode, p.HasAETH, p.HasRETH)
		m1, ev1 := all.Add(&p)
		if err := checkStreams(all, his); err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if !want {
			skipped++
			if ev1 != None || m1 != nil {
				t.Fatalf("packet %d (opcode %#x, AETH %v, RETH %v): Wants false but Add gave %v", i, op, p.HasAETH, p.HasRETH, ev1)
			}
			continue
		}
		m2, ev2 := some.Add(&p)
		if ev1 != ev2 || !reflect.DeepEqual(m1, m2) {
			t.Fatalf("packet %d (opcode %#x): fed every packet %v %+v, fed the wanted ones %v %+v", i, op, ev1, m1, ev2, m2)
		}
		for n1, n2 := all.Next(), some.Next(); n1 != nil || n2 != nil; n1, n2 = all.Next(), some.Next() {
			if !reflect.DeepEqual(n1, n2) {
				t.Fatalf("packet %d: next message %+v, want %+v", i, n2, n1)
			}
		}
	}
	if skipped == 0 {
		t.Fatal("no packet was skipped: the test proves nothing")
	}
}
