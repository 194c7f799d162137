package rdp

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

func ep(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 100)
}

func put(d *State, a, b netip.AddrPort, c conn) {
	e, _ := d.conns.Add(keyOf(a, b))
	c.side[0].ep, c.side[1].ep = a, b
	e.V = c
}

// One connection seen by two engines: side counts add, matched by endpoint
// (the other engine met the other side first), the first frame and time are
// the earlier engine's, state the later one's; a connection only the other
// engine saw is copied.
func TestMergeStats(t *testing.T) {
	x, y := New(), New()
	a, b := ep(1), ep(2)
	xc := conn{firstFrame: 10, lastFrame: 20, first: 100, last: 200, established: true}
	xc.side[0].st = SideStats{Segments: 1, DataBytes: 10, Retransmits: 1, EACKs: 1, RSTs: 1, NULs: 1}
	xc.side[0].state = StateOpen
	put(x, a, b, xc)
	yc := conn{firstFrame: 5, lastFrame: 30, first: 50, last: 300, closed: true}
	yc.side[0].st = SideStats{Segments: 2, DataBytes: 20} // b's side
	yc.side[1].st = SideStats{Segments: 4, DataBytes: 40, Retransmits: 2, EACKs: 2, RSTs: 2, NULs: 2}
	yc.side[1].state = StateCloseWait
	put(y, b, a, yc)
	put(y, ep(3), ep(4), conn{firstFrame: 7, lastFrame: 8})
	if fs := x.MergeStats(y); fs != nil {
		t.Fatalf("findings %v", fs)
	}
	cs := x.Connections(nil)
	if len(cs) != 2 || cs[0].FirstFrame != 5 || cs[1].FirstFrame != 7 {
		t.Fatalf("connections %+v", cs)
	}
	c := cs[0]
	// side 0 is y's first side (b): y saw the connection last
	if c.Endpoints != [2]netip.AddrPort{b, a} || c.FirstNS != 50 || c.LastNS != 300 || c.LastFrame != 30 ||
		!c.Established || !c.Reset || c.State[1] != StateCloseWait {
		t.Errorf("merged %+v", c)
	}
	if want := (SideStats{Segments: 5, DataBytes: 50, Retransmits: 3, EACKs: 3, RSTs: 3, NULs: 3}); c.Stats[1] != want {
		t.Errorf("a's side %+v, want %+v", c.Stats[1], want)
	}
	if c.Stats[0] != (SideStats{Segments: 2, DataBytes: 20}) {
		t.Errorf("b's side %+v", c.Stats[0])
	}
}

// Over maxConns together, the least recently active connections go, with
// the table's finding: three named, the rest counted.
func TestMergeStatsLimit(t *testing.T) {
	x, y := New(), New()
	for i := range maxConns {
		put(x, ep(2*i), ep(2*i+1), conn{firstFrame: uint64(2*i + 1), lastFrame: uint64(2*i + 1)})
	}
	for i := range 10 {
		put(y, ep(50000+2*i), ep(50001+2*i), conn{firstFrame: uint64(1e6 + i), lastFrame: uint64(1e6 + i)})
	}
	fs := x.MergeStats(y)
	if x.conns.Len() != maxConns {
		t.Fatalf("%d connections, want %d", x.conns.Len(), maxConns)
	}
	cs := x.Connections(nil)
	if cs[0].FirstFrame != 21 || cs[len(cs)-1].FirstFrame != 1e6+9 {
		t.Errorf("kept %d..%d, want 21 (the 11th oldest) .. %d", cs[0].FirstFrame, cs[len(cs)-1].FirstFrame, int(1e6+9))
	}
	if len(fs) != 4 || !strings.Contains(fs[0].Msg, "connection table full (8192 connections): dropped the least recently active, RDP connection") ||
		!strings.Contains(fs[3].Msg, "dropped 7 more") || fs[0].Sev != dissect.Warn || fs[0].Proto != "rdp" {
		t.Errorf("findings %+v", fs)
	}
}
