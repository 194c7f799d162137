package smallmap

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

type key struct {
	a, b netip.Addr
	id   uint32
}

// TestAgainstMap runs random inserts, overwrites, lookups and deletes on a
// Map and a Go map side by side, through sizes below, at and far above
// Front, and requires the same answers and the same contents throughout:
// without a tag function, with a good one, and with ones whose tags collide
// (a tag that is always 0, one that only tells ids apart modulo 3), so a tag
// match alone never counts as a key match and a moved entry keeps its tag.
func TestAgainstMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		tag  func(key) uint64
	}{
		{"none", nil},
		{"good", func(k key) uint64 { return uint64(k.id)<<16 ^ uint64(k.a.As16()[15])<<8 ^ uint64(k.b.As16()[15]) }},
		{"zero", func(key) uint64 { return 0 }},
		{"mod3", func(k key) uint64 { return uint64(k.id % 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) { againstMap(t, tc.tag) })
	}
}

func againstMap(t *testing.T, tag func(key) uint64) {
	rng := rand.New(rand.NewPCG(1, 2))
	addrs := []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("::ffff:192.0.2.1"), netip.MustParseAddr("2001:db8::1")}
	for _, keys := range []int{1, Front - 1, Front, Front + 1, 4 * Front, 200} {
		var m Map[key, int]
		s := tagged{&m, tag}
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
