package ib

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkStreams checks what resync relies on between two calls to Add:
// every held packet is strictly ahead of its stream's highest PSN taken
// (resync skips to just before each held packet it takes, which would move
// the highest PSN backwards for one behind it and forget every PSN taken),
// in PSN order, and the held count adds up. hi holds each stream's last
// highest PSN: it must never move backwards.
func checkStreams(a *Assembler, hi map[streamKey]uint32) error {
	name := func(k streamKey) string {
		return fmt.Sprintf("%v → %v QP %d (responses %v)", k.src, k.dst, k.qp, k.resp)
	}
	n := 0
	for k, s := range a.streams {
		n += len(s.held)
		if !s.seen {
			if len(s.held) > 0 {
				return fmt.Errorf("stream %s holds %d packets before taking one", name(k), len(s.held))
			}
			continue
		}
		if old, ok := hi[k]; ok && (s.hi-old)&psnMask >= 1<<23 {
			return fmt.Errorf("stream %s: highest PSN taken moved back from %d to %d", name(k), old, s.hi)
		}
		hi[k] = s.hi
		last := uint32(0)
		for i := range s.held {
			d := (s.held[i].p.PSN - s.hi) & psnMask
			if d == 0 || d >= 1<<23 {
				return fmt.Errorf("stream %s: held PSN %d not ahead of the highest taken %d", name(k), s.held[i].p.PSN, s.hi)
			}
			if d <= last {
				return fmt.Errorf("stream %s: held PSNs out of order at %d", name(k), s.held[i].p.PSN)
			}
			last = d
		}
	}
	if n != a.nheld {
		return fmt.Errorf("%d packets held, counted %d", n, a.nheld)
	}
	return nil
}

// The suspected way to move hi backwards: a READ request ahead of a gap is
// held (and recorded); its responses, matched at once, widen readWin so far
// that a later request is in order past the held request and jumps hi over
// it. drain, run after every request taken, takes the passed held request
// at once (a PSN behind hi not yet taken is in order), so no held packet is
// ever behind hi when resync (ACK, retransmission, full hold) runs next: a
// later resync moves hi forward only and the PSNs taken stay marked.
func TestJumpPastHeldRead(t *testing.T) {
	a := New()
	his := map[streamKey]uint32{}
	add := func(p Packet, want Event) {
		t.Helper()
		m, ev := a.Add(&p)
		for ; m != nil; m = a.Next() {
		}
		if ev != want {
			t.Fatalf("opcode %#x PSN %d: %v, want %v", p.Opcode, p.PSN, ev, want)
		}
		if err := checkStreams(a, his); err != nil {
			t.Fatalf("after opcode %#x PSN %d: %v", p.Opcode, p.PSN, err)
		}
	}
	send := func(psn uint32) Packet {
		return Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: psn, Payload: []byte{byte(psn)}, Frame: uint64(psn)}
	}
	resp := func(op uint8, psn uint32) Packet {
		return Packet{Src: a2, Dst: a1, Opcode: op, DestQP: 6, PSN: psn, Payload: []byte{1}, Frame: uint64(psn)}
	}
	readReq := Packet{Src: a1, Dst: a2, Opcode: 0x0C, DestQP: 5, PSN: 15, HasRETH: true, VA: 0x100, RKey: 9, DMALen: 256, Frame: 2}
	add(send(10), Complete)
	add(readReq, Gap) // 11..14 lost: held, and recorded
	add(resp(0x0D, 15), Partial)
	add(resp(0x0E, 16), Partial)
	add(resp(0x0F, 17), Complete) // readWin of the requests is 7 now: up to 18 is in order
	s := a.find(&streamKey{src: a1, dst: a2, qp: 5})
	if len(s.held) != 1 || !s.inOrder(15) || !s.inOrder(18) {
		t.Fatalf("setup: %d held, readWin %d", len(s.held), s.readWin)
	}
	add(send(18), Complete) // past the held READ request: drain takes it
	if len(s.held) != 0 || s.hi != 18 || !s.dup(15) {
		t.Fatalf("after the jump: %d held, hi %d, 15 taken %v", len(s.held), s.hi, s.dup(15))
	}
	// A resync after it (here an ACK past a new gap) moves hi forward only.
	add(send(21), Gap)
	add(Packet{Src: a2, Dst: a1, Opcode: 0x11, DestQP: 6, PSN: 20, HasAETH: true, Frame: 30}, Complete)
	if s.hi != 21 {
		t.Fatalf("hi %d after the ACK, want 21", s.hi)
	}
	for _, psn := range []uint32{10, 15, 18, 21} {
		p := send(psn)
		if psn == 15 {
			p = readReq
		}
		add(p, Duplicate)
	}
}

// TestHeldAheadOfHi drives two QPs with random READs (responses using
// more PSNs than their requests announce, widening readWin), SENDs and
// WRITEs, losses, go-back-N retransmissions and ACK/NAKs, and checks after
// every packet that no held packet is at or behind its stream's highest
// PSN and that the highest PSN never moves backwards. It must see requests
// jump past held packets, or it proves nothing.
func TestHeldAheadOfHi(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := New()
	his := map[streamKey]uint32{}
	next := [2]uint32{0xFFFF00, 100} // request PSNs per direction; the first wraps
	type read struct{ psn, n uint32 }
	var reads [2][]read // READs each direction's requester sent, to answer
	jumps, acks, passes := 0, 0, 0
	// answer sends the responses to a READ of direction dir.
	answer := func(dir int, rd read, frame uint64) {
		src, dst, back := a1, a2, uint32(6)
		if dir == 1 {
			src, dst, back = a2, a1, 5
		}
		for x := range rd.n {
			op := uint8(0x0E)
			switch {
			case rd.n == 1:
				op = 0x10
			case x == 0:
				op = 0x0D
			case x == rd.n-1:
				op = 0x0F
			}
			rp := Packet{Src: dst, Dst: src, Opcode: op, DestQP: back, PSN: (rd.psn + x) & psnMask, Payload: []byte{byte(x)}, Frame: frame}
			a.Add(&rp)
		}
	}
	for i := range 200000 {
		dir := rng.IntN(2)
		src, dst, qp, back := a1, a2, uint32(5), uint32(6)
		if dir == 1 {
			src, dst, qp, back = a2, a1, 6, 5
		}
		now := false // answer the READ request at once
		var p Packet
		switch r := rng.IntN(20); {
		case r < 3 && len(reads[dir]) > 0: // the responder answers a READ
			answer(dir, reads[dir][0], uint64(i))
			reads[dir] = reads[dir][1:]
			if err := checkStreams(a, his); err != nil {
				t.Fatalf("packet %d: %v", i, err)
			}
			continue
		case r < 5: // the receiver acknowledges (or NAKs) near the next PSN
			syn := uint8(0)
			if rng.IntN(3) == 0 {
				syn = 0x60
			}
			p = Packet{Src: dst, Dst: src, Opcode: 0x11, DestQP: back, PSN: (next[dir] - uint32(rng.IntN(6))) & psnMask, HasAETH: true, Syndrome: syn, Frame: uint64(i)}
		default:
			psn := next[dir]
			switch rng.IntN(12) {
			case 0: // lost upstream or by the capture
				psn = (psn + uint32(rng.IntN(4)) + 1) & psnMask
			case 1: // go-back-N
				psn = (psn - uint32(rng.IntN(8))) & psnMask
			}
			p = Packet{Src: src, Dst: dst, DestQP: qp, PSN: psn, Payload: []byte{byte(i)}, Frame: uint64(i)}
			// go-back-N resends SENDs and WRITEs only here: READ ranges never overlap
			resend := psn != next[dir] && (next[dir]-psn)&psnMask < 1<<23
			switch rng.IntN(4) {
			case 0:
				if resend {
					p.Opcode = 0x04
					next[dir] = (psn + 1) & psnMask
					break
				}
				// a READ request; the responses may use more PSNs than DMALen says
				p.Opcode, p.HasRETH, p.VA, p.RKey, p.DMALen = 0x0C, true, uint64(i), 7, uint32(rng.IntN(1024))
				p.Payload = nil
				n := uint32(rng.IntN(12)) + 1
				if now = rng.IntN(2) == 0; !now {
					reads[dir] = append(reads[dir], read{psn, n})
				}
				if len(reads[dir]) > 16 {
					reads[dir] = reads[dir][1:]
				}
				next[dir] = (psn + n) & psnMask
			case 1:
				p.Opcode = [...]uint8{0x00, 0x01, 0x02, 0x06, 0x07, 0x08}[rng.IntN(6)]
				p.HasRETH = p.Opcode == 0x06
				next[dir] = (psn + 1) & psnMask
			default:
				p.Opcode = [...]uint8{0x04, 0x0A}[rng.IntN(2)]
				p.HasRETH = p.Opcode == 0x0A
				next[dir] = (psn + 1) & psnMask
			}
		}
		// Is it in order (readWin) past a packet held before it, or a
		// retransmission past the gap (a resync)?
		jump, nheld := false, a.nheld
		k := streamKey{src: p.Src, dst: p.Dst, qp: p.DestQP}
		if s := a.streams[k]; s != nil && len(s.held) > 0 && p.Opcode&0x1F != 0x11 && !s.dup(p.PSN) {
			if !s.inOrder(p.PSN) && s.sentBefore(p.PSN) {
				passes++
			}
			for _, h := range s.held {
				if d := (p.PSN - h.p.PSN) & psnMask; d != 0 && d < 1<<23 && s.inOrder(p.PSN) {
					jump = true
				}
			}
		}
		m, ev := a.Add(&p)
		for ; m != nil; m = a.Next() {
		}
		if err := checkStreams(a, his); err != nil {
			t.Fatalf("packet %d (opcode %#x PSN %d, %v): %v", i, p.Opcode, p.PSN, ev, err)
		}
		if now {
			answer(dir, read{p.PSN, (next[dir] - p.PSN) & psnMask}, p.Frame)
			if err := checkStreams(a, his); err != nil {
				t.Fatalf("packet %d (READ responses): %v", i, err)
			}
		}
		if jump {
			jumps++
		}
		if p.Opcode == 0x11 && a.nheld < nheld {
			acks++
		}
	}
	if jumps == 0 || acks == 0 || passes == 0 {
		t.Fatalf("%d requests taken past held packets, %d ACKs and %d retransmissions resyncing: the test proves nothing", jumps, acks, passes)
	}
	t.Logf("%d requests taken past held packets, %d ACKs and %d retransmissions resyncing", jumps, acks, passes)
}
