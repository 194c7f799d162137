package flows

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// A full expert table counts new messages in its "other" row; a merge of
// two tables each under the limit keeps the rows one table fed every
// finding in frame order would keep.
func TestExpertLimitAndMerge(t *testing.T) {
	var one, a, b Expert
	for i := 0; i < MaxExpertRows+10; i++ {
		k := ExpertKey{Sev: 2, Group: "protocol", Proto: "x", Msg: "m" + strconv.Itoa(i)}
		one.Add(k, uint64(i+1), 0)
		if i%2 == 0 {
			a.Add(k, uint64(i+1), 0)
		} else {
			b.Add(k, uint64(i+1), 0)
		}
	}
	if !one.Full() || one.dropped[2] != 10 || len(one.m) != MaxExpertRows {
		t.Fatalf("one table: full %v, dropped %v, rows %d", one.Full(), one.dropped, len(one.m))
	}
	a.Merge(&b)
	if !a.Full() || a.dropped != one.dropped || len(a.m) != len(one.m) {
		t.Fatalf("merged: dropped %v rows %d, want %v %d", a.dropped, len(a.m), one.dropped, len(one.m))
	}
	for k := range one.m {
		if a.m[k] == nil || a.m[k].n != one.m[k].n {
			t.Fatalf("merged table lacks %v", k)
		}
	}
	tab := one.Table([]string{"", "note", "warning", "error"})
	if last := tab.Rows[len(tab.Rows)-1]; last[3] != "10" {
		t.Errorf("other row %v", last)
	}
}

// The hierarchy counts every frame at each level of its chain and keeps
// siblings in the order met; a merge equals one table; full tables count
// the rest in their "other" row.
func TestPHS(t *testing.T) {
	var one, a, b PHS
	chains := []string{"eth:ethertype:arp", "eth:ethertype:ip:udp:rx", "eth:ethertype:ip:udp:rx:afs", "eth:ethertype:ip:tcp"}
	for i := 0; i < 40; i++ {
		c := chains[i%len(chains)]
		one.Add([]byte(c), 100, uint64(i+1))
		if i%3 == 0 {
			a.Add([]byte(c), 100, uint64(i+1))
		} else {
			b.Add([]byte(c), 100, uint64(i+1))
		}
	}
	b.Merge(&a)
	want := [][]string{{"eth", "40", "4000"}, {"· arp", "10", "1000"}, {"· ip", "30", "3000"}, {"· · udp", "20", "2000"},
		{"· · · rx", "20", "2000"}, {"· · · · afs", "10", "1000"}, {"· · tcp", "10", "1000"}}
	for _, p := range []*PHS{&one, &b} {
		got := p.Table().Rows
		if len(got) != len(want) {
			t.Fatalf("rows %v", got)
		}
		for i := range want {
			if got[i][0] != want[i][0] || got[i][1] != want[i][1] || got[i][2] != want[i][2] {
				t.Errorf("row %d: %v, want %v", i, got[i], want[i])
			}
		}
	}
	var full PHS
	for i := 0; i < MaxPHSChains+3; i++ {
		full.Add([]byte("eth:p"+strconv.Itoa(i)), 10, uint64(i+1))
	}
	if !full.Full() || full.dropped != 3 || full.dropB != 30 {
		t.Errorf("full: dropped %d %d", full.dropped, full.dropB)
	}
}

// io,stat: every interval up to the last frame, empty ones too, the last
// ending at the duration; frames past MaxIOIntervals in the "later" row.
func TestIOStat(t *testing.T) {
	s := IOStat{Interval: 1e9}
	s.Add(0, 10)
	s.Add(25e8, 20)
	rows := s.Table().Rows
	if len(rows) != 3 || rows[0][0] != "0 <> 1" || rows[1][1] != "0" || rows[2][0] != "2 <> Dur" || rows[2][2] != "20" {
		t.Errorf("rows %v", rows)
	}
	s.Add(MaxIOIntervals*1e9, 5)
	if !s.Full() || s.over != 1 {
		t.Errorf("over %d", s.over)
	}
	var m IOStat
	m.Interval = 1e9
	m.Add(5e8, 1)
	m.Merge(&s)
	if m.frames[0] != 2 || m.over != 1 || m.last != MaxIOIntervals*1e9 {
		t.Errorf("merged %v over %d last %d", m.frames, m.over, m.last)
	}
}

// Counting a frame the tables already hold allocates nothing.
func TestTallyAllocs(t *testing.T) {
	var x Expert
	var p PHS
	s := IOStat{Interval: 1e9}
	chain := []byte("eth:ethertype:ip:udp:rx")
	k := ExpertKey{Sev: 1, Group: "sequence", Proto: "rx", Msg: "m"}
	x.Add(k, 1, 0)
	p.Add(chain, 1, 1)
	s.Add(0, 1)
	if n := testing.AllocsPerRun(100, func() {
		x.Add(k, 2, 0)
		p.Add(chain, 60, 2)
		s.Add(5e8, 60)
	}); n != 0 {
		t.Errorf("%v allocations per frame", n)
	}
}

// ioTable is the rows of an io,stat table with the given columns, cells
// after the interval joined by spaces.
func ioTable(s *IOStat, cols ...*IOStat) []string {
	var ic []IOColumn
	for _, c := range cols {
		ic = append(ic, IOColumn{Legend: c.Fn.String() + "(x)", S: c})
	}
	var out []string
	for _, r := range s.TableWith(ic).Rows {
		out = append(out, strings.Join(r, " "))
	}
	return out
}

// MIN, MAX, AVG, SUM and COUNT of each kind of value, per interval: an
// interval without values shows 0, integer averages are truncated (as
// tshark's), times print to the microsecond with half a microsecond
// rounded up (tshark: 0.2488715 s is 0.248872), signed values compare as
// signed (tshark 4.0 compares them as unsigned and prints MAX 0 for
// -455, -2: rdx is right).
func TestIOStatFns(t *testing.T) {
	s := IOStat{Interval: 1e9}
	mk := func(fn IOFn, k IOKind) *IOStat { return &IOStat{Interval: 1e9, Fn: fn, Kind: k} }
	fns := []IOFn{IOMin, IOMax, IOAvg, IOSum, IOCount}
	var cols []*IOStat
	for _, k := range []IOKind{IOUint, IOInt, IOTime, IOFloat} {
		for _, fn := range fns {
			cols = append(cols, mk(fn, k))
		}
	}
	add := func(rel int64, vals ...[4]uint64) {
		s.Add(rel, 1)
		for _, c := range cols {
			c.Add(rel, 0)
			for _, v := range vals {
				c.AddField(rel, v[c.Kind])
			}
		}
	}
	neg := func(v int64) uint64 { return uint64(v) }
	fl := math.Float64bits
	add(1e8, [4]uint64{7, neg(-455), fl(1.5), 395568000}, [4]uint64{3, neg(-2), fl(-0.25), 102175500})
	add(25e8, [4]uint64{10, 4, fl(2), 1}) // interval 2; interval 1 empty
	got := ioTable(&s, cols...)
	want := []string{
		"0 <> 1 3 7 5 10 2 -455 -2 -228 -457 2 0.102176 0.395568 0.248872 0.497744 2 -0.250000 1.500000 0.625000 1.250000 2",
		"1 <> 2 0 0 0 0 0 0 0 0 0 0 0.000000 0.000000 0.000000 0.000000 0 0.000000 0.000000 0.000000 0.000000 0",
		"2 <> Dur 10 10 10 10 1 4 4 4 4 1 0.000000 0.000000 0.000000 0.000000 1 2.000000 2.000000 2.000000 2.000000 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// -j: the same values counted by two engines and merged give the same table
	var halves [2][]*IOStat
	for h := range halves {
		for _, c := range cols {
			halves[h] = append(halves[h], mk(c.Fn, c.Kind))
		}
	}
	for ci, c := range cols {
		h := halves[0][ci]
		h.Add(1e8, 0)
		h.AddField(1e8, [4]uint64{7, neg(-455), fl(1.5), 395568000}[c.Kind])
		h = halves[1][ci]
		h.Add(1e8, 0)
		h.AddField(1e8, [4]uint64{3, neg(-2), fl(-0.25), 102175500}[c.Kind])
		h.Add(25e8, 0)
		h.AddField(25e8, [4]uint64{10, 4, fl(2), 1}[c.Kind])
		halves[0][ci].Merge(halves[1][ci])
	}
	if got := ioTable(&s, halves[0]...); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("merged rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, c := range cols {
			c.Add(5e8, 0)
			c.AddField(5e8, 3)
		}
	}); n != 0 {
		t.Errorf("%v allocations per frame", n)
	}
}

// LOAD as tshark 4.0 spreads a relative time: its remainder modulo the
// interval in the frame's interval, a whole interval in each interval
// before (down to the first); each row divided by the interval, the last
// by what of it the capture covers, the duration rounded up at the
// table's decimals only when past half (tshark). A time of a million
// seconds costs no more than a short one; two merged halves give the
// table of the whole.
func TestIOStatLoad(t *testing.T) {
	s := IOStat{Interval: 1e9}
	l := &IOStat{Interval: 1e9, Fn: IOLoad, Kind: IOTime}
	add := func(st *IOStat, rel int64, v int64) {
		st.Add(rel, 0)
		st.AddField(rel, uint64(v))
	}
	for _, f := range [][2]int64{{3_200_000_000, 2_500_000_000}, {1_100_000_000, 250_000}, {4_250_000_000, 1e15}} {
		s.Add(f[0], 1)
		add(l, f[0], f[1])
	}
	got := strings.Join(ioTable(&s, l), "\n")
	// 2.5 s at 3.2: 0.5 in 3, 1 in 2 and 1; 250 µs at 1.1: 0.00025 in 1;
	// 1e6 s at 4.25: 0 in 4 (a multiple of the interval), 1 in 3..0
	want := "0 <> 1 1.000000\n1 <> 2 2.000250\n2 <> 3 2.000000\n3 <> 4 1.500000\n4 <> Dur 0.000000"
	if got != want {
		t.Errorf("rows\n%s\nwant\n%s", got, want)
	}
	var a, b IOStat
	a, b = IOStat{Interval: 1e9, Fn: IOLoad, Kind: IOTime}, IOStat{Interval: 1e9, Fn: IOLoad, Kind: IOTime}
	add(&a, 3_200_000_000, 2_500_000_000)
	add(&b, 1_100_000_000, 250_000)
	add(&b, 4_250_000_000, 1e15)
	a.Merge(&b)
	if got := strings.Join(ioTable(&s, &a), "\n"); got != want {
		t.Errorf("merged rows\n%s\nwant\n%s", got, want)
	}
	// the last row: 0.1 s intervals, duration 3.365771 s rounds to 3.4, so
	// the row 3.3-3.4 is divided by 0.1 (tshark: 0.012641 s there is 0.126410)
	s2 := IOStat{Interval: 1e8, Prec: 1}
	l2 := &IOStat{Interval: 1e8, Fn: IOLoad, Kind: IOTime}
	s2.Add(0, 1)
	s2.Add(3_365_771_000, 1)
	add(l2, 3_365_771_000, 12_641_000)
	if rows := ioTable(&s2, l2); rows[len(rows)-1] != "3.3 <> 3.4 0.126410" {
		t.Errorf("last row %q", rows[len(rows)-1])
	}
	// 1 s intervals: 3.365771 is not rounded ("Dur"): 0.032071 / 0.365771,
	// truncated (tshark -2 -z io,stat,1,LOAD(rpc.time)rpc.time on
	// pcaps/kernel/nfs3_rdma_roce.pcap: 0.087680)
	s3 := IOStat{Interval: 1e9}
	l3 := &IOStat{Interval: 1e9, Fn: IOLoad, Kind: IOTime}
	s3.Add(3_365_771_000, 1)
	add(l3, 3_365_771_000, 32_071_000)
	if rows := ioTable(&s3, l3); rows[len(rows)-1] != "3 <> Dur 0.087680" {
		t.Errorf("last row %q", rows[len(rows)-1])
	}
	if !LoadTooFine(999) || LoadTooFine(1000) || LoadTooFine(0) {
		t.Error("LoadTooFine")
	}
}

// One row over the whole capture (interval 0 or longer than the capture):
// tshark's decimals are 3, 1 for a capture of 10 s or more.
func TestIOStatWholeCapture(t *testing.T) {
	for _, c := range []struct {
		last int64
		want string
	}{{63e6, "0.000 <> 0.063 2 2"}, {18_690_646_000, "0.0 <> 18.7 2 2"}} {
		s := IOStat{}
		s.Add(0, 1)
		s.Add(c.last, 1)
		if got := ioTable(&s)[0]; got != c.want {
			t.Errorf("%d: %q, want %q", c.last, got, c.want)
		}
	}
}
