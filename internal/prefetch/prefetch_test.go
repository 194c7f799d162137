package prefetch

import (
	"testing"
	"unsafe"
)

// count covers every line the octets touch, a partial one at either end
// included, up to maxLines.
func TestCount(t *testing.T) {
	for _, c := range []struct{ p, n, want uintptr }{
		{0, 1, 1}, {0, 64, 1}, {0, 65, 2}, {63, 1, 1}, {63, 2, 2}, {1, 64, 2},
		{64, 128, 2}, {100, 240, 5}, {0, 10 << 10, maxLines}, {4095, 2, 2},
	} {
		if got := count(c.p, c.n); got != c.want {
			t.Errorf("count(%d, %d) = %d, want %d", c.p, c.n, got, c.want)
		}
		// the last line fetched, from p in steps of Line, holds the last octet
		if last := c.p + (c.want-1)*Line; c.want < maxLines && (last/Line != (c.p+c.n-1)/Line) {
			t.Errorf("count(%d, %d): the last fetch at %d is not in the last octet's line", c.p, c.n, last)
		}
	}
}

// Range reads nothing and faults on nothing: nil, an empty range, a range
// of live memory whatever its alignment.
func TestRange(t *testing.T) {
	Range(nil, 0)
	Range(nil, 4096)
	b := make([]byte, 1000)
	for off := range 70 {
		Range(unsafe.Pointer(&b[off]), uintptr(len(b)-off))
	}
	for i, c := range b {
		if c != 0 {
			t.Fatalf("octet %d changed", i)
		}
	}
}
