package rpcrdma_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
	"github.com/rdx-project/rdx/internal/enginecheck"
)

// FuzzRPCRDMA checks the header parser (a parsed length within the input,
// and a v1 MSG or NOMSG header encodes back to the same length) and then
// decodes the bytes as the payload of RoCEv2 SENDs through engines, found by
// the heuristic and forced with decode-as, under enginecheck's invariants:
// strict (no dissector panic, no internal-error finding), offsets within
// the frame, and a tree that shows every PDU the summary counts.
func FuzzRPCRDMA(f *testing.F) {
	f.Add((&rpcrdma.Header{XID: 5, Vers: 1, Credit: 8, Proc: rpcrdma.MSG, Reads: []rpcrdma.ReadSegment{{Position: 4, Segment: rpcrdma.Segment{1, 2, 3}}}}).Encode(nil))
	f.Add((&rpcrdma.Header{XID: 5, Vers: 1, Credit: 8, Proc: rpcrdma.NOMSG, HasReply: true, Reply: []rpcrdma.Segment{{1, 2, 3}}}).Encode(nil))
	f.Add((&rpcrdma.Header{XID: 5, Vers: 1, Proc: rpcrdma.ERROR, ErrCode: rpcrdma.ErrVers}).Encode(nil))
	f.Add(append((&rpcrdma.Header{XID: 1, Vers: 1, Credit: 16, Proc: rpcrdma.MSG}).Encode(nil), call(1, 1)...))
	forced, err := dissect.ParseDecodeAs("infiniband.destqp==0x11,rpcordma")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h rpcrdma.Header
		n, err := rpcrdma.Parse(b, &h)
		if err == nil && n > len(b) {
			t.Fatalf("length %d beyond %d", n, len(b))
		}
		if err == nil && h.Vers == 1 && (h.Proc == rpcrdma.MSG || h.Proc == rpcrdma.NOMSG) {
			var g rpcrdma.Header
			if m, err := rpcrdma.Parse(h.Encode(nil), &g); err != nil || m != n && h.Proc != rpcrdma.MSGP {
				t.Fatalf("re-encode: %v %d %d", err, m, n)
			}
		}
		rpcrdma.Heuristic(b)
		if len(b) > 4096 {
			return // one RoCE packet's payload at most
		}
		// A call to QP 0x11 and the same bytes back to QP 0x22: the second
		// meets the state the first left (a reply to its XID).
		frames := [][]byte{
			roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 1}, nil, b),
			roce(2, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x22, PSN: 1}, nil, b),
		}
		for _, opts := range []dissect.Options{{}, {DecodeAs: []dissect.DecodeAs{forced}}} {
			p := enginecheck.NewPair(opts)
			for i, fr := range frames {
				p.Decode(t, uint64(i+1), 1, fr)
			}
			p.Finish()
		}
	})
}
