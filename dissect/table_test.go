package dissect

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

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

// checkIndex checks a hashed table's index against its list: every entry
// is found, sits in the slots less than ixProbe past its home or else in
// the Go map (never both), and nothing else is indexed.
func checkIndex[K comparable, V any](tb *Table[K, V]) error {
	n := 0
	for e := tb.head.next; e != tb.head; e = e.next {
		n++
		if tb.find(e.key) != e {
			return fmt.Errorf("entry %v not found", e.key)
		}
	}
	if n != tb.Len() {
		return fmt.Errorf("%d entries listed, Len %d", n, tb.Len())
	}
	held := 0
	mask := len(tb.slots) - 1
	for i, s := range tb.slots {
		if s.h == 0 {
			continue
		}
		held++
		if d := (i - tb.ixHome(s.h)) & mask; d >= ixProbe {
			return fmt.Errorf("slot %d holds %v %d past its home", i, s.e.key, d)
		}
		if s.h != ixMix(tb.hash(s.e.key)) || !s.e.Live() {
			return fmt.Errorf("slot %d: stale entry %v", i, s.e.key)
		}
		if _, dup := tb.m[s.e.key]; dup {
			return fmt.Errorf("%v both in the slots and the map", s.e.key)
		}
	}
	if held != tb.ixN {
		return fmt.Errorf("%d slots held, ixN %d", held, tb.ixN)
	}
	return nil
}

// A table with a hash behaves as one with a Go map, whatever the hash:
// random Add, Get, Touch, Delete and Release against a model (keys, LRU
// order), the index checked after each operation. The weak hashes make
// long runs, entries in the Go map, and deletes that shift runs back.
func TestTableIndexModel(t *testing.T) {
	for _, tc := range []struct {
		name string
		hash func(int) uint64
	}{
		{"gomap", nil},
		{"identity", func(k int) uint64 { return uint64(k) }},
		{"fourhashes", func(k int) uint64 { return uint64(k & 3) }},
		{"onehash", func(int) uint64 { return 42 }},
	} {
		var tb Table[int, int]
		tb.Init(64, 1, nil)
		tb.Presize()
		tb.Hash(tc.hash)
		var model []int // oldest first
		entries := map[int]*Entry[int, int]{}
		remove := func(k int) {
			for i, m := range model {
				if m == k {
					model = append(model[:i], model[i+1:]...)
					return
				}
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for op := range 20000 {
			k := rng.IntN(100)
			switch e := entries[k]; {
			case e != nil && rng.IntN(3) == 0:
				tb.Delete(k)
				delete(entries, k)
				remove(k)
			case e != nil:
				if rng.IntN(2) == 0 {
					tb.Touch(e)
				} else if tb.Get(k) != e || e.V != k {
					t.Fatalf("%s op %d: Get(%d) lost its entry", tc.name, op, k)
				}
				remove(k)
				model = append(model, k)
			default:
				if tb.Get(k) != nil {
					t.Fatalf("%s op %d: Get(%d) found a deleted key", tc.name, op, k)
				}
				ne, old := tb.Add(k)
				ne.V = k
				if old != nil {
					if old.Key() != model[0] {
						t.Fatalf("%s op %d: Add dropped %d, want the oldest %d", tc.name, op, old.Key(), model[0])
					}
					delete(entries, model[0])
					model = model[1:]
				}
				entries[k] = ne
				model = append(model, k)
			}
			if rng.IntN(4) == 0 {
				tb.Release()
			}
			if err := checkIndex(&tb); err != nil {
				t.Fatalf("%s op %d: %v", tc.name, op, err)
			}
			if tb.Len() != len(model) {
				t.Fatalf("%s op %d: %d entries, want %d", tc.name, op, tb.Len(), len(model))
			}
		}
		i := 0
		for k := range tb.All() {
			if model[i] != k {
				t.Fatalf("%s: order differs from the model at %d", tc.name, i)
			}
			i++
		}
		tb.Init(64, 1, nil)
		if tb.Len() != 0 || tb.ixN != 0 || len(tb.m) != 0 {
			t.Fatalf("%s: Init left %d entries (%d in slots)", tc.name, tb.Len(), tb.ixN)
		}
	}
}

// TestTableIndexHostile: keys whose hashes the traffic made collide (one
// hash for all) must cost O(1) per operation, not O(entries) as one probe
// run of them all would. Checked by structure, not time: at most ixProbe
// of them sit in the slots (a search reads at most ixProbe slots, then one
// Go map lookup), the rest in the Go map; all are found, dropped in LRU
// order and deleted.
func TestTableIndexHostile(t *testing.T) {
	const n = 16000
	var tb Table[uint64, int]
	tb.Init(n/2, 1, nil)
	tb.Hash(func(uint64) uint64 { return 0x1234 })
	for k := range uint64(n) {
		if _, old := tb.Add(k); old != nil && old.Key() != k-n/2 {
			t.Fatalf("Add(%d) dropped %d", k, old.Key())
		}
		tb.Release()
	}
	if tb.ixN > ixProbe || tb.Len() != n/2 {
		t.Fatalf("%d colliding keys in the slots, want at most %d (%d in all)", tb.ixN, ixProbe, tb.Len())
	}
	if err := checkIndex(&tb); err != nil {
		t.Fatal(err)
	}
	for k := uint64(n / 2); k < n; k++ {
		tb.Delete(k)
	}
	if tb.Len() != 0 {
		t.Fatalf("%d entries left", tb.Len())
	}
}

// Keys in runs (an Rx channel's call numbers: hashes differing in their two
// lowest bits) share a cache line of the index: four consecutive ones sit
// in one aligned group of four slots, each at its place, whatever the seed.
func TestTableIndexRuns(t *testing.T) {
	defer func(s uint64) { ixSeed = s }(ixSeed)
	for seed := range uint64(32) {
		ixSeed = seed * 0x9e3779b97f4a7c15
		var tb Table[uint64, int]
		tb.Init(1024, 1, nil)
		tb.Hash(func(k uint64) uint64 { return k })
		for k := uint64(0x5550); k < 0x5554; k++ {
			tb.Add(k)
		}
		group := -1
		for i, s := range tb.slots {
			if s.h == 0 {
				continue
			}
			if group < 0 {
				group = i &^ 3
			}
			if i != group+int(s.e.key&3) {
				t.Fatalf("seed %d: key %#x in slot %d, want %d (one group of four from %d)", seed, s.e.key, i, group+int(s.e.key&3), group)
			}
		}
	}
}

// A presized table makes its entries in slabs, a few allocations for
// thousands of entries, and never more than its limit's entries in them:
// past the limit (drops beyond the free list) an entry is made alone.
func TestTableSlabs(t *testing.T) {
	const limit = 5000
	var tb Table[int, [4]int]
	tb.Init(limit, 1, nil)
	tb.Presize()
	tb.Hash(func(k int) uint64 { return uint64(k) })
	es := make([]*Entry[int, [4]int], 0, limit)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for k := range limit {
		e, _ := tb.Add(k)
		es = append(es, e)
	}
	runtime.ReadMemStats(&m1)
	allocs := m1.Mallocs - m0.Mallocs
	perSlab := int(slabBytes / unsafe.Sizeof(Entry[int, [4]int]{}))
	// the slabs, the index's doublings (a dozen) and a few more
	if max := limit/perSlab + 1 + 20; allocs > uint64(max) {
		t.Errorf("%v allocations for %d entries, want at most %d (slabs of %d)", allocs, limit, max, perSlab)
	}
	if tb.made != limit || len(tb.slab) != 0 {
		t.Fatalf("made %d entries in slabs (%d unused), want the limit %d", tb.made, len(tb.slab), limit)
	}
	for k, e := range es {
		if tb.Get(k) != e || e.Key() != k {
			t.Fatalf("entry %d not found", k)
		}
		size := unsafe.Sizeof(*e)
		if k%perSlab != 0 && uintptr(unsafe.Pointer(e))-uintptr(unsafe.Pointer(es[k-1])) != size {
			t.Fatalf("entry %d is not next to entry %d in its slab", k, k-1)
		}
	}
	// drop all but one; maxFreeEntries are kept, the rest left: new entries
	// beyond the free list are made alone
	for k := range limit - 1 {
		tb.Delete(k)
	}
	tb.Release()
	for k := range maxFreeEntries + 10 {
		tb.Add(limit + k)
	}
	if tb.made != limit || len(tb.slab) != 0 {
		t.Fatalf("made %d entries in slabs after the limit was reached, want %d", tb.made, limit)
	}
}
