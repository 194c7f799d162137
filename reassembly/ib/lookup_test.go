package ib

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

// lookup tries the recent slot a stream's hint names first: streams whose
// hints collide (QPs 4 and 8 apart, both directions), more of them than
// recent slots, in random order, must each get their own stream, and the
// same one every time.
func TestLookupHintCollisions(t *testing.T) {
	a1, a2 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	var ps []Packet
	var resps []bool
	for _, qp := range []uint32{0x11, 0x19, 0x21, 0x15, 0x12} {
		for _, resp := range []bool{false, true} {
			ps = append(ps, Packet{Src: a1, Dst: a2, DestQP: qp}, Packet{Src: a2, Dst: a1, DestQP: qp})
			resps = append(resps, resp, resp)
		}
	}
	a := New()
	got := make([]*stream, len(ps))
	rng := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		i := rng.IntN(len(ps))
		s := a.lookup(&ps[i], resps[i])
		want := streamKey{src: ps[i].Src, dst: ps[i].Dst, qp: ps[i].DestQP, resp: resps[i]}
		if s.key != want {
			t.Fatalf("packet %d: stream of %+v, want %+v", i, s.key, want)
		}
		if got[i] != nil && got[i] != s {
			t.Fatalf("packet %d: a second stream for %+v", i, want)
		}
		got[i] = s
	}
	if len(a.streams) != len(ps) {
		t.Fatalf("%d streams, want %d", len(a.streams), len(ps))
	}
}

// The per-opcode table says exactly what its defining functions say, for
// every opcode, with and without the AETH or RETH.
func TestOpClasses(t *testing.T) {
	for op := range 256 {
		o := uint8(op)
		k, pos, ok := classifyOp(o)
		if gk, gpos, gok := classify(o); gk != k || gpos != pos || gok != ok {
			t.Errorf("opcode %#x: classify %v %d %v, want %v %d %v", op, gk, gpos, gok, k, pos, ok)
		}
		for _, has := range []bool{false, true} {
			if isAck(o, has) != (ackOp(o) && has) || isReadRequest(o, has) != (readRequestOp(o) && has) {
				t.Errorf("opcode %#x (header %v): isAck %v, isReadRequest %v", op, has, isAck(o, has), isReadRequest(o, has))
			}
		}
	}
	// spot checks of the definitions: RC ACK, UD "ACK" (none), RC READ request, RC SEND Only, CNP
	if !ackOp(0x11) || ackOp(0x71) || !readRequestOp(0x0C) || readRequestOp(0x6C) {
		t.Error("ackOp/readRequestOp wrong")
	}
	if k, pos, ok := classify(0x04); k != KindSend || pos != posOnly || !ok {
		t.Error("SEND Only misclassified")
	}
	if _, _, ok := classify(0x81); ok {
		t.Error("CNP classified as a message packet")
	}
}

// The stream cache holds the streams of 64 clients talking to one server
// on the same QP numbers: after one round each lookup is answered from the
// cache (the map emptied behind it still finds them). Five keys of one
// slot (of two entries) each get their own stream, the same every time,
// and a dropped stream leaves the cache.
func TestLookupCache(t *testing.T) {
	srv, cl := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("198.18.0.0")
	var ps []Packet
	for range 64 {
		cl = cl.Next()
		ps = append(ps, Packet{Src: cl, Dst: srv, DestQP: 0x11}, Packet{Src: srv, Dst: cl, DestQP: 0x12})
	}
	a := New()
	first := make([]*stream, len(ps))
	for i := range ps {
		first[i] = a.lookup(&ps[i], false)
	}
	clear(a.streams)
	for i := range ps {
		if s := a.lookup(&ps[i], false); s != first[i] {
			t.Fatalf("packet %d: not the cached stream", i)
		}
	}

	a = New()
	ps = ps[:0]
	for qp := uint32(1); len(ps) < 5; qp++ {
		if slotOf(srv, cl, qp, false) == slotOf(srv, cl, 1, false) {
			ps = append(ps, Packet{Src: srv, Dst: cl, DestQP: qp})
		}
	}
	got := make([]*stream, len(ps))
	rng := rand.New(rand.NewPCG(11, 12))
	for range 10000 {
		i := rng.IntN(len(ps))
		s := a.lookup(&ps[i], false)
		if s.key.qp != ps[i].DestQP || (got[i] != nil && got[i] != s) {
			t.Fatalf("packet %d: stream of %+v", i, s.key)
		}
		got[i] = s
	}
	for _, s := range got {
		a.dropStream(s, "test")
		for _, c := range a.cache {
			if c[0] == s || c[1] == s {
				t.Fatal("a dropped stream still cached")
			}
		}
		for _, r := range a.recent {
			if r == s {
				t.Fatal("a dropped stream still recent")
			}
		}
	}
}

// A caller's Hash is only where lookup looks first: with the right hash,
// a wrong one, or one for the other direction, every packet of 64 clients'
// streams still gets its own stream, the same one every time; a right hash
// takes the cached stream (no map) like KeyHash itself.
func TestLookupCallerHash(t *testing.T) {
	srv, cl := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("198.18.0.0")
	var ps []Packet
	var resps []bool
	for range 64 {
		cl = cl.Next()
		for _, resp := range []bool{false, true} {
			ps = append(ps, Packet{Src: cl, Dst: srv, DestQP: 0x11}, Packet{Src: srv, Dst: cl, DestQP: 0x12})
			resps = append(resps, resp, resp)
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, mode := range []string{"right", "wrong", "other direction"} {
		a := New()
		got := make([]*stream, len(ps))
		for range 10000 {
			i := rng.IntN(len(ps))
			p, resp := ps[i], resps[i]
			p.HasHash, p.HashResp, p.Hash = true, resp, KeyHash(p.Src, p.Dst, p.DestQP, resp)
			switch mode {
			case "wrong":
				p.Hash = rng.Uint64()
			case "other direction":
				p.HashResp, p.Hash = !resp, rng.Uint64()
			}
			s := a.lookup(&p, resp)
			if want := (streamKey{src: p.Src, dst: p.Dst, qp: p.DestQP, resp: resp}); s.key != want {
				t.Fatalf("%s hash, packet %d: stream of %+v, want %+v", mode, i, s.key, want)
			}
			if got[i] != nil && got[i] != s {
				t.Fatalf("%s hash, packet %d: a second stream", mode, i)
			}
			got[i] = s
		}
		if len(a.streams) != len(ps) {
			t.Fatalf("%s hash: %d streams, want %d", mode, len(a.streams), len(ps))
		}
		if mode == "right" {
			clear(a.streams) // every stream is cached: the right hash finds each without the map
			for i := range ps {
				p := ps[i]
				p.HasHash, p.HashResp, p.Hash = true, resps[i], KeyHash(p.Src, p.Dst, p.DestQP, resps[i])
				if s := a.lookup(&p, resps[i]); s != got[i] {
					t.Fatalf("right hash, packet %d: not the cached stream", i)
				}
			}
		}
	}
}
