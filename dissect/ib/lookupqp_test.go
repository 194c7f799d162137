package ib

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	ibasm "github.com/rdx-project/rdx/reassembly/ib"
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
	lookupAll(t, d, keys, 5)
}

// The QP cache holds the keys of 64 clients talking to one server on the
// same QP numbers (as genroce -flows 64 and NFS/RDMA servers do): after
// one round every lookup is answered from the cache without the map, and
// keys that share a slot (more than its two entries) still each find
// their own state through the map.
func TestLookupQPCache(t *testing.T) {
	srv := netip.MustParseAddr("192.0.2.1")
	cl := netip.MustParseAddr("198.18.0.0")
	var keys []qpKey
	for range 64 {
		cl = cl.Next()
		for _, resp := range []bool{false, true} {
			keys = append(keys, qpKey{src: cl, dst: srv, qp: 0x11, resp: resp}, qpKey{src: srv, dst: cl, qp: 0x12, resp: resp})
		}
	}
	d := newState()
	for i := range keys {
		d.qps[keys[i]] = int32(i)
	}
	for round := range 2 {
		for i := range keys {
			k := &keys[i]
			got, ok := d.lookupQP(&addrPair{src: k.src, dst: k.dst}, k.qp, k.resp)
			if !ok || got != int32(i) {
				t.Fatalf("round %d, key %d (%+v): state %d, %v", round, i, k, got, ok)
			}
		}
		if round == 0 {
			clear(d.qps) // the second round must not need the map
		}
	}

	// five keys of one slot (of two entries): the ones it does not hold
	// are found through the map, never wrongly
	d = newState()
	keys = keys[:0]
	for qp := uint32(1); len(keys) < 5; qp++ {
		k := qpKey{src: srv, dst: cl, qp: qp}
		if qpSlot(k.src, k.dst, k.qp, k.resp) == qpSlot(srv, cl, 1, false) {
			keys = append(keys, k)
		}
	}
	lookupAll(t, d, keys, 9)
	d.clearQPs()
	if _, ok := d.lookupQP(&addrPair{src: srv, dst: cl}, keys[0].qp, false); ok {
		t.Fatal("a key found after clearQPs")
	}
}

// lookupAll gives key i state i in d, then looks the keys up in a random
// order (seeded seed, seed+1), each answer checked against its state.
func lookupAll(t *testing.T, d *State, keys []qpKey, seed uint64) {
	t.Helper()
	for i := range keys {
		d.qps[keys[i]] = int32(i)
	}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for range 10000 {
		i := rng.IntN(len(keys))
		k := &keys[i]
		got, ok := d.lookupQP(&addrPair{src: k.src, dst: k.dst}, k.qp, k.resp)
		if !ok || got != int32(i) {
			t.Fatalf("key %d (%+v): state %d, %v", i, keys[i], got, ok)
		}
	}
}

// lookupQP leaves the key's KeyHash in the addrPair when it computed it (a
// recent slot's miss, as with 64 clients), for the assembler, and asmPacket
// hands it on: the hash must be the key's, for the key's direction.
func TestLookupQPHash(t *testing.T) {
	srv, cl := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("198.18.0.0")
	d := newState()
	hashed := 0
	for i := range 64 {
		cl = cl.Next()
		for _, resp := range []bool{false, true} {
			for _, k := range []qpKey{{src: cl, dst: srv, qp: 0x11, resp: resp}, {src: srv, dst: cl, qp: 0x12, resp: resp}} {
				d.qps[k] = int32(i)
				e := addrPair{src: k.src, dst: k.dst}
				if _, ok := d.lookupQP(&e, k.qp, k.resp); !ok {
					t.Fatalf("%+v not found", k)
				}
				if !e.hashed {
					continue
				}
				hashed++
				if e.hashResp != k.resp || e.hash != ibasm.KeyHash(k.src, k.dst, k.qp, k.resp) {
					t.Fatalf("%+v: hash %#x for resp %v, want %#x", k, e.hash, e.hashResp, ibasm.KeyHash(k.src, k.dst, k.qp, k.resp))
				}
				var q ibasm.Packet
				p := &Packet{data: make([]byte, BTHLen), bth: 0, lrh: -1, grh: -1}
				p.asmPacket(&q, (*[BTHLen]byte)(p.data), &e, 1, 0)
				if !q.HasHash || q.Hash != e.hash || q.HashResp != e.hashResp {
					t.Fatalf("%+v: asmPacket hands on hash %#x (%v, resp %v)", k, q.Hash, q.HasHash, q.HashResp)
				}
			}
		}
	}
	if hashed == 0 {
		t.Fatal("no lookup hashed its key")
	}
}
