package ib

import (
	"encoding/binary"
	"math/bits"

	"github.com/rdx-project/rdx/dissect"
)

// Tree implements dissect.PDU.
func (p *Packet) Tree(t *dissect.Tree, f *dissect.Frame) {
	base := p.off
	if len(p.erf) > 0 {
		base = p.off - len(p.erf)
	}
	if len(p.erf) > 0 {
		t.SetBase(base, p.off < 0)
		erfTree(t, p.erf)
	}
	t.SetBase(p.off, p.off < 0)
	label := ""
	if h := p.BTH(); h != nil && t.Labels() {
		label = string(p.Summary(nil))
	}
	t.Proto(PIB, 0, len(p.data), label)
	t.Uint(fEncap, -1-p.off, 0, uint64(p.encap))
	d := p.data
	if p.lrh >= 0 && !t.SkipSpan(spanLRH) {
		o := p.lrh
		l := LRH(d[o:])
		t.Bytes(fLRH, o, LRHLen, d[o:o+LRHLen])
		t.Open()
		t.Uint(fLRHVL, o, 1, uint64(d[o]))
		t.Uint(fLRHLVer, o, 1, uint64(d[o]))
		t.Uint(fLRHSL, o+1, 1, uint64(d[o+1]))
		t.Uint(fLRHRsv2, o+1, 1, uint64(d[o+1]))
		t.Uint(fLRHLNH, o+1, 1, uint64(d[o+1]))
		t.Uint(fLRHDLID, o+2, 2, uint64(l.DLID()))
		t.Uint(fLRHRsv5, o+4, 2, uint64(binary.BigEndian.Uint16(d[o+4:])))
		t.Uint(fLRHPktLen, o+4, 2, uint64(binary.BigEndian.Uint16(d[o+4:])))
		t.Uint(fLRHSLID, o+6, 2, uint64(l.SLID()))
		t.Close()
	}
	if p.grh >= 0 && !t.SkipSpan(spanGRH) {
		o := p.grh
		g := GRH(d[o:])
		t.Bytes(fGRH, o, GRHLen, d[o:o+GRHLen])
		t.Open()
		t.Uint(fGRHIPVer, o, 1, uint64(g.IPVer()))
		t.Uint(fGRHTClass, o, 2, uint64(g.TClass()))
		t.Uint(fGRHFlow, o+1, 3, uint64(g.FlowLabel()))
		t.Uint(fGRHPayLen, o+4, 2, uint64(g.PayLen()))
		t.Uint(fGRHNxtHdr, o+6, 1, uint64(g.NxtHdr()))
		t.Uint(fGRHHopLmt, o+7, 1, uint64(g.HopLmt()))
		t.Bytes(fGRHSGID, o+8, 16, g.SGID())
		t.Bytes(fGRHDGID, o+24, 16, g.DGID())
		t.Close()
	}
	h := p.BTH()
	if h != nil {
		o := p.bth
		// the whole BTH is a span only without the PSN's child
		if p.psnBroken || !t.SkipSpan(spanBTH) {
			t.Bytes(fBTH, o, BTHLen, d[o:o+BTHLen])
			t.Open()
			t.Uint(fOpcode, o, 1, uint64(h.Opcode()))
			if !t.SkipSpan(spanBTHMid) {
				t.String(fTransport, o, 1, Ops[h.Opcode()].Transport.String())
				t.Uint(fSE, o+1, 1, uint64(d[o+1]))
				t.Uint(fMigReq, o+1, 1, uint64(d[o+1]))
				t.Uint(fPadCnt, o+1, 1, uint64(d[o+1]))
				t.Uint(fTVer, o+1, 1, uint64(d[o+1]))
				t.Uint(fPKey, o+2, 2, uint64(h.PKey()))
				t.Uint(fFECN, o+4, 1, uint64(d[o+4]))
				t.Uint(fBECN, o+4, 1, uint64(d[o+4]))
				t.Uint(fResv6, o+4, 1, uint64(d[o+4]))
			}
			t.Uint(fDestQP, o+5, 3, uint64(h.DestQP()))
			if !t.SkipSpan(spanBTHAck) {
				t.Uint(fAckReq, o+8, 1, uint64(d[o+8]))
				t.Uint(fResv7, o+8, 1, uint64(d[o+8]))
			}
			t.Uint(fPSN, o+9, 3, uint64(h.PSN()))
			if p.psnBroken {
				t.Open()
				t.Uint(fPSNExpected, -1-p.off, 0, uint64(p.psnExpected))
				t.Close()
			}
			t.Close()
		}
		p.extTree(t)
		if p.payLen > 0 {
			t.Bytes(fPayload, p.payOff, p.payLen, d[p.payOff:p.payOff+p.payLen])
			if p.ipoib { // the IPoIB header's two fields, under the payload as in tshark
				t.Open()
				o := p.payOff
				t.Uint(fIPoIBType, o, 2, uint64(binary.BigEndian.Uint16(d[o:])))
				t.Bytes(fIPoIBRsv, o+2, 2, d[o+2:o+4])
				t.Close()
			}
		}
		if p.padLen > 0 {
			t.Bytes(fPad, p.payOff+p.payLen, p.padLen, d[p.payOff+p.payLen:p.payOff+p.payLen+p.padLen])
		}
		if !p.short {
			t.Uint(fPayLen, -1-p.off, 0, uint64(p.payLen))
		}
	}
	if p.icrcOff >= 0 && !t.SkipSpan(icrcSpan(p.icrcStatus != dissect.StatusUnverified)) {
		t.Uint(fICRC, p.icrcOff, ICRCLen, uint64(p.icrcWire))
		t.Open()
		if p.icrcStatus != dissect.StatusUnverified {
			t.Uint(fICRCCalc, -1-p.off, 0, uint64(p.icrcCalc))
		}
		t.Uint(fICRCStatus, -1-p.off, 0, uint64(p.icrcStatus))
		t.Close()
	}
	if p.vcrcOff >= 0 {
		t.Uint(fVCRC, p.vcrcOff, VCRCLen, uint64(p.vcrcWire))
		t.Open()
		t.Uint(fVCRCCalc, -1-p.off, 0, uint64(p.vcrcCalc))
		t.Uint(fVCRCStatus, -1-p.off, 0, uint64(p.vcrcStatus))
		if p.vcrcSwapped {
			t.Uint(fVCRCSwapped, -1-p.off, 0, 1)
		}
		t.Close()
	}
	t.SetBase(0, false)
	f.TreeFindings(t, p.idx)
}

func (p *Packet) extTree(t *dissect.Tree) {
	d := p.data
	// the headers present, in wire order: Ext bit i is extOrder[i]
	// (extLens checks it), so a frame walks its one or two, not all 11
	for m := uint16(p.exts); m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		e := Ext(1) << i
		o := int(p.ext[i])
		b := d[o : o+extLens[i]]
		if sp := extSpan(e, b); sp != nil && t.SkipSpan(sp) {
			continue
		}
		switch e {
		case ExtRDETH:
			t.Bytes(fRDETH, o, len(b), b)
			t.Open()
			t.Uint(fEECnxt, o+1, 3, uint64(RDETH(b).EEContext()))
			t.Close()
		case ExtDETH:
			t.Bytes(fDETH, o, len(b), b)
			t.Open()
			t.Uint(fQKey, o, 4, uint64(DETH(b).QKey()))
			t.Uint(fSrcQP, o+5, 3, uint64(DETH(b).SrcQP()))
			t.Close()
		case ExtXRCETH:
			t.Bytes(fXRCETH, o, len(b), b)
			t.Open()
			t.Uint(fXRCSRQ, o+1, 3, uint64(XRCETH(b).XRCSRQ()))
			t.Close()
		case ExtRETH:
			r := RETH(b)
			t.Bytes(fRETH, o, len(b), b)
			t.Open()
			t.Uint(fRETHVA, o, 8, r.VA())
			t.Uint(fRETHRKey, o+8, 4, uint64(r.RKey()))
			t.Uint(fRETHLen, o+12, 4, uint64(r.DMALen()))
			t.Close()
		case ExtAtomicETH:
			a := AtomicETH(b)
			t.Bytes(fAtomicETH, o, len(b), b)
			t.Open()
			t.Uint(fRETHVA, o, 8, a.VA())
			t.Uint(fRETHRKey, o+8, 4, uint64(a.RKey()))
			t.Uint(fAtSwap, o+12, 8, a.SwapAdd())
			t.Uint(fAtCmp, o+20, 8, a.Compare())
			t.Close()
		case ExtAETH:
			a := AETH(b)
			t.Bytes(fAETH, o, len(b), b)
			t.Open()
			t.Uint(fSyndrome, o, 1, uint64(a.Syndrome()))
			t.Open()
			t.Uint(fSynRsv, o, 1, uint64(a.Syndrome()))
			t.Uint(fSynKind, o, 1, uint64(a.Syndrome()))
			switch a.Kind() {
			case AckKindACK:
				t.Uint(fSynCredit, o, 1, uint64(a.Syndrome()))
			case AckKindRNRNAK:
				t.Uint(fSynTimer, o, 1, uint64(a.Syndrome()))
			case AckKindNAK:
				t.Uint(fSynNAK, o, 1, uint64(a.Syndrome()))
			}
			t.Close()
			t.Uint(fMSN, o+1, 3, uint64(a.MSN()))
			t.Close()
		case ExtAtomicAckETH:
			t.Bytes(fAtAck, o, len(b), b)
			t.Open()
			t.Uint(fAtOrig, o, 8, AtomicAckETH(b).OrigData())
			t.Close()
		case ExtImmDt:
			t.Bytes(fImmDt, o, 4, b[:4])
		case ExtIETH:
			t.Bytes(fIETH, o, 4, b[:4])
		case ExtFETH:
			t.Uint(fFETH, o, 4, uint64(FETH(b).Value()))
		case ExtCNP:
			t.Bytes(fCNPRsv, o, len(b), b)
		}
	}
}

// The spans of the InfiniBand tree (dissect.Tree.SkipSpan): a -Y or
// -T fields run that reads the opcode, the QP or the PSN walks those
// nodes, not the other 20-odd of the headers, the extension headers and
// the ICRC. Each span holds nodes the code adds unconditionally; where a
// node depends on a value (the AETH syndrome's kind, a computed ICRC) the
// span is picked by that value (extSpan, icrcSpan).
var (
	spanLRH = dissect.NewSpan(fLRH, fLRHVL, fLRHLVer, fLRHSL, fLRHRsv2, fLRHLNH, fLRHDLID, fLRHRsv5,
		fLRHPktLen, fLRHSLID)
	spanGRH = dissect.NewSpan(fGRH, fGRHIPVer, fGRHTClass, fGRHFlow, fGRHPayLen, fGRHNxtHdr, fGRHHopLmt,
		fGRHSGID, fGRHDGID)
	spanBTH = dissect.NewSpan(fBTH, fOpcode, fTransport, fSE, fMigReq, fPadCnt, fTVer, fPKey, fFECN,
		fBECN, fResv6, fDestQP, fAckReq, fResv7, fPSN)
	spanBTHMid = dissect.NewSpan(fTransport, fSE, fMigReq, fPadCnt, fTVer, fPKey, fFECN, fBECN, fResv6)
	spanBTHAck = dissect.NewSpan(fAckReq, fResv7)
	spanICRC   = dissect.NewSpan(fICRC, fICRCStatus)
	spanICRCC  = dissect.NewSpan(fICRC, fICRCCalc, fICRCStatus) // with the computed ICRC

	spanRDETH     = dissect.NewSpan(fRDETH, fEECnxt)
	spanDETH      = dissect.NewSpan(fDETH, fQKey, fSrcQP)
	spanXRCETH    = dissect.NewSpan(fXRCETH, fXRCSRQ)
	spanRETH      = dissect.NewSpan(fRETH, fRETHVA, fRETHRKey, fRETHLen)
	spanAtomicETH = dissect.NewSpan(fAtomicETH, fRETHVA, fRETHRKey, fAtSwap, fAtCmp)
	// an AETH whose syndrome is an ACK, an RNR NAK or a NAK has a node
	// for it (credits, timer or NAK code); a reserved kind has none
	spanAETHKind = dissect.NewSpan(fAETH, fSyndrome, fSynRsv, fSynKind, fSynCredit, fMSN).
			Alt(4, fSynTimer).Alt(4, fSynNAK)
	spanAETH         = dissect.NewSpan(fAETH, fSyndrome, fSynRsv, fSynKind, fMSN)
	spanAtomicAckETH = dissect.NewSpan(fAtAck, fAtOrig)
	spanImmDt        = dissect.NewSpan(fImmDt)
	spanIETH         = dissect.NewSpan(fIETH)
	spanFETH         = dissect.NewSpan(fFETH)
	spanCNP          = dissect.NewSpan(fCNPRsv)
)

// icrcSpan is the span of the ICRC's nodes, computed tells whether the
// computed ICRC is one of them.
func icrcSpan(computed bool) *dissect.Span {
	if computed {
		return spanICRCC
	}
	return spanICRC
}

// extSpan is the span of the nodes extTree adds for extension header e
// with bytes b.
func extSpan(e Ext, b []byte) *dissect.Span {
	switch e {
	case ExtRDETH:
		return spanRDETH
	case ExtDETH:
		return spanDETH
	case ExtXRCETH:
		return spanXRCETH
	case ExtRETH:
		return spanRETH
	case ExtAtomicETH:
		return spanAtomicETH
	case ExtAETH:
		if AETH(b).Kind() == AckKindReserved {
			return spanAETH
		}
		return spanAETHKind
	case ExtAtomicAckETH:
		return spanAtomicAckETH
	case ExtImmDt:
		return spanImmDt
	case ExtIETH:
		return spanIETH
	case ExtFETH:
		return spanFETH
	case ExtCNP:
		return spanCNP
	}
	return nil
}

// erfTree adds the ERF record header e (at offset 0) as its own protocol,
// as tshark's erf.
func erfTree(t *dissect.Tree, e []byte) {
	t.Proto(PERF, 0, len(e), "")
	if len(e) < 16 {
		return
	}
	t.Uint(fERFTS, 0, 8, binary.LittleEndian.Uint64(e))
	t.Uint(fERFTypes, 8, 1, uint64(e[8]))
	t.Open()
	t.Uint(fERFType, 8, 1, uint64(e[8]))
	t.Uint(fERFExt, 8, 1, uint64(e[8]))
	t.Close()
	t.Uint(fERFFlags, 9, 1, uint64(e[9]))
	t.Open()
	for _, f := range []*dissect.Field{fERFFlagCap, fERFFlagVlen, fERFFlagTrunc, fERFFlagRxe, fERFFlagDse, fERFFlagRes} {
		t.Uint(f, 9, 1, uint64(e[9]))
	}
	t.Close()
	t.Uint(fERFRlen, 10, 2, uint64(binary.BigEndian.Uint16(e[10:])))
	t.Uint(fERFLctr, 12, 2, uint64(binary.BigEndian.Uint16(e[12:])))
	t.Uint(fERFWlen, 14, 2, uint64(binary.BigEndian.Uint16(e[14:])))
}
