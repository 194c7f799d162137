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

// First maps in s's whole array (Cap) the first time a reader is about to
// fill it (*taken false; First sets it) when an array filled before it came
// full (full): the input is large, so this one will likely fill too. An
// array of records that fills is written all over; one of a small input is
// not, and mapping it in would cost pages it never uses. It reports whether
// it mapped s in. (2048 packets are 128 KiB: 32 page faults of ~12 µs on
// the paravirtualised test machines, against ~2.5 µs a page here.)
func First[T any](s []T, taken *bool, full bool) bool {
	if *taken {
		return false
	}
	*taken = true
	if full {
		Cap(s)
	}
	return full
}
