package dissect

import (
	"math/rand/v2"

	"github.com/rdx-project/rdx/internal/prefault"
)

// The index of a Table given a hash (Table.Hash): open addressing with
// linear probing, in place of a Go map. The Rx call table, full in long
// captures, inserts and deletes an entry per new call; a Go map paid ~11%
// of `rdx read -q` on rx64 for that (mapassign_fast64, table.Delete and the
// in-place rehash that clears its tombstones, perf). Here an insert or
// delete moves a slot or two and leaves no tombstones (a delete shifts its
// run back), so a table filled and emptied forever never rehashes.
//
// Keys come from the traffic (call numbers), so two guards keep every
// operation O(1) whatever they are:
//   - ixSeed, random per process, is mixed into each hash before it picks a
//     slot: keys cannot be aimed at one run without knowing it;
//   - an entry sits at most ixProbe-1 slots past its home slot. One that
//     would sit further (keys whose hashes collide pile up in one run) goes
//     to the Go map m instead, which hashes with its own random seed.
//
// A search so reads at most ixProbe slots, then (only when m holds any) one
// Go map lookup.

// ixSeed changes where entries sit, never what is found: the table's order
// is its LRU list's.
var ixSeed = rand.Uint64()

const (
	// ixMin is the slot count of an index's first table.
	ixMin = 16
	// ixProbe bounds how far past its home an entry sits (and so a search).
	// At most half full with a random mix, a run that long is rare: an
	// entry put in the Go map costs only speed.
	ixProbe = 16
)

// ixSlot is one slot: the mixed hash of its entry's key (0: empty) and the
// entry, whose key tells apart entries whose hashes mix alike.
type ixSlot[K comparable, V any] struct {
	h uint64
	e *Entry[K, V]
}

// ixMix is a key hash's slot hash, never 0 (an empty slot). Its bits from
// the fourth up pick a group of four slots (a cache line, ixHomeAt), from a
// seeded mix of all bits of x but its two lowest; those two pick the home
// slot in the group, bits 1-2 of the slot hash. Keys that come in runs (an
// Rx channel's call numbers) so sit four to a line: a new call lands in the line of the
// channel's last call, and a dropped call in that of the next one dropped,
// each likely cached, where a random slot is a cache miss (~85% of the
// insert's time, perf annotate).
func ixMix(x uint64) uint64 {
	y := x>>2 ^ ixSeed
	y = (y ^ y>>30) * 0xbf58476d1ce4e5b9
	y = (y ^ y>>27) * 0x94d049bb133111eb
	return (y^y>>31)&^7 | (x&3)<<1 | 1
}

// ixHome is the home slot of slot hash h.
func (t *Table[K, V]) ixHome(h uint64) int { return ixHomeAt(h, len(t.slots)-1) }

// ixHomeAt is ixHome for a table of mask+1 slots: bits 1-2 of h the slot in
// the group, the bits above them the group. A shift and a mask, where the
// group from the top bits took a variable shift, and with it the register
// the shift count must sit in, on each slot a delete's loop looks at.
func ixHomeAt(h uint64, mask int) int { return int(h>>1) & mask }

// ixFind returns k's entry, or nil.
func (t *Table[K, V]) ixFind(k K) *Entry[K, V] {
	if t.ixN > 0 {
		h := ixMix(t.hash(k))
		slots := t.slots
		mask := len(slots) - 1
		for i, n := ixHomeAt(h, mask), 0; n < ixProbe; i, n = (i+1)&mask, n+1 {
			s := &slots[i]
			if s.h == h && s.e.key == k {
				return s.e
			}
			if s.h == 0 {
				break
			}
		}
	}
	if len(t.m) > 0 {
		return t.m[k]
	}
	return nil
}

// ixAdd indexes e, whose key is not in the table.
func (t *Table[K, V]) ixAdd(e *Entry[K, V]) {
	if 2*(t.ixN+1) > len(t.slots) {
		t.ixGrow()
	}
	if !t.ixPut(ixMix(t.hash(e.key)), e) {
		t.m[e.key] = e
	}
}

// ixPut puts e in a free slot within ixProbe of home slot h's, if any.
func (t *Table[K, V]) ixPut(h uint64, e *Entry[K, V]) bool {
	slots := t.slots // in a register: the loop stores nothing before it returns
	mask := len(slots) - 1
	for i, n := ixHomeAt(h, mask), 0; n < ixProbe; i, n = (i+1)&mask, n+1 {
		if s := &slots[i]; s.h == 0 {
			s.h, s.e = h, e
			t.ixN++
			return true
		}
	}
	return false
}

// ixGrow doubles the slots (to room for the limit at once when Presize
// asked and the table holds limit/presizeFrac entries).
func (t *Table[K, V]) ixGrow() {
	n := max(2*len(t.slots), ixMin)
	presized := t.presize && t.ixN >= t.limit/presizeFrac
	if presized {
		for n < 2*t.limit {
			n *= 2
		}
		t.presize = false
	}
	old := t.slots
	t.slots, t.ixN = make([]ixSlot[K, V], n), 0
	if presized {
		// keys land all over the room: every page of it is written soon,
		// so map them in with one system call, not a fault each (newEntry)
		prefault.Cap(t.slots)
	}
	for i := range old {
		if s := &old[i]; s.h != 0 && !t.ixPut(s.h, s.e) {
			t.m[s.e.key] = s.e
		}
	}
}

// ixDelete removes e from the index.
func (t *Table[K, V]) ixDelete(e *Entry[K, V]) {
	if t.ixN > 0 {
		h := ixMix(t.hash(e.key))
		slots := t.slots
		mask := len(slots) - 1
		for i, n := ixHomeAt(h, mask), 0; n < ixProbe && slots[i].h != 0; i, n = (i+1)&mask, n+1 {
			if slots[i].e == e {
				t.ixHole(i)
				return
			}
		}
	}
	delete(t.m, e.key)
}

// ixHole empties slot i and closes the gap: each entry after it in the run
// that a search from its home would no longer reach across the hole moves
// into it, leaving a new hole where it was. An entry sits less than ixProbe
// past its home, so no entry further than that from the hole can move.
//
// The slice is held in a local: read through t, the compiler loaded it
// again after every move's stores, in the loop that scans most of a run on
// each delete of the full Rx call table (~300 instructions a delete,
// cachegrind).
func (t *Table[K, V]) ixHole(i int) {
	slots := t.slots
	mask := len(slots) - 1
	for j := (i + 1) & mask; (j-i)&mask < ixProbe; j = (j + 1) & mask {
		s := &slots[j]
		if s.h == 0 {
			break
		}
		if (j-ixHomeAt(s.h, mask))&mask >= (j-i)&mask { // home is not after the hole: it may fill it
			slots[i] = *s
			i = j
		}
	}
	slots[i] = ixSlot[K, V]{}
	t.ixN--
}
