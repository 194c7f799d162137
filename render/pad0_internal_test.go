package render

import (
	"fmt"
	"math"
	"testing"
)

// appendUintPad0 writes what %0*d does, at every width the Time column and
// the dates use and at values wider than the width.
func TestAppendUintPad0(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 99, 100, 999, 1000, 1400, 123456789, 999999999, 1e9, math.MaxUint64}
	for v := uint64(1); v < 1e12; v = v*3 + 1 {
		vals = append(vals, v)
	}
	for _, v := range vals {
		for w := range 11 {
			if got, want := string(appendUintPad0([]byte("x"), v, w)), fmt.Sprintf("x%0*d", w, v); got != want {
				t.Fatalf("appendUintPad0(%d, %d) = %q, want %q", v, w, got, want)
			}
		}
	}
}
