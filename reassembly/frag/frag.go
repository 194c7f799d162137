// Package frag assembles one unit (an IPv4 datagram, a direction of an Rx
// call, an RDS/IB message) from pieces that say where they go: an offset in
// octets (IPv4, RDS) or in units such as packet sequence numbers (Rx, where
// every piece is one unit). It knows nothing of the protocols; their
// dissectors decide what a piece is and word the findings from the verdicts
// Add returns.
//
// Pieces are held sorted and disjoint. The data of the contiguous prefix
// (every position from the start up to Next) is kept in one buffer in order,
// so a unit that arrives in order is never copied twice; pieces that arrive
// ahead of a hole wait in an arena until the hole fills. Because held pieces
// never overlap, a unit is complete exactly when Next reaches its end: no
// rescans. Finding where a piece goes is a binary search (in-order arrival
// appends without one), so the cost per piece is O(log n) plus a move of the
// pieces above it, bounded by Config.MaxPieces.
//
// Memory is bounded per assembly by Config.MaxPieces and Config.MaxBytes;
// Table bounds the assemblies in flight and charges them to the engine's
// memory budget (reassembly/budget).
package frag

import "bytes"

// Dup says which pieces are duplicates of held ones.
type Dup uint8

const (
	// DupExact: only a piece with the offsets and bytes of a held one is a
	// duplicate; any other overlap is a conflict (RFC 5722, Linux IPv4
	// since CVE-2018-5391): which bytes a receiver kept is ambiguous.
	DupExact Dup = iota
	// DupPosition: a piece at a position already held is a resend of it,
	// whatever its bytes (Rx: same seq, new serial).
	DupPosition
)

// Config is an assembly's policy.
type Config struct {
	Start     int64 // the first position of a unit (0 for octets, 1 for Rx seqs)
	MaxPieces int   // pieces with a record at once (Records: all of them; otherwise those ahead of a hole)
	// MaxBytes bounds the data kept, in order and ahead of holes together.
	// In-order data comes first: data held ahead of a hole is let go (its
	// position still counts) from the highest position down to make room,
	// and once data is lost the kept data is the unit's prefix (Truncated).
	MaxBytes  int
	Dup       Dup
	Records   bool // keep every piece's record until Reset (to name it in findings), not only those ahead of a hole
	MaxFrames int  // frame numbers listed (NoteFrame); NFrames counts all
	// MergeFrames lists consecutive pieces of one frame once (Rx jumbograms).
	MergeFrames bool
}

// Piece is a held piece: positions [Off, End) from frame Frame.
type Piece struct {
	Off, End int64
	Frame    uint64
	at, n    int32 // its data: out[at:at+n] when merged, else arena[at:at+n]; n < 0 when not kept
	merged   bool
}

// Verdict is what Add did with a piece.
type Verdict uint8

const (
	Added         Verdict = iota // held (Complete tells whether the unit is now whole)
	Duplicate                    // repeats a held piece (Other, when it has a record): ignored
	Overlap                      // overlaps Other without repeating it
	PastEnd                      // ends past the end the last piece set (End, EndFrame)
	EndConflict                  // a last piece with an end other than the one set (End, EndFrame)
	EndBeforeData                // a last piece ending before data already held (Other, when it has a record)
	TooMany                      // would exceed MaxPieces: not held, and the kept data stops before it (Truncated)
)

// pieceCost is what a piece record occupies, for Bytes; heldCost is the
// struct of pieces and arena, allocated for the first piece that needs one.
const (
	pieceCost = 32
	heldCost  = 80
)

// Assembly is one unit being put together. The zero value is unusable: call
// Reset with the policy first.
type Assembly struct {
	cfg    *Config
	out    []byte // the contiguous prefix's data
	frames []uint64
	h      *held // nil until a piece needs a record: units that arrive in order never need one
	next   int64 // every position in [Start, next) is held
	end    int64 // the unit's end, -1 until a last piece (or SetEnd) set it
	n      int32 // pieces accepted
	nfr    int32 // frames noted
	trunc  bool
	slow   bool // Add and keep skip their in-order fast paths (the test comparing the paths)
	// room is how long out may grow by Append's inlined copy: its capacity
	// within MaxBytes, or -1 when the policy keeps records, out is
	// truncated, a piece is held ahead of a hole or the end is known
	// (setRoom, called where those change, keeps it so): the fast path then
	// tests one field instead of all of them.
	room int
}

// held is the pieces with records and the data of those ahead of a hole.
type held struct {
	pieces []Piece // sorted by Off, disjoint; pieces[:done] are merged into out
	done   int
	arena  []byte // data of pieces ahead of a hole
	dead   int    // arena octets no longer referenced
	pbytes int    // arena octets still referenced
}

// hold returns the piece records, allocating them on first use.
func (a *Assembly) hold() *held {
	if a.h == nil {
		a.h, a.room = &held{}, -1
	}
	return a.h
}

// Reset starts a new unit under cfg, keeping the buffers.
func (a *Assembly) Reset(cfg *Config) {
	a.cfg = cfg
	if h := a.h; h != nil {
		h.pieces, h.done, h.arena, h.dead, h.pbytes = h.pieces[:0], 0, h.arena[:0], 0, 0
	}
	a.out, a.frames = a.out[:0], a.frames[:0]
	a.next, a.end = cfg.Start, -1
	a.n, a.nfr, a.trunc = 0, 0, false
	a.setRoom()
}

// setRoom sets room after cfg, trunc or out's capacity changed.
func (a *Assembly) setRoom() {
	a.room = -1
	if h := a.h; !a.trunc && !a.slow && !a.cfg.Records && a.end < 0 && (h == nil || h.done == len(h.pieces) && h.pbytes == 0) {
		a.room = min(cap(a.out), a.cfg.MaxBytes)
	}
}

// Release lets go of buffers larger than keep octets (a unit dropped or
// done whose memory should not wait, uncharged, for the next user). The
// assembly must be Reset before it is used again.
func (a *Assembly) Release(keep int) {
	if cap(a.out) > keep {
		a.out, a.room = nil, -1
	}
	if h := a.h; h != nil && cap(h.arena)+cap(h.pieces)*pieceCost > keep {
		a.h = nil
	}
}

// Next is the position up to which the unit is contiguous.
func (a *Assembly) Next() int64 { return a.next }

// End is the unit's end, -1 while unknown.
func (a *Assembly) End() int64 { return a.end }

// EndFrame is the frame of the last piece that set End (0 without records).
func (a *Assembly) EndFrame() uint64 {
	if p, ok := a.Last(); ok && p.End == a.end {
		return p.Frame
	}
	return 0
}

// SetEnd sets the unit's end when it is known from elsewhere (an RDS header's
// h_len) rather than from a last piece.
func (a *Assembly) SetEnd(end int64) { a.end, a.room = end, -1 }

// Complete reports whether every position from the start to the end is held.
func (a *Assembly) Complete() bool { return a.end >= 0 && a.next >= a.end }

// Waiting is the number of pieces held ahead of a hole.
func (a *Assembly) Waiting() int {
	if a.h == nil {
		return 0
	}
	return len(a.h.pieces) - a.h.done
}

// N is the number of pieces accepted.
func (a *Assembly) N() int { return int(a.n) }

// Held is the sum of the held pieces' lengths in positions.
func (a *Assembly) Held() int64 {
	n := a.next - a.cfg.Start
	if h := a.h; h != nil {
		for _, p := range h.pieces[h.done:] {
			n += p.End - p.Off
		}
	}
	return n
}

// Data is the kept data of the contiguous prefix (all of it once Complete,
// unless Truncated). It is valid until the next Reset or Release.
func (a *Assembly) Data() []byte { return a.out }

// Truncated reports that Data stops short: later data was counted, not kept.
func (a *Assembly) Truncated() bool { return a.trunc }

// Last is the held piece with the highest offset, if it has a record.
func (a *Assembly) Last() (Piece, bool) {
	if a.h == nil || len(a.h.pieces) == 0 {
		return Piece{}, false
	}
	return a.h.pieces[len(a.h.pieces)-1], true
}

// Frames lists the frames noted (at most MaxFrames); NFrames counts them all.
func (a *Assembly) Frames() []uint64 { return a.frames }

// NFrames is the number of frames noted.
func (a *Assembly) NFrames() int { return int(a.nfr) }

// NoteFrame records that frame num carried a piece of the unit.
func (a *Assembly) NoteFrame(num uint64) {
	if a.cfg.MergeFrames && len(a.frames) > 0 && a.frames[len(a.frames)-1] == num {
		return
	}
	a.nfr++
	if len(a.frames) < a.cfg.MaxFrames {
		if cap(a.frames) == 0 {
			a.frames = make([]uint64, 0, min(firstFrames, a.cfg.MaxFrames))
		}
		a.frames = append(a.frames, num)
	}
}

// firstFrames is the room the first NoteFrame makes: most units span a few
// frames, and appending from nil would allocate at 1, 2, 4 and 8.
const firstFrames = 8

// Bytes is what the assembly occupies, for budget charges.
func (a *Assembly) Bytes() int {
	n := cap(a.out) + cap(a.frames)*8
	if h := a.h; h != nil {
		n += heldCost + cap(h.arena) + cap(h.pieces)*pieceCost
	}
	return n
}

// Seen reports whether position pos is held already.
func (a *Assembly) Seen(pos int64) bool {
	if pos >= a.cfg.Start && pos < a.next {
		return true
	}
	return a.h != nil && a.h.seen(pos) // small enough to inline: the prefix is the common answer
}

// seen reports whether a piece held ahead of a hole covers pos.
func (h *held) seen(pos int64) bool {
	i := h.search(pos+1, h.done) // the first piece starting after pos
	return i > h.done && h.pieces[i-1].End > pos
}

// search returns the index of the first piece at or after from whose Off is
// not below off. In-order arrival is answered without a search.
func (h *held) search(off int64, from int) int {
	ps := h.pieces
	lo, hi := from, len(ps)
	if hi == lo || ps[hi-1].Off < off {
		return hi
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ps[mid].Off < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Pass takes the in-order piece [Next, end) without keeping its data: the
// caller has it elsewhere (a unit of one piece) or keeps none (RDS counts
// octets only).
func (a *Assembly) Pass(end int64, frame uint64) {
	if a.cfg.Records {
		h := a.hold()
		h.pieces = append(h.pieces, Piece{})
		copy(h.pieces[h.done+1:], h.pieces[h.done:])
		h.pieces[h.done] = Piece{Off: a.next, End: end, Frame: frame, n: -1, merged: true}
		h.done++
	}
	a.n++
	a.next = end
	a.drain() // room cannot grow stale here but when drain merges held pieces
}

// Add offers the piece [off, end) with its data from frame; last says it
// ends the unit. Anything but Added leaves the assembly as it was (TooMany
// marks it Truncated); other is the held piece the verdict is about, when it
// has a record. The caller drops the unit or ignores the piece as its
// protocol says.
func (a *Assembly) Add(off, end int64, data []byte, last bool, frame uint64) (v Verdict, other Piece) {
	if last {
		if a.end >= 0 && a.end != end {
			return EndConflict, Piece{}
		}
		if a.hi() > end {
			p, _ := a.Last()
			return EndBeforeData, p
		}
	} else if a.end >= 0 && end > a.end {
		return PastEnd, Piece{}
	}
	if off == end { // an empty piece: nothing to hold
		a.accept(end, last)
		return Added, Piece{}
	}
	if off == a.next && a.plain() {
		// in order with nothing held ahead (most pieces of most units): no
		// record, no search, nothing to merge after it; what the general
		// path below does in this case, without its checks
		a.keep(data)
		a.accept(end, last)
		a.next = end
		return Added, Piece{}
	}
	if off < a.next && !a.cfg.Records || off < a.cfg.Start {
		// inside the prefix, whose records are gone
		if a.cfg.Dup == DupPosition || off < a.cfg.Start {
			return Duplicate, Piece{}
		}
		return Overlap, Piece{}
	}
	var ps []Piece
	i, recs := 0, 0 // where the piece goes, and the records that count against MaxPieces
	if h := a.h; h != nil {
		from := h.done
		if a.cfg.Records {
			from = 0 // records of the prefix are searched too, to name them
		}
		ps, i, recs = h.pieces, h.search(off, from), len(h.pieces)-from
	}
	if i < len(ps) && ps[i].Off == off && ps[i].End == end &&
		(a.cfg.Dup == DupPosition || bytes.Equal(a.data(&ps[i]), data)) {
		return Duplicate, ps[i]
	}
	switch {
	case i > 0 && ps[i-1].End > off:
		return a.clash(ps[i-1])
	case i < len(ps) && ps[i].Off < end:
		return a.clash(ps[i])
	}
	inOrder := off == a.next
	if (!inOrder || a.cfg.Records) && recs >= a.cfg.MaxPieces {
		a.trunc, a.room = true, -1
		return TooMany, Piece{}
	}
	p := Piece{Off: off, End: end, Frame: frame, n: -1}
	if inOrder {
		p.at, p.n = int32(len(a.out)), int32(a.keep(data))
		p.merged = true
	} else if !a.trunc && len(a.out)+a.pbytes()+len(data) <= a.cfg.MaxBytes {
		p.at, p.n = a.hold().stash(data, a.cfg.MaxBytes), int32(len(data))
	} // else counted, not kept: in-order data has the room
	if a.cfg.Records || !inOrder {
		h := a.hold()
		h.pieces = append(h.pieces, Piece{})
		copy(h.pieces[i+1:], h.pieces[i:])
		h.pieces[i] = p
		if inOrder {
			h.done++
		}
	}
	a.accept(end, last)
	if inOrder {
		a.next = end
		a.drain()
	}
	a.setRoom() // a piece held ahead, or merged
	return Added, Piece{}
}

// plain reports that an in-order piece needs no record and nothing held
// ahead waits for it: Add's fast path.
func (a *Assembly) plain() bool {
	return !a.cfg.Records && (a.h == nil || a.h.done == len(a.h.pieces)) && !a.slow
}

// Append is Add for the commonest piece, one that is not last and starts at
// Next with nothing held ahead of it, without Add's verdicts: it reports
// whether it took the piece (Add's Added). For anything else it changes
// nothing and reports false; the caller then offers the piece to Add.
//
// It takes only the case that needs no call (no end known, no piece ever
// held, room in out, all in room), small enough to be inlined into the
// caller; Add's in-order path takes the rest of the in-order pieces.
func (a *Assembly) Append(off, end int64, data []byte) bool {
	if n := len(a.out) + len(data); off == a.next && end > off && n <= a.room {
		a.out = a.out[:n]
		copy(a.out[n-len(data):], data)
		a.n++
		a.next = end
		return true
	}
	return false
}

// hi is the highest position held.
func (a *Assembly) hi() int64 {
	if p, ok := a.Last(); ok {
		return max(a.next, p.End)
	}
	return a.next
}

func (a *Assembly) clash(p Piece) (Verdict, Piece) {
	if a.cfg.Dup == DupPosition {
		return Duplicate, p
	}
	return Overlap, p
}

func (a *Assembly) accept(end int64, last bool) {
	a.n++
	if last {
		a.end, a.room = end, -1
	}
}

// pbytes is the data held ahead of holes.
func (a *Assembly) pbytes() int {
	if a.h == nil {
		return 0
	}
	return a.h.pbytes
}

// data is p's kept data.
func (a *Assembly) data(p *Piece) []byte {
	switch {
	case p.n < 0:
		return nil
	case p.merged:
		return a.out[p.at : p.at+p.n]
	}
	return a.h.arena[p.at : p.at+p.n]
}

// keep appends in-order data to out, making room by letting go of the data
// held ahead of holes (highest first), and returns how much it kept.
func (a *Assembly) keep(b []byte) int {
	if n := len(a.out) + len(b); !a.trunc && n <= cap(a.out) && a.pbytes() == 0 && n <= a.cfg.MaxBytes && !a.slow {
		a.out = append(a.out, b...) // room, and nothing held ahead to let go
		return len(b)
	}
	return a.keepSlow(b)
}

// keepSlow is keep when out is truncated or full, or data is held ahead.
func (a *Assembly) keepSlow(b []byte) int {
	if a.trunc {
		return 0 // out is a prefix: nothing after a hole is kept
	}
	for len(a.out)+a.pbytes()+len(b) > a.cfg.MaxBytes && a.pbytes() > 0 {
		a.h.dropHighest()
	}
	if room := a.cfg.MaxBytes - len(a.out); len(b) > room {
		b = b[:room]
		a.trunc = true
	}

	if len(a.out)+len(b) > cap(a.out) {
		// grow as data arrives, never past MaxBytes
		n := min(max(2*cap(a.out), len(a.out)+len(b), 512), a.cfg.MaxBytes)
		nb := make([]byte, len(a.out), n)
		copy(nb, a.out)
		a.out = nb
	}
	a.out = append(a.out, b...)
	a.setRoom()
	return len(b)
}

// dropHighest lets go of the kept data of the highest held piece.
func (h *held) dropHighest() {
	for i := len(h.pieces) - 1; i >= h.done; i-- {
		if p := &h.pieces[i]; p.n >= 0 {
			h.pbytes -= int(p.n)
			h.dead += int(p.n)
			p.n = -1
			return
		}
	}
	h.pbytes = 0
}

// stash copies data held ahead of a hole into the arena. Space of data
// since merged or let go is reclaimed by compacting when it is at least
// half the arena, so the arena stays within twice what is held.
func (h *held) stash(b []byte, maxBytes int) int32 {
	if len(h.arena)+len(b) > cap(h.arena) && h.dead > 0 && h.dead >= len(h.arena)/2 {
		w := 0
		for i := h.done; i < len(h.pieces); i++ {
			p := &h.pieces[i]
			if p.n >= 0 {
				copy(h.arena[w:], h.arena[p.at:p.at+p.n])
				p.at = int32(w)
				w += int(p.n)
			}
		}
		h.arena, h.dead = h.arena[:w], 0
	}
	if need := len(h.arena) + len(b); need > cap(h.arena) {
		// grow as data arrives, to MaxBytes (beyond only while let-go data waits)
		nb := make([]byte, len(h.arena), max(min(max(2*cap(h.arena), need, 512), maxBytes), need))
		copy(nb, h.arena)
		h.arena = nb
	}
	at := len(h.arena)
	h.arena = append(h.arena, b...)
	h.pbytes += len(b)
	return int32(at)
}

// drain merges the held pieces that the prefix now reaches.
func (a *Assembly) drain() {
	h := a.h
	if h == nil {
		return
	}
	for h.done < len(h.pieces) && h.pieces[h.done].Off == a.next {
		p := &h.pieces[h.done]
		if p.n < 0 {
			a.trunc, a.room = true, -1
		} else {
			src := h.arena[p.at : p.at+p.n]
			h.pbytes -= len(src)
			h.dead += len(src)
			p.n = -1 // not a candidate for dropHighest while it is kept
			p.at = int32(len(a.out))
			p.n = int32(a.keep(src))
		}
		p.merged = true
		a.next = p.End
		h.done++
	}
	if h.done == len(h.pieces) {
		h.arena, h.dead, h.pbytes = h.arena[:0], 0, 0
	}
	if !a.cfg.Records && h.done > 0 {
		// merged records are forgotten; moved down only when they are at
		// least half the list, so the move is paid for by the merges
		if h.done == len(h.pieces) {
			h.pieces, h.done = h.pieces[:0], 0
		} else if h.done >= len(h.pieces)/2 {
			n := copy(h.pieces, h.pieces[h.done:])
			h.pieces, h.done = h.pieces[:n], 0
		}
	}
	a.setRoom() // what was held ahead may all be merged
}
