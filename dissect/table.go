package dissect

import (
	"iter"
	"unsafe"

	"github.com/rdx-project/rdx/internal/prefault"
	"github.com/rdx-project/rdx/internal/prefetch"
	"github.com/rdx-project/rdx/reassembly/budget"
)

// Table is a bounded map for per-connection and per-call state, kept in
// least recently used order: Get, Add and Touch make an entry the newest, and
// the oldest goes first, in O(1), when the table reaches its entry limit (Add
// says so, for a finding) or when the engine's memory budget
// (reassembly/budget) asks for octets back. Dropped values are reused by later
// Adds once Release is called (at the start of a frame: a dropped value may
// still back the previous frame's PDUs until then).
//
// A Table must not be copied after Init: its list points into itself.
type Table[K comparable, V any] struct {
	// m indexes the entries, or with a hash (Hash) those the slots of the
	// open-addressing index (tableindex.go) have no room for
	m        map[K]*Entry[K, V]
	hash     func(K) uint64
	slots    []ixSlot[K, V]
	ixN      int          // entries in slots
	head     *Entry[K, V] // sentinel: head.next is the oldest, head.prev the newest
	free     []*Entry[K, V]
	limbo    []*Entry[K, V] // dropped since the last Release
	limit    int
	overhead int64
	acct     *budget.Account
	describe func(k K, v *V) string
	// presize: Add remakes the map with room for limit entries when it
	// reaches limit/presizeFrac of them (Presize)
	presize bool
	// slabs: new entries come from slab, made slabBytes at a time, until
	// made reaches the limit (Presize; newEntry)
	slabs bool
	slab  []Entry[K, V]
	made  int
}

// presizeFrac: a table that Presize asked for takes room for its limit when
// it holds this fraction of it, so a small capture never pays for the room.
const presizeFrac = 8

// Releaser is implemented by values (*V) that hold buffers: the table calls
// Release when it drops or deletes the value, so values waiting for reuse
// hold no uncharged memory. The value's other fields stay as they were.
type Releaser interface{ Release() }

// Entry is one key's value with its place in the table.
type Entry[K comparable, V any] struct {
	V          V
	key        K
	stamp      uint64
	charged    int64
	prev, next *Entry[K, V]
}

// Key is the entry's key.
func (e *Entry[K, V]) Key() K { return e.key }

// KeyRef is the entry's key without a copy (a large key compared per
// packet), for reading only.
func (e *Entry[K, V]) KeyRef() *K { return &e.key }

// maxFreeEntries bounds the dropped values kept for reuse: after the budget
// drops thousands at once, the rest are left to the garbage collector (values
// kept for reuse are not charged to the budget).
const maxFreeEntries = 256

// Init empties the table and sets its entry limit and the octets charged per
// entry for the struct and its map slot. describe names an entry for the
// finding when the budget drops it ("Rx call 3 of connection ..."); it may
// be nil. The values held are reused by later Adds (up to maxFreeEntries),
// so a second pass over a capture allocates nothing: call Init only when no
// PDU of the current frame points into them (a rewind).
func (t *Table[K, V]) Init(limit int, overhead int64, describe func(k K, v *V) string) {
	t.limit, t.overhead, t.describe = limit, overhead, describe
	if t.m == nil {
		t.m, t.head = map[K]*Entry[K, V]{}, &Entry[K, V]{}
		t.head.next, t.head.prev = t.head, t.head
	}
	for t.head.next != t.head {
		t.unlink(t.head.next)
	}
	t.Release()
	t.acct.Reset()
}

// Hash indexes the entries by h(k) (equal keys, equal hashes) in an
// open-addressing table rather than a Go map: cheaper for a table that
// inserts and deletes an entry per new key for ever (Rx calls). Call it
// after the first Init, before the first Add.
func (t *Table[K, V]) Hash(h func(K) uint64) { t.hash = h }

// Presize asks that the map take room for the limit's entries in one step,
// once it holds limit/presizeFrac of them, for a table that usually fills
// (Rx calls, kept after their reply): growing a Go map entry by entry
// rehashes its entries at every split, and leaves little room for the
// tombstones a full table's churn (one delete per insert) leaves behind.
// Its entries are then made in slabs (newEntry).
func (t *Table[K, V]) Presize() { t.presize, t.slabs = true, true }

// Register charges the table to b under name ("rx"), so the budget can drop
// its oldest entries; call once, after the first Init.
func (t *Table[K, V]) Register(b *budget.Budget, name string) {
	t.acct = b.Register(name, t)
}

// Len is the number of entries.
func (t *Table[K, V]) Len() int { return t.ixN + len(t.m) }

// Used is what the table has charged to its budget (0 when not registered).
func (t *Table[K, V]) Used() int64 { return t.acct.Used() }

// Limit is the entry limit given to Init.
func (t *Table[K, V]) Limit() int { return t.limit }

// All yields every entry, oldest first.
func (t *Table[K, V]) All() iter.Seq2[K, *V] {
	return func(yield func(K, *V) bool) {
		for e := t.head.next; e != t.head; e = e.next {
			if !yield(e.key, &e.V) {
				return
			}
		}
	}
}

// Release makes the values dropped since the last call reusable.
func (t *Table[K, V]) Release() {
	if len(t.limbo) == 0 {
		return
	}
	if room := maxFreeEntries - len(t.free); room > 0 {
		t.free = append(t.free, t.limbo[:min(room, len(t.limbo))]...)
	}
	clear(t.limbo)
	t.limbo = t.limbo[:0]
}

// Live reports whether e is still in its table. A caller caching an entry
// beside the table checks it before each Release: a dropped entry is reused
// after that for another key.
func (e *Entry[K, V]) Live() bool { return e.prev != nil }

// Get returns k's entry, or nil, and makes it the newest.
func (t *Table[K, V]) Get(k K) *Entry[K, V] {
	e := t.find(k)
	if e != nil {
		t.Touch(e)
	}
	return e
}

func (t *Table[K, V]) find(k K) *Entry[K, V] {
	if t.hash != nil {
		return t.ixFind(k)
	}
	return t.m[k]
}

// Touch makes e the newest entry (a caller that caches an entry beside the
// table calls it for each use).
func (t *Table[K, V]) Touch(e *Entry[K, V]) {
	e.stamp = t.acct.Now()
	h := t.head
	newest, prev := h.prev, e.prev
	if newest == e || prev == nil { // newest already, or dropped
		return
	}
	// unlink and push as the newest, each pointer loaded once; the nil
	// checks come first so the six stores share one write barrier check
	next := e.next
	_, _ = next.prev, newest.next
	prev.next, next.prev = next, prev
	e.prev, e.next = newest, h
	newest.next, h.prev = e, e
}

func (t *Table[K, V]) pushNewest(e *Entry[K, V]) {
	e.prev, e.next = t.head.prev, t.head
	t.head.prev.next = e
	t.head.prev = e
}

// Add inserts an entry for k (not in the table) and returns it: new, or
// recycled as its last user left it (the caller resets e.V). When the table
// was full, its least recently used entry was dropped to make room: dropped
// is that entry, valid until the next Release, for the caller's finding.
func (t *Table[K, V]) Add(k K) (e, dropped *Entry[K, V]) {
	if t.Len() >= t.limit && t.head.next != t.head {
		dropped = t.head.next
		t.unlink(dropped)
		t.prefetchOldest()
	}
	if n := len(t.free); n > 0 {
		e, t.free = t.free[n-1], t.free[:n-1]
	} else {
		e = t.newEntry()
	}
	e.key, e.stamp, e.charged = k, t.acct.Now(), 0
	if t.hash != nil {
		t.ixAdd(e)
	} else {
		if t.presize && len(t.m) == t.limit/presizeFrac {
			t.grow()
		}
		t.m[k] = e
	}
	t.pushNewest(e)
	t.Charge(e, t.overhead)
	return e, dropped
}

// slabBytes is the size of a slab of entries (newEntry): 16 pages.
const slabBytes = 64 << 10

// newEntry makes an entry none of which is free. A table that usually fills
// (Presize) takes it from a slab of entries made at once and mapped in with
// one system call (prefault.Cap): the Rx call table's first 16,384 calls,
// made one by one, were 41% of the page faults of rdx read -q on rx64 (a
// fault costs ~12 µs here, a populated page ~2.5 µs). Slabs are made until
// the table has made its limit's entries, so they never hold more than a
// full table (its entries are reused from then on); then, and for other
// tables, an entry is made alone. A slab's memory goes back to the garbage
// collector only with the last of its entries: entries dropped beyond
// maxFreeEntries stay until then, at most a full table's worth.
func (t *Table[K, V]) newEntry() *Entry[K, V] {
	if len(t.slab) == 0 {
		if !t.slabs || t.made >= t.limit {
			return new(Entry[K, V])
		}
		n := min(max(int(slabBytes/unsafe.Sizeof(Entry[K, V]{})), 1), t.limit-t.made)
		t.slab = make([]Entry[K, V], n)
		prefault.Cap(t.slab)
		t.made += n
	}
	e := &t.slab[0]
	t.slab = t.slab[1:]
	return e
}

// prefetchOldest asks for the cache lines the next Add of a full table
// reads and writes first: the oldest entry's (its value's first lines, as
// a Releaser reads them, and its key and list links), its successor's
// link, and its index slot. A full table's oldest entry was last touched a
// whole table ago: in the Rx call table (16,384 calls of 240 octets) each
// was a cache miss, the unlink and the index delete's loads waiting on it
// (perf annotate); fetched now, they arrive while the frames up to the
// next new call are decoded.
func (t *Table[K, V]) prefetchOldest() {
	e := t.head.next
	if e == t.head {
		return
	}
	prefetch.Range(unsafe.Pointer(e), min(unsafe.Sizeof(e.V), 2*prefetch.Line))
	prefetch.Range(unsafe.Pointer(&e.key), unsafe.Offsetof(e.next)+unsafe.Sizeof(e.next)-unsafe.Offsetof(e.key))
	prefetch.Range(unsafe.Pointer(&e.next.prev), unsafe.Sizeof(e.prev))
	if t.hash != nil && t.ixN > 0 {
		prefetch.Range(unsafe.Pointer(&t.slots[t.ixHome(ixMix(t.hash(e.key)))]), unsafe.Sizeof(t.slots[0]))
	}
}

// Delete removes k's entry (a connection that closed); its value is reused
// after the next Release.
func (t *Table[K, V]) Delete(k K) {
	if e := t.find(k); e != nil {
		t.unlink(e)
	}
}

// Charge adds n octets (n < 0 releases) to what e holds; the table releases
// all of it when e is dropped or deleted.
func (t *Table[K, V]) Charge(e *Entry[K, V], n int64) {
	e.charged += n
	t.acct.Charge(n)
}

// grow remakes the map with room for the limit's entries (Presize), once.
func (t *Table[K, V]) grow() {
	m := make(map[K]*Entry[K, V], t.limit)
	for k, e := range t.m {
		m[k] = e
	}
	t.m, t.presize = m, false
}

func (t *Table[K, V]) unlink(e *Entry[K, V]) {
	if r, ok := any(&e.V).(Releaser); ok {
		r.Release()
	}
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	if t.hash != nil {
		t.ixDelete(e)
	} else {
		delete(t.m, e.key)
	}
	t.acct.Charge(-e.charged)
	e.charged = 0
	t.limbo = append(t.limbo, e)
}

// Describe names e as the describe function given to Init does.
func (t *Table[K, V]) Describe(e *Entry[K, V]) string {
	if t.describe == nil {
		return "an entry"
	}
	return t.describe(e.key, &e.V)
}

// Oldest implements budget.Table: the stamp of the least recently used entry.
func (t *Table[K, V]) Oldest() (uint64, bool) {
	if t.head == nil || t.head.next == t.head {
		return 0, false
	}
	return t.head.next.stamp, true
}

// DropOldest implements budget.Table.
func (t *Table[K, V]) DropOldest() string {
	e := t.head.next
	what := t.Describe(e)
	t.unlink(e)
	return what
}
