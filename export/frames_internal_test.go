package export

import (
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
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

// TestAddrPair: rows of the last pair of addresses, either way round,
// take its texts, which are the addresses' own in every row of every
// batch: also when a pair first seen late in a batch (after the arena
// stopped growing) goes on into the next one, whose texts reuse the
// arena.
func TestAddrPair(t *testing.T) {
	ft, err := newFrameTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	ft.eng = dissect.NewEngine(dissect.Options{})
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	c, d := netip.MustParseAddr("198.51.100.10"), netip.MustParseAddr("2001:db8::20")
	want := make([][2]string, batchRows)
	for i := range 4 * batchRows {
		src, dst := a, b
		if i >= batchRows+batchRows/2 { // from the middle of the second batch on
			src, dst = c, d
		}
		if i%2 == 1 {
			src, dst = dst, src
		}
		f := &dissect.Frame{Num: uint64(i + 1), Proto: "UDP"}
		f.Net.HasIP, f.Net.Src, f.Net.Dst = true, src, dst
		row := ft.n
		ft.addFast(f)
		want[row] = [2]string{src.String(), dst.String()}
		if row != batchRows-1 {
			continue
		}
		// the batch is full (written now, were a file open): every row's texts
		for k, w := range want {
			if r := &ft.rows.rows[k]; r.Src != w[0] || r.Dst != w[1] {
				t.Fatalf("frame %d: src %q dst %q, want %q %q", i+1-batchRows+1+k, r.Src, r.Dst, w[0], w[1])
			}
		}
	}
}
