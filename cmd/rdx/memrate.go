package main

import (
	"os"
	"runtime"
	"strings"
)

// Sampling allocations for a heap profile walks the stack every 512 KiB
// allocated, a few percent of reading a capture whose tables fill up; only
// --memprofile reads the samples. Set before any bulk allocation, as the
// runtime asks.
func init() {
	if !wantsMemProfile(os.Args[1:]) {
		runtime.MemProfileRate = 0
	}
}

// wantsMemProfile reports a --memprofile flag among args.
func wantsMemProfile(args []string) bool {
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
