package ib

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

// lookupQP tries the slot a key's hint names first: keys whose hints
// collide (QPs 8 apart, the same direction), more keys than recent slots,
// in random order, must each still find their own state.
func TestLookupQPHintCollisions(t *testing.T) {
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	var keys []qpKey
	for _, qp := range []uint32{0x11, 0x19, 0x21, 0x12} {
		for _, resp := range []bool{false, true} {
			keys = append(keys, qpKey{src: a, dst: b, qp: qp, resp: resp}, qpKey{src: b, dst: a, qp: qp, resp: resp})
		}
	}
	d := newState()
	for i := range keys {
		d.qps[keys[i]] = int32(i)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		i := rng.IntN(len(keys))
		k := &keys[i]
		got, ok := d.lookupQP(&addrPair{k.src, k.dst}, k.qp, k.resp)
		if !ok || got != int32(i) {
			t.Fatalf("key %d (%+v): state %d, %v", i, keys[i], got, ok)
		}
	}
}
