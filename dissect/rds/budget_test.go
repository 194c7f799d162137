package rds

import (
	"bytes"
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

// TestChargeBothHalves checks that what a connection holds in either
// direction (sequence ring, frame list, congested ports) is charged after
// every chunk: the budget's count must equal the capacities, counted here
// half by half, after each segment.
func TestChargeBothHalves(t *testing.T) {
	b := budget.New(1 << 30)
	x := newFeeder()
	x.d.conns.Register(b, "rds")
	ch := HeaderFields{Flags: FlagCongBitmap, Len: CongMapLen}
	cong := ch.Encode(nil)
	cong = append(cong, bytes.Repeat([]byte{0xff}, CongMapLen)...) // every port congested
	var segs [][]byte
	for i := range 40 {
		segs = append(segs, msg(uint64(i+1), 4000, 4001, 64))
	}
	segs = append(segs, cong[:1000], cong[1000:3000], cong[3000:])
	for i, s := range segs {
		for dir := range tcp.Dir(2) {
			if dir == 1 && i < len(segs)-3 && i%2 == 0 {
				continue // the halves grow differently
			}
			x.seg(dir, s)
			e := x.d.conns.Get(x.key)
			want := int64(connOverhead)
			for k := range e.V.half {
				h := &e.V.half[k]
				want += int64(cap(h.ring)*24 + cap(h.frames)*8 + cap(h.cong)*2)
			}
			if got := x.d.conns.Used(); got != want {
				t.Fatalf("segment %d dir %d: %d octets charged, the connection holds %d", i, dir, got, want)
			}
		}
	}
	if e := x.d.conns.Get(x.key); cap(e.V.half[1].cong) == 0 || cap(e.V.half[1].frames) == 0 || cap(e.V.half[0].ring) == 0 {
		t.Fatal("the test no longer makes both halves hold something")
	}
}
