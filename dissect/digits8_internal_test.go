package dissect

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestDigits8: the word digits8 makes is v's eight digits, leading zeros
// included. Its two 4-digit lanes never meet (no product crosses into the
// other lane), so every value of each lane beside a few of the other,
// plus a random sample, covers the ranges the multiply-shift divisions
// must be exact in.
func TestDigits8(t *testing.T) {
	check := func(v uint64) {
		var got [8]byte
		binary.LittleEndian.PutUint64(got[:], digits8(v))
		if want := strconv.FormatUint(v+1e8, 10)[1:]; string(got[:]) != want {
			t.Fatalf("digits8(%d) = %q, want %q", v, got[:], want)
		}
	}
	for a := uint64(0); a < 1e4; a++ {
		for _, b := range []uint64{0, 1, 99, 100, 5000, 9999, a, 9999 - a} {
			check(a*1e4 + b)
			check(b*1e4 + a)
		}
	}
	rnd := rand.New(rand.NewPCG(9, 10))
	for range 200000 {
		check(rnd.Uint64N(1e8))
	}
}
