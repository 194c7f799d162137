package rpcrdma_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
)

// A sparse tree that keeps no RPC-over-RDMA field leaves its subtree out
// (Hdr.nodes, SkipProto) and still counts the nodes the whole tree has,
// for every procedure and list shape, including headers with findings
// (RDMA_DONE, no credits in a reply); a version other than 1, an unknown
// error code and a header cut short are not headers (and count the same
// too). A count off by one node fails here.
func TestSkipProtoNodes(t *testing.T) {
	seg := rpcrdma.Segment{Handle: 1, Length: 2, Offset: 3}
	hdrs := []rpcrdma.Header{
		{XID: 1, Vers: 1, Credit: 8, Proc: rpcrdma.MSG},
		{XID: 2, Vers: 1, Credit: 8, Proc: rpcrdma.NOMSG, HasReply: true, Reply: []rpcrdma.Segment{seg, seg}},
		{XID: 3, Vers: 1, Credit: 8, Proc: rpcrdma.MSG, Reads: []rpcrdma.ReadSegment{{0, seg}, {0, seg}, {8, seg}}},
		{XID: 4, Vers: 1, Credit: 8, Proc: rpcrdma.MSG, Writes: [][]rpcrdma.Segment{{seg}, {seg, seg, seg}}},
		{XID: 5, Vers: 1, Credit: 8, Proc: rpcrdma.MSGP, Align: 4, Thresh: 32},
		{XID: 6, Vers: 1, Proc: rpcrdma.ERROR, ErrCode: rpcrdma.ErrVers, Low: 1, High: 1},
		{XID: 7, Vers: 1, Proc: rpcrdma.ERROR, ErrCode: rpcrdma.ErrChunk},
		{XID: 8, Vers: 1, Proc: rpcrdma.ERROR, ErrCode: 9},
		{XID: 9, Vers: 1, Proc: rpcrdma.DONE},
		{XID: 10, Vers: 2, Credit: 8, Proc: rpcrdma.MSG},
	}
	var frames [][]byte
	for i := range hdrs {
		b := hdrs[i].Encode(nil)
		if hdrs[i].Proc == rpcrdma.MSG || hdrs[i].Proc == rpcrdma.MSGP {
			b = append(b, call(hdrs[i].XID, 1)...)
		}
		frames = append(frames, b)
	}
	long := (&rpcrdma.Header{XID: 11, Vers: 1, Credit: 8, Proc: rpcrdma.MSG, Writes: [][]rpcrdma.Segment{{seg, seg}}}).Encode(nil)
	frames = append(frames, long[:len(long)-10])                             // cut inside the write list
	forced, err := dissect.ParseDecodeAs("infiniband.destqp==0x11,rpcordma") // headers no heuristic takes
	if err != nil {
		t.Fatal(err)
	}
	eng := dissect.NewEngine(dissect.Options{DecodeAs: []dissect.DecodeAs{forced}})
	var whole, sparse dissect.Tree
	var want dissect.FieldSet
	want.Add(dissect.Lookup("infiniband.bth.psn"))
	sparse.SetWant(&want)
	hdrsSeen := 0
	for i, b := range frames {
		fr := roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: uint32(i)}, nil, b)
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeEthernet, Data: fr})
		eng.BuildTree(&whole, f)
		eng.BuildTree(&sparse, f)
		for _, p := range f.PDUs {
			if _, ok := p.(*rpcrdma.Hdr); ok {
				hdrsSeen++
			}
		}
		if sparse.Counted() != whole.Counted() {
			t.Errorf("frame %d (header %d): the sparse tree counted %d nodes, the whole tree %d", i+1, i, sparse.Counted(), whole.Counted())
		}
	}
	if hdrsSeen != 8 { // error code 9, version 2 and the cut header are not headers
		t.Fatalf("%d of %d frames have an RPC-over-RDMA header, want 8", hdrsSeen, len(frames))
	}
}
