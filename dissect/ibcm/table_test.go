package ibcm

import (
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/reassembly/budget"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// More REQs than the table holds: the least recently active connection is
// dropped with a finding (the others stay matched), and what the table holds
// is charged to the budget.
func TestCommTableLimit(t *testing.T) {
	b := budget.New(1 << 20)
	d := New()
	d.comms.Register(b, "ibcm")
	var findings []string
	add := func(f *dissect.Frame) {
		for _, fd := range f.Findings {
			findings = append(findings, fd.Msg)
		}
	}
	for i := uint32(1); i <= maxComms; i++ {
		add(feedOne(d, mad(AttrREQ, i, 0), uint64(i)))
	}
	// the REP for connection 2 makes it recent and adds the passive side's
	// ID: 1 goes; the next REQ drops 3, not 2
	add(feedOne(d, mad(AttrREP, 0x80000002, 2), maxComms+1))
	add(feedOne(d, mad(AttrREQ, maxComms+1, 0), maxComms+2))
	const full = "CM connection table full (4096): dropped the least recently active, CM connection with local communication ID "
	if len(findings) != 2 || findings[0] != full+"0x1 (REQ in frame 1)" || findings[1] != full+"0x3 (REQ in frame 3)" {
		t.Fatalf("findings %q", findings)
	}
	if _, ok := d.lookup(2); !ok {
		t.Error("connection 2 dropped, though more recently active than 3")
	}
	if d.comms.Len() != maxComms || b.Used() != int64(maxComms)*commOverhead {
		t.Errorf("%d connections, %d octets charged", d.comms.Len(), b.Used())
	}
}

func feedOne(d *State, b []byte, n uint64) *dissect.Frame {
	f := &dissect.Frame{Num: n}
	m := &ibasm.Message{Kind: ibasm.KindSend, Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2"),
		QP: 1, Len: len(b), Data: b, Frames: []uint64{n}}
	d.IBMessage(f, &ib.Packet{}, m)
	return f
}
