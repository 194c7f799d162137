package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// setMemoryLimit sets the soft limit and, under it, gcPercent; GOGC and
// GOMEMLIMIT given in the environment win.
func TestSetMemoryLimitGCPercent(t *testing.T) {
	oldPct, oldLim := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { gcGen.Add(1); debug.SetGCPercent(oldPct); debug.SetMemoryLimit(oldLim) })
	limit := budget.ProcessSize(2 * budget.DefaultLimit)
	for _, c := range []struct {
		gogc, gomemlimit string
		pct              int
		lim              int64
	}{
		{"", "", gcPercent, limit},
		{"50", "", 100, limit},
		{"", "1GiB", 100, math.MaxInt64},
	} {
		t.Setenv("GOGC", c.gogc)
		t.Setenv("GOMEMLIMIT", c.gomemlimit)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		setMemoryLimit(0, 2)
		if c.gogc == "" && c.gomemlimit == "" {
			afterFirstGC(t)
		}
		if pct, lim := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); pct != c.pct || lim != c.lim {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: GC percent %d, limit %d; want %d, %d", c.gogc, c.gomemlimit, pct, lim, c.pct, c.lim)
		}
	}
}

// Before the first collection only firstGC of the limit starts one; the
// collection that ends that phase is the first after the call, not one
// whose cleanup belongs to an earlier call.
func TestSetMemoryLimitFirstGC(t *testing.T) {
	oldPct, oldLim := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { gcGen.Add(1); debug.SetGCPercent(oldPct); debug.SetMemoryLimit(oldLim) })
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	limit := budget.ProcessSize(budget.DefaultLimit)
	setMemoryLimit(budget.DefaultLimit/2, 1) // an earlier run, whose cleanup is still due
	setMemoryLimit(0, 1)
	if pct, lim := gcSettings(); pct != -1 || lim != firstGC(limit) || lim >= limit {
		t.Errorf("before the first collection: GC percent %d, limit %d; want -1, %d (< %d)", pct, lim, firstGC(limit), limit)
	}
	afterFirstGC(t)
	if pct, lim := gcSettings(); pct != gcPercent || lim != limit {
		t.Errorf("after it: GC percent %d, limit %d; want %d, %d", pct, lim, gcPercent, limit)
	}
}

// afterFirstGC collects until the cleanup of setMemoryLimit's sentinel has
// set the GC percent back on (it runs on the runtime's cleanup goroutine:
// waited for, not slept on).
func afterFirstGC(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		runtime.GC()
		if pct, _ := gcSettings(); pct != -1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the collector is still off 30 s after the first collection")
		}
		time.Sleep(time.Millisecond)
	}
}

// gcSettings reads the GC percent (-1: off) and the memory limit without
// setting them (a set could undo the cleanup's, run at the same moment).
func gcSettings() (pct int, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int(int64(s[0].Value.Uint64())), int64(s[1].Value.Uint64()) // off: -1 as a uint64
}
