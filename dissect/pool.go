package dissect

import "sync/atomic"

// Frame-owned memory. Everything a dissector puts in a Frame (PDUs, copies of
// reassembled bytes) must stay valid until the frame is done, and no longer.
// The engine owns that lifetime: every Decode, and every call of the
// end-of-input flush (which all have number 0), starts a new frame scope
// (Frame.seq), and the frame's arena and every Pool start over with it. Both
// keep their capacity from frame to frame, so a warm engine allocates
// nothing; they grow only when a frame holds more than any frame before it,
// which the frame's own bytes and the reassembly budget bound.

// FrameScope tells a dissector when a new frame scope began, for per-frame
// scratch it keeps beside a Pool (a Pool has one built in).
type FrameScope struct {
	num, seq uint64
	used     bool
}

// Enter reports whether f starts a new scope since the last call. A Frame
// built by hand (tests) has seq 0: its number tells frames apart.
func (s *FrameScope) Enter(f *Frame) (fresh bool) {
	if s.used && f.Num == s.num && f.seq == s.seq {
		return false
	}
	s.num, s.seq, s.used = f.Num, f.seq, true
	return true
}

// Reset makes the next Enter report a new scope (Rewind).
func (s *FrameScope) Reset() { s.used = false }

// Pool hands out the values a dissector keeps its PDUs in. The values live
// until the frame scope ends; then the pool starts over, so putting PDUs
// into Frame.PDUs allocates nothing once it is warm. There is no cap: a
// frame carrying many PDUs gets a value for each (what it holds is bounded
// by the frame's bytes), and none is handed out twice in one frame.
type Pool[T any] struct {
	items []T
	n     int
	scope FrameScope
}

// Get returns a value for frame f, as the previous user left it (callers
// reset the fields they use, and may keep slices' storage). fresh reports
// that the pool started over with this call, for dissectors that keep other
// per-frame scratch beside it.
func (p *Pool[T]) Get(f *Frame) (v *T, fresh bool) {
	if p.scope.Enter(f) {
		p.n, fresh = 0, true
	}
	if p.n == len(p.items) {
		var zero T
		p.items = append(p.items, zero)
	}
	v = &p.items[p.n]
	p.n++
	return v, fresh
}

// Unget returns the value the last Get handed out (it was not used).
func (p *Pool[T]) Unget() {
	if p.n > 0 {
		p.n--
	}
}

// Reset makes the next Get start over (Rewind).
func (p *Pool[T]) Reset() { p.scope.Reset(); p.n = 0 }

// arenaBlock is the size of the arena's first block.
const arenaBlock = 64 << 10

// arena holds a frame's byte copies (Frame.Keep, Frame.Alloc) in blocks
// reused from frame to frame. A block never moves or grows once slices of
// it are handed out: when the current one is full the next is taken, and a
// new one (at least twice the size of the last, so there are few) is made
// only when none is left. Blocks past cur are always empty.
type arena struct {
	blocks [][]byte
	cur    int
	used   bool // alloc was called since the last reset
}

func (a *arena) reset() {
	if a.used { // most frames keep nothing
		a.resetBlocks()
	}
}

//go:noinline
func (a *arena) resetBlocks() {
	for i := 0; i <= a.cur && i < len(a.blocks); i++ {
		a.blocks[i] = a.blocks[i][:0]
	}
	a.cur, a.used = 0, false
}

// alloc reserves n octets and returns them as an empty slice of capacity n.
func (a *arena) alloc(n int) []byte {
	a.used = true
	for ; a.cur < len(a.blocks); a.cur++ {
		b := a.blocks[a.cur]
		if s := len(b); cap(b)-s >= n {
			a.blocks[a.cur] = b[:s+n]
			return b[s : s : s+n]
		}
	}
	size := arenaBlock
	if k := len(a.blocks); k > 0 {
		size = 2 * cap(a.blocks[k-1])
	}
	a.blocks = append(a.blocks, make([]byte, n, max(size, n)))
	a.cur = len(a.blocks) - 1
	return a.blocks[a.cur][0:0:n]
}

// Keep copies b into the frame's arena and returns the copy, valid until
// the frame is done (the next Decode, or the next flush call), for bytes a
// PDU shows that do not lie in f.Data (reassembled, de-marked).
func (f *Frame) Keep(b []byte) []byte {
	return append(f.arena.alloc(len(b)), b...)
}

// Alloc reserves n octets in the frame's arena, with the lifetime of Keep,
// and returns them as an empty slice of capacity n to build a message in
// with append (appending more than n octets moves it off the arena).
func (f *Frame) Alloc(n int) []byte { return f.arena.alloc(n) }

// FrameState is state kept per engine by a dissector that has no instance
// of its own (a handler in another's table, as AFS in rx.service): the
// engine decodes every packet into one Frame, so a value kept in that
// Frame lives as long as the engine, and goes with it. A package-level
// table keyed by Frame would keep every engine ever made alive (rdx read
// over many files holds one engine per file).
type FrameState[T any] struct{ slot int }

var frameSlots atomic.Int32

// NewFrameState reserves a slot in every Frame (at package init).
func NewFrameState[T any]() FrameState[T] { return FrameState[T]{int(frameSlots.Add(1)) - 1} }

// Get returns f's value, new (zero) on the first call for f. Like the
// frame, it is for the goroutine decoding into f.
func (s FrameState[T]) Get(f *Frame) *T {
	if s.slot >= len(f.states) {
		f.states = append(f.states, make([]any, s.slot+1-len(f.states))...)
	}
	v, _ := f.states[s.slot].(*T)
	if v == nil {
		v = new(T)
		f.states[s.slot] = v
	}
	return v
}
