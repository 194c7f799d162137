package oncrpc

import (
	"strconv"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// recBuffers charges the record-marking buffers of TCP streams (up to
// maxRecord each) to the engine's memory budget as table "rpc". Streams
// holding bytes sit in an LRU list, most recently fed first, so the budget
// can drop the least recently active buffer: that stream loses sync, as
// after a TCP gap.
type recBuffers struct {
	lru budget.LRU[stream]
}

// keepBuf is the largest buffer kept for the next record once one is
// complete; bigger ones are given back.
const keepBuf = 64 << 10

func (r *recBuffers) init(b *budget.Budget) {
	r.lru.Init(b.Register("rpc", r))
}

// held updates st's charge and place after its buffer changed: a stream
// holding nothing is on no list.
func (r *recBuffers) held(st *stream) {
	if st.bad {
		st.buf = nil // a stream out of sync decodes nothing more: keep nothing
	}
	r.lru.Hold(&st.lru, st, int64(cap(st.buf)))
}

// growBuf makes room for n more octets, doubling but never past the end of
// the current fragment, so a 4 MiB record holds 4 MiB, not 8.
func growBuf(st *stream, n int) {
	if cap(st.buf)-len(st.buf) >= n {
		return
	}
	c := min(max(2*cap(st.buf), len(st.buf)+n, 4096), len(st.buf)+st.need)
	nb := make([]byte, len(st.buf), c)
	copy(nb, st.buf)
	st.buf = nb
}

// release forgets st's buffer.
func (r *recBuffers) release(st *stream) {
	st.buf = nil
	r.held(st)
}

// reset forgets every buffer (the streams are being thrown away).
func (r *recBuffers) reset() {
	r.lru.Reset()
	r.lru.Account().Reset()
}

// Oldest implements budget.Table.
func (r *recBuffers) Oldest() (uint64, bool) { return r.lru.Oldest() }

// DropOldest implements budget.Table: the stream's partial record is lost
// and the stream is no longer decoded, as after a gap.
func (r *recBuffers) DropOldest() string {
	st := r.lru.Back()
	if st == nil {
		return "no RPC record buffer"
	}
	what := "ONC RPC record buffer of " + st.key.key.Src(st.key.dir).String() + " → " +
		st.key.key.Dst(st.key.dir).String() + " (" + strconv.Itoa(len(st.buf)) + " octets of a record)"
	st.bad = true
	r.release(st)
	return what
}
