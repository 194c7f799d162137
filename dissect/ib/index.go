package ib

// index maps keys to indexes into a slab of per-key state, with the last
// few keys looked up cached in front of the map: a conversation alternates
// between a few keys (each direction of each QP), and hashing a 50-odd-octet
// key cost more than the work done per packet. Used for the PSN state and
// the flow counters.
type index[K indexKey] struct {
	m      map[K]int32
	recent [4]recentKey[K]
	next   uint8
}

// indexKey is a key with a cheap part to compare first (the QP number),
// before the whole key with its addresses.
type indexKey interface {
	comparable
	hint() uint32
}

type recentKey[K indexKey] struct {
	k    K
	i    int32
	used bool // false in the zero value: a new index caches nothing
}

func (x *index[K]) get(k K) (int32, bool) {
	h := k.hint()
	for j := range x.recent {
		if r := &x.recent[j]; r.used && r.k.hint() == h && r.k == k {
			return r.i, true
		}
	}
	i, ok := x.m[k]
	if ok {
		x.remember(k, i)
	}
	return i, ok
}

// put records k at slab index i.
func (x *index[K]) put(k K, i int32) {
	if x.m == nil {
		x.m = map[K]int32{}
	}
	x.m[k] = i
	x.remember(k, i)
}

func (x *index[K]) remember(k K, i int32) {
	x.recent[x.next] = recentKey[K]{k, i, true}
	x.next = (x.next + 1) % uint8(len(x.recent))
}

func (x *index[K]) len() int { return len(x.m) }

func (x *index[K]) reset() {
	clear(x.m)
	clear(x.recent[:])
}
