package rdp

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Tree implements dissect.PDU; it runs only when an output needs the tree.
func (s *Segment) Tree(t *dissect.Tree, f *dissect.Frame) {
	h := s.hdr
	if s.off < 0 { // reassembled from IP fragments: offsets relative to the datagram
		t.SetBase(0, true)
		defer t.SetBase(0, false)
	}
	// labels only for a tree that shows them (-V, JSON), not for -T fields
	protoLabel, flags, hlen, cksum := "", "", "", ""
	if t.Labels() {
		protoLabel = s.label()
	}
	t.Proto(PRdp, max(s.off, 0), s.n, protoLabel)
	if !h.Valid() {
		f.TreeFindings(t, s.idx)
		return
	}
	o := max(s.off, 0)
	fl := h[offFlags]
	if t.Labels() {
		flags = flagsLabel(fl)
		hlen = strconv.Itoa(h.HLen()) + " (" + strconv.Itoa(h.HLenOctets()) + " octets)"
		cksum = s.cksumLabel()
	}
	t.Flags(fFlags, o, 1, uint64(fl&^VerMask), flags, fFlagSYN, fFlagACK, fFlagEAK, fFlagRST, fFlagNUL)
	t.Uint(fVersion, o, 1, uint64(fl))
	t.UintLabel(fHLen, o+offHLen, 1, uint64(h.HLen()), hlen)
	pl := h.PortLen()
	t.Uint(fSport, o+offPorts, pl, uint64(h.SrcPort()))
	t.Uint(fDport, o+offPorts+pl, pl, uint64(h.DstPort()))
	t.Uint(fDLen, o+h.offDLen(), 2, uint64(h.DataLen()))
	t.Uint(fSeq, o+h.offSeq(), 4, uint64(h.Seq()))
	t.Uint(fAck, o+h.offAck(), 4, uint64(h.Ack()))
	t.UintLabel(fCksum, o+h.CksumOff(), h.CksumLen(), uint64(h.Checksum()), cksum)
	t.Open()
	t.Uint(fCkStat, -1, 0, uint64(s.ckStatus))
	t.Close()
	if s.ok {
		if h.Flags()&FlagSYN != 0 && h.HasSynOptions() {
			t.Uint(fMaxOut, o+offMaxOut, 2, uint64(h.MaxOutstanding()))
			t.Uint(fMaxSeg, o+offMaxSeg, 2, uint64(h.MaxSegment()))
			t.Uint(fSDM, o+offOptFlag, 2, uint64(h.OptFlags()))
		} else if h.Flags()&FlagEAK != 0 {
			for i, n := 0, h.EackCount(); i < n; i++ {
				t.Uint(fEackSeq, o+HeaderLen+4*i, 4, uint64(h.Eack(i)))
			}
		}
	}
	if len(s.data) > 0 {
		t.Bytes(fData, s.doff, len(s.data), s.data)
	}
	f.TreeFindings(t, s.idx)
}

// cksumLabel shows the checksum at its wire width (4 hex digits in v2) and,
// when bad, the value it should have had, as Wireshark does.
func (s *Segment) cksumLabel() string {
	w := 8
	if s.hdr.CksumLen() == 2 {
		w = 4
	}
	b := hex(s.hdr.Checksum(), w)
	if s.ckStatus == dissect.StatusBad {
		b = append(b, " [incorrect, should be "...)
		b = append(b, hex(s.ckComputed, w)...)
		b = append(b, ']')
	}
	return string(b)
}

func (s *Segment) label() string {
	h := s.hdr
	if !h.Valid() {
		return ""
	}
	return "Version: " + strconv.Itoa(int(h.Version())) + ", Src Port: " + strconv.Itoa(int(h.SrcPort())) +
		", Dst Port: " + strconv.Itoa(int(h.DstPort())) + ", Seq: " + strconv.FormatUint(uint64(h.Seq()), 10)
}

var flagBitNames = [...]struct {
	bit  uint8
	name string
}{{FlagSYN, "SYN"}, {FlagACK, "ACK"}, {FlagEAK, "EACK"}, {FlagRST, "RST"}, {FlagNUL, "NUL"}, {FlagUnused, "0x04"}}

func flagsLabel(fl uint8) string {
	b := make([]byte, 0, 32)
	b = append(b, "0x"...)
	b = append(b, "0123456789abcdef"[fl>>4&0xf], "0123456789abcdef"[fl&^VerMask&0xf])
	b = append(b, " ("...)
	n := len(b)
	for _, x := range flagBitNames {
		if fl&x.bit != 0 {
			if len(b) > n {
				b = append(b, ", "...)
			}
			b = append(b, x.name...)
		}
	}
	if len(b) == n {
		b = append(b, "none"...)
	}
	return string(append(b, ')'))
}
