package dissect

// Pool hands out the values a dissector keeps its PDUs in. The values live
// until the engine moves to another frame (or, in the end-of-input flush,
// whose calls all have number 0, to its next call); then the pool starts
// over, so putting PDUs into Frame.PDUs allocates nothing once it is warm.
type Pool[T any] struct {
	items []T
	n     int
	frame uint64
	seq   uint64
	// Limit, when above 0, also starts the pool over after Limit values
	// within one frame number, for callers that feed many packets under one
	// number (tests, fuzzing) and dissectors with few PDUs per frame.
	Limit int
}

// Get returns a value for frame f, as the previous user left it (callers
// reset the fields they use, and may keep slices' storage). fresh reports
// that the pool started over with this call, for dissectors that keep other
// per-frame scratch beside it.
func (p *Pool[T]) Get(f *Frame) (v *T, fresh bool) {
	if f.Num != p.frame || f.seq != p.seq || p.Limit > 0 && p.n >= p.Limit {
		p.frame, p.seq, p.n, fresh = f.Num, f.seq, 0, true
	}
	if p.n == len(p.items) {
		var zero T
		p.items = append(p.items, zero)
	}
	v = &p.items[p.n]
	p.n++
	return v, fresh
}

// Unget returns the value the last Get handed out (it was not used).
func (p *Pool[T]) Unget() {
	if p.n > 0 {
		p.n--
	}
}

// Reset makes the next Get start over (Rewind).
func (p *Pool[T]) Reset() { p.frame, p.seq, p.n = 0, 0, 0 }
