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

// FuzzReadChunks drives read chunk placement: a call whose read list (up
// to 6 segments: positions, handles, lengths and offsets from the input)
// is fetched by RDMA READs of any address, key and length, answered by
// responses of any opcode, PSN step and size, repeated or cut short. Under
// enginecheck's invariants nothing panics, and a rebuilt message is never
// longer than the call's inline octets, its read chunks and their pads.
func FuzzReadChunks(f *testing.F) {
	f.Add([]byte{2, 0, 4, 1, 0x10, 0, 0, 0x0D, 0x10, 0x0F, 0x10}, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{3, 1, 8, 2, 0x20, 3, 0, 0x10, 0x08, 1, 2, 0x10, 0x04, 0x0E, 0x08}, []byte{9, 9, 9, 9})
	f.Add([]byte{0, 30, 1, 2, 1, 0, 2, 3, 4}, []byte{1, 2, 3, 4}) // one segment, read whole: rebuilt
	f.Fuzz(func(t *testing.T, b, inline []byte) {
		if len(b) < 2 || len(inline) > 512 || len(b) > 256 {
			return
		}
		inline = inline[:len(inline)&^3]
		next := func() byte {
			if len(b) == 0 {
				return 0
			}
			v := b[0]
			b = b[1:]
			return v
		}
		h := rpcrdma.Header{XID: 7, Vers: 1, Credit: 4, Proc: rpcrdma.MSG}
		nr := int(next()%6) + 1
		total := len(inline)
		for i := 0; i < nr; i++ {
			pos, handle, n := uint32(next()%8)*4, uint32(next()%3), uint32(next())*8
			total += int(n) + 3
			h.Reads = append(h.Reads, rpcrdma.ReadSegment{Position: pos, Segment: rpcrdma.Segment{Handle: handle, Length: n, Offset: uint64(handle) << 16}})
		}
		body := append(call(7, 7), inline...)
		p := enginecheck.NewPair(dissect.Options{})
		num := uint64(0)
		dec := func(fr []byte) *dissect.Frame { num++; return p.Decode(t, num, 1, withICRC(fr)) }
		dec(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 1}, nil, append(h.Encode(nil), body...)))
		psn := uint32(100)
		for len(b) >= 4 {
			handle, off, n := uint32(next()%3), uint32(next())*4, uint32(next())*8
			reth := (&ib.RETHFields{VA: uint64(handle)<<16 + uint64(off), RKey: handle, DMALen: n}).Encode(nil)
			dec(roce(2, ib.BTHFields{Opcode: 0x0C, PKey: 0xFFFF, DestQP: 0x22, PSN: psn}, reth, nil))
			for k := 0; len(b) > 0 && k < 4; k++ {
				op := []uint8{0x0D, 0x0E, 0x0F, 0x10}[next()%4]
				var ext []byte
				if op != 0x0E {
					ext = []byte{0x1f, 0, 0, 1}
				}
				fr := dec(roce(1, ib.BTHFields{Opcode: op, PKey: 0xFFFF, DestQP: 0x11, PSN: psn}, ext, make([]byte, int(next())*4)))
				for _, m := range rpcrdma.Rebuilt(fr) {
					if len(m) > len(body)+total {
						t.Fatalf("rebuilt %d octets from %d inline and %d announced", len(m), len(body), total)
					}
				}
				psn++
			}
		}
		p.Finish()
	})
}
