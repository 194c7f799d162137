package tcp

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// TestManyHolesLinear: the work on held segments (Stats.Steps, nodes
// visited, inserted and released) grows like n log n with the number of
// one-octet holes, in every arrival order. The old sorted slice copied the
// whole list on every release and shifted it on every insert: quadratic, 50k
// holes took seconds, 200k a minute (issue 10). Counting steps, not time,
// keeps the test deterministic on a loaded machine.
func TestManyHolesLinear(t *testing.T) {
	for _, pattern := range []string{"forward", "reverse", "middle"} {
		steps := func(n int) uint64 {
			cfg := holesLimits
			cfg.History = -1
			a := NewAssembler(cfg)
			feedHoles(a, n, pattern)
			s := a.Stats()
			if s.Bytes != uint64(2*n) || s.Gaps != 0 || s.Buffered != 0 {
				t.Fatalf("%s/%d: stats %+v", pattern, n, s)
			}
			return s.Steps
		}
		small, big := steps(2000), steps(16000)
		// 8 times the holes: linear is 8x, n log n about 10x, quadratic 64x.
		ratio := float64(big) / float64(small)
		t.Logf("%s: %d steps for 2000 holes, %d for 16000 (x%.1f)", pattern, small, big, ratio)
		if ratio > 16 {
			t.Errorf("%s: 8x the holes cost %.1fx the steps (%d -> %d): not linear", pattern, ratio, small, big)
		}
	}
}

// TestSegmentOverheadBounds: one-octet out-of-order segments count their
// overhead, so the default per-stream limit holds about 4 MiB /
// SegmentOverhead of them, not 4 million; beyond that holes are given up
// as stream-limit gaps.
func TestSegmentOverheadBounds(t *testing.T) {
	var gaps []GapReason
	cons := &funcConsumer{gap: func(g *Gap) { gaps = append(gaps, g.Reason) }}
	a := NewAssembler(Config{History: -1, NewConsumer: func(FlowKey) Consumer { return cons }})
	a.Add(client, server, Segment{Seq: 0, SYN: true})
	const n = 100000
	maxBuf := 0
	for i := range n {
		a.Add(client, server, Segment{Seq: 2 + uint32(2*i), Payload: []byte{'x'}})
		maxBuf = max(maxBuf, a.Stats().Buffered)
	}
	if limit := 4<<20 + 1 + SegmentOverhead; maxBuf > limit {
		t.Errorf("held %d octets, limit %d", maxBuf, limit)
	}
	wantHeld := (4 << 20) / (1 + SegmentOverhead)
	if len(gaps) < n-wantHeld-1 || len(gaps) > n-wantHeld+1 {
		t.Errorf("%d gaps, want about %d", len(gaps), n-wantHeld)
	}
	for _, r := range gaps {
		if r != GapStreamLimit {
			t.Fatalf("gap reason %s, want stream-limit", r)
		}
	}
}

// TestSegmentLimit: MaxSegmentsPerStream bounds the held segments even when
// the byte limit would allow more.
func TestSegmentLimit(t *testing.T) {
	a, log := newTest(Config{MaxSegmentsPerStream: 2, History: -1}, false)
	feed(a, []in{{0, 100, "", "S", 1, 0}, {0, 103, "c", "", 2, 0}, {0, 105, "e", "", 3, 0}, {0, 107, "g", "", 4, 0}})
	want := `G0 0+2 ->2/0x67 segment-limit|D0 2/0x67 "c" f2`
	if got := join(*log); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if s := a.Stats(); s.Buffered != 2*(1+SegmentOverhead) {
		t.Errorf("buffered %d", s.Buffered)
	}
}

func ExampleGapReason_Limit() {
	for _, r := range []GapReason{GapStreamLimit, GapSegmentLimit, GapBudget, GapAcked} {
		fmt.Println(r, r.Limit())
	}
	// Output:
	// stream-limit true
	// segment-limit true
	// budget true
	// acked false
}

// TestBudget: the assembler charges every connection, held segment and
// history ring to the shared budget, and when the budget is over, Enforce
// drops the least recently active connection: its hole is reported to the
// consumer as a budget gap (so the upper layer resynchronises), then it is
// closed, and the charges come back down.
func TestBudget(t *testing.T) {
	const limit = 64 << 10
	b := budget.New(limit)
	var log []string
	a := NewAssembler(Config{Budget: b, NewConsumer: func(FlowKey) Consumer { return &recorder{log: &log, multi: true} }})
	p := make([]byte, 1000)
	var drops []budget.Drop
	for i := range 1000 {
		b.Tick(uint64(i + 1))
		c := netip.AddrPortFrom(client.Addr(), uint16(1+i))
		a.Add(c, server, Segment{Seq: 100, SYN: true, Frame: uint64(i)})
		a.Add(c, server, Segment{Seq: 102, Payload: p, Frame: uint64(i)}) // one octet lost before it: held
		drops = append(drops, b.Enforce()...)
		if b.Used() > limit {
			t.Fatalf("connection %d: budget holds %d > %d after Enforce", i, b.Used(), limit)
		}
	}
	if len(drops) == 0 || drops[0].Table != "tcp" || drops[0].Octets <= 0 ||
		drops[0].What != "TCP stream 10.0.0.1:1 ⇄ 10.0.0.2:80 (1 held segments)" {
		t.Fatalf("drops %+v", drops[:min(1, len(drops))])
	}
	if log[0] != `c1 G0 0+1 ->1/0x66 budget` || log[1] != `c1 D0 1/0x66 "`+strings.Repeat(`\x00`, 1000)+`" f0` || log[2] != `c1 C budget` {
		t.Errorf("first drop logged %.80q", log[:3])
	}
	if a.Len()+len(drops) != 1000 {
		t.Errorf("%d connections tracked, %d dropped", a.Len(), len(drops))
	}
	a.FlushAll()
	if b.Used() != 0 {
		t.Errorf("budget holds %d after FlushAll", b.Used())
	}
	a.Close()
}
