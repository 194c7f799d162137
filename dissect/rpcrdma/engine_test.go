package rpcrdma_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
)

// roce builds an Ethernet/IPv4/UDP 4791 frame around one BTH packet (the
// ICRC is left zero: the ib dissector reports it, which these tests ignore).
func roce(src byte, bth ib.BTHFields, ext, payload []byte) []byte {
	ibp := bth.Encode(nil)
	ibp = append(ibp, ext...)
	ibp = append(ibp, payload...)
	ibp = append(ibp, 0, 0, 0, 0)
	b := []byte{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00}
	ip := []byte{0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 17, 0, 0, 192, 0, 2, src, 192, 0, 2, 3 - src}
	binary.BigEndian.PutUint16(ip[2:], uint16(20+8+len(ibp)))
	b = append(b, ip...)
	udp := binary.BigEndian.AppendUint16(nil, 50000)
	udp = binary.BigEndian.AppendUint16(udp, 4791)
	udp = binary.BigEndian.AppendUint16(udp, uint16(8+len(ibp)))
	udp = append(udp, 0, 0)
	b = append(b, udp...)
	return append(b, ibp...)
}

func call(xid uint32, proc uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, xid)
	for _, v := range []uint32{0, 2, 100003, 3, proc, 0, 0, 0, 0} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

// writeCall is an NFSv3 WRITE call of n octets whose data comes by a read
// chunk: fh<8>, offset 0, count n, stable FILE_SYNC, data length n (the
// data itself is not inline).
func writeCall(xid, n uint32) []byte {
	b := call(xid, 7)
	b = binary.BigEndian.AppendUint32(b, 8)
	b = append(b, 1, 2, 3, 4, 5, 6, 7, 8)
	b = binary.BigEndian.AppendUint64(b, 0)
	b = binary.BigEndian.AppendUint32(b, n)
	b = binary.BigEndian.AppendUint32(b, 2)
	return binary.BigEndian.AppendUint32(b, n)
}

func reply(xid uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, xid)
	for _, v := range []uint32{1, 0, 0, 0, 0, 0} { // reply, accepted, AUTH_NONE verf, SUCCESS, NFS3_OK
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

func decode(t *testing.T, frames [][]byte) []string {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	var out []string
	for i, fr := range frames {
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1000, LinkType: dissect.LinkTypeEthernet, Data: fr})
		var s []string
		for _, p := range f.PDUs {
			s = append(s, p.Proto().Abbrev+"{"+string(p.Summary(nil))+"}")
		}
		for _, fd := range f.Findings {
			if fd.Proto == "rpcordma" || fd.Proto == "rpc" {
				s = append(s, "finding: "+fd.Msg)
			}
		}
		out = append(out, strings.Join(s, " "))
	}
	return out
}

func TestSynthFindings(t *testing.T) {
	send := ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 100}
	msg := func(h rpcrdma.Header, rpc []byte) []byte { return append(h.Encode(nil), rpc...) }
	frames := [][]byte{
		roce(1, send, nil, msg(rpcrdma.Header{XID: 1, Vers: 1, Credit: 16, Proc: rpcrdma.MSG}, call(1, 1))),
		roce(2, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x22, PSN: 7}, nil, msg(rpcrdma.Header{XID: 1, Vers: 1, Credit: 0, Proc: rpcrdma.MSG}, reply(1))),
		roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 101}, nil, msg(rpcrdma.Header{XID: 2, Vers: 1, Credit: 16, Proc: rpcrdma.MSG}, call(3, 1))),
		roce(2, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x22, PSN: 8}, nil, (&rpcrdma.Header{XID: 2, Vers: 1, Credit: 1, Proc: rpcrdma.ERROR, ErrCode: rpcrdma.ErrVers, Low: 1, High: 1}).Encode(nil)),
		roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 102}, nil, (&rpcrdma.Header{XID: 4, Vers: 1, Credit: 16, Proc: rpcrdma.DONE}).Encode(nil)),
	}
	got := decode(t, frames)
	want := []string{"nfs{V3 GETATTR Call}", "credit grant of 0", "XID mismatch", "RDMA_ERROR ERR_VERS: peer supports versions 1 to 1", "RDMA_DONE is RFC 5666 only"}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("frame %d: want %q in %q", i+1, w, got[i])
		}
	}
	if !strings.Contains(got[1], "call in 1") {
		t.Errorf("reply not matched: %s", got[1])
	}
}

// TestSynthReadChunk: a call whose WRITE data comes by a read chunk, read
// with a two-packet RDMA READ response; the call is decoded in the frame of
// the last response with all three frames listed.
func TestSynthReadChunk(t *testing.T) {
	wr := binary.BigEndian.AppendUint32(nil, 42)
	// WRITE args: fh<8>, offset, count, stable, data length (data by chunk)
	body := writeCall(42, 8)
	pos := uint32(len(body))
	_ = wr
	h := rpcrdma.Header{XID: 42, Vers: 1, Credit: 16, Proc: rpcrdma.MSG,
		Reads: []rpcrdma.ReadSegment{{Position: pos, Segment: rpcrdma.Segment{Handle: 0x77, Length: 8, Offset: 0x1000}}}}
	reth := (&ib.RETHFields{VA: 0x1000, RKey: 0x77, DMALen: 8}).Encode(nil)
	aeth := []byte{0x1f, 0, 0, 1}
	frames := [][]byte{
		roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 0xFFFFFE}, nil, append(h.Encode(nil), body...)),
		roce(2, ib.BTHFields{Opcode: 0x0C, PKey: 0xFFFF, DestQP: 0x22, PSN: 0xFFFFFF}, reth, nil),
		roce(1, ib.BTHFields{Opcode: 0x0D, PKey: 0xFFFF, DestQP: 0x11, PSN: 0xFFFFFF}, aeth, []byte{1, 2, 3, 4}),
		roce(1, ib.BTHFields{Opcode: 0x0F, PKey: 0xFFFF, DestQP: 0x11, PSN: 0}, aeth, []byte{5, 6, 7, 8}), // PSN wraps
	}
	got := decode(t, frames)
	if !strings.Contains(got[3], "reassembled 80 octets from 3 frames") || !strings.Contains(got[3], "V3 WRITE Call") {
		t.Fatalf("read chunk not rebuilt: %q", got[3])
	}
	if strings.Contains(got[0], "rpc{") {
		t.Fatalf("call decoded before its chunk: %q", got[0])
	}
}
