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
package smallmap

// Front is how many entries are kept in the array; more go to the map.
const Front = 8

// Map is a map from K to V; the zero value is an empty map. Every key is
// in exactly one of the array and the map. Iteration order is unspecified,
// as a Go map's.
type Map[K comparable, V any] struct {
	n    int
	tags [Front]uint64 // the tagged methods' tag of keys[i]; unset by Set
	keys [Front]K
	vals [Front]V
	m    map[K]V
}

// Len is the number of entries.
func (s *Map[K, V]) Len() int { return s.n + len(s.m) }

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
	if i := s.find(&k); i >= 0 {
		s.vals[i] = v
		return
	}
	s.add(k, 0, v) // 0: Set's users never read tags
}

// add makes v the value of k, tagged t, when k is not in the array.
func (s *Map[K, V]) add(k K, t uint64, v V) {
	if len(s.m) > 0 {
		if _, ok := s.m[k]; ok {
			s.m[k] = v
			return
		}
	}
	if s.n < Front {
		s.tags[s.n], s.keys[s.n], s.vals[s.n] = t, k, v
		s.n++
		return
	}
	s.setMap(k, v)
}

func (s *Map[K, V]) setMap(k K, v V) {
	if s.m == nil {
		s.m = make(map[K]V)
	}
	s.m[k] = v
}

// Delete removes k, if present.
func (s *Map[K, V]) Delete(k K) {
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
// share one. A map is used either with these or with Get, Set and Delete
// (which leave tags unset, to cost their users nothing), never both.

// GetT is Get with k's tag t.
func (s *Map[K, V]) GetT(k K, t uint64) (v V, ok bool) {
	if i := s.findT(&k, t); i >= 0 {
		return s.vals[i], true
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
	s.add(k, t, v)
}

// DeleteT is Delete with k's tag t.
func (s *Map[K, V]) DeleteT(k K, t uint64) {
	if i := s.findT(&k, t); i >= 0 {
		s.drop(i)
		return
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
}

// All yields every entry; f may not change the map.
func (s *Map[K, V]) All(f func(K, V) bool) {
	for i := range s.n {
		if !f(s.keys[i], s.vals[i]) {
			return
		}
	}
	for k, v := range s.m {
		if !f(k, v) {
			return
		}
	}
}
