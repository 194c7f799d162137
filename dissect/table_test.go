package dissect

import "testing"

func TestTable(t *testing.T) {
	var tb Table[int, int]
	tb.Init(2)
	one, two := tb.Add(1), tb.Add(2)
	if !tb.Recycling() {
		t.Fatal("a full generation does not report recycling")
	}
	three := tb.Add(3) // 1 and 2 become the old generation
	if tb.Get(1) != one || len(tb.Old) != 1 || len(tb.Cur) != 2 {
		t.Fatalf("Get from the old generation: cur %d old %d", len(tb.Cur), len(tb.Old))
	}
	tb.Add(4) // drops 2; 3 and 1 become old
	if tb.Get(2) != nil {
		t.Fatal("dropped key still found")
	}
	if v := tb.Add(5); v == two {
		t.Fatal("a dropped value was reused before Release")
	}
	tb.Add(6) // drops 3 and 1
	tb.Release()
	if v := tb.Add(7); v != one && v != two && v != three {
		t.Fatal("Add after Release did not reuse a dropped value")
	}
}
