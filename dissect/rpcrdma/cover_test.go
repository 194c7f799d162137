package rpcrdma

import (
	"math/rand/v2"
	"testing"
)

// TestCoverModel checks cover against a bitmap of covered octets over
// random pieces, in order as READ responses come (which cover's fast path
// takes: extending the last span) and anywhere (retransmissions, reordered
// pieces): the spans stay sorted, disjoint and apart, added counts the new
// octets, and a piece that would make more than maxSpans is refused.
func TestCoverModel(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const size = 4096
	for round := range 400 {
		var spans []span
		var have [size]bool
		at := 0
		for range 80 {
			var lo, hi int
			switch {
			case round%2 == 0 && rnd.IntN(4) > 0: // in order, often overlapping the end
				lo = max(0, at-rnd.IntN(64))
				hi = min(size, lo+rnd.IntN(300))
				at = hi
			default:
				lo = rnd.IntN(size)
				hi = min(size, lo+rnd.IntN(200))
			}
			want := 0
			for i := lo; i < hi; i++ {
				if !have[i] {
					want++
				}
			}
			before := len(spans)
			got, added, ok := cover(append([]span(nil), spans...), lo, hi)
			if !ok {
				// refused only when the piece touches no span and the list is full
				if before < maxSpans {
					t.Fatalf("round %d: [%d,%d) refused with %d spans", round, lo, hi, before)
				}
				for _, s := range spans {
					if s.lo <= hi && lo <= s.hi {
						t.Fatalf("round %d: [%d,%d) refused though it touches [%d,%d)", round, lo, hi, s.lo, s.hi)
					}
				}
				continue
			}
			if added != want {
				t.Fatalf("round %d: cover %v + [%d,%d) added %d, want %d", round, spans, lo, hi, added, want)
			}
			for i := lo; i < hi; i++ {
				have[i] = true
			}
			spans = got
			// the spans are exactly the covered octets, sorted and apart
			var model []span
			for i := 0; i < size; {
				if !have[i] {
					i++
					continue
				}
				j := i
				for j < size && have[j] {
					j++
				}
				model = append(model, span{i, j})
				i = j
			}
			var nonEmpty []span
			for _, s := range spans {
				if s.lo < s.hi {
					nonEmpty = append(nonEmpty, s)
				}
			}
			if len(nonEmpty) != len(model) {
				t.Fatalf("round %d: spans %v, covered %v", round, spans, model)
			}
			for i := range model {
				if nonEmpty[i] != model[i] {
					t.Fatalf("round %d: spans %v, covered %v", round, spans, model)
				}
			}
		}
	}
}
