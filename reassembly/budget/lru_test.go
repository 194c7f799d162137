package budget

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

type item struct {
	Elem[item]
	id int
}

// lruTable is a Table made of one LRU, as the dissectors use it.
type lruTable struct{ l LRU[item] }

func (t *lruTable) Oldest() (uint64, bool) { return t.l.Oldest() }

func (t *lruTable) DropOldest() string {
	it := t.l.Back()
	t.l.Remove(&it.Elem)
	return "item " + strconv.Itoa(it.id)
}

func order(l *LRU[item]) []int {
	var ids []int
	for e := l.root.next; e != nil && e != &l.root; e = e.next {
		ids = append(ids, e.owner.id)
	}
	return ids
}

// TestLRUOrderAndCharges: Touch links and moves to the most recent end,
// Charge sets an entry's charge, Remove and Reset take it off and give its
// octets back, and Back / Oldest name the least recently touched entry.
func TestLRUOrderAndCharges(t *testing.T) {
	b := New(1 << 20)
	var tab lruTable
	tab.l.Init(b.Register("t", &tab))
	if _, ok := tab.l.Oldest(); ok || tab.l.Back() != nil {
		t.Fatal("an empty list has an oldest entry")
	}
	items := make([]item, 4)
	for i := range items {
		items[i].id = i
		b.Tick(uint64(10 + i))
		tab.l.Touch(&items[i].Elem, &items[i])
		tab.l.Charge(&items[i].Elem, int64(100*(i+1)))
	}
	if got := order(&tab.l); !slices.Equal(got, []int{0, 1, 2, 3}) || b.Used() != 1000 {
		t.Fatalf("order %v, used %d", got, b.Used())
	}
	b.Tick(20)
	tab.l.Touch(&items[0].Elem, &items[0]) // the oldest becomes the newest
	tab.l.Touch(&items[0].Elem, &items[0]) // already the newest: stays
	tab.l.Charge(&items[0].Elem, 50)
	if got := order(&tab.l); !slices.Equal(got, []int{1, 2, 3, 0}) {
		t.Fatalf("after touch: order %v", got)
	}
	if st, ok := tab.l.Oldest(); !ok || st != 11 || tab.l.Back() != &items[1] {
		t.Fatalf("oldest %d %v", st, ok)
	}
	if b.Used() != 950 || items[0].Charged() != 50 || items[0].Stamp() != 20 {
		t.Fatalf("used %d, item 0 charged %d stamp %d", b.Used(), items[0].Charged(), items[0].Stamp())
	}
	tab.l.Remove(&items[2].Elem)
	tab.l.Remove(&items[2].Elem) // again: nothing more to give back
	if got := order(&tab.l); !slices.Equal(got, []int{1, 3, 0}) || items[2].Linked() || b.Used() != 650 {
		t.Fatalf("after remove: order %v, used %d", got, b.Used())
	}
	tab.l.Touch(&items[2].Elem, &items[2]) // relinked, charging nothing yet
	if got := order(&tab.l); !slices.Equal(got, []int{1, 3, 0, 2}) || b.Used() != 650 {
		t.Fatalf("after relink: order %v, used %d", got, b.Used())
	}
	tab.l.Reset()
	tab.l.Account().Reset()
	if b.Used() != 0 || tab.l.Back() != nil || items[1].Linked() || items[1].Charged() != 0 {
		t.Fatalf("after reset: used %d", b.Used())
	}
	// An entry reset off the list links again cleanly.
	tab.l.Touch(&items[3].Elem, &items[3])
	if got := order(&tab.l); !slices.Equal(got, []int{3}) {
		t.Fatalf("after reset and touch: order %v", got)
	}
}

// TestLRUEnforce: a table of one LRU gives the budget its entries back
// least recently touched first.
func TestLRUEnforce(t *testing.T) {
	b := New(250)
	var tab lruTable
	tab.l.Init(b.Register("t", &tab))
	items := make([]item, 5)
	for i := range items {
		items[i].id = i
		b.Tick(uint64(i + 1))
		tab.l.Touch(&items[i].Elem, &items[i])
		tab.l.Charge(&items[i].Elem, 100)
	}
	b.Tick(9)
	tab.l.Touch(&items[0].Elem, &items[0])
	var got []string
	for _, d := range b.Enforce() {
		got = append(got, d.What)
	}
	if strings.Join(got, ",") != "item 1,item 2,item 3" || b.Used() != 200 {
		t.Fatalf("dropped %q, used %d", got, b.Used())
	}
}

// TestLRUZero: a zero LRU with no account works (a dissector made without
// an engine).
func TestLRUZero(t *testing.T) {
	var l LRU[item]
	var it item
	l.Charge(&it.Elem, 10)
	l.Touch(&it.Elem, &it)
	if l.Back() != &it || it.Charged() != 10 {
		t.Fatal("zero list lost its entry")
	}
	l.Remove(&it.Elem)
	if l.Back() != nil {
		t.Fatal("entry still listed")
	}
}

// BenchmarkLRU is the per-packet work of a table: touch one of 1024
// entries, charge it, and now and then drop the oldest and add it back.
func BenchmarkLRU(b *testing.B) {
	bu := New(1 << 40)
	var tab lruTable
	tab.l.Init(bu.Register("t", &tab))
	items := make([]item, 1024)
	for i := range items {
		tab.l.Touch(&items[i].Elem, &items[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bu.Tick(uint64(i))
		it := &items[(i*7)&1023]
		tab.l.Touch(&it.Elem, it)
		tab.l.Charge(&it.Elem, int64(i&4095))
		if i&63 == 0 {
			old := tab.l.Back()
			tab.l.Remove(&old.Elem)
			tab.l.Touch(&old.Elem, old)
		}
	}
}

// TestLRUHold: an entry holding octets is listed and touched, one holding
// none is off the list and charges nothing.
func TestLRUHold(t *testing.T) {
	b := New(1 << 20)
	var tab lruTable
	tab.l.Init(b.Register("t", &tab))
	var x, y item
	x.id, y.id = 1, 2
	b.Tick(1)
	tab.l.Hold(&x.Elem, &x, 100)
	tab.l.Hold(&y.Elem, &y, 0)
	if got := order(&tab.l); !slices.Equal(got, []int{1}) || y.Linked() || b.Used() != 100 {
		t.Fatalf("order %v, used %d", got, b.Used())
	}
	b.Tick(2)
	tab.l.Hold(&y.Elem, &y, 40)
	tab.l.Hold(&x.Elem, &x, 60)
	if got := order(&tab.l); !slices.Equal(got, []int{2, 1}) || b.Used() != 100 || x.Stamp() != 2 {
		t.Fatalf("order %v, used %d", got, b.Used())
	}
	tab.l.Hold(&x.Elem, &x, 0)
	if got := order(&tab.l); !slices.Equal(got, []int{2}) || x.Linked() || b.Used() != 40 {
		t.Fatalf("order %v, used %d", got, b.Used())
	}
}
