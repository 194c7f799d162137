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
	lru budget.LRU[half]
}

// keepFPDUBuf is the largest buffer kept between FPDUs; a bigger one
// (after a long resync search) is given back once empty.
const keepFPDUBuf = 128 << 10

func (r *fpduBuffers) init(b *budget.Budget) {
	r.lru.Init(b.Register("mpa", r))
}

// held updates h's charge and place after its buffer changed: a direction
// holding nothing is on no list.
func (r *fpduBuffers) held(h *half) {
	if h.buf.Len() == 0 && h.buf.Cap() > keepFPDUBuf {
		h.buf.Free()
	}
	r.lru.Hold(&h.lru, h, int64(h.buf.Cap()))
}

// release gives h's buffer back (its connection is forgotten).
func (r *fpduBuffers) release(h *half) {
	h.buf.Free()
	r.held(h)
}

// reset forgets every buffer (the connections are being thrown away).
func (r *fpduBuffers) reset() {
	r.lru.Reset()
	r.lru.Account().Reset()
}

// Oldest implements budget.Table.
func (r *fpduBuffers) Oldest() (uint64, bool) { return r.lru.Oldest() }

// DropOldest implements budget.Table.
func (r *fpduBuffers) DropOldest() string {
	h := r.lru.Back()
	if h == nil {
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
