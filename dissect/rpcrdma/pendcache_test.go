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
	for round := range 3 {
		for i, p := range ps {
			if got := find(p); got != p {
				t.Fatalf("round %d, call %d: lookup %p, want %p", round, i, got, p)
			}
		}
		if round == 1 {
			d.pending.Clear() // the third round must not need pending
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

// One connection's calls read one after another (each unlinked before the
// next is looked up) leave the cache unused: they never hash.
func TestPendCacheOneFlow(t *testing.T) {
	d := &State{advertised: map[advKey]bool{}}
	d.calls.prev, d.calls.next = &d.calls, &d.calls
	d.src, d.dst, d.qp = netip.AddrPortFrom(netip.MustParseAddr("192.0.2.2"), 0), netip.AddrPortFrom(netip.MustParseAddr("192.0.2.1"), 0), 0x11
	for h := uint32(1); h < 100; h++ {
		p := &pending{conn: conn{d.src, d.dst}, qp: d.qp, reads: []ReadSegment{{Segment: Segment{Handle: h}}}}
		d.pending.Set(pendKey{p.conn, p.qp, h}, p)
		p.prev, p.next = d.calls.prev, &d.calls
		d.calls.prev.next = p
		d.calls.prev = p
		for range 3 {
			if got := d.lookup(h); got != p {
				t.Fatalf("handle %d: lookup %p, want %p", h, got, p)
			}
		}
		d.unlinkCall(p)
		if got := d.lookup(h); got != nil {
			t.Fatalf("handle %d: found after unlinkCall", h)
		}
	}
	if d.interleaved {
		t.Fatal("one connection's calls in turn marked interleaved")
	}
}
