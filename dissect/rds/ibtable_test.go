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
	dst := netip.MustParseAddr("192.0.2.2")
	evictions := 0
	for i := 0; i < maxIBQPs+100; i++ {
		b.Tick(uint64(i))
		f := &dissect.Frame{Num: uint64(i + 1)}
		// each QP from a source of its own, its direction recorded as
		// ibFinish does
		from := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		q := s.qp(f, ibKey{src: from, dst: dst, qp: uint32(i + 2)})
		q.frames = append(q.frames, f.Num)
		s.touch(q)
		if s.dirs == nil {
			s.dirs = map[[2]netip.Addr]*ibQP{}
		}
		s.dirs[[2]netip.Addr{from, dst}] = q
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "RDS/IB connections tracked: forgot RDS/IB QP 0x") {
				evictions++
			}
		}
		if len(s.qps) > maxIBQPs || len(s.dirs) > len(s.qps) {
			t.Fatalf("%d QPs tracked, %d directions", len(s.qps), len(s.dirs))
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
	last := maxIBQPs + 99
	if s.qps[ibKey{src: netip.AddrFrom4([4]byte{10, byte(last >> 16), byte(last >> 8), byte(last)}), dst: dst, qp: uint32(last + 2)}] == nil ||
		s.qps[ibKey{src: netip.AddrFrom4([4]byte{10, 0, 0, 0}), dst: dst, qp: 2}] != nil {
		t.Error("eviction is not least recently active first")
	}
	for d, q := range s.dirs { // a direction names a QP still tracked
		if s.qps[q.key] != q || d != [2]netip.Addr{q.key.src, q.key.dst} {
			t.Fatalf("direction %v names a forgotten QP 0x%x", d, q.key.qp)
		}
	}
	s.rewind()
	if b.Used() != 0 || len(s.dirs) != 0 {
		t.Errorf("%d octets charged, %d directions after rewind", b.Used(), len(s.dirs))
	}
}
