package prefetch

import "unsafe"

// lines issues PREFETCHT0 for n lines from p's (prefetch_amd64.s).
//
//go:noescape
func lines(p unsafe.Pointer, n uintptr)
