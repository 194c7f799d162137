package rpcrdma

import (
	"net/netip"
	"testing"
)

// The READ responses of 64 clients' calls interleave: lookup finds each
// call from the pending cache (pending emptied behind it still finds them
// all), and a call unlinked leaves the cache, so that its handle is not
// found again.
func TestPendCache(t *testing.T) {
	d := &State{advertised: map[advKey]bool{}}
	d.calls.prev, d.calls.next = &d.calls, &d.calls
	srv := netip.AddrPortFrom(netip.MustParseAddr("192.0.2.1"), 0)
	cl := netip.MustParseAddr("198.18.0.0")
	var ps []*pending
	for range 64 {
		cl = cl.Next()
		p := &pending{conn: conn{netip.AddrPortFrom(cl, 0), srv}, qp: 0x11, reads: []ReadSegment{{Segment: Segment{Handle: 0x1000}}}}
		d.pending.Set(pendKey{p.conn, p.qp, 0x1000}, p)
		p.prev, p.next = d.calls.prev, &d.calls
		d.calls.prev.next = p
		d.calls.prev = p
		ps = append(ps, p)
	}
	find := func(p *pending) *pending {
		d.src, d.dst, d.qp = p.conn.req, p.conn.resp, p.qp
		return d.lookup(0x1000)
	}
	for round := range 2 {
		for i, p := range ps {
			if got := find(p); got != p {
				t.Fatalf("round %d, call %d: lookup %p, want %p", round, i, got, p)
			}
		}
		if round == 0 {
			d.pending.Clear() // the second round must not need pending
		}
	}
	for _, p := range ps {
		d.pending.Set(pendKey{p.conn, p.qp, 0x1000}, p)
	}
	d.unlinkCall(ps[5])
	if got := find(ps[6]); got != ps[6] { // d.last is now ps[6], not ps[5]
		t.Fatalf("call 6: lookup %p", got)
	}
	if got := find(ps[5]); got != nil {
		t.Fatalf("an unlinked call found: %p", got)
	}
}
