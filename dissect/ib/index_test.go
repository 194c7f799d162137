package ib

import "testing"

// A new index caches nothing: its zero-valued cache entries must not answer
// for the zero key (an IB packet without addresses on QP 0).
func TestIndexZeroValue(t *testing.T) {
	var x index[flowKey]
	if _, ok := x.get(flowKey{}); ok {
		t.Fatal("empty index found the zero key")
	}
	x.put(flowKey{qp: 7}, 3)
	if i, ok := x.get(flowKey{qp: 7}); !ok || i != 3 {
		t.Fatalf("got %d %v", i, ok)
	}
	x.reset()
	if _, ok := x.get(flowKey{qp: 7}); ok {
		t.Fatal("reset index still answers")
	}
}
