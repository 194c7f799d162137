package smallmap

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"unsafe"
)

type key struct {
	a, b netip.Addr
	id   uint32
}

// TestAgainstMap runs random inserts, overwrites, lookups and deletes on a
// Map and a Go map side by side, through sizes below, at and far above
// Front, and requires the same answers and the same contents throughout:
// without a tag function, with a good one, and with ones that force
// collisions: a tag that is always 0 and one that only tells ids apart
// modulo 3 (keys sharing a tag, so a tag match alone never counts as a key
// match, and the run overflows into the Go map), distinct tags that all
// mix to one home slot, and tags half of which start probing at the last
// slot (runs wrap around the end and deletion moves entries across it).
// Each tagged case runs again as SetHash's hash through the plain methods.
// After every operation (now and then for big tables) the spill holds its
// invariant (check).
func TestAgainstMap(t *testing.T) {
	defer fixSeed()()
	last := tagsHomed(0xFFF, 1)[0]
	oneHome := tagsHomed(0x123, 64)
	for _, tc := range []struct {
		name string
		tag  func(key) uint64
	}{
		{"none", nil},
		{"good", func(k key) uint64 { return uint64(k.id)<<16 ^ uint64(k.a.As16()[15])<<8 ^ uint64(k.b.As16()[15]) }},
		{"zero", func(key) uint64 { return 0 }},
		{"mod3", func(k key) uint64 { return uint64(k.id % 3) }},
		{"onehome", func(k key) uint64 { return oneHome[k.id%uint32(len(oneHome))] }},
		{"wrap", func(k key) uint64 {
			if k.id%2 == 0 {
				return last
			}
			return uint64(k.id) * 0x2545f4914f6cdd1d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { againstMap(t, tc.tag, false) })
		if tc.tag != nil {
			t.Run(tc.name+"/hash", func(t *testing.T) { againstMap(t, tc.tag, true) })
		}
	}
}

// fixSeed makes the spill's seed fixed (so tagsHomed's tags keep their
// homes) and returns what restores it.
func fixSeed() func() {
	old := seed
	seed = 0x5eed5eed5eed5eed
	return func() { seed = old }
}

// tagsHomed returns n distinct tags whose mix has top twelve bits top: the
// same home slot in every table of up to 4,096 slots (the last for 0xFFF).
func tagsHomed(top uint64, n int) []uint64 {
	var ts []uint64
	for t := uint64(0); len(ts) < n; t++ {
		if mix(t)>>52 == top {
			ts = append(ts, t)
		}
	}
	return ts
}

func againstMap(t *testing.T, tag func(key) uint64, viaHash bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	addrs := []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("::ffff:192.0.2.1"), netip.MustParseAddr("2001:db8::1")}
	for _, keys := range []int{1, Front - 1, Front, Front + 1, 4 * Front, 200} {
		var m Map[key, int]
		s := tagged{&m, tag}
		if viaHash {
			m.SetHash(tag)
			s.tag = nil
		}
		want := map[key]int{}
		for op := range 20000 {
			k := key{addrs[rng.IntN(len(addrs))], addrs[rng.IntN(len(addrs))], uint32(rng.IntN(keys))}
			switch rng.IntN(4) {
			case 0, 1:
				s.Set(k, op)
				want[k] = op
			case 2:
				s.Delete(k)
				delete(want, k)
			case 3:
				v, ok := s.Get(k)
				wv, wok := want[k]
				if v != wv || ok != wok {
					t.Fatalf("%d keys, op %d: Get(%v) = %d, %v; want %d, %v", keys, op, k, v, ok, wv, wok)
				}
			}
			if m.Len() != len(want) {
				t.Fatalf("%d keys, op %d: Len %d, want %d", keys, op, m.Len(), len(want))
			}
			if keys > Front+1 && op%31 != 0 {
				// big tables: check now and then
			} else if err := m.check(op%1000 == 0); err != nil {
				t.Fatalf("%d keys, op %d: %v", keys, op, err)
			}
			if op%1000 == 0 {
				got := map[key]int{}
				m.All(func(k key, v int) bool {
					if _, dup := got[k]; dup {
						t.Fatalf("%d keys, op %d: %v yielded twice", keys, op, k)
					}
					got[k] = v
					return true
				})
				if len(got) != len(want) {
					t.Fatalf("%d keys, op %d: All yielded %d entries, want %d", keys, op, len(got), len(want))
				}
				for k, v := range want {
					if got[k] != v {
						t.Fatalf("%d keys, op %d: All gave %v = %d, want %d", keys, op, k, got[k], v)
					}
				}
			}
		}
		m.Clear()
		if m.Len() != 0 {
			t.Fatalf("Len %d after Clear", m.Len())
		}
		if _, ok := m.Get(key{id: 0}); ok {
			t.Fatal("Get found a key after Clear")
		}
	}
}

// check reports a broken invariant of the spill: every entry within
// maxProbe-1 slots of its home with no empty slot between (so a search
// reads at most maxProbe slots), spN entries, and with all, no key in two
// of the array, the table and the Go map.
func (s *Map[K, V]) check(all bool) error {
	used, mask := 0, len(s.slots)-1
	var seen map[K]string
	if all {
		seen = map[K]string{}
		for i := range s.n {
			seen[s.keys[i]] = "array"
		}
	}
	for i := range s.slots {
		e := &s.slots[i]
		if e.h == 0 {
			continue
		}
		used++
		if (i-s.home(e.h))&mask >= maxProbe {
			return fmt.Errorf("slot %d sits %d past its home %d", i, (i-s.home(e.h))&mask, s.home(e.h))
		}
		for j := s.home(e.h); j != i; j = (j + 1) & mask {
			if s.slots[j].h == 0 {
				return fmt.Errorf("slot %d (home %d) is cut off by empty slot %d", i, s.home(e.h), j)
			}
		}
		if !all {
			continue
		}
		if w, dup := seen[e.k]; dup {
			return fmt.Errorf("slot %d's key is in the %s too", i, w)
		}
		seen[e.k] = "table"
	}
	if used != s.spN {
		return fmt.Errorf("table holds %d entries, spN is %d", used, s.spN)
	}
	for k := range s.m {
		if w, dup := seen[k]; all && dup {
			return fmt.Errorf("a key of the Go map is in the %s too", w)
		}
	}
	return nil
}

// TestHostileLinear: keys that the traffic crafted to share one tag (or
// distinct tags aimed at one slot, were the seed known) must cost O(1) per
// operation, not O(entries) as a probe run of them all would. That is a
// matter of structure, checked exactly rather than timed: at the peak the
// table keeps at most maxProbe of them (a search reads at most maxProbe
// slots, then one Go map lookup) and the rest go to the Go map; without the
// probe cap all 16,000 would form one run. Then all of them are still
// found and deleted.
func TestHostileLinear(t *testing.T) {
	defer fixSeed()()
	const n = 16000
	oneHome := tagsHomed(0x123, n)
	for _, tc := range []struct {
		name string
		tag  func(i uint32) uint64
	}{
		{"onetag", func(uint32) uint64 { return 0x1234 }},
		{"onehome", func(i uint32) uint64 { return oneHome[i] }},
	} {
		k := key{}
		var m Map[key, int]
		ours := func() {
			for i := range uint32(n) {
				k.id = i
				m.SetT(k, tc.tag(i), int(i))
			}
			for i := range uint32(n) {
				k.id = i
				if v, ok := m.GetT(k, tc.tag(i)); !ok || v != int(i) {
					t.Fatalf("%s: key %d: %d, %v", tc.name, i, v, ok)
				}
			}
			for i := range uint32(n) {
				k.id = i
				m.DeleteT(k, tc.tag(i))
			}
			if m.Len() != 0 {
				t.Fatalf("%s: %d entries left", tc.name, m.Len())
			}
		}
		// the structure at the peak
		for i := range uint32(n) {
			k.id = i
			m.SetT(k, tc.tag(i), int(i))
		}
		if err := m.check(true); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.spN > maxProbe {
			t.Fatalf("%s: %d colliding keys in the table, want at most %d", tc.name, m.spN, maxProbe)
		}
		m.Clear()
		ours()
	}
}

// TestSpillPeakBytes checks SpillCost: at its peak the table holds at most
// four slots per entry in it, what callers charge their budgets.
func TestSpillPeakBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var m Map[uint64, int]
	for n := 1; n <= 5000; n++ {
		k := rng.Uint64()
		m.SetT(k, k, n)
		if m.spN > 0 && int64(len(m.slots))*int64(unsafe.Sizeof(m.slots[0])) > int64(m.spN)*SpillCost[uint64, int]() {
			t.Fatalf("%d entries in the table: %d slots, more than SpillCost charges", m.spN, len(m.slots))
		}
	}
}

// TestHashOnlyWhenBig checks that a map with SetHash hashes no key while
// it holds at most Front entries, and again once emptied after a spill.
func TestHashOnlyWhenBig(t *testing.T) {
	var m Map[int, int]
	calls := 0
	m.SetHash(func(k int) uint64 { calls++; return uint64(k) })
	for round := range 3 {
		for i := range Front {
			m.Set(i, i)
			m.Get(i)
		}
		for i := range Front {
			m.Delete(i)
		}
		if calls != 0 {
			t.Fatalf("round %d: %d hashes of a map never above Front entries", round, calls)
		}
		for i := range 2 * Front {
			m.Set(i, i)
		}
		if calls == 0 || m.m != nil || m.spN != Front {
			t.Fatalf("round %d: spilled without hashing (%d), into the Go map, or not into the table (%d)", round, calls, m.spN)
		}
		for i := range 2 * Front {
			if v, ok := m.Get(i); !ok || v != i {
				t.Fatalf("round %d: Get(%d) = %d, %v", round, i, v, ok)
			}
			m.Delete(i)
		}
		if m.big {
			t.Fatalf("round %d: still big when empty", round)
		}
		calls = 0
	}
}

// TestSpillSteadyNoAlloc checks that a tagged map holding more than Front
// entries, once it has held that many, inserts and deletes without
// allocating.
func TestSpillSteadyNoAlloc(t *testing.T) {
	var m Map[key, int]
	tag := func(k key) uint64 { return uint64(k.id) * 0x2545f4914f6cdd1d }
	k := key{id: 0}
	const held = 5 * Front
	for i := range held {
		k.id = uint32(i)
		m.SetT(k, tag(k), i)
	}
	next := uint32(held)
	allocs := testing.AllocsPerRun(1000, func() {
		k.id = next - held
		m.DeleteT(k, tag(k))
		k.id = next
		m.SetT(k, tag(k), 1)
		if _, ok := m.GetT(k, tag(k)); !ok {
			t.Fatal("lost a key")
		}
		next++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per delete+insert+lookup, want 0", allocs)
	}
	if m.Len() != held {
		t.Fatalf("Len %d, want %d", m.Len(), held)
	}
}

// tagged is a Map used through the tagged methods when tag is set, and
// the plain ones otherwise.
type tagged struct {
	m   *Map[key, int]
	tag func(key) uint64
}

func (s tagged) Get(k key) (int, bool) {
	if s.tag == nil {
		return s.m.Get(k)
	}
	return s.m.GetT(k, s.tag(k))
}

func (s tagged) Set(k key, v int) {
	if s.tag == nil {
		s.m.Set(k, v)
		return
	}
	s.m.SetT(k, s.tag(k), v)
}

func (s tagged) Delete(k key) {
	if s.tag == nil {
		s.m.Delete(k)
		return
	}
	s.m.DeleteT(k, s.tag(k))
}

// TestDeleteReleases checks that a deleted value is not kept reachable
// from the array (the freed slot is zeroed).
func TestDeleteReleases(t *testing.T) {
	var s Map[int, *int]
	for i := range Front {
		s.Set(i, new(int))
	}
	s.Delete(3)
	s.Delete(Front - 1)
	for i := s.n; i < Front; i++ {
		if s.vals[i] != nil {
			t.Fatalf("slot %d still holds a deleted value", i)
		}
	}
}

func BenchmarkSetGetDelete(b *testing.B) {
	k := key{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2"), 7}
	b.Run("smallmap", func(b *testing.B) {
		var s Map[key, int]
		for i := 0; i < b.N; i++ {
			k.id = uint32(i)
			s.Set(k, i)
			s.Get(k)
			s.Delete(k)
		}
	})
	b.Run("map", func(b *testing.B) {
		m := map[key]int{}
		for i := 0; i < b.N; i++ {
			k.id = uint32(i)
			m[k] = i
			_ = m[k]
			delete(m, k)
		}
	})
}
