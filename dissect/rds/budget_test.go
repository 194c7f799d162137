package rds

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// Many connections that each send one message: each costs a small, charged
// amount (no 64-entry rings for a single message), and the budget drops the
// least recently active with a finding naming it.
func TestConnsChargedToBudget(t *testing.T) {
	const limit = 64 << 10
	b := budget.New(limit)
	x := newFeeder()
	x.d.conns.Register(b, "rds")
	var drops []budget.Drop
	for i := 0; i < 1000; i++ {
		b.Tick(uint64(i + 1))
		x.key.A = netip.AddrPortFrom(netip.MustParseAddr("192.0.2.1"), uint16(1024+i))
		x.off = [2]uint64{}
		x.seg(0, msg(1, 4000, 4001, 16))
		if b.Used() > limit {
			drops = append(drops, b.Enforce()...)
		}
		if b.Used() > limit {
			t.Fatalf("connection %d: %d octets held, budget %d", i, b.Used(), limit)
		}
	}
	// a single message needs a ring of seqRingMin entries, not seqRing
	if per := x.d.conns.Used() / int64(x.d.conns.Len()); per > connOverhead+seqRingMin*24+64 {
		t.Errorf("%d octets charged per one-message connection", per)
	}
	if len(drops) == 0 || !strings.HasPrefix(drops[0].What, "RDS connection 192.0.2.1:1024 <-> 192.0.2.2:16385") {
		t.Fatalf("drops %+v", drops[:min(len(drops), 2)])
	}
	if x.d.conns.Len() > limit/connOverhead {
		t.Errorf("%d connections kept in %d octets", x.d.conns.Len(), limit)
	}
}

// The connection table's own limit drops the least recently active
// connection, with a finding, and keeps the others.
func TestConnTableLimit(t *testing.T) {
	x := newFeeder()
	x.d.conns.Init(3, connOverhead, droppedConn)
	keys := make([]tcp.FlowKey, 4)
	for i := range keys {
		x.key.A = netip.AddrPortFrom(netip.MustParseAddr("192.0.2.1"), uint16(1024+i))
		keys[i] = x.key
		x.off = [2]uint64{}
		f := x.seg(0, msg(1, 4000, 4001, 16))
		got := ""
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "table full") {
				got = fd.Msg
			}
		}
		if (i == 3) != (got != "") || i == 3 && !strings.Contains(got, "192.0.2.1:1024 <-> 192.0.2.2:16385") {
			t.Errorf("connection %d: table-full finding %q", i, got)
		}
	}
	if x.d.conns.Get(keys[0]) != nil || x.d.conns.Get(keys[3]) == nil {
		t.Error("not the least recently active connection dropped")
	}
}
