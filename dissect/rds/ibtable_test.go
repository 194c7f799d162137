package rds

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/budget"
)

// TestIBQPTableBounded: RDS/IB connections beyond maxIBQPs evict the least
// recently active one (O(1), with a finding naming it) instead of
// forgetting them all, and the budget can drop them oldest first.
func TestIBQPTableBounded(t *testing.T) {
	b := budget.New(64 << 20)
	var s ibState
	s.lru.Init(b.Register("rds", &s))
	src, dst := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	evictions := 0
	for i := 0; i < maxIBQPs+100; i++ {
		b.Tick(uint64(i))
		f := &dissect.Frame{Num: uint64(i + 1)}
		q := s.qp(f, ibKey{src: src, dst: dst, qp: uint32(i + 2)})
		q.frames = append(q.frames, f.Num)
		s.touch(q)
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "RDS/IB connections tracked: forgot RDS/IB QP 0x") {
				evictions++
			}
		}
		if len(s.qps) > maxIBQPs {
			t.Fatalf("%d QPs tracked", len(s.qps))
		}
		for _, d := range b.Enforce() {
			if !strings.HasPrefix(d.What, "RDS/IB QP") {
				t.Fatalf("dropped %q", d.What)
			}
		}
		if b.Used() > b.Limit() {
			t.Fatalf("budget over: %d", b.Used())
		}
	}
	if evictions != 100 {
		t.Errorf("%d evictions with findings, want 100", evictions)
	}
	// the most recent QP is still there, the first long gone
	if s.qps[ibKey{src: src, dst: dst, qp: uint32(maxIBQPs + 101)}] == nil || s.qps[ibKey{src: src, dst: dst, qp: 2}] != nil {
		t.Error("eviction is not least recently active first")
	}
	s.rewind()
	if b.Used() != 0 {
		t.Errorf("%d octets charged after rewind", b.Used())
	}
}
