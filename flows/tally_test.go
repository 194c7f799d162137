package flows

import (
	"strconv"
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
