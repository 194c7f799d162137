package tcp

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
)

// TestLentHistory feeds the same random traffic to an assembler that
// copies every payload and to one that is lent most of them
// (Segment.Lent): its history only references them until Reclaim, after
// which the test scribbles over every lent buffer, as a capture reader
// reusing its read buffer does. Both must make the same consumer calls
// (data, gaps, conflicts with their offsets and frames) and count the same:
// a lent delivery that Reclaim or a retransmission check did not copy in
// time would compare the scribbled bytes and raise a conflict the copying
// assembler does not (or miss one it does). The traffic mixes in-order
// segments of 1 to 2x the ring, retransmissions (some changed, some older
// than the ring), held out-of-order segments (delivered from the
// assembler's own copies, not lent), acknowledged holes, resets and reused
// connections, with rings that grow, a budget that stops their growth, and
// seeds that never reclaim until maxRefs forces it.
func TestLentHistory(t *testing.T) {
	conflicts, lentMax, forced := 0, 0, false
	for seed := range 24 {
		rnd := rand.New(rand.NewPCG(uint64(seed), 77))
		hist := 64 << rnd.IntN(5)
		total := 0
		if seed%3 == 1 {
			total = 6 * hist // histories get half: some rings stop growing
		}
		reclaimEvery := 1 + rnd.IntN(40)
		if seed%4 == 3 {
			reclaimEvery = 1 << 30 // only maxRefs reclaims
		}
		var logA, logB []string
		cfg := func(log *[]string) Config {
			return Config{History: hist, MaxBufferedTotal: total, NewConsumer: func(FlowKey) Consumer { return &recorder{log: log, multi: true} }}
		}
		A, B := NewAssembler(cfg(&logA)), NewAssembler(cfg(&logB))

		const nconn = 3
		type dirState struct {
			salt uint64 // names the stream's octets (octets)
			isn  uint32
			pos  int // next offset this side sends in order
		}
		var st [nconn][2]dirState
		start := func(k int) {
			for d := range 2 {
				s := &st[k][d]
				s.salt, s.isn, s.pos = rnd.Uint64(), rnd.Uint32(), 0
			}
		}
		var inUse, free [][]byte
		lend := func(p []byte) []byte {
			var b []byte
			if n := len(free); n > 0 && cap(free[n-1]) >= len(p) {
				b, free = free[n-1][:len(p)], free[:n-1]
			} else {
				b = make([]byte, len(p), max(len(p), 4096))
			}
			copy(b, p)
			inUse = append(inUse, b)
			return b
		}
		reclaim := func() {
			B.Reclaim()
			for _, b := range inUse {
				for i := range b {
					b[i] = 0xee
				}
				free = append(free, b)
			}
			inUse = inUse[:0]
		}
		frame := uint64(0)
		send := func(k int, d Dir, seg Segment, lent bool) {
			frame++
			seg.Frame = frame
			src := netip.AddrPortFrom(client.Addr(), uint16(1000+k))
			dst := server
			if d == 1 {
				src, dst = dst, src
			}
			p := seg.Payload
			seg.Payload = slices.Clone(p)
			A.Add(src, dst, seg)
			seg.Payload, seg.Lent = p, false
			if lent && len(p) > 0 {
				seg.Payload, seg.Lent = lend(p), true
			}
			n0 := len(B.refs)
			B.Add(src, dst, seg)
			if n := len(B.refs); n > lentMax {
				lentMax = n
			} else if n < n0 {
				forced = true // only Reclaim empties refs
			}
		}
		for k := range nconn {
			start(k)
			for d := range Dir(2) {
				send(k, d, Segment{Seq: st[k][d].isn - 1, SYN: true}, false)
			}
		}
		steps := 6000
		if reclaimEvery > steps {
			steps *= 2 // enough lent deliveries for maxRefs
		}
		for step := range steps {
			if step%reclaimEvery == 0 {
				reclaim()
			}
			k, d := rnd.IntN(nconn), Dir(rnd.IntN(2))
			s := &st[k][d]
			lent := rnd.IntN(8) != 0
			switch r := rnd.IntN(100); {
			case r < 60: // in order
				n := 1 + rnd.IntN(2*hist)
				if rnd.IntN(3) == 0 {
					n = 1 + rnd.IntN(8)
				}
				send(k, d, Segment{Seq: s.isn + uint32(s.pos), Payload: octets(s.salt, s.pos, s.pos+n)}, lent)
				s.pos += n
			case r < 85: // a retransmission, some octets changed
				if s.pos == 0 {
					continue
				}
				lo := max(0, s.pos-rnd.IntN(2*hist)-1)
				hi := lo + 1 + rnd.IntN(s.pos-lo)
				p := octets(s.salt, lo, hi)
				for range rnd.IntN(3) {
					p[rnd.IntN(len(p))] ^= 0x5a
				}
				send(k, d, Segment{Seq: s.isn + uint32(lo), Payload: p}, lent)
			case r < 95: // ahead of a hole: held, then released by the in-order data or an ack
				at := s.pos + 1 + rnd.IntN(hist)
				n := 1 + rnd.IntN(hist)
				send(k, d, Segment{Seq: s.isn + uint32(at), Payload: octets(s.salt, at, at+n)}, lent)
			case r < 98: // the peer acknowledges past the hole: a gap
				send(k, d^1, Segment{Seq: st[k][d^1].isn + uint32(st[k][d^1].pos), ACK: true,
					Ack: s.isn + uint32(s.pos+2*hist)}, false)
				s.pos += 2 * hist
			default: // reset, and the ports used again
				send(k, d, Segment{Seq: s.isn + uint32(s.pos), RST: true}, false)
				start(k)
				for d := range Dir(2) {
					send(k, d, Segment{Seq: st[k][d].isn - 1, SYN: true}, false)
				}
			}
		}
		A.FlushAll()
		B.FlushAll()
		reclaim()
		if sa, sb := A.Stats(), B.Stats(); sa != sb {
			t.Fatalf("seed %d: stats differ:\ncopying %+v\n lending %+v", seed, sa, sb)
		}
		if i := firstDiff(logA, logB); i >= 0 {
			t.Fatalf("seed %d (history %d): event %d differs:\ncopying %q\n lending %q", seed, hist, i, at(logA, i), at(logB, i))
		}
		conflicts += int(A.Stats().Conflicts)
		if len(B.refs) != 0 || len(B.pending) != 0 {
			t.Fatalf("seed %d: %d refs, %d pending halves after Reclaim", seed, len(B.refs), len(B.pending))
		}
	}
	if conflicts == 0 || lentMax < 100 || !forced {
		t.Fatalf("the traffic did not test much: %d conflicts, at most %d lent deliveries pending, maxRefs reclaimed: %v",
			conflicts, lentMax, forced)
	}
}

// octets returns the octets [lo, hi) of the stream salt names.
func octets(salt uint64, lo, hi int) []byte {
	p := make([]byte, hi-lo)
	for i := range p {
		p[i] = byte((uint64(lo+i) + salt) * 0x9e3779b97f4a7c15 >> 56)
	}
	return p
}

func firstDiff(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// TestLentConflict: a retransmission with different bytes is flagged at the
// changed octet whether the first bytes are still lent (not yet copied:
// the check copies them first) or were copied at Reclaim, after which their
// buffer was overwritten with the changed bytes themselves.
func TestLentConflict(t *testing.T) {
	for _, reclaimFirst := range []bool{false, true} {
		rec := &anomalies{}
		a := NewAssembler(Config{NewConsumer: func(FlowKey) Consumer { return rec }})
		a.Add(client, server, Segment{Seq: 0, SYN: true})
		buf := []byte("0123456789abcdef")
		a.Add(client, server, Segment{Seq: 1, Payload: buf, Frame: 2, Lent: true})
		re := []byte("0123456789abXdef")
		if reclaimFirst {
			a.Reclaim()
			copy(buf, re) // the reader's buffer holds the next packet
		}
		a.Add(client, server, Segment{Seq: 1, Payload: re, Frame: 3, Lent: true})
		want := []Anomaly{{Key: rec0Key(client, server), Kind: Conflict, Offset: 12, Seq: 13, Len: 1, Frame: 3, PrevFrame: 2}}
		if !slices.Equal(rec.got, want) {
			t.Fatalf("reclaimed first %v: got %+v, want %+v", reclaimFirst, rec.got, want)
		}
	}
}

// TestLentNoAlloc: once warm, a batch of lent in-order segments on a few
// connections and its Reclaim allocate nothing (the refs and pending
// slices are reused), as the copying path.
func TestLentNoAlloc(t *testing.T) {
	a := NewAssembler(Config{})
	const conns, batch = 4, 1024
	var srcs [conns]netip.AddrPort
	seq := [conns]uint32{}
	for k := range srcs {
		srcs[k] = netip.AddrPortFrom(client.Addr(), uint16(2000+k))
		a.Add(srcs[k], server, Segment{Seq: 0, SYN: true})
		seq[k] = 1
	}
	bufs := make([][]byte, batch)
	for i := range bufs {
		bufs[i] = make([]byte, 1448)
	}
	run := func() {
		for i := range bufs {
			k := i % conns
			a.Add(srcs[k], server, Segment{Seq: seq[k], Payload: bufs[i], Lent: true, ACK: true, Ack: 1})
			seq[k] += uint32(len(bufs[i]))
		}
		a.Reclaim()
	}
	run()
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Fatalf("%v allocations a batch of %d lent segments", n, batch)
	}
	// Eight batches: AllocsPerRun runs it once more than asked.
	if s := a.Stats(); s.Bytes != 8*batch*1448 || s.Conflicts != 0 {
		t.Fatalf("stats %+v", s)
	}
}
