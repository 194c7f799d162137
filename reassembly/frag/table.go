package frag

import "github.com/rdx-project/rdx/reassembly/budget"

// maxFree is how many finished entries a Table keeps for reuse (with their
// buffers, uncharged).
const maxFree = 16

// Entry is one unit in flight in a Table.
type Entry[K comparable] struct {
	Key K
	Assembly
	lru budget.Elem[Entry[K]]
}

// Table holds the units in flight, keyed by K (an IPv4 datagram's source,
// destination, id and protocol): at most limit of them, least recently
// active first, each charged to a budget account with what it occupies.
// Every operation is O(1) but DropOldest's description.
// It implements budget.Table.
type Table[K comparable] struct {
	m        map[K]*Entry[K]
	lru      budget.LRU[Entry[K]]
	free     []*Entry[K]
	limit    int
	overhead int64
	cfg      *Config
	describe func(b []byte, e *Entry[K]) []byte
}

// Init empties t and sets its policy: at most limit entries, each charged
// overhead octets (struct, map slot) besides its buffers, assembled under
// cfg, charged to acct (nil: to nothing), named by describe in findings.
func (t *Table[K]) Init(limit int, overhead int64, cfg *Config, acct *budget.Account, describe func(b []byte, e *Entry[K]) []byte) {
	t.limit, t.overhead, t.cfg, t.describe = limit, overhead, cfg, describe
	t.lru.Init(acct)
	t.m = map[K]*Entry[K]{}
}

// Len is the number of units in flight.
func (t *Table[K]) Len() int { return len(t.m) }

// Get returns k's entry, or nil.
func (t *Table[K]) Get(k K) *Entry[K] { return t.m[k] }

// Add starts a unit for k (not in t). When t is full its least recently
// active unit goes first: dropped names it for the caller's finding ("" when
// nothing was dropped).
func (t *Table[K]) Add(k K) (e *Entry[K], dropped string) {
	if len(t.m) >= t.limit {
		dropped = t.DropOldest()
	}
	if n := len(t.free); n > 0 {
		e, t.free = t.free[n-1], t.free[:n-1]
	} else {
		e = &Entry[K]{}
	}
	e.Key = k
	e.Reset(t.cfg)
	t.m[k] = e
	t.Touch(e)
	return e, dropped
}

// Touch makes e the most recently active and charges what it occupies now.
func (t *Table[K]) Touch(e *Entry[K]) {
	t.lru.Touch(&e.lru, e)
	t.lru.Charge(&e.lru, t.overhead+int64(e.Bytes()))
}

// Done forgets e (complete or dropped) and uncharges it. Its data stays
// valid until the next Add.
func (t *Table[K]) Done(e *Entry[K]) {
	t.lru.Remove(&e.lru)
	delete(t.m, e.Key)
	if len(t.free) < maxFree {
		t.free = append(t.free, e)
	}
}

// Describe names e as describe does.
func (t *Table[K]) Describe(b []byte, e *Entry[K]) []byte { return t.describe(b, e) }

// Reset forgets every unit (a rewind for a second pass).
func (t *Table[K]) Reset() {
	clear(t.m)
	t.lru.Reset()
	t.lru.Account().Reset()
}

// Oldest implements budget.Table.
func (t *Table[K]) Oldest() (uint64, bool) { return t.lru.Oldest() }

// DropOldest implements budget.Table: the least recently active unit goes.
func (t *Table[K]) DropOldest() string {
	e := t.lru.Back()
	if e == nil {
		return ""
	}
	what := string(t.describe(nil, e))
	t.Done(e)
	return what
}
