package dissect

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// TestTCPTablePeerCache checks the shortcuts of tcpTable against its map:
// get's most-recent entry and peer's remembered reverse direction must
// give what a map lookup gives, through creations, drops of the oldest
// entry (whose index is then reused by another key) and resets, on a few
// endpoints so that pairs form, break and form again.
func TestTCPTablePeerCache(t *testing.T) {
	var tab tcpTable
	tab.init(budget.New(0))
	ends := []netip.AddrPort{
		netip.MustParseAddrPort("192.0.2.1:1000"), netip.MustParseAddrPort("192.0.2.2:2000"),
		netip.MustParseAddrPort("192.0.2.3:3000"), netip.MustParseAddrPort("[2001:db8::1]:1000"),
	}
	rnd := rand.New(rand.NewPCG(7, 8))
	now := uint64(0)
	for step := 0; step < 20000; step++ {
		k := tcpHalf{src: ends[rnd.IntN(len(ends))], dst: ends[rnd.IntN(len(ends))]}
		switch r := rnd.IntN(100); {
		case r < 10 && tab.d(0).prev != 0:
			tab.dropOldest()
		case r == 10:
			tab.reset()
		default:
			now++
			i, created, _ := tab.get(k, now)
			if want := tab.idx[k]; i != want || tab.d(i).key != k {
				t.Fatalf("step %d: get(%v) = %d (created %v), map has %d", step, k, i, created, want)
			}
			if tab.d(0).next != i {
				t.Fatalf("step %d: %d is not the most recent entry", step, i)
			}
			if got, want := tab.peer(i), tab.idx[tcpHalf{src: k.dst, dst: k.src}]; got != want {
				t.Fatalf("step %d: peer of %v = %d, map has %d", step, k, got, want)
			}
		}
	}
}
