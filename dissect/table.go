package dissect

// Table is a two-generation map for per-connection and per-call state: when
// the current generation fills, the old one is dropped, so memory stays
// bounded without per-entry timers. Dropped values are reused by later Adds
// once Release is called (at the start of a frame: a dropped value's buffers
// may still back the previous frame's PDUs until then).
type Table[K comparable, V any] struct {
	Cur, Old map[K]*V // for iteration; Get and Add maintain them
	free     []*V
	limbo    []*V // dropped since the last Release
	limit    int
}

// Init empties the table (its values are not reused) and sets the size of a
// generation.
func (t *Table[K, V]) Init(limit int) {
	t.Cur, t.Old, t.limit = map[K]*V{}, map[K]*V{}, limit
}

// Release makes the values dropped since the last call reusable.
func (t *Table[K, V]) Release() {
	t.free = append(t.free, t.limbo...)
	t.limbo = t.limbo[:0]
}

// Recycling reports whether a value handed out before may be reused by the
// next Release or Add, so pointers cached beside the table must go.
func (t *Table[K, V]) Recycling() bool { return len(t.limbo) > 0 || len(t.Cur) >= t.limit }

// Get returns k's value, or nil; a value found in the old generation moves
// to the current one.
func (t *Table[K, V]) Get(k K) *V {
	if v, ok := t.Cur[k]; ok {
		return v
	}
	if v, ok := t.Old[k]; ok {
		delete(t.Old, k)
		t.Cur[k] = v
		return v
	}
	return nil
}

// Add inserts a value for k and returns it: new, or recycled as its last
// user left it (the caller resets it).
func (t *Table[K, V]) Add(k K) *V {
	if len(t.Cur) >= t.limit {
		for _, v := range t.Old {
			t.limbo = append(t.limbo, v)
		}
		clear(t.Old)
		t.Old, t.Cur = t.Cur, t.Old
	}
	var v *V
	if n := len(t.free); n > 0 {
		v, t.free = t.free[n-1], t.free[:n-1]
	} else {
		v = new(V)
	}
	t.Cur[k] = v
	return v
}
