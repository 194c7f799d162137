package budget

import (
	"strconv"
	"testing"
)

// fifo is a table whose entries are dropped in the order they were added.
type fifo struct {
	acct   *Account
	stamps []uint64
	sizes  []int64
	name   string
}

func (f *fifo) add(stamp uint64, n int64) {
	f.stamps = append(f.stamps, stamp)
	f.sizes = append(f.sizes, n)
	f.acct.Charge(n)
}

func (f *fifo) Oldest() (uint64, bool) {
	if len(f.stamps) == 0 {
		return 0, false
	}
	return f.stamps[0], true
}

func (f *fifo) DropOldest() string {
	what := f.name + " entry of stamp " + strconv.FormatUint(f.stamps[0], 10)
	f.acct.Charge(-f.sizes[0])
	f.stamps, f.sizes = f.stamps[1:], f.sizes[1:]
	return what
}

func TestEnforceOldestFirstAcrossTables(t *testing.T) {
	b := New(100)
	x := &fifo{name: "x"}
	y := &fifo{name: "y"}
	x.acct = b.Register("x", x)
	y.acct = b.Register("y", y)
	x.add(1, 40)
	y.add(2, 40)
	x.add(3, 40)
	if !b.Over() || b.Used() != 120 {
		t.Fatalf("used %d over %v, want 120 and over", b.Used(), b.Over())
	}
	d := b.Enforce()
	if len(d) != 1 || d[0].Table != "x" || d[0].Octets != 40 || d[0].What != "x entry of stamp 1" {
		t.Fatalf("drops %+v, want x's stamp-1 entry of 40", d)
	}
	y.add(4, 70) // 150: stamp 2 (y) then stamp 3 (x) must go
	d = b.Enforce()
	if len(d) != 2 || d[0].What != "y entry of stamp 2" || d[1].What != "x entry of stamp 3" {
		t.Fatalf("drops %+v, want y@2 then x@3", d)
	}
	if b.Used() != 70 || b.Peak() != 150 || b.Dropped() != 3 || x.acct.Drops() != 2 || y.acct.Drops() != 1 {
		t.Fatalf("used %d peak %d dropped %d x %d y %d", b.Used(), b.Peak(), b.Dropped(), x.acct.Drops(), y.acct.Drops())
	}
	if got := d[0].Message(b.Limit()); got != "memory budget of 100 octets reached (--max-mem): dropped y entry of stamp 2 (40 octets)" {
		t.Fatalf("message %q", got)
	}
}

// stuck drops without releasing anything: Enforce must not loop.
type stuck struct{}

func (stuck) Oldest() (uint64, bool) { return 0, true }
func (stuck) DropOldest() string     { return "nothing" }

func TestEnforceStopsWhenNothingIsFreed(t *testing.T) {
	b := New(10)
	a := b.Register("stuck", stuck{})
	a.Charge(20)
	if d := b.Enforce(); len(d) != 1 {
		t.Fatalf("drops %+v, want one attempt then stop", d)
	}
	if !b.Over() {
		t.Fatal("still over: the charge was not released")
	}
}

func TestEnforceBoundsOneCall(t *testing.T) {
	b := New(1)
	f := &fifo{name: "f"}
	f.acct = b.Register("f", f)
	for i := range 3 * maxDropsPerEnforce {
		f.add(uint64(i), 1)
	}
	if d := b.Enforce(); len(d) != maxDropsPerEnforce {
		t.Fatalf("%d drops in one call, want %d", len(d), maxDropsPerEnforce)
	}
	if d := b.Enforce(); len(d) != maxDropsPerEnforce {
		t.Fatalf("second call dropped %d", len(d))
	}
}

func TestNilIsUnlimited(t *testing.T) {
	var b *Budget
	a := b.Register("x", nil)
	a.Charge(1 << 40)
	if b.Over() || b.Enforce() != nil || a.Used() != 0 || b.Limit() != 0 {
		t.Fatal("a nil budget must accept everything and hold nothing")
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"1048576", 1 << 20}, {"256M", 256 << 20}, {"256MB", 256 << 20}, {"1G", 1 << 30}, {"512KiB", 512 << 10}, {"3g", 3 << 30}} {
		if got, err := ParseSize(c.in); err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "M", "-5M", "0", "12X", "99999999999G", "1.5G"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestCloseRemovesTable(t *testing.T) {
	b := New(10)
	f := &fifo{name: "f"}
	f.acct = b.Register("f", f)
	f.add(1, 30)
	f.acct.Close()
	if b.Used() != 0 || b.Over() || len(b.Enforce()) != 0 {
		t.Fatalf("closed account still charged: used %d", b.Used())
	}
}

// --max-mem is the process's size; the tables get half of it, and the Go
// collector's limit is the whole again.
func TestStateShare(t *testing.T) {
	if got := StateShare(80 << 20); got != 40<<20 {
		t.Fatalf("StateShare(80 MiB) = %d, want 40 MiB", got)
	}
	for _, total := range []int64{DefaultLimit, 1 << 30, 32 << 20, 12345678} {
		back := ProcessSize(StateShare(total))
		if back > total || total-back > 64 {
			t.Errorf("ProcessSize(StateShare(%d)) = %d: want the total back, within rounding", total, back)
		}
	}
}
