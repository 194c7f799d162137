package mpa

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

const (
	kindStartup = iota + 1
	kindFPDU
)

// FPDU is one MPA PDU: a Request/Reply frame or an FPDU.
type FPDU struct {
	d        *State
	kind     uint8
	wire     []byte // the PDU's octets as sent (markers included)
	off      int    // offset of wire in the frame, -1 when reassembled
	idx      int
	seq      uint32
	key      tcp.FlowKey
	dir      tcp.Dir
	lead     int  // 4 when a marker leads the FPDU
	legacy   bool // markers by LayoutLegacy, FPDUPTR little-endian
	ulen     int
	marks    []int32 // marker offsets in wire
	ulpdu    []byte
	ulpduOff int
	pad      []byte

	crcOn, crcKnown bool
	crcWire         uint32 // the field read little-endian
	crcCalc         uint32
	crcStatus       uint8
	markerStatus    uint8

	framesArr [8]uint64
	frames    []uint64
}

// Proto implements dissect.PDU.
func (p *FPDU) Proto() *dissect.ProtoInfo { return PMPA }

// Accessors for tests and upper layers.
func (p *FPDU) Seq() uint32           { return p.seq }
func (p *FPDU) WireLen() int          { return len(p.wire) }
func (p *FPDU) ULPDULen() int         { return p.ulen }
func (p *FPDU) ULPDU() []byte         { return p.ulpdu }
func (p *FPDU) CRCStatus() uint8      { return p.crcStatus }
func (p *FPDU) MarkerStatus() uint8   { return p.markerStatus }
func (p *FPDU) Markers() int          { return len(p.marks) }
func (p *FPDU) IsStartup() bool       { return p.kind == kindStartup }
func (p *FPDU) Dir() tcp.Dir          { return p.dir }
func (p *FPDU) crcCalcWire() []byte   { return binary.LittleEndian.AppendUint32(nil, p.crcCalc) }
func (p *FPDU) Startup() StartupFrame { return StartupFrame(p.wire) }

// Summary implements dissect.PDU. An FPDU whose ULPDU was decoded says
// nothing: DDP/RDMAP speaks for it.
func (p *FPDU) Summary(dst []byte) []byte {
	if p.kind == kindStartup {
		s := StartupFrame(p.wire)
		if s.IsReq() {
			dst = append(dst, "MPA Request rev "...)
		} else {
			dst = append(dst, "MPA Reply rev "...)
		}
		dst = strconv.AppendUint(dst, uint64(s.Rev()), 10)
		fl := s.Flags()
		dst = append(dst, " M="...)
		dst = strconv.AppendUint(dst, uint64(fl>>7), 10)
		dst = append(dst, " C="...)
		dst = strconv.AppendUint(dst, uint64(fl>>6&1), 10)
		if fl&FlagR != 0 {
			dst = append(dst, " REJECT"...)
		}
		if fl&FlagEnhanced != 0 && len(s.Private()) >= 4 {
			pd := s.Private()
			dst = append(dst, " IRD="...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint16(pd)&IRDORDMask), 10)
			dst = append(dst, " ORD="...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint16(pd[2:])&IRDORDMask), 10)
		}
		dst = append(dst, " PD="...)
		return strconv.AppendInt(dst, int64(s.PDLen()), 10)
	}
	if p.d != nil && p.d.hasUpper && len(p.ulpdu) >= 14 {
		return dst
	}
	dst = append(dst, "FPDU len "...)
	return strconv.AppendInt(dst, int64(p.ulen), 10)
}

// Tree implements dissect.PDU.
func (p *FPDU) Tree(t *dissect.Tree, f *dissect.Frame) {
	t.SetBase(0, p.off < 0)
	o := max(p.off, 0)
	t.Proto(PMPA, o, len(p.wire), "")
	if p.kind == kindStartup {
		s := StartupFrame(p.wire)
		hf, kf := fRep, fKeyRep
		if s.IsReq() {
			hf, kf = fReq, fKeyReq
		}
		t.Uint(hf, o, len(p.wire), 0)
		t.Open()
		t.Bytes(kf, o, KeyLen, p.wire[:KeyLen])
		fl := uint64(s.Flags())
		t.Uint(fFlagM, o+16, 1, fl)
		t.Uint(fFlagC, o+16, 1, fl)
		t.Uint(fFlagR, o+16, 1, fl)
		t.Uint(fRes, o+16, 1, fl)
		t.Uint(fRev, o+17, 1, uint64(s.Rev()))
		t.Uint(fPDLen, o+18, 2, uint64(s.PDLen()))
		if pd := s.Private(); len(pd) > 0 {
			t.Bytes(fPrivate, o+StartupLen, len(pd), pd)
			if fl&FlagEnhanced != 0 && s.Rev() >= 2 && len(pd) >= 4 {
				t.Open()
				t.Uint(fEnh, o+16, 1, fl)
				ird, ord := uint64(binary.BigEndian.Uint16(pd)), uint64(binary.BigEndian.Uint16(pd[2:]))
				t.Uint(fP2P, o+20, 2, ird)
				t.Uint(fZeroRTR, o+20, 2, ird)
				t.Uint(fIRD, o+20, 2, ird)
				t.Uint(fWrRTR, o+22, 2, ord)
				t.Uint(fRdRTR, o+22, 2, ord)
				t.Uint(fORD, o+22, 2, ord)
				t.Close()
			}
		}
		t.Close()
		f.TreeFindings(t, p.idx)
		return
	}
	t.Uint(fFPDU, o, len(p.wire), 0)
	t.Open()
	t.Uint(fULPLen, o+p.lead, 2, uint64(p.ulen))
	if len(p.pad) > 0 {
		t.Bytes(fPad, -1, 0, p.pad)
	}
	crcOff := o + len(p.wire) - CRCLen
	// tshark shows the field as the 4 octets read big-endian; the CRC-32C
	// value itself is their little-endian reading (iwarp_mpa.crc.computed).
	be := binary.BigEndian.Uint32(p.wire[len(p.wire)-CRCLen:])
	if p.crcOn || p.crcStatus == StatusGood {
		label := ""
		switch crcStatus := p.crcStatus; {
		case !t.Labels():
		case crcStatus == StatusGood:
			label = "0x" + hex32(be) + " (Good CRC32)"
		case crcStatus == StatusBad:
			label = "0x" + hex32(be) + " (Bad CRC32, should be " + hexBytes(p.crcCalcWire()) + " on the wire)"
		}
		t.UintLabel(fCRCCheck, crcOff, CRCLen, uint64(be), label)
	} else {
		t.Uint(fCRC, crcOff, CRCLen, uint64(be))
	}
	t.Uint(fCRCCalc, -1, 0, uint64(p.crcCalc))
	t.Uint(fCRCStatus, -1, 0, uint64(p.crcStatus))
	for _, fr := range p.frames {
		t.Uint(fReassembled, -1, 0, fr)
	}
	t.Close()
	if len(p.marks) > 0 {
		t.Uint(fMarkers, o, len(p.wire), 0)
		t.Open()
		for _, m := range p.marks {
			t.Uint(fMarkerRes, o+int(m), 2, uint64(binary.BigEndian.Uint16(p.wire[m:])))
			t.Uint(fMarkerPtr, o+int(m)+2, 2, uint64(markerPtr(p.wire[m:], p.legacy)))
		}
		if p.legacy {
			t.Uint(fMarkerLegacy, -1, 0, 1)
		}
		t.Uint(fMarkerStat, -1, 0, uint64(p.markerStatus))
		t.Close()
	}
	f.TreeFindings(t, p.idx)
}
