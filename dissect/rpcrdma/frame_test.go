package rpcrdma_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// manyMsgs is how many RPC-over-RDMA messages the one frame carries: well
// past the 17 after which the old per-dissector pool wrapped.
const manyMsgs = 64

// rdmaMsg is RDMA_MSG XID xid carrying an NFSv3 call with the same XID.
func rdmaMsg(xid uint32) []byte {
	return append((&rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG}).Encode(nil), call(xid, 1)...)
}

// wantMsgs is the expected PDU list of a frame carrying messages with
// XIDs first, first+1, ...: written out from the XIDs, not from rdx.
func wantMsgs(first uint32, n int) []string {
	var want []string
	for i := range n {
		x := first + uint32(i)
		want = append(want, fmt.Sprintf("rpcordma{RDMA_MSG XID 0x%08x credits 16}", x), fmt.Sprintf("rpc{Call XID 0x%08x}", x))
	}
	return want
}

// rpcPDUs lists the frame's rpcordma and rpc PDUs with their summaries.
func rpcPDUs(f *dissect.Frame) []string {
	var got []string
	for _, p := range f.PDUs {
		if a := p.Proto().Abbrev; a == "rpcordma" || a == "rpc" {
			got = append(got, a+"{"+string(p.Summary(nil))+"}")
		}
	}
	return got
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d PDUs, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: PDU %d is %s, want %s", what, i, got[i], want[i])
		}
	}
}

// ethTCP builds an Ethernet/IPv4/TCP frame from 192.0.2.a:pa to
// 192.0.2.b:pb (checksums left zero: rdx does not verify them by default).
func ethTCP(a, b byte, pa, pb uint16, seq, ack uint32, flags byte, payload []byte) []byte {
	fr := []byte{0, 0, 0, 0, 0, b, 0, 0, 0, 0, 0, a, 8, 0}
	ip := []byte{0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 6, 0, 0, 192, 0, 2, a, 192, 0, 2, b}
	binary.BigEndian.PutUint16(ip[2:], uint16(20+20+len(payload)))
	fr = append(fr, ip...)
	fr = testpkt.TCP(fr, pa, pb, seq, ack, flags, 65535)
	return append(fr, payload...)
}

// TestManyMessagesOneFrameIWARP: one TCP segment (as GRO or a busy NFS
// client makes) carries 64 MPA FPDUs, each a DDP Send with one RPC-over-RDMA
// message. Every message is a PDU of its own with its own XID; the old
// 17-entry pool gave PDU 0 the XID of PDU 17.
func TestManyMessagesOneFrameIWARP(t *testing.T) {
	const cisn, sisn, cp, sp = 1000, 5000, 40000, 20049
	cseq, sseq := uint32(cisn+1), uint32(sisn+1)
	req := mpa.EncodeStartup(nil, false, 0x40, 1, nil) // CRC, no markers
	rep := mpa.EncodeStartup(nil, true, 0x40, 1, nil)
	frames := [][]byte{
		ethTCP(1, 2, cp, sp, cisn, 0, 0x02, nil),
		ethTCP(2, 1, sp, cp, sisn, cseq, 0x12, nil),
		ethTCP(1, 2, cp, sp, cseq, sseq, 0x10, nil),
		ethTCP(1, 2, cp, sp, cseq, sseq, 0x18, req),
	}
	cseq += uint32(len(req))
	frames = append(frames, ethTCP(2, 1, sp, cp, sseq, cseq, 0x18, rep))
	sseq += uint32(len(rep))
	var seg []byte
	for i := range manyMsgs {
		u := ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, uint32(i+1), 0, rdmaMsg(0x7000+uint32(i)))
		seg = mpa.EncodeFPDU(seg, u, 0, false, true)
	}
	frames = append(frames, ethTCP(1, 2, cp, sp, cseq, sseq, 0x18, seg))

	eng := dissect.NewEngine(dissect.Options{})
	var last *dissect.Frame
	for i, fr := range frames {
		last = eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1000, LinkType: dissect.LinkTypeEthernet, Data: fr})
	}
	sameList(t, "iWARP frame", rpcPDUs(last), wantMsgs(0x7000, manyMsgs))
	for _, fd := range last.Findings {
		t.Errorf("finding: %s: %s", fd.Proto, fd.Msg)
	}
}

// TestManyMessagesOneFrameRoCE: after PSN 99, 64 RoCE SENDs arrive ahead
// of a reordered one (PSN 100 comes last); the InfiniBand layer holds
// them, and the frame with PSN 100 releases all 65 messages at once. Each
// is a PDU of that frame with its own XID.
func TestManyMessagesOneFrameRoCE(t *testing.T) {
	frames := [][]byte{withICRC(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 99}, nil, rdmaMsg(0x8fff)))}
	for i := 1; i <= manyMsgs; i++ {
		frames = append(frames, withICRC(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 100 + uint32(i)}, nil, rdmaMsg(0x9000+uint32(i)))))
	}
	frames = append(frames, withICRC(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 100}, nil, rdmaMsg(0x9000))))
	eng := dissect.NewEngine(dissect.Options{})
	var last *dissect.Frame
	for i, fr := range frames {
		last = eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1000, LinkType: dissect.LinkTypeEthernet, Data: fr})
	}
	sameList(t, "RoCE frame", rpcPDUs(last), wantMsgs(0x9000, manyMsgs+1))
}
