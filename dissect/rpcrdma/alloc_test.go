package rpcrdma_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
)

// TestReadChunkZeroAlloc: once warm, a call whose data comes by a read
// chunk (Send, RDMA READ request, two-packet response, reply) costs no
// allocation: pending calls, their chunk buffers and the rebuilt message
// are reused (the RoCE benchmark's hot path).
func TestReadChunkZeroAlloc(t *testing.T) {
	const passes = 30
	var set [][][]byte
	for i := uint32(0); i < passes; i++ {
		xid, r := 42+i, 20+3*i
		body := writeCall(xid, 2048)
		h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG,
			Reads: []rpcrdma.ReadSegment{{Position: uint32(len(body)), Segment: rpcrdma.Segment{Handle: 0x77, Length: 2048, Offset: 0x1000}}}}
		reth := (&ib.RETHFields{VA: 0x1000, RKey: 0x77, DMALen: 2048}).Encode(nil)
		aeth := []byte{0x1f, 0, 0, 1}
		set = append(set, [][]byte{
			withICRC(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 10 + i}, nil, append(h.Encode(nil), body...))),
			withICRC(roce(2, ib.BTHFields{Opcode: 0x0C, PKey: 0xFFFF, DestQP: 0x22, PSN: r}, reth, nil)),
			withICRC(roce(1, ib.BTHFields{Opcode: 0x0D, PKey: 0xFFFF, DestQP: 0x11, PSN: r}, aeth, make([]byte, 1024))),
			withICRC(roce(1, ib.BTHFields{Opcode: 0x0F, PKey: 0xFFFF, DestQP: 0x11, PSN: r + 1}, aeth, make([]byte, 1024))),
			withICRC(roce(2, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x22, PSN: r + 2}, nil,
				append((&rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG}).Encode(nil), reply(xid)...))),
		})
	}
	eng := dissect.NewEngine(dissect.Options{})
	n := uint64(0)
	findings := 0
	pass := func() {
		for _, fr := range set[n/5%passes] {
			n++
			f := eng.Decode(dissect.Packet{Num: n, TimeNS: int64(n) * 1000, LinkType: dissect.LinkTypeEthernet, Data: fr})
			findings += len(f.Findings)
		}
	}
	pass()
	pass()
	if a := testing.AllocsPerRun(20, pass); a != 0 {
		t.Errorf("%v allocs per call with a read chunk", a)
	}
	if findings != 0 {
		t.Errorf("%d findings: the traffic should be clean", findings)
	}
}

// withICRC fills in the ICRC of a frame built by roce.
func withICRC(b []byte) []byte {
	crc, _ := ib.ICRCRoCEv2(b[14:34], b[34:42], b[42:len(b)-4])
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc)
	return b
}
