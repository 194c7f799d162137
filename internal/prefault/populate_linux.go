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
	// madvise wants a page-aligned start; populating the rest of the first
	// page (someone else's bytes) maps it in and changes nothing else.
	start := addr &^ (pageSize - 1)
	end := addr + n
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_POPULATE_WRITE)
	switch errno {
	case unix.EINVAL, unix.ENOSYS, unix.EPERM:
		unsupported.Store(true)
	}
	// Other errors (ENOMEM, EFAULT: a page that cannot be mapped) leave
	// the pages to fault in as usual.
}
