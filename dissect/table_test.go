package dissect

import (
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

func TestTable(t *testing.T) {
	var tb Table[int, int]
	tb.Init(2, 10, func(k int, v *int) string { return "entry " + strconv.Itoa(k) })
	one, _ := tb.Add(1)
	two, _ := tb.Add(2)
	if !one.Live() || !two.Live() {
		t.Fatal("entries in the table not live")
	}
	if tb.Get(1) != one { // 1 becomes the newest: 2 is the oldest
		t.Fatal("Get(1)")
	}
	three, old := tb.Add(3)
	if old != two || tb.Describe(old) != "entry 2" || tb.Get(2) != nil {
		t.Fatalf("Add on a full table dropped %v, want the least recently used entry 2", old)
	}
	if three == two || two.Live() {
		t.Fatal("a dropped value was reused before Release, or is still live")
	}
	tb.Release()
	four, old := tb.Add(4) // drops 1, reuses 2's value
	if four != two || old != one {
		t.Fatalf("Add after Release: reused %v, dropped %v", four == two, old)
	}
	var keys []int
	for k := range tb.All() {
		keys = append(keys, k)
	}
	if len(keys) != 2 || keys[0] != 3 || keys[1] != 4 {
		t.Fatalf("All = %v, want [3 4] (oldest first)", keys)
	}
	tb.Delete(3)
	if tb.Len() != 1 || tb.Get(3) != nil {
		t.Fatal("Delete")
	}
}

// The budget drops the least recently used entry first and gets back all
// the entry was charged.
func TestTableBudget(t *testing.T) {
	b := budget.New(1000)
	var tb Table[int, int]
	tb.Init(100, 100, func(k int, v *int) string { return "entry " + strconv.Itoa(k) })
	tb.Register(b, "test")
	for k := 1; k <= 5; k++ {
		b.Tick(uint64(k))
		e, _ := tb.Add(k)
		tb.Charge(e, 100)
	}
	b.Tick(6)
	tb.Get(1) // 1 is the newest now: 2 is the oldest
	b.Tick(7)
	e, _ := tb.Add(6)
	tb.Charge(e, 100) // 1200 octets
	drops := b.Enforce()
	if len(drops) != 1 || drops[0].What != "entry 2" || drops[0].Octets != 200 || b.Used() != 1000 {
		t.Fatalf("drops %+v, used %d", drops, b.Used())
	}
	tb.Init(100, 100, nil)
	if b.Used() != 0 {
		t.Fatalf("Init left %d octets charged", b.Used())
	}
}

// Touch keeps the list in exact least recently used order: random Touch,
// Get, Add and Delete against a model list, All compared after each.
func TestTableTouchOrder(t *testing.T) {
	var tb Table[int, int]
	tb.Init(8, 1, nil)
	var model []int // oldest first
	entries := map[int]*Entry[int, int]{}
	use := func(k int) {
		for i, m := range model {
			if m == k {
				model = append(model[:i], model[i+1:]...)
				break
			}
		}
		model = append(model, k)
	}
	seed := uint32(1)
	for op := 0; op < 5000; op++ {
		seed = seed*1664525 + 1013904223
		k := int(seed>>16) % 12
		switch e := entries[k]; {
		case e != nil && seed&0x300 == 0:
			tb.Delete(k)
			delete(entries, k)
			for i, m := range model {
				if m == k {
					model = append(model[:i], model[i+1:]...)
					break
				}
			}
		case e != nil && seed&0x400 != 0:
			tb.Touch(e)
			use(k)
		case e != nil:
			if tb.Get(k) != e {
				t.Fatalf("op %d: Get(%d) lost its entry", op, k)
			}
			use(k)
		default:
			ne, old := tb.Add(k)
			if old != nil {
				if old.Key() != model[0] {
					t.Fatalf("op %d: Add dropped %d, want the oldest %d", op, old.Key(), model[0])
				}
				delete(entries, model[0])
				model = model[1:]
			}
			entries[k] = ne
			use(k)
		}
		tb.Release()
		i := 0
		for k := range tb.All() {
			if i >= len(model) || model[i] != k {
				t.Fatalf("op %d: order differs from %v at %d (%d)", op, model, i, k)
			}
			i++
		}
		if i != len(model) {
			t.Fatalf("op %d: %d entries, want %d", op, i, len(model))
		}
	}
}

// Presize remakes the map once, at limit/presizeFrac entries: every entry
// stays found, and the table still drops the least recently used at its limit.
func TestTablePresize(t *testing.T) {
	var tb Table[int, int]
	tb.Init(64, 1, nil)
	tb.Presize()
	var es []*Entry[int, int]
	for k := 0; k < 64; k++ {
		if grown := !tb.presize; grown != (k > 64/presizeFrac) {
			t.Fatalf("before entry %d: map remade %v", k, grown)
		}
		e, old := tb.Add(k)
		if old != nil {
			t.Fatalf("Add(%d) dropped %d below the limit", k, old.Key())
		}
		e.V = k
		es = append(es, e)
	}
	for k, e := range es {
		if tb.Get(k) != e || e.V != k {
			t.Fatalf("entry %d lost when the map was remade", k)
		}
	}
	if _, old := tb.Add(64); old != es[0] || tb.Len() != 64 || tb.Get(0) != nil {
		t.Fatalf("at the limit: dropped %v, len %d", old, tb.Len())
	}
}
