package dissect_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

func TestAppendUintAsStrconv(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	vals := []uint64{0, 9, 10, 99, 100, 999, 1000, 1009, 9999, 10000, 12345, math.MaxUint32, math.MaxUint64}
	for i := 0; i < 50000; i++ {
		vals = append(vals, rnd.Uint64()>>rnd.IntN(64))
	}
	for _, v := range vals {
		if got, want := string(dissect.AppendUint([]byte("x"), v)), "x"+strconv.FormatUint(v, 10); got != want {
			t.Fatalf("AppendUint(%d) = %q, want %q", v, got, want)
		}
	}
}

// AppendUintWidth writes what %*d and %0*d write at every width, below,
// at and above the number's digits (up to past the widest uint64).
func TestAppendUintWidthAsFmt(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	vals := []uint64{0, 1, 9, 10, 99, 100, 999999, 1e6, 1e18, 1e19 - 1, 1e19, math.MaxUint64}
	for i := 0; i < 3000; i++ {
		vals = append(vals, rnd.Uint64()>>rnd.IntN(64))
	}
	for _, v := range vals {
		for w := range 23 {
			if got, want := string(dissect.AppendUintWidth([]byte("x"), v, w, ' ')), fmt.Sprintf("x%*d", w, v); got != want {
				t.Fatalf("AppendUintWidth(%d, %d, ' ') = %q, want %q", v, w, got, want)
			}
			if got, want := string(dissect.AppendUintWidth([]byte("x"), v, w, '0')), fmt.Sprintf("x%0*d", w, v); got != want {
				t.Fatalf("AppendUintWidth(%d, %d, '0') = %q, want %q", v, w, got, want)
			}
		}
	}
}
