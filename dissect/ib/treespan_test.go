package ib

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// The spans of the InfiniBand tree (tree.go) hold exactly the nodes the
// tree adds, for every opcode (so every extension header), for an AETH of
// each syndrome kind (the reserved one has no kind node), with and without
// a computed ICRC, over RoCEv2, RoCEv1 (GRH) and native IB (LRH, GRH):
// the whole tree's SpanError, and a sparse tree of one field keeps the
// whole tree's nodes of it and counts the same nodes (what it skips).
// A span with a node too many, too few or out of order fails here; the
// golden captures have no reserved AETH kind and no unverified ICRC.
func TestTreeSpans(t *testing.T) {
	wants := []*dissect.Field{fOpcode, fDestQP, fPSN, fPSNExpected, fMSN, fSynKind, fICRCStatus, fRETHLen,
		fLRHDLID, fGRHDGID, fPayload, fVCRC}
	eng := dissect.NewEngine(dissect.Options{})
	var whole, sparse dissect.Tree
	whole.TraceSpans()
	num := uint64(0)
	spansSeen := 0
	check := func(name string, f *dissect.Frame) {
		t.Helper()
		eng.BuildTree(&whole, f)
		if err := whole.SpanError(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range wants {
			var set dissect.FieldSet
			set.Add(w)
			sparse.SetWant(&set)
			eng.BuildTree(&sparse, f)
			if sparse.Counted() != whole.Counted() {
				t.Fatalf("%s, sparse tree of %s: counted %d nodes, the whole tree %d", name, w.Abbrev, sparse.Counted(), whole.Counted())
			}
			j := 0
			for i := range whole.Nodes {
				n := &whole.Nodes[i]
				if !set.Has(n.F) {
					continue
				}
				if j >= len(sparse.Nodes) {
					t.Fatalf("%s, sparse tree of %s: node %d missing", name, w.Abbrev, i)
				}
				s := &sparse.Nodes[j]
				j++
				if s.F != n.F || s.U != n.U || s.S != n.S || !bytes.Equal(s.B, n.B) || s.Off != n.Off || s.Len != n.Len || s.Depth != n.Depth {
					t.Fatalf("%s, sparse tree of %s: node %d differs from the whole tree's", name, w.Abbrev, i)
				}
			}
			if j != len(sparse.Nodes) {
				t.Fatalf("%s, sparse tree of %s: %d nodes, the whole tree %d", name, w.Abbrev, len(sparse.Nodes), j)
			}
		}
		spansSeen++
	}
	decode := func(name string, lt uint16, data []byte, tweak func(*Packet)) {
		t.Helper()
		num++
		f := eng.Decode(dissect.Packet{Num: num, LinkType: lt, CapLen: len(data), WireLen: len(data), Data: data})
		check(name, f)
		for _, pdu := range f.PDUs {
			if p, ok := pdu.(*Packet); ok && tweak != nil {
				tweak(p)
				check(name+" (tweaked)", f)
			}
		}
	}
	for op := 0; op < 256; op++ {
		for _, syn := range []byte{0x1f, 0x20, 0x40, 0x60} { // ACK, RNR NAK, reserved, NAK
			if syn != 0x1f && Ops[op].Ext&ExtAETH == 0 {
				continue
			}
			ibp := (&BTHFields{Opcode: uint8(op), DestQP: 0x11, PSN: uint32(op)}).Encode(nil)
			ext := make([]byte, ExtLen(Ops[op].Ext))
			if Ops[op].Ext&ExtAETH != 0 { // the AETH follows RDETH (RD) only
				at := 0
				if Ops[op].Ext&ExtRDETH != 0 {
					at = RDETHLen
				}
				ext[at] = syn
			}
			ibp = append(append(ibp, ext...), 1, 2, 3, 4)
			ibp = append(ibp, 0, 0, 0, 0) // ICRC (bad: the computed one is shown)
			name := Ops[op].Name

			// RoCEv2 over IPv4/UDP
			ip := []byte{0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2}
			binary.BigEndian.PutUint16(ip[2:], uint16(20+8+len(ibp)))
			udp := []byte{0xc0, 0, 0x12, 0xb7, 0, 0, 0, 0}
			binary.BigEndian.PutUint16(udp[4:], uint16(8+len(ibp)))
			eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
			v2 := append(append(append(append([]byte(nil), eth...), ip...), udp...), ibp...)
			decode(name+" RoCEv2", 1, v2, func(p *Packet) {
				p.icrcStatus = dissect.StatusUnverified // no computed ICRC node
				p.psnBroken, p.psnExpected = true, 7    // the PSN's child: no BTH span
			})

			// RoCEv1: GRH then BTH
			grh := (&GRHFields{NxtHdr: 0x1B, PayLen: uint16(len(ibp))}).Encode(nil)
			v1 := append(append([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x89, 0x15}, grh...), ibp...)
			decode(name+" RoCEv1", 1, v1, nil)

			// native IB: LRH (BTH next), the packet, the VCRC
			words := uint16((LRHLen + len(ibp) + VCRCLen) / 4)
			lrh := (&LRHFields{LNH: 2, PktLen: words, DLID: 3, SLID: 4}).Encode(nil)
			nat := append(append(lrh, ibp...), 0, 0)
			decode(name+" native", LinkTypeIB, nat, nil)
			words = uint16((LRHLen + GRHLen + len(ibp) + VCRCLen) / 4)
			lrh = (&LRHFields{LNH: 3, PktLen: words, DLID: 3, SLID: 4}).Encode(nil)
			nat = append(append(append(lrh, grh...), ibp...), 0, 0)
			decode(name+" native with GRH", LinkTypeIB, nat, nil)
		}
	}
	if spansSeen < 256*4 {
		t.Fatalf("only %d trees checked", spansSeen)
	}
}
