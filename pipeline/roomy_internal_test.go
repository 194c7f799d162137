package pipeline

import (
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// roomy: the wide prefetch ring while the tables hold under a quarter of
// their budget.
func TestRoomy(t *testing.T) {
	b := budget.New(1000)
	a := b.Register("t", nil)
	for _, c := range []struct {
		used int64
		want bool
	}{{0, true}, {249, true}, {250, false}, {1000, false}} {
		a.Charge(c.used - a.Used())
		if got := roomy(b); got != c.want {
			t.Errorf("%d of 1000 used: roomy %v", c.used, got)
		}
	}
}
