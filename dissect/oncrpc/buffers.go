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
	acct *budget.Account
	lru  stream // sentinel
}

// keepBuf is the largest buffer kept for the next record once one is
// complete; bigger ones are given back.
const keepBuf = 64 << 10

func (r *recBuffers) init(b *budget.Budget) {
	r.lru.prev, r.lru.next = &r.lru, &r.lru
	r.acct = b.Register("rpc", r)
}

// held updates st's charge and place after its buffer changed.
func (r *recBuffers) held(st *stream) {
	if r.lru.next == nil {
		r.lru.prev, r.lru.next = &r.lru, &r.lru // a State made without an engine
	}
	if st.bad {
		st.buf = nil // a stream out of sync decodes nothing more: keep nothing
	}
	if c := cap(st.buf); c != st.charged {
		r.acct.Charge(int64(c - st.charged))
		st.charged = c
	}
	if st.prev != nil {
		st.prev.next, st.next.prev = st.next, st.prev
		st.prev, st.next = nil, nil
	}
	if st.charged > 0 {
		st.stamp = r.acct.Now()
		st.prev, st.next = &r.lru, r.lru.next
		r.lru.next.prev = st
		r.lru.next = st
	}
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
	r.lru.prev, r.lru.next = &r.lru, &r.lru
	r.acct.Reset()
}

// Oldest implements budget.Table.
func (r *recBuffers) Oldest() (uint64, bool) {
	if st := r.lru.prev; st != nil && st != &r.lru {
		return st.stamp, true
	}
	return 0, false
}

// DropOldest implements budget.Table: the stream's partial record is lost
// and the stream is no longer decoded, as after a gap.
func (r *recBuffers) DropOldest() string {
	st := r.lru.prev
	if st == nil || st == &r.lru {
		return "no RPC record buffer"
	}
	what := "ONC RPC record buffer of " + st.key.key.Src(st.key.dir).String() + " → " +
		st.key.key.Dst(st.key.dir).String() + " (" + strconv.Itoa(len(st.buf)) + " octets of a record)"
	st.bad = true
	r.release(st)
	return what
}
