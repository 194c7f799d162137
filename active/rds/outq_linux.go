package rds

import (
	"net"
	"syscall"
	"unsafe"
)

// outq returns the octets in c's send queue not yet acknowledged by the peer
// (SIOCOUTQ: write_seq - snd_una), so written - outq is what TCP acked.
func outq(c net.Conn) (int, bool) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return 0, false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int32
	var errno syscall.Errno
	if rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&n)))
	}) != nil || errno != 0 {
		return 0, false
	}
	return int(n), true
}
