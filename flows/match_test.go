package flows

import (
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

type xid struct{ id uint32 }

func newMatcher(limit int, timeout int64) *Matcher[xid, string] {
	m := new(Matcher[xid, string])
	m.Init(limit, timeout, 100, func(k xid, v *string) string { return "call " + strconv.Itoa(int(k.id)) + " " + *v })
	return m
}

// A reply finds its call once, with the response time; a second reply
// (a retransmission) and a reply to an unknown id find nothing.
func TestMatcherReply(t *testing.T) {
	m := newMatcher(8, 0)
	p, dropped := m.Call(xid{1}, 10, 1000)
	p.V = "GETATTR"
	if dropped != "" {
		t.Fatalf("dropped %q from an empty matcher", dropped)
	}
	req, v, a, ok := m.Reply(xid{1}, 12, 1500)
	if !ok || v != "GETATTR" || req.Frame != 10 || a != (Answer{Frame: 12, RTT: 500}) {
		t.Fatalf("Reply = %v %q %v %v", req, v, a, ok)
	}
	if _, _, _, ok := m.Reply(xid{1}, 13, 1600); ok {
		t.Error("second reply matched an answered call")
	}
	if _, _, _, ok := m.Reply(xid{2}, 14, 1700); ok {
		t.Error("reply matched a call never made")
	}
	if m.Len() != 0 {
		t.Errorf("Len = %d after the only call was answered", m.Len())
	}
}

// A retransmitted call replaces the first: the reply's time counts from it.
func TestMatcherRetransmittedCall(t *testing.T) {
	m := newMatcher(8, 0)
	m.Call(xid{1}, 1, 100)
	m.Call(xid{1}, 5, 400)
	if _, _, a, ok := m.Reply(xid{1}, 6, 450); !ok || a.RTT != 50 {
		t.Errorf("answer %v %v, want RTT 50 from the retransmission", a, ok)
	}
}

// A full matcher drops its least recently made call and names it.
func TestMatcherEvicts(t *testing.T) {
	m := newMatcher(3, 0)
	for i := 1; i <= 3; i++ {
		p, _ := m.Call(xid{uint32(i)}, uint64(i), int64(i))
		p.V = "op" + strconv.Itoa(i)
	}
	m.Call(xid{1}, 4, 4) // 1 is now the most recent
	p, dropped := m.Call(xid{9}, 5, 5)
	p.V = "op9"
	if dropped != "call 2 op2" {
		t.Errorf("dropped %q, want call 2", dropped)
	}
	if m.Len() != 3 || m.Evicted() != 1 {
		t.Errorf("Len %d Evicted %d", m.Len(), m.Evicted())
	}
	if _, _, _, ok := m.Reply(xid{2}, 6, 6); ok {
		t.Error("the dropped call was matched")
	}
	for _, id := range []uint32{1, 3, 9} {
		if _, _, _, ok := m.Reply(xid{id}, 7, 7); !ok {
			t.Errorf("call %d lost", id)
		}
	}
}

// Calls older than the timeout are forgotten: a late reply matches nothing,
// and a new call sweeps the stale ones out.
func TestMatcherTimeout(t *testing.T) {
	m := newMatcher(100, 1000)
	m.Call(xid{1}, 1, 0)
	m.Call(xid{2}, 2, 500)
	if _, _, _, ok := m.Reply(xid{1}, 3, 1001); ok {
		t.Error("reply after the timeout matched")
	}
	m.Call(xid{3}, 4, 1600) // call 2 is 1100 old: swept
	if m.Len() != 1 || m.Expired() != 2 {
		t.Errorf("Len %d Expired %d, want 1 and 2", m.Len(), m.Expired())
	}
}

// The matcher charges the budget per outstanding call, and the budget can
// take the oldest back (with a name for its finding).
func TestMatcherBudget(t *testing.T) {
	b := budget.New(250)
	m := newMatcher(100, 0)
	m.Register(b, "rpc")
	for i := 1; i <= 3; i++ {
		p, _ := m.Call(xid{uint32(i)}, uint64(i), int64(i))
		p.V = "x"
		b.Tick(uint64(i))
	}
	if b.Used() != 300 {
		t.Fatalf("Used = %d, want 300", b.Used())
	}
	drops := b.Enforce()
	if len(drops) != 1 || drops[0].What != "call 1 x" || b.Used() != 200 {
		t.Errorf("drops %+v, used %d", drops, b.Used())
	}
	m.Reply(xid{2}, 9, 9)
	if b.Used() != 100 {
		t.Errorf("Used = %d after a reply, want 100", b.Used())
	}
	m.Rewind()
	if b.Used() != 0 || m.Len() != 0 {
		t.Errorf("after Rewind: used %d, len %d", b.Used(), m.Len())
	}
}

// What the first pass learns survives a rewind and is bounded.
func TestLearned(t *testing.T) {
	m := newMatcher(8, 0)
	m.Learned.Learn(10, Answer{Frame: 12, RTT: 3})
	m.Rewind()
	if a, ok := m.Learned.Recall(10); !ok || a.Frame != 12 {
		t.Errorf("Recall = %v %v", a, ok)
	}
	var l Learned
	for i := 0; i < MaxLearned+5; i++ {
		l.Learn(uint64(i), Answer{})
	}
	if l.Len() != MaxLearned {
		t.Errorf("Len = %d, want the limit %d", l.Len(), MaxLearned)
	}
}

// A warm matcher allocates nothing per call and reply.
func TestMatcherAllocs(t *testing.T) {
	m := newMatcher(1<<10, 0)
	for i := 0; i < 64; i++ {
		m.Call(xid{uint32(i)}, 1, 1)
	}
	for i := 0; i < 64; i++ {
		m.Reply(xid{uint32(i)}, 1, 1)
	}
	n := testing.AllocsPerRun(100, func() {
		for i := 0; i < 32; i++ {
			m.Call(xid{uint32(i)}, 1, 1)
		}
		for i := 0; i < 32; i++ {
			m.Reply(xid{uint32(i)}, 2, 2)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per 32 calls and replies", n)
	}
}

// A second pass (Rewind) reuses the entries of the first: as many calls
// outstanding as before allocate nothing.
func TestMatcherRewindReuses(t *testing.T) {
	m := newMatcher(1<<12, 0)
	pass := func() {
		for i := 0; i < 1000; i++ {
			m.Call(xid{uint32(i)}, 1, 1)
		}
		m.Rewind()
	}
	pass()
	pass() // the map grown once
	if n := testing.AllocsPerRun(5, pass); n != 0 {
		t.Errorf("%v allocations for a pass of 1000 outstanding calls after the first", n)
	}
}

// A matcher with a key tag answers exactly as one without, also when tags
// collide (id%3): random calls and replies over more ids than its limit
// (so it evicts) and more than smallmap.Front outstanding.
func TestMatcherTagged(t *testing.T) {
	plain, tagged := newMatcher(20, 0), newMatcher(20, 0)
	tagged.SetTag(func(k xid) uint64 { return uint64(k.id % 3) })
	for i := range 20000 {
		k := xid{uint32(i*7919) % 37}
		if i%3 == 0 {
			r1, _, a1, ok1 := plain.Reply(k, uint64(i), int64(i))
			r2, _, a2, ok2 := tagged.Reply(k, uint64(i), int64(i))
			if r1 != r2 || a1 != a2 || ok1 != ok2 {
				t.Fatalf("op %d: Reply(%v) = %v %v %v untagged, %v %v %v tagged", i, k, r1, a1, ok1, r2, a2, ok2)
			}
			continue
		}
		_, d1 := plain.Call(k, uint64(i), int64(i))
		_, d2 := tagged.Call(k, uint64(i), int64(i))
		if d1 != d2 || plain.Len() != tagged.Len() {
			t.Fatalf("op %d: Call(%v) dropped %q/%q, Len %d/%d", i, k, d1, d2, plain.Len(), tagged.Len())
		}
	}
}
