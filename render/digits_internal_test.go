package render

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// TestDecDigits checks dissect.DecDigits against strconv at every power of ten and
// its neighbours, and at the ends of uint64.
func TestDecDigits(t *testing.T) {
	vals := []uint64{0, 1, 9, ^uint64(0), ^uint64(0) - 1}
	for p := uint64(1); p <= 1e19; p *= 10 {
		vals = append(vals, p-1, p, p+1)
		if p == 1e19 {
			break
		}
	}
	for b := 0; b < 64; b++ {
		vals = append(vals, uint64(1)<<b, uint64(1)<<b-1)
	}
	for _, v := range vals {
		if got, want := dissect.DecDigits(v), len(strconv.FormatUint(v, 10)); got != want {
			t.Errorf("decDigits(%d) = %d, want %d", v, got, want)
		}
		if got, want := string(appendUintPad(nil, v, 6)), fmt.Sprintf("%6d", v); got != want {
			t.Errorf("appendUintPad(%d, 6) = %q", v, got)
		}
	}
}
