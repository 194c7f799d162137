package main

import (
	"runtime"
	"testing"
)

// Heap-profile sampling is off unless --memprofile asks for it: main
// imports internal/startup, which turns it off before the other packages'
// inits allocate.
func TestMemProfileRate(t *testing.T) {
	if runtime.MemProfileRate != 0 {
		t.Errorf("MemProfileRate %d without --memprofile, want 0", runtime.MemProfileRate)
	}
}
