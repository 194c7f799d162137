package smallmap

import (
	"math/rand/v2"
	"unsafe"
)

// The spill holds the tagged entries beyond Front: open addressing with
// linear probing on a seeded mix of the tag, so a lookup costs a few
// multiplies and compares, not a Go map's hash of the whole key (aeshash of
// 48 octets and a probe: ~150 instructions per operation on the RoCE path,
// cachegrind). Entries whose tags mix alike are told apart by their whole
// keys.
//
// Tags are cheap functions of keys that the traffic chooses (addresses,
// XIDs), so crafted keys can share one tag, or tags that would share a home
// slot under a fixed mix. Two guards keep every operation O(1) anyway:
//   - seed, random per process, is mixed into every tag before it picks a
//     slot, so distinct tags cannot be aimed at one run;
//   - an entry sits at most maxProbe-1 slots past its home: one that would
//     sit further (keys sharing a tag pile up in one run) goes to the Go map
//     instead, which hashes the whole key with its own random seed.
//
// A search thus compares at most maxProbe slots before it asks the Go map.
// Deletion shifts the run back (no tombstones), so a table filled and
// emptied forever never needs rebuilding. The table only grows, at half
// load, as a Go map keeps its buckets: it allocates only when more entries
// are held than ever before, and its size is bounded by the caller's limit
// on entries (SpillCost is what to charge per entry).

// seed changes where entries sit, never what is found or the order of
// anything a caller prints (iteration order is unspecified, as a Go map's).
var seed = rand.Uint64()

const (
	// minSpill is the slot count of a spill's first table.
	minSpill = 4
	// maxProbe bounds how far past its home slot an entry may sit, and so
	// the slots a search reads. With a random mix at most half full, a run
	// that long is rare (an entry put in the Go map costs only speed).
	maxProbe = 16
)

type slot[K comparable, V any] struct {
	h uint64 // mix of the entry's tag; 0: the slot is empty
	k K
	v V
}

// SpillCost is the most octets one entry costs the spill of a Map[K, V]:
// the table grows at half load to twice its size, so it holds at most four
// slots per entry (the Go map it overflows into costs less). A caller that
// charges a memory budget per entry charges at least this on top of its
// own struct.
func SpillCost[K comparable, V any]() int64 { return 4 * int64(unsafe.Sizeof(slot[K, V]{})) }

// mix is a tag's slot hash: seeded, every bit of t reaching the top bits
// that pick the home slot (callers' tags are xors whose low or high bits
// alone may be poor), and never 0, which marks an empty slot.
func mix(t uint64) uint64 {
	t ^= seed
	t ^= t >> 33
	t *= 0xff51afd7ed558ccd
	t ^= t >> 33
	t *= 0xc4ceb9fe1a85ec53
	return t | 1
}

func (s *Map[K, V]) home(h uint64) int { return int(h >> s.shift) }

// spFind returns the slot of k, whose tag mixes to h, or -1.
func (s *Map[K, V]) spFind(k *K, h uint64) int {
	if s.spN == 0 {
		return -1
	}
	mask := len(s.slots) - 1
	i := s.home(h)
	for range maxProbe {
		e := &s.slots[i]
		if e.h == 0 {
			return -1
		}
		if e.h == h && e.k == *k {
			return i
		}
		i = (i + 1) & mask
	}
	return -1
}

// spInsert adds k, which is not held, with tag mix h and value v: in the
// table when an empty slot lies within maxProbe of its home, else in the
// Go map.
func (s *Map[K, V]) spInsert(k K, h uint64, v V) {
	if 2*(s.spN+1) > len(s.slots) {
		s.spGrow()
	}
	if !s.spPut(k, h, v) {
		s.setMap(k, v)
	}
}

// spPut puts k in the table if an empty slot lies within maxProbe of its
// home.
func (s *Map[K, V]) spPut(k K, h uint64, v V) bool {
	mask := len(s.slots) - 1
	i := s.home(h)
	for range maxProbe {
		if e := &s.slots[i]; e.h == 0 {
			e.h, e.k, e.v = h, k, v
			s.spN++
			return true
		}
		i = (i + 1) & mask
	}
	return false
}

func (s *Map[K, V]) spGrow() {
	old := s.slots
	n := 2 * len(old)
	if n == 0 {
		n = minSpill
	}
	s.slots = make([]slot[K, V], n)
	s.shift = 64
	for m := n; m > 1; m >>= 1 {
		s.shift--
	}
	s.spN = 0
	for i := range old {
		if e := &old[i]; e.h != 0 && !s.spPut(e.k, e.h, e.v) {
			s.setMap(e.k, e.v)
		}
	}
}

// spRemove empties slot i and moves back the entries after it that
// probing from their homes would no longer reach across the hole. Only an
// entry less than maxProbe slots past the hole can be one (none sits
// further from its home), so the scan stops there.
func (s *Map[K, V]) spRemove(i int) {
	mask := len(s.slots) - 1
	for j := (i + 1) & mask; s.slots[j].h != 0 && (j-i)&mask < maxProbe; j = (j + 1) & mask {
		// the entry at j may fill the hole at i unless its home lies
		// cyclically after i, up to j
		if h := s.home(s.slots[j].h); (j-h)&mask >= (j-i)&mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = slot[K, V]{} // keep nothing reachable
	s.spN--
}

// spClear removes every entry of the table, keeping it.
func (s *Map[K, V]) spClear() {
	if s.spN > 0 {
		clear(s.slots)
		s.spN = 0
	}
}
