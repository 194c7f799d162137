package tcp

import (
	"fmt"
	"net/netip"
)

// Dir is the direction of a segment inside a connection: 0 is A→B, 1 is B→A
// for the FlowKey's normalized endpoints.
type Dir uint8

// FlowKey names a TCP connection independently of direction: A is the smaller
// endpoint (address, then port), so both directions map to the same key.
type FlowKey struct {
	A, B netip.AddrPort
}

// eq is k == *o, field by field (== on the struct calls memequal).
func (k *FlowKey) eq(o *FlowKey) bool {
	return k.A.Port() == o.A.Port() && k.B.Port() == o.B.Port() && k.A.Addr() == o.A.Addr() && k.B.Addr() == o.B.Addr()
}

// NewFlowKey returns the normalized key of the segment src→dst and the
// segment's direction in it.
func NewFlowKey(src, dst netip.AddrPort) (FlowKey, Dir) {
	if dst.Compare(src) < 0 {
		return FlowKey{A: dst, B: src}, 1
	}
	return FlowKey{A: src, B: dst}, 0
}

// Src and Dst return the endpoints of direction d.
func (k FlowKey) Src(d Dir) netip.AddrPort {
	if d == 0 {
		return k.A
	}
	return k.B
}

func (k FlowKey) Dst(d Dir) netip.AddrPort { return k.Src(d ^ 1) }

func (k FlowKey) String() string { return fmt.Sprintf("%s<->%s", k.A, k.B) }
