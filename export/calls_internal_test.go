package export

import (
	"net/netip"
	"testing"
)

// TestPendingRDMABound: past maxPendingRDMA waiting calls the oldest goes
// (counted, for the findings row) and the table and its queue stay
// bounded however many calls are answered and made.
func TestPendingRDMABound(t *testing.T) {
	ct := &callsTable{}
	a := netip.MustParseAddr("198.51.100.1")
	for i := 0; i <= maxPendingRDMA; i++ {
		ct.keep(rdmaKey{xid: uint32(i), a: a}, rdmaHdr{xid: uint32(i)})
	}
	if len(ct.pending) != maxPendingRDMA || ct.evicted != 1 {
		t.Fatalf("%d pending, %d evicted", len(ct.pending), ct.evicted)
	}
	if _, ok := ct.pending[rdmaKey{xid: 0, a: a}]; ok {
		t.Error("the oldest call is still there")
	}
	// answered calls leave the map at once and the queue when compacted
	delete(ct.pending, rdmaKey{xid: 1, a: a})
	for i := 0; i < 5*maxPendingRDMA; i++ {
		k := rdmaKey{xid: uint32(maxPendingRDMA + 1 + i), a: a}
		ct.keep(k, rdmaHdr{})
		delete(ct.pending, k)
	}
	if ct.evicted != 1 || len(ct.queue) > 2*maxPendingRDMA+1 {
		t.Errorf("%d evicted, queue %d", ct.evicted, len(ct.queue))
	}
}
