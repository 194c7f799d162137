package rds

import (
	"encoding/binary"
	"math/rand"
	"testing"
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
