// Package smallmap is a map for tables that hold a few entries at a time
// most of the time (RPC calls awaiting their replies, RDMA READs awaiting
// their responses), whose every entry is inserted, looked up and deleted
// once per message.
//
// Why: on such tables a Go map costs 200-500 instructions per insert, lookup
// and delete for the struct keys they use (addresses and an ID: hashing,
// probing, reseeding a map that became empty), about 1,600 instructions per
// RPC-over-RDMA WRITE call on the RoCE path (cachegrind). Here the first
// Front entries live in an array searched by key comparison, and only what
// does not fit goes to a Go map, so a table of a few entries never hashes.
//
// A user with a large key may use the tagged methods (GetT, SetT, DeleteT)
// with a cheap one-word tag of each key: the array keeps the tags, and a
// search compares them before any whole key, instead of comparing every
// key (a 48-octet key compare is a memeqbody call of ~20 instructions).
// What does not fit in the array then goes to a table probed by the tag
// (the spill, spill.go), not to a Go map, so many entries outstanding at
// once (64 clients' calls) never hash a whole key either; the spill stays
// O(1) per operation whatever the tags (crafted keys sharing one overflow
// into the Go map). A user of the plain methods may give a hash (SetHash)
// to spill there too: it is computed only while more than Front entries
// are held, so a few cost no hashing.
package smallmap

// Front is how many entries are kept in the array; more go to the map.
const Front = 8

// Map is a map from K to V; the zero value is an empty map. Every key is
// in exactly one of the array, the spill table (slots: the tagged methods',
// and the plain ones' once big) and the Go map m (the plain methods' spill
// without SetHash, and the table's overflow). Iteration order is
// unspecified, as a Go map's.
type Map[K comparable, V any] struct {
	n     int
	tags  [Front]uint64 // the tagged methods' tag of keys[i]; unset by Set until big
	keys  [Front]K
	vals  [Front]V
	m     map[K]V
	slots []slot[K, V] // the spill table: a power of two long, or nil
	spN   int          // entries in slots
	shift uint         // 64 - log2(len(slots))
	// hash, when set (SetHash), lets the plain methods spill into slots
	// too; big says they do: from the first spill until the map is empty,
	// every key in the array carries its hash as its tag.
	hash func(K) uint64
	big  bool
}

// SetHash gives the plain methods (Get, Set, Delete) a hash of a key (equal
// keys, equal hashes), used only once more than Front entries are held:
// the array is then searched by hash and the rest spill into the tag table,
// not straight into a Go map, while a map that never holds more never
// hashes. Call it before the first Set; the map must then not be used with
// the tagged methods.
func (s *Map[K, V]) SetHash(f func(K) uint64) { s.hash = f }

// goBig tags the array's keys with their hashes: from now on the plain
// methods are the tagged ones with the hash as the tag.
func (s *Map[K, V]) goBig() {
	for i := range s.n {
		s.tags[i] = s.hash(s.keys[i])
	}
	s.big = true
}

// Len is the number of entries.
func (s *Map[K, V]) Len() int { return s.n + len(s.m) + s.spN }

func (s *Map[K, V]) find(k *K) int {
	for i := range s.n {
		if s.keys[i] == *k {
			return i
		}
	}
	return -1
}

// findT is find comparing tags first.
func (s *Map[K, V]) findT(k *K, t uint64) int {
	for i, tt := range s.tags[:s.n] {
		if tt == t && s.keys[i] == *k {
			return i
		}
	}
	return -1
}

// Get returns the value of k (the zero value and false when absent).
func (s *Map[K, V]) Get(k K) (v V, ok bool) {
	if s.big {
		return s.GetT(k, s.hash(k))
	}
	if i := s.find(&k); i >= 0 {
		return s.vals[i], true
	}
	if len(s.m) > 0 {
		v, ok = s.m[k]
	}
	return v, ok
}

// Set makes v the value of k.
func (s *Map[K, V]) Set(k K, v V) {
	if s.big {
		s.SetT(k, s.hash(k), v)
		return
	}
	if i := s.find(&k); i >= 0 {
		s.vals[i] = v
		return
	}
	if len(s.m) > 0 && s.inMap(k, v) { // the length test outside: a call only when the map is used
		return
	}
	if s.n < Front {
		s.put(k, 0, v) // 0: tags are read only once big
		return
	}
	if s.hash != nil { // (m is empty: it holds entries only while big)
		s.goBig()
		s.spInsert(k, mix(s.hash(k)), v)
		return
	}
	s.setMap(k, v)
}

// put appends k, tagged t, to the array, which has room.
func (s *Map[K, V]) put(k K, t uint64, v V) {
	s.tags[s.n], s.keys[s.n], s.vals[s.n] = t, k, v
	s.n++
}

func (s *Map[K, V]) setMap(k K, v V) {
	if s.m == nil {
		s.m = make(map[K]V)
	}
	s.m[k] = v
}

// Delete removes k, if present.
func (s *Map[K, V]) Delete(k K) {
	if s.big {
		s.DeleteT(k, s.hash(k))
		if s.Len() == 0 {
			s.big = false // a map holding a few again compares keys, not hashes
		}
		return
	}
	if i := s.find(&k); i >= 0 {
		s.drop(i)
		return
	}
	if len(s.m) > 0 {
		delete(s.m, k)
	}
}

// drop removes array entry i.
func (s *Map[K, V]) drop(i int) {
	s.n--
	s.tags[i], s.keys[i], s.vals[i] = s.tags[s.n], s.keys[s.n], s.vals[s.n]
	var zk K
	var zv V
	s.keys[s.n], s.vals[s.n] = zk, zv // keep nothing reachable
}

// GetT, SetT and DeleteT are Get, Set and Delete for a key k whose tag is
// t: equal keys must have equal tags, and keys held at once should rarely
// share one (keys sharing one cost speed, never correctness: see
// spill.go). A map is used either with these or with Get, Set and Delete
// (which tag keys only once big, with SetHash's hash), never both.

// GetT is Get with k's tag t.
func (s *Map[K, V]) GetT(k K, t uint64) (v V, ok bool) {
	if i := s.findT(&k, t); i >= 0 {
		return s.vals[i], true
	}
	if s.spN > 0 {
		if i := s.spFind(&k, mix(t)); i >= 0 {
			return s.slots[i].v, true
		}
	}
	if len(s.m) > 0 {
		v, ok = s.m[k]
	}
	return v, ok
}

// SetT is Set with k's tag t.
func (s *Map[K, V]) SetT(k K, t uint64, v V) {
	if i := s.findT(&k, t); i >= 0 {
		s.vals[i] = v
		return
	}
	if s.spN > 0 {
		if i := s.spFind(&k, mix(t)); i >= 0 {
			s.slots[i].v = v
			return
		}
	}
	if len(s.m) > 0 && s.inMap(k, v) {
		return
	}
	if s.n < Front {
		s.put(k, t, v)
		return
	}
	s.spInsert(k, mix(t), v)
}

// DeleteT is Delete with k's tag t.
func (s *Map[K, V]) DeleteT(k K, t uint64) {
	if i := s.findT(&k, t); i >= 0 {
		s.drop(i)
		return
	}
	if s.spN > 0 {
		if i := s.spFind(&k, mix(t)); i >= 0 {
			s.spRemove(i)
			return
		}
	}
	if len(s.m) > 0 {
		delete(s.m, k)
	}
}

// Clear removes every entry.
func (s *Map[K, V]) Clear() {
	clear(s.keys[:s.n])
	clear(s.vals[:s.n])
	s.n = 0
	clear(s.m)
	s.spClear()
	s.big = false
}

// All yields every entry; f may not change the map.
func (s *Map[K, V]) All(f func(K, V) bool) {
	for i := range s.n {
		if !f(s.keys[i], s.vals[i]) {
			return
		}
	}
	for i := range s.slots {
		if e := &s.slots[i]; e.h != 0 && !f(e.k, e.v) {
			return
		}
	}
	for k, v := range s.m {
		if !f(k, v) {
			return
		}
	}
}

// inMap replaces k's value if k is in the Go map.
func (s *Map[K, V]) inMap(k K, v V) bool {
	if _, ok := s.m[k]; ok {
		s.m[k] = v
		return true
	}
	return false
}
