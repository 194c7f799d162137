// Package prefetch asks the processor to bring memory into its caches
// ahead of use, without waiting for it: a table that knows which cold
// entry it will touch next (the Rx call table's next least recently used
// entry, dropped at its next insert) fetches it while the frames between
// are decoded, where a load would stall on it then (perf annotate: the
// first load of a dropped entry's index slot held ~85% of the samples of
// the delete). Where there is no prefetch instruction (other than amd64)
// the functions do nothing.
package prefetch

import "unsafe"

// Line is the cache line size assumed: Range fetches one address per Line
// octets.
const Line = 64

// Range fetches the cache lines of the n octets at p (at most maxLines of
// them). p may be anything, nil included: a prefetch never faults.
func Range(p unsafe.Pointer, n uintptr) {
	if n > 0 {
		lines(p, count(uintptr(p), n))
	}
}

// count is the number of lines Range fetches for the n > 0 octets at p:
// those they touch, at most maxLines. Fetching from p on in steps of Line
// reaches the last: p%Line is below Line.
func count(p, n uintptr) uintptr { return min((p%Line+n+Line-1)/Line, maxLines) }

// maxLines bounds the lines one Range fetches: more than a few in flight
// at once only queue.
const maxLines = 8
