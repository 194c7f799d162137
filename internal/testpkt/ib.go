package testpkt

import (
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/enginecheck"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// IBSends offers each payload to handle as one assembled InfiniBand SEND on
// queue pair qp from 192.0.2.1 to 192.0.2.2, one frame each. The frame is
// the message (payload at octet 0, as the zero ib.Packet says), so
// enginecheck can check the tree's offsets; bind, when not nil, binds it to
// an engine first. It returns every PDU's summary, each followed, when
// findings, by the frame's finding messages.
func IBSends(t testing.TB, handle func(*dissect.Frame, *ib.Packet, *ibasm.Message) bool, qp uint32,
	bind *dissect.Engine, findings bool, sends [][]byte) []string {
	t.Helper()
	var out []string
	var tr dissect.Tree
	for i, b := range sends {
		f := &dissect.Frame{Num: uint64(i + 1), Data: b}
		if bind != nil {
			bind.Bind(f)
		}
		m := &ibasm.Message{Kind: ibasm.KindSend, Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2"),
			QP: qp, Len: len(b), Data: b, Frames: []uint64{uint64(i + 1)}}
		handle(f, &ib.Packet{}, m)
		enginecheck.PDUs(t, f)
		for _, p := range f.PDUs {
			tr.Reset()
			p.Tree(&tr, f)
			out = append(out, string(p.Summary(nil)))
		}
		if findings {
			for _, fd := range f.Findings {
				out = append(out, fd.Msg)
			}
		}
	}
	return out
}
