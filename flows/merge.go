package flows

// Merging statistics across engines. The parallel pipeline gives each
// worker engine the flows hashed to it (dissect.ShardKey), so every table
// row normally lives in one engine only; Merge adds another engine's rows
// and, for a row both counted, combines them as if one engine had seen
// both sets of frames: counts add, minimums and maximums meet, the first
// frame is the smaller one and the last the larger.
//
// A table whose limit keeps the first rows met ("later ones are not
// counted") keeps, after a merge, the limit's worth of rows met first,
// ordered by (first frame, order within that frame): exactly the rows one
// engine reading every frame would have kept, since each worker's rows
// among those are the first it met too.

// Order is where a row was first met: its first frame, then how many rows
// of the same table that frame had begun before it.
type Order struct {
	Frame uint64
	Sub   uint32
}

// Before reports whether o was met before p.
func (o Order) Before(p Order) bool {
	if o.Frame != p.Frame {
		return o.Frame < p.Frame
	}
	return o.Sub < p.Sub
}

// orderCounter hands out Orders: Sub restarts with every frame.
type orderCounter struct {
	frame uint64
	n     uint32
}

func (c *orderCounter) next(frame uint64) Order {
	if frame != c.frame {
		c.frame, c.n = frame, 0
	}
	o := Order{frame, c.n}
	c.n++
	return o
}

// KeepFirst reorders s so that its first k elements are the k met first by
// before (in no particular order) and returns s[:k]; s itself when it has
// no more than k. It runs in time linear in len(s) on average (quickselect
// with a median-of-three pivot), so merging a full table stays linear.
func KeepFirst[T any](s []T, k int, before func(a, b T) bool) []T {
	if len(s) <= k {
		return s
	}
	lo, hi := 0, len(s) // the k-th element lies in s[lo:hi]
	for hi-lo > 1 {
		// median of three as pivot, moved to s[lo]
		m := lo + (hi-lo)/2
		a, b, c := lo, m, hi-1
		if before(s[b], s[a]) {
			a, b = b, a
		}
		if before(s[c], s[b]) {
			b = c
			if before(s[b], s[a]) {
				b = a
			}
		}
		s[lo], s[b] = s[b], s[lo]
		p := lo // s[lo+1:p+1] before the pivot, s[p+1:i] not
		for i := lo + 1; i < hi; i++ {
			if before(s[i], s[lo]) {
				p++
				s[p], s[i] = s[i], s[p]
			}
		}
		s[lo], s[p] = s[p], s[lo]
		switch {
		case p == k:
			return s[:k]
		case p < k:
			lo = p + 1
		default:
			hi = p
		}
	}
	return s[:k]
}

// TagFrames adds tag to every frame number c keeps (its rows' first and
// last frames): the file's index above them when the tables of many files
// are merged (dissect.Engine.TagFrames). Linear in the table's size.
func (c *Conversations) TagFrames(tag uint64) {
	for _, s := range c.m {
		s.frame0 += tag
		s.frN += tag
	}
}

// TagFrames adds tag to the frame each call type was first answered in,
// as Conversations.TagFrames.
func (s *SRT[K]) TagFrames(tag uint64) {
	for _, t := range s.m {
		t.first.Frame += tag
	}
}

// Merge adds from's conversations into c. Linear in the two tables' sizes.
func (c *Conversations) Merge(from *Conversations) {
	if len(from.m) == 0 {
		return
	}
	if c.m == nil {
		c.m = make(map[key]*stat, len(from.m))
	}
	for k, o := range from.m {
		s := c.m[k]
		if s == nil {
			cp := *o
			c.m[k] = &cp
			continue
		}
		for d := range 2 {
			s.pkts[d] += o.pkts[d]
			s.bytes[d] += o.bytes[d]
		}
		if (Order{o.frame0, o.sub}).Before(Order{s.frame0, s.sub}) {
			s.first, s.frame0, s.sub = o.first, o.frame0, o.sub
		}
		if o.frN > s.frN {
			s.last, s.frN = o.last, o.frN
		}
	}
	keepFirstMet(c.m, MaxConversations, func(s *stat) Order { return Order{s.frame0, s.sub} })
}

// Merge adds from's response times into s. Linear in the two tables' sizes.
func (s *SRT[K]) Merge(from *SRT[K]) {
	if len(from.m) == 0 {
		return
	}
	if s.m == nil {
		s.m = make(map[K]*Times, len(from.m))
	}
	for k, o := range from.m {
		t := s.m[k]
		if t == nil {
			cp := *o
			s.m[k] = &cp
			continue
		}
		if t.Name == "" {
			t.Name = o.Name
		}
		t.Merge(o)
		if o.first.Before(t.first) {
			t.first = o.first
		}
	}
	keepFirstMet(s.m, MaxSRT, func(t *Times) Order { return t.first })
}

// keepFirstMet trims a merged table m to its limit: it keeps the entries met
// first (by order) and deletes the rest, which one engine, full by then,
// would not have counted. Linear in len(m).
func keepFirstMet[K comparable, V any](m map[K]V, limit int, order func(V) Order) {
	if len(m) <= limit {
		return
	}
	type ko struct {
		k K
		o Order
	}
	all := make([]ko, 0, len(m))
	for k, v := range m {
		all = append(all, ko{k, order(v)})
	}
	KeepFirst(all, limit, func(a, b ko) bool { return a.o.Before(b.o) })
	for _, x := range all[limit:] {
		delete(m, x.k)
	}
}
