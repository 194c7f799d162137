package rds

import (
	"encoding/binary"
	"math/rand"
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// ibHeaderShapeRef is ibHeaderShape without its cheap pre-check: the
// decision from shapeProblems alone.
func ibHeaderShapeRef(b []byte) bool {
	if len(b) < HeaderLen {
		return false
	}
	h := Header(b[:HeaderLen])
	if h.shapeProblems()&(ProbPad|ProbFlags|ProbLen|ProbCongLen|ProbPortsZero|ProbExtOverrun) != 0 {
		return false
	}
	if h.IsAckOnly() && (h.Flags() != 0 || h.Seq() != 0) {
		return false
	}
	return !h.IsCong() || h.Sport() == 0 && h.Dport() == 0
}

// TestIBHeaderShapePrecheck: the pre-check of flags, padding and length
// must not change a decision. Headers are random, and random with each of
// the pre-checked fields set to an accepted value, so both answers occur.
func TestIBHeaderShapePrecheck(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	b := make([]byte, HeaderLen)
	var yes, no int
	for i := 0; i < 200000; i++ {
		rng.Read(b)
		if i&1 == 0 { // make the pre-checked fields pass, the rest random
			b[offFlags] &= flagsKnown
			binary.BigEndian.PutUint32(b[offPad:], 0)
			binary.BigEndian.PutUint32(b[offLen:], binary.BigEndian.Uint32(b[offLen:])%(MaxMsgLen+2))
			if i&2 == 0 {
				b[offFlags] = byte(i>>2) & flagsKnown
				for k := offExt; k < HeaderLen; k++ {
					b[k] = byte(rng.Intn(ExtCsum + 2))
				}
			}
			if i&4 == 0 {
				b[offExt] = ExtNone
			}
			if i&8 == 0 { // the length limit's edge
				binary.BigEndian.PutUint32(b[offLen:], MaxMsgLen+uint32(i>>4&1))
			}
		}
		got, want := ibHeaderShape(b), ibHeaderShapeRef(b)
		if got != want {
			t.Fatalf("header % x: ibHeaderShape %v, shapeProblems alone %v", b, got, want)
		}
		if got {
			yes++
		} else {
			no++
		}
	}
	if yes < 1000 || no < 1000 {
		t.Fatalf("the inputs do not exercise both answers: %d accepted, %d declined", yes, no)
	}
}

// TestIBHeuristicPrecheck: the destqp heuristic's own pre-check (kind and
// ibHeaderMaybe, before any call) declines only what IBMessage declines.
// Two states read the same messages, one through the heuristic and one
// through IBMessage: SENDs, WRITEs and READs to QPs 0, 1 and 0x21 of RDS
// fragments (some with a broken field), RPC-over-RDMA-like and random
// octets; every answer and every frame's PDUs and findings must agree.
func TestIBHeuristicPrecheck(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	viaHeur, direct := New(nil), New(nil)
	var p ib.Packet
	frames := []uint64{0}
	var taken int
	for i := range 20000 {
		var data []byte
		switch i % 4 {
		case 0: // an RDS fragment, its header whole
			data = ibFrag(uint64(i/4+1), 100, 4000, 4001, 100)
		case 1: // an RDS fragment with one octet of flags, padding or length changed
			data = ibFrag(uint64(i/4+1), 100, 4000, 4001, 100)
			data[[]int{offFlags, offPad, offPad + 3, offLen}[rng.Intn(4)]] ^= byte(1 << rng.Intn(8))
		case 2: // RPC-over-RDMA v1: XID, version 1, credits, RDMA_MSG
			data = make([]byte, 28+rng.Intn(100))
			rng.Read(data)
			binary.BigEndian.PutUint32(data[4:], 1)
			binary.BigEndian.PutUint32(data[12:], 0)
		default:
			data = make([]byte, rng.Intn(2*HeaderLen))
			rng.Read(data)
		}
		m := ibasm.Message{Kind: []ibasm.Kind{ibasm.KindSend, ibasm.KindSend, ibasm.KindWrite, ibasm.KindRead}[rng.Intn(4)],
			QP: []uint32{0, 1, 0x21, 0x21}[rng.Intn(4)], Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2"),
			Data: data, Len: len(data), Frames: frames}
		frames[0] = uint64(i + 1)
		var fa, fb dissect.Frame
		fa.Num, fb.Num = uint64(i+1), uint64(i+1)
		a := ibMessage(viaHeur, &fa, &ib.Message{Packet: &p, Msg: &m})
		b := direct.IBMessage(&fb, &p, &m)
		if a != b || len(fa.PDUs) != len(fb.PDUs) || len(fa.Findings) != len(fb.Findings) {
			t.Fatalf("message %d (kind %v, QP %d, % x): heuristic %v (%d PDUs, %d findings), IBMessage %v (%d, %d)",
				i, m.Kind, m.QP, data, a, len(fa.PDUs), len(fa.Findings), b, len(fb.PDUs), len(fb.Findings))
		}
		if a {
			taken++
		}
	}
	if taken == 0 {
		t.Fatal("no message taken: the test compares only declines")
	}
}
