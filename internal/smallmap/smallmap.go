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
// A user with a large key may give the map a cheap tag function (SetTag):
// each array entry then keeps its key's tag, and a search compares the tags,
// one word each, before any whole key, instead of comparing every key (a
// 48-octet key compare is a memeqbody call of about 20 instructions).
package smallmap

// Front is how many entries are kept in the array; more go to the map.
const Front = 8

// Map is a map from K to V; the zero value is an empty map. Every key is
// in exactly one of the array and the map. Iteration order is unspecified,
// as a Go map's.
type Map[K comparable, V any] struct {
	n    int
	tags [Front]uint64 // tag(keys[i]) when tag is set
	keys [Front]K
	vals [Front]V
	m    map[K]V
	tag  func(K) uint64
}

// SetTag makes the array search compare f(key) first; f must return equal
// tags for equal keys, and should rarely collide for the keys held at once.
// Call it while the map is empty (nil: compare whole keys).
func (s *Map[K, V]) SetTag(f func(K) uint64) {
	if s.Len() != 0 {
		panic("smallmap: SetTag on a non-empty map")
	}
	s.tag = f
}

// tagOf is k's tag, 0 when no tag function is set.
func (s *Map[K, V]) tagOf(k *K) uint64 {
	if s.tag == nil {
		return 0
	}
	return s.tag(*k)
}

// Len is the number of entries.
func (s *Map[K, V]) Len() int { return s.n + len(s.m) }

// find is the array index of k (whose tag is t), -1 if absent.
func (s *Map[K, V]) find(k *K, t uint64) int {
	if s.tag == nil {
		for i := range s.n {
			if s.keys[i] == *k {
				return i
			}
		}
		return -1
	}
	for i, tt := range s.tags[:s.n] {
		if tt == t && s.keys[i] == *k {
			return i
		}
	}
	return -1
}

// Get returns the value of k (the zero value and false when absent).
func (s *Map[K, V]) Get(k K) (v V, ok bool) {
	if i := s.find(&k, s.tagOf(&k)); i >= 0 {
		return s.vals[i], true
	}
	if len(s.m) > 0 {
		v, ok = s.m[k]
	}
	return v, ok
}

// Set makes v the value of k.
func (s *Map[K, V]) Set(k K, v V) {
	t := s.tagOf(&k)
	if i := s.find(&k, t); i >= 0 {
		s.vals[i] = v
		return
	}
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
	if s.m == nil {
		s.m = make(map[K]V)
	}
	s.m[k] = v
}

// Delete removes k, if present.
func (s *Map[K, V]) Delete(k K) {
	if i := s.find(&k, s.tagOf(&k)); i >= 0 {
		s.n--
		s.tags[i], s.keys[i], s.vals[i] = s.tags[s.n], s.keys[s.n], s.vals[s.n]
		var zk K
		var zv V
		s.keys[s.n], s.vals[s.n] = zk, zv // keep nothing reachable
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
