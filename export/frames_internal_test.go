package export

import (
	"net/netip"
	"testing"
)

// TestAddrText: an address's text from the cache is its own whatever the
// order addresses come in, past the cache's size too (so slots are taken
// over), IPv4 apart from its IPv4-mapped IPv6 form; the addresses of a
// batch are formatted once, and a new batch formats them again (the
// former batch's arena is reused).
func TestAddrText(t *testing.T) {
	ft, err := newFrameTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	addrs := []netip.Addr{netip.MustParseAddr("198.51.100.1"), netip.MustParseAddr("198.51.100.2"),
		netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("198.51.100.3"), netip.MustParseAddr("198.51.100.4"),
		netip.MustParseAddr("::ffff:198.51.100.1"), netip.MustParseAddr("198.51.100.5")}
	for i := 0; i < 4*addrSlots; i++ { // more addresses than slots
		addrs = append(addrs, netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}))
	}
	for i := 0; i < 20000; i++ {
		a := addrs[(i*i+i/3)%len(addrs)]
		if got := ft.addrText(a); got != a.String() {
			t.Fatalf("%d: %s is %q", i, a, got)
		}
	}
	// 64 hosts: each formatted once in a batch
	hosts := addrs[len(addrs)-64:]
	for _, a := range hosts {
		ft.addrText(a)
	}
	slots := map[*addrText]bool{}
	for _, a := range hosts {
		slots[ft.slot(a)] = true
	}
	n := len(ft.rows.arena)
	for i := 0; i < 1000; i++ {
		ft.addrText(hosts[i%len(hosts)])
	}
	if len(slots) == len(hosts) && len(ft.rows.arena) != n {
		t.Errorf("64 hosts in distinct slots formatted again: arena %d → %d octets", n, len(ft.rows.arena))
	}
	if len(slots) < len(hosts)*3/4 {
		t.Errorf("64 hosts share slots: %d slots", len(slots))
	}
	ft.batch++
	ft.rows.arena = ft.rows.arena[:0]
	for _, a := range hosts[:2] {
		if got := ft.addrText(a); got != a.String() || len(ft.rows.arena) == 0 {
			t.Fatalf("new batch: %s is %q, arena %d octets", a, got, len(ft.rows.arena))
		}
	}
}
