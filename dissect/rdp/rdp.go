package rdp

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

func init() {
	dissect.RegisterDissector(&dissect.Registration{
		Name:     "rdp",
		IPProtos: []uint8{IPProto},
		New: func(e *dissect.Engine) dissect.Dissector {
			d := New()
			d.conns.Register(e.Budget(), "rdp")
			return d
		},
	})
}

// Segment is one RDP segment, the PDU this package adds to frames.
type Segment struct {
	d    *State
	hdr  Header // the header, variable area included when it fits
	off  int    // offset of the header in the frame (< 0: not in the frame)
	n    int    // octets of the IP payload
	data []byte // the data octets present (at most DataLen)
	doff int
	idx  int

	ok         bool   // fixed header present and version known
	ckStatus   uint8  // dissect.StatusUnverified/Good/Bad (Wireshark numbering)
	ckComputed uint32 // for bad checksums

	// tracking results, for Summary
	retrans bool
	ooo     bool
}

// Proto implements dissect.PDU.
func (s *Segment) Proto() *dissect.ProtoInfo { return PRdp }

// Header returns the segment's header view.
func (s *Segment) Header() Header { return s.hdr }

// Data returns the segment's data octets.
func (s *Segment) Data() []byte { return s.data }

// ChecksumStatus is dissect.StatusUnverified, StatusGood or StatusBad.
func (s *Segment) ChecksumStatus() uint8 { return s.ckStatus }

// State is the per-engine RDP state: the PDU pool and the connection table.
type State struct {
	pool  dissect.Pool[Segment]
	conns dissect.Table[connKey, conn]
}

// New returns a fresh dissector (the engine calls it through the registration).
func New() *State {
	d := &State{}
	d.conns.Init(maxConns, connOverhead, dropped)
	return d
}

// Rewind implements dissect.Rewinder: the second pass rebuilds connection
// state from scratch, so both passes report the same findings.
func (d *State) Rewind() {
	d.conns.Init(maxConns, connOverhead, dropped)
	d.pool.Reset()
}

// newSegment hands out a pooled Segment, so AddPDU does not allocate; the
// pool starts over with every frame.
func (d *State) newSegment(f *dissect.Frame) *Segment {
	s, fresh := d.pool.Get(f)
	if fresh {
		d.conns.Release() // connections dropped in earlier frames
	}
	*s = Segment{d: d, ckStatus: dissect.StatusUnverified}
	return s
}

func (s *Segment) find(f *dissect.Frame, sev dissect.Severity, g dissect.Group, fd *dissect.Field, msg string) {
	f.AddFinding(s.idx, sev, g, fd, "rdp", msg)
}

// Dissect implements dissect.Dissector for one IP payload.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {
	if f.Net.Fragment {
		// As the engine does for UDP: without IP reassembly a fragment is not
		// a whole segment, and later fragments have no RDP header at all.
		f.AddFinding(-1, dissect.Note, dissect.GroupUndecoded, nil, "rdp", "IP fragment: RDP segment not dissected (no IP reassembly)")
		return
	}
	s := d.newSegment(f)
	s.off, s.n = off, len(data)
	if len(data) < HeaderLen {
		s.hdr = Header(data)
		s.idx = f.AddPDU(s)
		s.find(f, dissect.Error, dissect.GroupMalformed, nil,
			"truncated RDP header: "+strconv.Itoa(len(data))+" of 18 octets")
		return
	}
	h := Header(data)
	hl := h.HLenOctets()
	bad := false // lengths unusable: no checksum, no tracking
	switch {
	case h.HLen() < MinHLen:
		hl, bad = HeaderLen, true
	case hl > len(data):
		hl, bad = len(data), true
	}
	s.hdr = h[:hl]
	s.idx = f.AddPDU(s)
	if h.HLen() < MinHLen {
		s.find(f, dissect.Error, dissect.GroupMalformed, fHLen, "header length "+strconv.Itoa(h.HLen())+
			" below the minimum 9 (18 octets)")
	} else if bad && f.CapLen < f.WireLen {
		s.find(f, dissect.Note, dissect.GroupMalformed, fHLen, "header truncated by the capture")
	} else if bad {
		s.find(f, dissect.Error, dissect.GroupMalformed, fHLen, "header length "+strconv.Itoa(h.HLen())+" ("+
			strconv.Itoa(h.HLenOctets())+" octets) beyond the packet ("+strconv.Itoa(len(data))+" octets)")
	}
	dl := h.DataLen()
	rest := data[hl:]
	s.doff = off + hl
	if off < 0 {
		s.doff = -1
	}
	trunc := false // data cut by the snap length: no checksum, tracking still fine
	switch {
	case dl > len(rest):
		s.data = rest
		if f.CapLen < f.WireLen && !bad {
			trunc = true
			s.find(f, dissect.Note, dissect.GroupMalformed, fDLen, "data truncated by the capture: "+
				strconv.Itoa(len(rest))+" of "+strconv.Itoa(dl)+" octets")
		} else if !bad {
			bad = true
			s.find(f, dissect.Error, dissect.GroupMalformed, fDLen, "data length "+strconv.Itoa(dl)+
				" beyond the packet ("+strconv.Itoa(len(rest))+" octets after the header)")
		}
	case dl < len(rest):
		s.data = rest[:dl]
		// RFC 908 §4.1: the IP length must equal header + data (spec §7).
		s.find(f, dissect.Warn, dissect.GroupMalformed, fDLen, strconv.Itoa(len(rest)-dl)+
			" octets after the data length "+strconv.Itoa(dl))
	default:
		s.data = rest
	}
	v := h.Version()
	if v != 1 && v != 2 {
		s.find(f, dissect.Error, dissect.GroupMalformed, fVersion, "unknown RDP version "+strconv.Itoa(int(v)))
		return
	}
	s.ok = true
	s.checkFlags(f, h, bad)
	if !bad && !trunc {
		s.verify(f, h)
		f.Checked(checkCksum, s.idx, s.ckStatus != dissect.StatusBad)
	}
	d.track(f, s, bad)
}

// checkFlags reports the combinations RFC 908 §3.4/§4.1 forbids (spec §7).
func (s *Segment) checkFlags(f *dissect.Frame, h Header, bad bool) {
	fl := h.Flags()
	dl := h.DataLen()
	if fl&FlagUnused != 0 {
		s.find(f, dissect.Warn, dissect.GroupMalformed, fFlags, "unused flag bit 0x04 set")
	}
	if h.SrcPort() == 0 || h.DstPort() == 0 {
		s.find(f, dissect.Warn, dissect.GroupMalformed, fSport, "port 0 is invalid")
	}
	if fl&FlagSYN != 0 {
		switch {
		case !h.HasSynOptions() && !bad:
			s.find(f, dissect.Error, dissect.GroupProtocol, fHLen, "SYN without options (header length "+
				strconv.Itoa(h.HLen())+", needs 12)")
		case h.HasSynOptions() && h.MaxOutstanding() == 0:
			s.find(f, dissect.Warn, dissect.GroupProtocol, fMaxOut, "SYN allows 0 outstanding segments")
		}
		if h.HasSynOptions() && h.OptFlags()&^OptSDM != 0 {
			s.find(f, dissect.Note, dissect.GroupMalformed, fSDM, "reserved SYN option bits set")
		}
		if fl&(FlagRST|FlagNUL|FlagEAK) != 0 {
			s.find(f, dissect.Error, dissect.GroupProtocol, fFlags, "SYN combined with RST, NUL or EACK")
		}
		if dl != 0 {
			s.find(f, dissect.Error, dissect.GroupProtocol, fDLen, "SYN carries data")
		}
	}
	if fl&FlagRST != 0 && fl&FlagNUL != 0 {
		s.find(f, dissect.Error, dissect.GroupProtocol, fFlags, "RST combined with NUL")
	}
	if fl&(FlagRST|FlagNUL) != 0 && dl != 0 {
		s.find(f, dissect.Error, dissect.GroupProtocol, fDLen, "RST or NUL segment carries data")
	}
	if fl&FlagEAK != 0 {
		if fl&FlagACK == 0 {
			s.find(f, dissect.Error, dissect.GroupProtocol, fFlagEAK, "EACK without ACK")
		}
		if vl := h.HLenOctets() - HeaderLen; (vl <= 0 || vl%4 != 0) && !bad && fl&FlagSYN == 0 {
			s.find(f, dissect.Error, dissect.GroupMalformed, fHLen, "EACK list of "+strconv.Itoa(vl)+
				" octets is not a positive multiple of 4")
		}
	} else if fl&FlagSYN == 0 && h.HLen() > MinHLen && !bad {
		s.find(f, dissect.Note, dissect.GroupMalformed, fHLen, "variable header area on a segment that is neither SYN nor EACK")
	}
}

// checkCksum counts RDP checksum verifications for `rdx check`.
var checkCksum = dissect.RegisterCheck("rdp.checksum", "rdp", "RDP checksum (RFC 908 v1 / RFC 1151 v2 algorithm by the header's version)")

// verify checks the checksum. v2 first tries the RFC 793 pseudo-header form,
// then the bare segment (spec §3.2: the reading is unconfirmed).
func (s *Segment) verify(f *dissect.Frame, h Header) {
	wire := h.Checksum()
	var c uint32
	if h.Version() == 1 {
		c = checksumV1(s.hdr, s.data)
	} else {
		c = uint32(checksumV2(f.Net.Src, f.Net.Dst, s.hdr, s.data))
		if c != wire {
			if bare := uint32(checksumV2(noAddr, noAddr, s.hdr, s.data)); bare == wire {
				s.ckStatus = dissect.StatusGood
				s.find(f, dissect.Note, dissect.GroupChecksum, fCksum, "checksum matches only without the IP pseudo-header")
				return
			}
		}
	}
	if c == wire {
		s.ckStatus = dissect.StatusGood
		return
	}
	s.ckStatus, s.ckComputed = dissect.StatusBad, c
	w := 8
	if h.Version() != 1 {
		w = 4
	}
	msg := append([]byte("bad checksum: computed "), hex(c, w)...)
	msg = append(msg, ", wire "...)
	msg = append(msg, hex(wire, w)...)
	s.find(f, dissect.Error, dissect.GroupChecksum, fCksum, string(msg))
}

func hex(v uint32, w int) []byte {
	b := []byte("0x")
	x := strconv.FormatUint(uint64(v), 16)
	for i := len(x); i < w; i++ {
		b = append(b, '0')
	}
	return append(b, x...)
}

// Summary implements dissect.PDU:
// "SYN seq 100 max_out 16 max_seg 1024 sdm", "ACK seq 5 ack 4 len 512",
// "EACK ack 4 eack 6,7", "RST", "NUL".
func (s *Segment) Summary(dst []byte) []byte {
	h := s.hdr
	if !h.Valid() {
		return append(dst, "RDP truncated header"...)
	}
	if !s.ok {
		dst = append(dst, "RDP version "...)
		return strconv.AppendUint(dst, uint64(h.Version()), 10)
	}
	fl := h.Flags()
	start := len(dst)
	name := func(n string) {
		if len(dst) > start {
			dst = append(dst, ' ')
		}
		dst = append(dst, n...)
	}
	if fl&FlagSYN != 0 {
		name("SYN")
	}
	if fl&FlagRST != 0 {
		name("RST")
	}
	if fl&FlagNUL != 0 {
		name("NUL")
	}
	if fl&FlagEAK != 0 {
		name("EACK")
	} else if fl&FlagACK != 0 {
		name("ACK")
	}
	if len(dst) == start {
		name("DATA")
	}
	dl := h.DataLen()
	// The sequence number matters on SYN, data and plain ACKs; RST, NUL and
	// EACK lines stay short.
	if fl&FlagSYN != 0 || dl > 0 || fl&(FlagRST|FlagNUL|FlagEAK) == 0 {
		dst = append(dst, " seq "...)
		dst = strconv.AppendUint(dst, uint64(h.Seq()), 10)
	}
	if fl&FlagACK != 0 {
		dst = append(dst, " ack "...)
		dst = strconv.AppendUint(dst, uint64(h.Ack()), 10)
	}
	if fl&FlagEAK != 0 && fl&FlagSYN == 0 {
		if n := h.EackCount(); n > 0 {
			dst = append(dst, " eack "...)
			for i := 0; i < n; i++ {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = strconv.AppendUint(dst, uint64(h.Eack(i)), 10)
			}
		}
	}
	if fl&FlagSYN != 0 && h.HasSynOptions() {
		dst = append(dst, " max_out "...)
		dst = strconv.AppendUint(dst, uint64(h.MaxOutstanding()), 10)
		dst = append(dst, " max_seg "...)
		dst = strconv.AppendUint(dst, uint64(h.MaxSegment()), 10)
		if h.SDM() {
			dst = append(dst, " sdm"...)
		}
	}
	if dl > 0 {
		dst = append(dst, " len "...)
		dst = strconv.AppendUint(dst, uint64(dl), 10)
	}
	if s.ckStatus == dissect.StatusBad {
		dst = append(dst, " [bad checksum]"...)
	}
	if s.retrans {
		dst = append(dst, " [retransmission]"...)
	} else if s.ooo {
		dst = append(dst, " [out of sequence]"...)
	}
	return dst
}
