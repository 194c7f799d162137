package dissect_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

func TestAppendUintAsStrconv(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	vals := []uint64{0, 9, 10, 99, 100, 999, 1000, 12345, math.MaxUint32, math.MaxUint64}
	for i := 0; i < 50000; i++ {
		vals = append(vals, rnd.Uint64()>>rnd.IntN(64))
	}
	for _, v := range vals {
		if got, want := string(dissect.AppendUint([]byte("x"), v)), "x"+strconv.FormatUint(v, 10); got != want {
			t.Fatalf("AppendUint(%d) = %q, want %q", v, got, want)
		}
	}
}
