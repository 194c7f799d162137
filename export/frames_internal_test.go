package export

import (
	"net/netip"
	"testing"
)

// TestAddrText: an address's text from the cache is its own whatever the
// order addresses come in, past the cache's size too, and a cached one
// is not formatted again.
func TestAddrText(t *testing.T) {
	ft, err := newFrameTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	addrs := []netip.Addr{netip.MustParseAddr("198.51.100.1"), netip.MustParseAddr("198.51.100.2"),
		netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("198.51.100.3"), netip.MustParseAddr("198.51.100.4"),
		netip.MustParseAddr("::ffff:198.51.100.1"), netip.MustParseAddr("198.51.100.5")}
	for i := 0; i < 100; i++ {
		a := addrs[(i*i+i/3)%len(addrs)]
		if got := ft.addrText(a); got != a.String() {
			t.Fatalf("%d: %s is %q", i, a, got)
		}
	}
	for _, a := range addrs[:2] {
		ft.addrText(a)
	}
	n := len(ft.rows.arena)
	for i := 0; i < 10; i++ {
		ft.addrText(addrs[i%2])
	}
	if len(ft.rows.arena) != n {
		t.Errorf("two addresses in turn formatted again: arena %d → %d octets", n, len(ft.rows.arena))
	}
}
