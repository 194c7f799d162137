package main

import (
	"runtime"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rootBudget bounds what building the command tree may allocate: every
// run pays it before its first frame (`rdx read -q` of a small capture).
// It was ~645 KB when read's -z completion built a whole engine up front.
const rootBudget = 320 << 10

// Building the command tree stays cheap: work only some commands or a shell
// completion need (the -z table list, ...) is done when asked for.
func TestRootIsCheap(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	newRoot(io) // warm: once-only package state
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	newRoot(io)
	runtime.ReadMemStats(&b)
	if got := b.TotalAlloc - a.TotalAlloc; got > rootBudget {
		t.Errorf("newRoot allocated %d bytes, budget %d", got, rootBudget)
	}
}
