package ib_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/enginecheck"
)

// FuzzBTH feeds arbitrary bytes as a RoCEv2 UDP payload, a RoCEv1 Ethernet
// payload, a native IB frame (link type 247) and an ERF record (197), through
// enginecheck (strict, offsets within the frame, the same output twice); a
// BTH that parses encodes back to the same octets.
func FuzzBTH(f *testing.F) {
	f.Add((&ib.BTHFields{Opcode: 0x81, BECN: true, DestQP: 5}).Encode(nil))
	f.Add(append((&ib.BTHFields{Opcode: 0x0C, DestQP: 5}).Encode(nil), make([]byte, 20)...))
	f.Add(append((&ib.LRHFields{LNH: 3, PktLen: 20}).Encode(nil), make([]byte, 80)...))
	f.Add(append((&ib.GRHFields{NxtHdr: 0x1B, PayLen: 16}).Encode(nil), 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x60))
	p := enginecheck.NewPair(dissect.Options{})
	var num uint64
	f.Fuzz(func(t *testing.T, b []byte) {
		if h := ib.BTH(b); h.Valid() && h.Resv6() == 0 && h.Resv7() == 0 { // Encode writes reserved bits as zero
			fl := ib.BTHFields{Opcode: h.Opcode(), SE: h.SE(), MigReq: h.MigReq(), PadCnt: uint8(h.PadCnt()), TVer: h.TVer(), PKey: h.PKey(),
				FECN: h.FECN(), BECN: h.BECN(), DestQP: h.DestQP(), AckReq: h.AckReq(), PSN: h.PSN()}
			if enc := fl.Encode(nil); string(enc) != string(b[:ib.BTHLen]) {
				t.Fatalf("BTH % x encodes back to % x", b[:ib.BTHLen], enc)
			}
		}
		udpLen := uint16(8 + len(b))
		if len(b) > 0 && b[0]&1 != 0 {
			udpLen = uint16(int(b[0]) + 8) // may disagree with the data
		}
		ip := []byte{0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2}
		binary.BigEndian.PutUint16(ip[2:], uint16(20+8+len(b)))
		udp := []byte{0xc0, 0, 0x12, 0xb7, 0, 0, 0, 0}
		binary.BigEndian.PutUint16(udp[4:], udpLen)
		eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
		v2 := append(append(append(append([]byte(nil), eth...), ip...), udp...), b...)
		v1 := append([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x89, 0x15}, b...)
		erf := append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 21, 4, 0, 0, 0, 0, 0, 0}, b...)
		if len(b) > 1 {
			erf[8] = b[1]&0x80 | 21
		}
		for _, c := range []struct {
			lt   uint16
			data []byte
		}{{1, v2}, {1, v1}, {247, b}, {197, erf}} {
			num++
			p.Decode(t, num, c.lt, c.data)
		}
	})
}

// An ERF record that is not InfiniBand shows its header at offsets 0-15 of
// the frame. The packet's offset used to be the record's start, so the tree
// put the ERF fields 16 octets before the frame (found by FuzzEngine).
func TestERFNotIBTreeOffsets(t *testing.T) {
	rec := make([]byte, 40)
	rec[8] = 2 // ERF type 2: Ethernet
	eng := dissect.NewEngine(dissect.Options{})
	fr := eng.Decode(dissect.Packet{Num: 1, LinkType: ib.LinkTypeERF, Data: rec})
	var tree dissect.Tree
	eng.BuildTree(&tree, fr)
	enginecheck.Tree(t, fr, &tree)
	var seen int
	for _, n := range tree.Nodes {
		if n.F != nil && n.F.Abbrev == "infiniband.erf.type" {
			seen++
			if n.Off != 8 || n.Len != 1 {
				t.Errorf("infiniband.erf.type at %d length %d, want 8, 1", n.Off, n.Len)
			}
		}
	}
	if seen != 1 {
		t.Errorf("%d infiniband.erf.type nodes", seen)
	}
}
