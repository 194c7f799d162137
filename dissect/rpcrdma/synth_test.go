package rpcrdma

import (
	"encoding/binary"
	"testing"
)

func rpcCall(xid uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, xid)
	for _, v := range []uint32{0, 2, 100003, 3, 1, 0, 0, 0, 0} { // call, v2, NFS v3 GETATTR, AUTH_NONE x2
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

func TestEncodeParseRoundTrip(t *testing.T) {
	h := Header{XID: 7, Vers: 1, Credit: 32, Proc: MSG,
		Reads:    []ReadSegment{{Position: 116, Segment: Segment{1, 4096, 0x1000}}, {Position: 116, Segment: Segment{2, 4096, 0x2000}}},
		Writes:   [][]Segment{{{3, 8192, 0x3000}}},
		HasReply: true, Reply: []Segment{{4, 1024, 0x4000}}}
	b := h.Encode(nil)
	var g Header
	n, err := Parse(b, &g)
	if err != nil || n != len(b) {
		t.Fatalf("parse: %v n=%d len=%d", err, n, len(b))
	}
	if len(g.Reads) != 2 || g.ReadChunkCount() != 1 || len(g.Writes) != 1 || g.Writes[0][0].Length != 8192 || !g.HasReply || g.Reply[0].Handle != 4 {
		t.Fatalf("got %+v", g)
	}
	e := Header{XID: 9, Vers: 1, Credit: 1, Proc: ERROR, ErrCode: ErrVers, Low: 1, High: 1}
	if _, err := Parse(e.Encode(nil), &g); err != nil || g.Low != 1 || g.ErrCode != ErrVers {
		t.Fatalf("error header: %v %+v", err, g)
	}
}

func TestHeuristic(t *testing.T) {
	ok := (&Header{XID: 5, Vers: 1, Credit: 8, Proc: MSG}).Encode(nil)
	if !Heuristic(append(ok, rpcCall(5)...)) {
		t.Fatal("valid RDMA_MSG refused")
	}
	// XID mismatch still has an RPC behind it: accepted, flagged by the dissector
	if !Heuristic(append(ok, rpcCall(6)...)) {
		t.Fatal("XID mismatch refused by the heuristic")
	}
	if Heuristic(ok) {
		t.Fatal("RDMA_MSG without an RPC message accepted")
	}
	v2 := (&Header{XID: 5, Vers: 2, Credit: 8, Proc: MSG}).Encode(nil)
	if Heuristic(append(v2, rpcCall(5)...)) {
		t.Fatal("version 2 accepted")
	}
	bad := append((&Header{XID: 5, Vers: 1, Credit: 8, Proc: MSG}).Encode(nil)[:16], 0, 0, 0, 7)
	if Heuristic(append(bad, rpcCall(5)...)) {
		t.Fatal("bad list discriminator accepted")
	}
	nomsg := (&Header{XID: 5, Vers: 1, Credit: 8, Proc: NOMSG}).Encode(nil)
	if Heuristic(nomsg) {
		t.Fatal("RDMA_NOMSG without chunks accepted")
	}
}

// TestParseNoChunks: a header with three empty lists (Parse's shortcut for
// RDMA_MSG and RDMA_NOMSG) parses as the lists' loops read it, into a
// reused Header that held lists before, and every other procedure still
// goes the long way (RDMA_MSGP's two words before its lists, RDMA_ERROR's
// code, RDMA_DONE's end after the fixed words).
func TestParseNoChunks(t *testing.T) {
	full := Header{XID: 1, Vers: 1, Credit: 2, Proc: MSG,
		Reads:    []ReadSegment{{Position: 4, Segment: Segment{1, 2, 3}}},
		Writes:   [][]Segment{{{3, 8192, 0x3000}}},
		HasReply: true, Reply: []Segment{{4, 1024, 0x4000}}}
	for _, c := range []struct {
		vers, proc uint32
		n          int
		err        bool
	}{{1, MSG, 28, false}, {1, NOMSG, 28, false}, {1, MSGP, 36, false}, {1, DONE, 16, false},
		{1, ERROR, 20, true}, {1, 7, 16, true}, {2, MSG, 16, true}, {0, NOMSG, 16, true}} {
		b := binary.BigEndian.AppendUint32(nil, 0x5e000001)
		b = binary.BigEndian.AppendUint32(b, c.vers)
		b = binary.BigEndian.AppendUint32(b, 128)
		b = binary.BigEndian.AppendUint32(b, c.proc)
		b = append(b, make([]byte, 20)...) // zeros: empty lists (and MSGP's alignment words)
		b = append(b, rpcCall(0x5e000001)...)
		var g Header
		if _, err := Parse(full.Encode(nil), &g); err != nil || len(g.Reads) != 1 || !g.HasReply {
			t.Fatalf("setup: %v %+v", err, g)
		}
		n, err := Parse(b, &g)
		if n != c.n || (err != nil) != c.err {
			t.Fatalf("vers %d proc %d: n=%d err=%v, want n=%d err=%v", c.vers, c.proc, n, err, c.n, c.err)
		}
		if len(g.Reads) != 0 || len(g.Writes) != 0 || len(g.Reply) != 0 || g.HasReply || g.Align != 0 || g.Thresh != 0 ||
			g.XID != 0x5e000001 || g.Credit != 128 || g.Vers != c.vers || g.Proc != c.proc {
			t.Fatalf("vers %d proc %d: %+v", c.vers, c.proc, g)
		}
	}
}
