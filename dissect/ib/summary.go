package ib

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/rdx-project/rdx/dissect"
)

// appendHex appends 0x and width hex digits, as the IB summaries show values.
func appendHex(dst []byte, v uint64, width int) []byte {
	return dissect.AppendHexDigits(append(dst, "0x"...), v, width)
}

// appendHex8 appends 0x and a 32-bit value's eight hex digits (keys).
func appendHex8(dst []byte, v uint32) []byte {
	return dissect.AppendHex8(append(dst, "0x"...), v)
}

// appendDec appends v in decimal (a PSN, MSN or length on the summary
// line), with the one digit writer.
func appendDec(dst []byte, v uint32) []byte { return dissect.AppendUint(dst, uint64(v)) }

// summaryHead is each opcode's summary up to the QP's digits, "RC SEND
// Only QP 0x" (one append instead of five per packet).
var summaryHead = func() (t [256]string) {
	for i := range t {
		op := &Ops[i]
		switch {
		case i == OpCNP:
			t[i] = "CNP"
		case op.Known:
			t[i] = op.Transport.String() + " " + op.Name
		default:
			t[i] = op.Transport.String() + " opcode " + string(appendHex(nil, uint64(i), 2))
		}
		t[i] += " QP 0x"
	}
	return
}()

// headText is a summaryHead in a fixed-size array, for Summary to copy
// by one fixed-size move instead of memmove's call (the longest, "XRC RDMA
// WRITE Last with Immediate QP 0x", is 40 octets).
type headText struct {
	n    int
	text [headRoom]byte
}

// headRoom is headText's size: a head and the 8-octet store after it.
const headRoom = 48

var summaryHeads = func() (t [256]headText) {
	for i, s := range summaryHead {
		if len(s)+8 > headRoom {
			panic("ib: summary head " + s + " longer than headText holds")
		}
		t[i].n = copy(t[i].text[:], s)
	}
	return
}()

// appendHex6 appends a 24-bit QP number as six hex digits: the last six
// of dissect.Hex8's eight, written in place.
func appendHex6(dst []byte, v uint32) []byte {
	l := len(dst)
	dst = slices.Grow(dst, 6)[:l+6]
	b := dst[l : l+6]
	x := dissect.Hex8(v)
	binary.BigEndian.PutUint16(b, uint16(x>>32))
	binary.BigEndian.PutUint32(b[2:], uint32(x))
	return dst
}

// Summary implements dissect.PDU: "RC SEND Only QP 0x000011 PSN 123 [ICRC ok]".
func (p *Packet) Summary(dst []byte) []byte {
	h := p.BTH()
	if h == nil {
		switch {
		case p.lrh >= 0:
			l := LRH(p.data[p.lrh:])
			dst = append(dst, "IB LRH SLID "...)
			dst = appendDec(dst, uint32(l.SLID()))
			dst = append(dst, " DLID "...)
			dst = appendDec(dst, uint32(l.DLID()))
			dst = append(dst, " LNH "...)
			dst = appendDec(dst, uint32(l.LNH()))
		case p.erf != nil && p.lrh < 0 && len(p.data) == 0:
			dst = append(dst, "ERF record (not InfiniBand)"...)
		default:
			dst = append(dst, "InfiniBand (truncated)"...)
		}
		return dst
	}
	h = h[:BTHLen:BTHLen] // its length known here: no bounds check per field
	op := &Ops[h.Opcode()]
	// the head, then the QP's six digits and " P" in one 8-octet store
	l := len(dst)
	dst = slices.Grow(dst, headRoom)
	hd := &summaryHeads[h.Opcode()]
	b := (*[headRoom]byte)(dst[l : l+headRoom])
	*b = hd.text
	binary.BigEndian.PutUint64(b[hd.n:hd.n+8], dissect.Hex8(h.DestQP())<<16|' '<<8|'P')
	dst = append(dst[:l+hd.n+8], "SN "...)
	dst = appendDec(dst, h.PSN())
	if h.FECN() {
		dst = append(dst, " FECN"...)
	}
	if h.BECN() {
		dst = append(dst, " BECN"...)
	}
	if h.SE() {
		dst = append(dst, " SE"...)
	}
	if h.AckReq() {
		dst = append(dst, " AckReq"...)
	}
	if p.exts != 0 {
		dst = p.appendExts(dst)
	}
	if op.Payload && !p.short {
		dst = append(dst, " len "...)
		dst = appendDec(dst, uint32(p.payLen))
	}
	if p.psnBroken {
		dst = append(dst, " [PSN expected "...)
		dst = appendDec(dst, p.psnExpected)
		dst = append(dst, ']')
	}
	switch p.icrcStatus {
	case dissect.StatusGood:
		dst = append(dst, " [ICRC ok]"...)
	case dissect.StatusBad:
		dst = append(dst, " [ICRC BAD]"...)
	}
	switch p.vcrcStatus {
	case dissect.StatusGood:
		dst = append(dst, " [VCRC ok]"...)
	case dissect.StatusBad:
		dst = append(dst, " [VCRC BAD]"...)
	}
	return dst
}

// appendExts appends the extended headers' fields (most packets have
// none: Summary calls it only when some are present). The Ext bits run in
// wire order, the order the fields are shown: one pass over the bits set
// instead of a lookup per header kind.
func (p *Packet) appendExts(dst []byte) []byte {
	for m := p.exts; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(uint16(m))
		o := int(p.ext[i])
		b := p.data[o : o+extLens[i]]
		switch Ext(1) << i {
		case ExtDETH:
			dst = append(dst, " SrcQP "...)
			dst = appendHex6(append(dst, "0x"...), DETH(b).SrcQP())
			dst = append(dst, " Q_Key "...)
			dst = appendHex8(dst, DETH(b).QKey())
		case ExtRETH:
			r := RETH(b)
			dst = appendVAKey(dst, r.VA(), r.RKey())
			dst = append(dst, " DMA len "...)
			dst = appendDec(dst, r.DMALen())
		case ExtAtomicETH:
			a := AtomicETH(b)
			dst = appendVAKey(dst, a.VA(), a.RKey())
		case ExtAETH:
			dst = appendAETH(dst, AETH(b))
		case ExtImmDt:
			dst = append(dst, " Imm "...)
			dst = appendHex8(dst, ImmDt(b).Value())
		case ExtIETH:
			dst = append(dst, " Inv R_Key "...)
			dst = appendHex8(dst, IETH(b).RKey())
		}
	}
	return dst
}

// appendAETH appends an acknowledgement: " ACK credits 128 MSN 7".
func appendAETH(dst []byte, a AETH) []byte {
	switch a.Kind() {
	case AckKindACK:
		dst = append(dst, " ACK credits "...)
		if a.Value() == 0x1F {
			dst = append(dst, "invalid"...)
		} else {
			dst = appendDec(dst, creditCounts[a.Value()])
		}
	case AckKindRNRNAK:
		dst = append(dst, " RNR-NAK timer "...)
		dst = appendDec(dst, uint32(a.Value()))
	case AckKindNAK:
		dst = append(dst, " NAK "...)
		if n := NAKName(a.Value()); n != "" {
			dst = append(dst, n...)
		} else {
			dst = appendDec(dst, uint32(a.Value()))
		}
	default:
		dst = append(dst, " syndrome "...)
		dst = appendHex(dst, uint64(a.Syndrome()), 2)
	}
	dst = append(dst, " MSN "...)
	return appendDec(dst, a.MSN())
}

// appendVAKey is the remote address and key that RETH and AtomicETH share.
func appendVAKey(dst []byte, va uint64, rkey uint32) []byte {
	dst = append(dst, " VA "...)
	dst = dissect.AppendHex(append(dst, "0x"...), va)
	dst = append(dst, " R_Key "...)
	return appendHex8(dst, rkey)
}
