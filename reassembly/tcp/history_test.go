package tcp

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
)

// anomalies records a connection's anomalies and ignores the rest.
type anomalies struct{ got []Anomaly }

func (r *anomalies) Data(*Chunk)                {}
func (r *anomalies) Gap(*Gap)                   {}
func (r *anomalies) Anomaly(a *Anomaly)         { r.got = append(r.got, *a) }
func (r *anomalies) Close(FlowKey, CloseReason) {}

// TestHistoryRing checks the history ring as it grows (each growth moves the
// kept bytes to where their offsets fall in a ring twice the size) and
// wraps, and the delivery marks: after every delivery of a stream cut at
// random, a retransmission of recent bytes, some of them changed, must
// conflict exactly at the changed octets with the frame that delivered
// them (0 when older than the last four deliveries), and identical bytes
// never conflict. Another connection holds half of what histories may use
// until a third of the stream has passed, so the ring wraps at 1024 octets
// and grows to 4096 afterwards with wrapped content. Both directions: the
// client's and the server's segments take Add's two shortcuts and its slow
// path.
func TestHistoryRing(t *testing.T) {
	const hist = 4096
	rnd := rand.New(rand.NewPCG(9, 10))
	stream := make([]byte, 64<<10)
	for i := range stream {
		stream[i] = byte(rnd.Uint32())
	}
	for dir := range Dir(2) {
		rec := &anomalies{}
		// Histories may hold half the total: 4096 + 1024 while the other
		// connection's 4096 are there.
		a := NewAssembler(Config{History: hist, MaxBufferedTotal: 2 * (hist + 1024), NewConsumer: func(FlowKey) Consumer { return rec }})
		blocker := netip.MustParseAddrPort("192.0.2.7:7")
		a.Add(blocker, server, Segment{Seq: 0, SYN: true})
		a.Add(blocker, server, Segment{Seq: 1, Payload: make([]byte, hist)})
		grewWrapped := false
		src, dst := client, server
		if dir == 1 {
			src, dst = server, client
		}
		const isn = 0xfffff000 // the sequence numbers wrap too
		a.Add(src, dst, Segment{Seq: isn, SYN: true, Frame: 1})
		type mark struct{ off, frame uint64 }
		var marks []mark
		frame, off, buf := uint64(1), 0, []byte(nil)
		for off < len(stream) {
			frame++
			n := min(len(stream)-off, 1+rnd.IntN(900))
			buf = append(buf[:0], stream[off:off+n]...) // reused, as a capture reader's buffer
			if frame%3 == 0 {
				a.Add(client, netip0(), Segment{Seq: 7, Payload: []byte("x"), Frame: frame}) // another connection between
			}
			if off > len(stream)/3 && blocker.IsValid() {
				a.Add(blocker, server, Segment{Seq: 1 + hist, RST: true})
				blocker = netip.AddrPort{}
			}
			h := &a.conns[rec0Key(src, dst)].h[dir]
			size := len(h.hist)
			a.Add(src, dst, Segment{Seq: isn + 1 + uint32(off), Payload: buf, Frame: frame})
			if len(h.hist) > size && uint64(off) > uint64(size) {
				grewWrapped = true
			}
			clear(buf)
			marks = append(marks, mark{uint64(off), frame})
			off += n

			// A retransmission inside what the ring holds.
			kept := h.histLen
			lo := off - kept + rnd.IntN(kept)
			hi := lo + 1 + rnd.IntN(off-lo)
			re := slices.Clone(stream[lo:hi])
			changed := -1
			if rnd.IntN(2) == 0 {
				changed = lo + rnd.IntN(hi-lo)
				re[changed-lo] ^= 0x5a
			}
			frame++
			rec.got = rec.got[:0]
			before := a.Stats().Unverified
			a.Add(src, dst, Segment{Seq: isn + 1 + uint32(lo), Payload: re, Frame: frame})
			if u := a.Stats().Unverified; u != before {
				t.Fatalf("dir %d frame %d: %d octets unverified of [%d,%d) with %d delivered", dir, frame, u-before, lo, hi, off)
			}
			if changed < 0 {
				if len(rec.got) != 0 {
					t.Fatalf("dir %d frame %d: identical bytes conflict: %+v", dir, frame, rec.got)
				}
				continue
			}
			var prev uint64
			for i := len(marks) - 1; i >= max(0, len(marks)-4); i-- {
				if marks[i].off <= uint64(changed) {
					prev = marks[i].frame
					break
				}
			}
			want := Anomaly{Key: rec0Key(src, dst), Dir: dir, Kind: Conflict, Offset: int64(changed), Seq: isn + 1 + uint32(changed),
				Len: 1, Frame: frame, PrevFrame: prev}
			if len(rec.got) != 1 || rec.got[0] != want {
				t.Fatalf("dir %d frame %d: octet %d changed in [%d,%d):\n got %+v\nwant %+v", dir, frame, changed, lo, hi, rec.got, want)
			}
		}
		if !grewWrapped || len(a.conns[rec0Key(src, dst)].h[dir].hist) != hist {
			t.Fatalf("dir %d: the ring never grew after wrapping, or not to %d", dir, hist)
		}
	}
}

func netip0() netip.AddrPort { return netip.MustParseAddrPort("192.0.2.9:9") }

func rec0Key(src, dst netip.AddrPort) FlowKey { k, _ := NewFlowKey(src, dst); return k }

// TestHistoryRingSizes delivers segments around the full ring's size (the
// ring at full size takes remember's two-copy shortcut only for 1 to size
// octets; longer ones keep their tail) and then changes each kept octet in
// turn: every change must conflict exactly there, and the kept bytes
// unchanged must not.
func TestHistoryRingSizes(t *testing.T) {
	const hist = 64
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 63, 64, 65, 128, 200} {
		rec := &anomalies{}
		a := NewAssembler(Config{History: hist, NewConsumer: func(FlowKey) Consumer { return rec }})
		a.Add(client, server, Segment{Seq: 0, SYN: true})
		var stream []byte
		for k := 0; len(stream) < 3*hist+n; k++ {
			// An odd lead-in first, so the segments start mid-ring.
			p := make([]byte, n+k%2*7)
			for i := range p {
				p[i] = byte(rnd.Uint32())
			}
			a.Add(client, server, Segment{Seq: 1 + uint32(len(stream)), Payload: p, Frame: uint64(k + 1)})
			stream = append(stream, p...)
		}
		lo := len(stream) - hist
		a.Add(client, server, Segment{Seq: 1 + uint32(lo), Payload: stream[lo:], Frame: 99})
		if len(rec.got) != 0 {
			t.Fatalf("n %d: identical bytes conflict: %+v", n, rec.got)
		}
		for c := lo; c < len(stream); c++ {
			re := slices.Clone(stream[lo:])
			re[c-lo] ^= 0xa5
			rec.got = rec.got[:0]
			a.Add(client, server, Segment{Seq: 1 + uint32(lo), Payload: re, Frame: 100})
			if len(rec.got) != 1 || rec.got[0].Kind != Conflict || rec.got[0].Offset != int64(c) || rec.got[0].Len != 1 {
				t.Fatalf("n %d: octet %d changed: %+v", n, c, rec.got)
			}
		}
	}
}

// keys records the key of every new connection and of every chunk.
type keys struct{ chunks []FlowKey }

func (r *keys) Data(c *Chunk)              { r.chunks = append(r.chunks, c.Key) }
func (r *keys) Gap(*Gap)                   {}
func (r *keys) Anomaly(*Anomaly)           {}
func (r *keys) Close(FlowKey, CloseReason) {}

// TestReusedKeepsKey: a SYN with a new ISN on the most recent connection's
// ports (Add's shortcut hands segment the connection's own key, which
// closing it clears) must start a connection under the same key.
func TestReusedKeepsKey(t *testing.T) {
	rec := &keys{}
	var news []FlowKey
	a := NewAssembler(Config{NewConsumer: func(k FlowKey) Consumer { news = append(news, k); return rec }})
	a.Add(client, server, Segment{Seq: 100, SYN: true})
	a.Add(client, server, Segment{Seq: 101, Payload: []byte("one")})
	a.Add(client, server, Segment{Seq: 5000, SYN: true})
	a.Add(client, server, Segment{Seq: 5001, Payload: []byte("two")})
	k := rec0Key(client, server)
	if len(news) != 2 || news[0] != k || news[1] != k {
		t.Fatalf("connections started with keys %v, want twice %v", news, k)
	}
	if len(rec.chunks) != 2 || rec.chunks[1] != k || a.Len() != 1 || a.conns[k] == nil {
		t.Fatalf("chunk keys %v, %d connections, tracked under its key: %v", rec.chunks, a.Len(), a.conns[k] != nil)
	}
}
