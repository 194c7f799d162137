package mpa

import (
	"strconv"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// fpduBuffers charges the directions' FPDU buffers (an incomplete FPDU, up
// to 64 KiB plus markers, or bytes searched for alignment) to the engine's
// memory budget as table "mpa". Directions holding memory sit in an LRU
// list, most recently fed first; the budget drops the least recently
// active buffer, and that direction searches for FPDU alignment again, as
// after a TCP gap.
type fpduBuffers struct {
	acct *budget.Account
	lru  half // sentinel
}

// keepFPDUBuf is the largest buffer kept between FPDUs; a bigger one
// (after a long resync search) is given back once empty.
const keepFPDUBuf = 128 << 10

func (r *fpduBuffers) init(b *budget.Budget) {
	r.lru.prev, r.lru.next = &r.lru, &r.lru
	r.acct = b.Register("mpa", r)
}

// held updates h's charge and place after its buffer changed.
func (r *fpduBuffers) held(h *half) {
	if r.lru.next == nil {
		r.lru.prev, r.lru.next = &r.lru, &r.lru // a State made without an engine
	}
	if h.buf.Len() == 0 && h.buf.Cap() > keepFPDUBuf {
		h.buf.Free()
	}
	if c := h.buf.Cap(); c != h.charged {
		r.acct.Charge(int64(c - h.charged))
		h.charged = c
	}
	if h.prev != nil {
		h.prev.next, h.next.prev = h.next, h.prev
		h.prev, h.next = nil, nil
	}
	if h.charged > 0 {
		h.stamp = r.acct.Now()
		h.prev, h.next = &r.lru, r.lru.next
		r.lru.next.prev = h
		r.lru.next = h
	}
}

// release gives h's buffer back (its connection is forgotten).
func (r *fpduBuffers) release(h *half) {
	h.buf.Free()
	r.held(h)
}

// reset forgets every buffer (the connections are being thrown away).
func (r *fpduBuffers) reset() {
	r.lru.prev, r.lru.next = &r.lru, &r.lru
	r.acct.Reset()
}

// Oldest implements budget.Table.
func (r *fpduBuffers) Oldest() (uint64, bool) {
	if h := r.lru.prev; h != nil && h != &r.lru {
		return h.stamp, true
	}
	return 0, false
}

// DropOldest implements budget.Table.
func (r *fpduBuffers) DropOldest() string {
	h := r.lru.prev
	if h == nil || h == &r.lru {
		return "no MPA buffer"
	}
	what := "MPA buffer of " + h.key.Src(h.dir).String() + " → " + h.key.Dst(h.dir).String() +
		" (" + strconv.Itoa(h.buf.Len()) + " octets)"
	h.skip = 0
	if h.mode != modeOff {
		h.mode = modeResync
	}
	r.release(h)
	return what
}
