package flows

import (
	"net/netip"
	"slices"
	"testing"
)

// Both directions of a UDP exchange land in one conversation, counted each
// way, beside its IP conversation; TCP rows stay empty.
func TestConversations(t *testing.T) {
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	var c Conversations
	c.Count(&Packet{Src: b, Dst: a, Proto: UDP, HasPorts: true, SrcPort: 7000, DstPort: 4000, WireLen: 100, TimeNS: 1e6, Frame: 1})
	c.Count(&Packet{Src: a, Dst: b, Proto: UDP, HasPorts: true, SrcPort: 4000, DstPort: 7000, WireLen: 60, TimeNS: 3e6, Frame: 2})
	want := [][]string{{"192.0.2.1:4000", "192.0.2.2:7000", "1", "60", "1", "100", "1-2", "2ms"}}
	if got := c.Rows(UDP); len(got) != 1 || !slices.Equal(got[0], want[0]) {
		t.Errorf("udp rows %q, want %q", got, want)
	}
	if got := c.Rows(IP); len(got) != 1 || got[0][0] != "192.0.2.1" || got[0][6] != "1-2" {
		t.Errorf("ip rows %q", got)
	}
	if got := c.Rows(TCP); len(got) != 0 {
		t.Errorf("tcp rows %q", got)
	}
	c.Reset()
	if len(c.Rows(IP)) != 0 {
		t.Error("Reset kept rows")
	}
}

// Conversations above the transport: both directions of one kind meet in one
// row; the same endpoints on another kind or connection are apart; an
// unknown QP is left out of the endpoint.
func TestBetween(t *testing.T) {
	a := netip.AddrPortFrom(netip.MustParseAddr("192.0.2.1"), 7000)
	b := netip.AddrPortFrom(netip.MustParseAddr("192.0.2.2"), 4000)
	var c Conversations
	c.Between(Rx, Endpoint{Addr: b}, Endpoint{Addr: a}, 1<<32|8, 100, 0, 1)
	c.Between(Rx, Endpoint{Addr: a}, Endpoint{Addr: b}, 1<<32|8, 50, 1000, 2)
	c.Between(Rx, Endpoint{Addr: a}, Endpoint{Addr: b}, 2<<32|8, 10, 1000, 3)
	c.Between(RDP, Endpoint{Addr: a}, Endpoint{Addr: b}, 0, 10, 1000, 4)
	rx := c.Table("conv,rx")
	if rx == nil || len(rx.Rows) != 2 || rx.Header[0] != "Connection" {
		t.Fatalf("conv,rx: %+v", rx)
	}
	want := []string{"epoch 0x00000001 cid 0x00000008", "192.0.2.1:7000", "192.0.2.2:4000", "1", "50", "1", "100", "1-2", "1µs"}
	if !slices.Equal(rx.Rows[0], want) {
		t.Errorf("rx row %q, want %q", rx.Rows[0], want)
	}
	if r := c.Rows(RDP); len(r) != 1 || r[0][2] != "1" {
		t.Errorf("rdp rows %q", r)
	}
	ia, ib := netip.AddrPortFrom(a.Addr(), 0), netip.AddrPortFrom(b.Addr(), 0)
	c.Between(IB, Endpoint{Addr: ia, QP: NoQP}, Endpoint{Addr: ib, QP: 0x11}, 0, 60, 0, 5)
	if r := c.Rows(IB); len(r) != 1 || r[0][0] != "192.0.2.1" || r[0][1] != "192.0.2.2 QP 0x000011" {
		t.Errorf("ib rows %q", r)
	}
	if c.Table("conv,none") != nil || c.Table("rx,srt") != nil {
		t.Error("Table built a table for a name that is not a conversation kind")
	}
}

// rdx flows shows the conversations and the protocols' connection tables,
// rdx stats the rest; every conversation kind has a -z name.
func TestTableNames(t *testing.T) {
	names := ConvNames()
	for _, n := range []string{"conv,ip", "conv,tcp", "conv,udp", "conv,ib", "conv,rdp", "conv,rx", "conv,rds"} {
		if !slices.Contains(names, n) || !IsConv(n) || !IsFlow(n) || IsStat(n) {
			t.Errorf("%s: listed %v, conv %v, flow %v, stat %v", n, slices.Contains(names, n), IsConv(n), IsFlow(n), IsStat(n))
		}
	}
	for _, n := range []string{"infiniband,flows", "rdp,conv"} {
		if !IsFlow(n) || !IsStat(n) || IsConv(n) {
			t.Errorf("%s: flow %v, stat %v, conv %v", n, IsFlow(n), IsStat(n), IsConv(n))
		}
	}
	if IsFlow("rpc,srt") || !IsStat("rpc,srt") {
		t.Error("rpc,srt is a statistics table, not a flow table")
	}
}

// Counting a packet of a known conversation allocates nothing (the -z conv
// path runs per packet).
func TestConversationsAllocs(t *testing.T) {
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	p := &Packet{Src: a, Dst: b, Proto: UDP, HasPorts: true, SrcPort: 1, DstPort: 2, WireLen: 60}
	ea, eb := Endpoint{Addr: netip.AddrPortFrom(a, 0), QP: NoQP}, Endpoint{Addr: netip.AddrPortFrom(b, 0), QP: 0x11}
	var c Conversations
	c.Count(p)
	c.Between(IB, ea, eb, 0, 60, 0, 1)
	if n := testing.AllocsPerRun(100, func() { c.Count(p); c.Between(IB, ea, eb, 0, 60, 0, 1) }); n != 0 {
		t.Errorf("%v allocations per counted packet", n)
	}
}

// Conversations with as many bytes are listed first seen first, then by
// endpoints, the same way every time (map order once decided it).
func TestRowsOrder(t *testing.T) {
	var c Conversations
	for i := 0; i < 20; i++ {
		a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(20 - i)}), 1)
		b := netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, 1}), 2)
		c.Between(RDP, Endpoint{Addr: a}, Endpoint{Addr: b}, 0, 10, 0, uint64(i/2))
	}
	want := c.Rows(RDP)
	if want[0][0] != "192.0.2.19:1" || want[1][0] != "192.0.2.20:1" || want[19][0] != "192.0.2.2:1" {
		t.Fatalf("order %q", want)
	}
	for i := 0; i < 10; i++ {
		if got := c.Rows(RDP); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("run %d: order changed:\n%q\n%q", i, got, want)
		}
	}
}
