package prefault

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// unsupported is set once the kernel says it has no MADV_POPULATE_*
// (EINVAL before 5.14): no call is made again.
var unsupported atomic.Bool

var pageSize = uintptr(unix.Getpagesize())

func populate(addr, n uintptr) {
	if unsupported.Load() {
		return
	}
	switch madvise(addr, n) {
	case unix.EINVAL, unix.ENOSYS, unix.EPERM:
		unsupported.Store(true)
	}
	// Other errors (ENOMEM, EFAULT: a page that cannot be mapped) leave
	// the pages to fault in as usual.
}

// upto is populate over a range that may run past the mapping: its EINVAL
// may be that end, so it says nothing about the kernel.
func upto(addr, n uintptr) {
	if !unsupported.Load() {
		madvise(addr, n)
	}
}

// madvise wants a page-aligned start; populating the rest of the first
// page (someone else's bytes) maps it in and changes nothing else.
func madvise(addr, n uintptr) unix.Errno {
	start := addr &^ (pageSize - 1)
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, start, addr+n-start, unix.MADV_POPULATE_WRITE)
	return errno
}
