// Package startup does what makes the rest of a run's start cheaper, before
// the packages that allocate most at init (tablewriter, gonum/plot, rdx's
// dissectors) run theirs: cmd/rdx imports it first, for its side effects
// only. GODEBUG=inittrace=1 shows where it runs: after ~130 KB of
// allocations by the standard library's inits, before 1.8 MB by the rest.
package startup

import (
	"os"
	"runtime"
	"strings"
	"unsafe"

	"github.com/rdx-project/rdx/internal/prefault"
)

func init() {
	// Sampling allocations for a heap profile walks the stack every 512 KiB
	// allocated on average and the first sample builds the profile's
	// tables: package init alone allocates ~2 MB. Only --memprofile reads
	// the samples, and the runtime wants the rate set as early as possible.
	if !WantsMemProfile(os.Args[1:]) {
		runtime.MemProfileRate = 0
	}
	// What follows fills the heap's next 3 MB before main (3.2 MB in use
	// there, of 2 MB allocated: a span per size class), and a read more: map
	// it in now, one system call instead of a page fault per page, as far
	// as the heap has mapped it (the rest of its first 4 MB chunk).
	heapProbe = new([16]byte)
	prefault.Upto(uintptr(unsafe.Pointer(heapProbe)), prefaultBytes)
	heapProbe = nil
}

// heapProbe is a fresh heap object: where it lies is how far the heap is
// used. A package variable, so that the allocation is on the heap.
var heapProbe *[16]byte

// prefaultBytes is how much of the heap, at most, init maps in.
const prefaultBytes = 4 << 20

// WantsMemProfile reports a --memprofile flag among args (before a "--").
func WantsMemProfile(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--memprofile" || strings.HasPrefix(a, "--memprofile=") {
			return true
		}
	}
	return false
}
