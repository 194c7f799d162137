package ib

import (
	"net/netip"
	"testing"
)

// Flows merge: counters add, the first frame is the smaller and the last
// the larger, with the ACK state of the side that saw the flow last; a flow
// only one side saw is copied.
func TestFlowTableMerge(t *testing.T) {
	a := netip.MustParseAddr("192.0.2.1")
	b := netip.MustParseAddr("192.0.2.2")
	k1, k2 := flowKey{src: a, dst: b, qp: 0x11}, flowKey{src: b, dst: a, qp: 0x12}
	var x, y flowTable
	*x.get(k1, 5) = flowStat{transport: 0, pkts: 3, payload: 300, gaps: 1, acks: 2, coalesced: 1, naks: 1, rnr: 1,
		fecn: 1, becn: 1, cnps: 1, ce: 1, dups: 1, lastAck: 7, ackSeen: true, first: 5, last: 9}
	*y.get(k1, 2) = flowStat{transport: 1, pkts: 4, payload: 40, gaps: 2, acks: 1, coalesced: 2, naks: 2, rnr: 2,
		fecn: 2, becn: 2, cnps: 2, ce: 2, dups: 2, lastAck: 20, ackSeen: true, first: 2, last: 12}
	*y.get(k2, 3) = flowStat{pkts: 1, first: 3, last: 3}
	x.merge(&y)
	got := x.slab[x.m[k1]]
	want := flowStat{transport: 1, pkts: 7, payload: 340, gaps: 3, acks: 3, coalesced: 3, naks: 3, rnr: 3,
		fecn: 3, becn: 3, cnps: 3, ce: 3, dups: 3, lastAck: 20, ackSeen: true, first: 2, last: 12}
	if got != want {
		t.Errorf("merged %+v\nwant   %+v", got, want)
	}
	if s := x.get(k2, 99); s == nil || s.pkts != 1 || s.first != 3 {
		t.Errorf("flow only y saw: %+v", s)
	}
}

// Past maxFlows, the merged table keeps the flows met first, as one table
// does (it does not count later flows), and its lookups still work.
func TestFlowTableMergeLimit(t *testing.T) {
	var x, y flowTable
	key := func(i int) flowKey {
		return flowKey{src: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), dst: netip.MustParseAddr("192.0.2.1"), qp: 1}
	}
	for i := range maxFlows + 50 {
		sh := &x
		if i%2 == 1 {
			sh = &y
		}
		sh.get(key(i), uint64(i+1)).pkts = uint64(i)
	}
	x.merge(&y)
	if len(x.m) != maxFlows || len(x.slab) != maxFlows {
		t.Fatalf("%d flows (%d in the slab), want %d", len(x.m), len(x.slab), maxFlows)
	}
	for i := range maxFlows + 50 {
		j, ok := x.m[key(i)]
		if ok != (i < maxFlows) {
			t.Fatalf("flow %d kept %v", i, ok)
		}
		if ok && (x.slab[j].pkts != uint64(i) || x.slab[j].first != uint64(i+1)) {
			t.Fatalf("flow %d: %+v", i, x.slab[j])
		}
	}
}
