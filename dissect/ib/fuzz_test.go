package ib_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/enginecheck"
	"github.com/rdx-project/rdx/internal/testpkt"
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
		if n.F != nil && n.F.Abbrev == "erf.types.type" {
			seen++
			if n.Off != 8 || n.Len != 1 {
				t.Errorf("erf.types.type at %d length %d, want 8, 1", n.Off, n.Len)
			}
		}
	}
	if seen != 1 {
		t.Errorf("%d erf.types.type nodes", seen)
	}
}

// FuzzIPoIB feeds arbitrary bytes as the payload of a native InfiniBand
// SEND (and the whole packet) in an ERF record through enginecheck (the IP
// over InfiniBand layers' tree offsets within the frame), and checks that
// EtherPayloadAt, which the -j reader numbers streams by, finds the IP
// header exactly where Dissect handed one to the engine.
func FuzzIPoIB(f *testing.F) {
	udp := testpkt.UDP4(nil, testpkt.Client, testpkt.Server, 40000, 40001, []byte("x"))
	f.Add(uint8(0x64), testpkt.IPoIB(0x0800, udp))
	f.Add(uint8(0x04), testpkt.IPoIB(0x86dd, make([]byte, 48)))
	f.Add(uint8(0x00), testpkt.IPoIB(0x0806, make([]byte, 28)))
	f.Add(uint8(0x05), []byte{8, 0, 0, 0, 0x45})
	p := enginecheck.NewPair(dissect.Options{})
	eng := dissect.NewEngine(dissect.Options{})
	loc := eng.Instance("infiniband").(dissect.EtherLocator)
	var num uint64
	f.Fuzz(func(t *testing.T, opcode uint8, pay []byte) {
		for _, rec := range [][]byte{testpkt.ERFIB(1e9, 0, 1, 2, opcode, 3, 4, pay),
			append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 21, 4, 0, 0, 0, 0, 0, 0}, pay...)} {
			num++
			p.Decode(t, num, ib.LinkTypeERF, rec)
			typ, off, n, ok := loc.EtherPayloadAt(ib.LinkTypeERF, rec)
			if ok && (off < 0 || n < 0 || off+n > len(rec)) {
				t.Fatalf("EtherPayloadAt: %d octets at %d of %d", n, off, len(rec))
			}
			fr := eng.Decode(dissect.Packet{Num: num, LinkType: ib.LinkTypeERF, Data: rec})
			if fr.Net.HasIP && (!ok || off != fr.Net.L3Off || typ != fr.Net.EtherType) {
				t.Fatalf("Dissect decoded IP (EtherType %#x) at %d, EtherPayloadAt says %#x at %d (%v)", fr.Net.EtherType, fr.Net.L3Off, typ, off, ok)
			}
		}
	})
}
