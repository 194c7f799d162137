package prefault

import (
	"runtime"
	"unsafe"
)

// Cap maps in the pages of s's whole backing array (up to its capacity) as
// written to: for an array of records that a reader is about to fill, such
// as a batch's packets. Like Write, only on memory that will be filled soon.
func Cap[T any](s []T) {
	s = s[:cap(s)]
	if len(s) > 0 {
		populate(uintptr(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(s[0]))
		runtime.KeepAlive(s)
	}
}
