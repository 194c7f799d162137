package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// setMemoryLimit sets the soft limit and, under it, gcPercent; GOGC and
// GOMEMLIMIT given in the environment win.
func TestSetMemoryLimitGCPercent(t *testing.T) {
	oldPct, oldLim := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(oldPct); debug.SetMemoryLimit(oldLim) })
	for _, c := range []struct {
		gogc, gomemlimit string
		pct              int
		lim              int64
	}{
		{"", "", gcPercent, budget.ProcessSize(2 * budget.DefaultLimit)},
		{"50", "", 100, budget.ProcessSize(2 * budget.DefaultLimit)},
		{"", "1GiB", 100, math.MaxInt64},
	} {
		t.Setenv("GOGC", c.gogc)
		t.Setenv("GOMEMLIMIT", c.gomemlimit)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		setMemoryLimit(0, 2)
		if pct, lim := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); pct != c.pct || lim != c.lim {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: GC percent %d, limit %d; want %d, %d", c.gogc, c.gomemlimit, pct, lim, c.pct, c.lim)
		}
	}
}
