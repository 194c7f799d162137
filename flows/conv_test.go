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
