// Package rds dissects RDS (Reliable Datagram Sockets, wire protocol 3.1) over
// TCP port 16385: it frames each direction of a TCP connection into messages
// (48-octet header + h_len payload), decodes flags, extension headers,
// congestion-map updates, pings/pongs and the multipath probe, and tracks
// sequence numbers per TCP path (MPRDS: one sequence space per connection).
package rds

import "encoding/binary"

// The RDS header, all integers big-endian (Linux net/rds/rds.h struct
// rds_header). The 3.1 wire-spec seed says "Total size: 40 (0x28) bytes",
// but its own field list and every Linux version add up to 48, and the real
// Linux 6.1 capture (pcaps/kernel/rds_tcp.pcap) frames at 48: real traffic
// wins.
//
//	seq(8) ack(8) len(4) sport(2) dport(2) flags(1) credit(1) pad(4) csum(2) exthdr(16)
const (
	offSeq    = 0
	offAck    = 8
	offLen    = 16
	offSport  = 20
	offDport  = 22
	offFlags  = 24
	offCredit = 25
	offPad    = 26
	offCsum   = 30
	offExt    = 32
	ExtLen    = 16
	HeaderLen = 48
)

// Flag bits (h_flags). 0x01-0x04 are mainline Linux; 0x08-0x20 only exist in a
// newer Linux-derived tree (spec notes §2), so they are named but noted.
const (
	FlagCongBitmap  = 0x01
	FlagAckRequired = 0x02
	FlagRetrans     = 0x04
	FlagHBPing      = 0x08
	FlagHBPong      = 0x10
	FlagExtExt      = 0x20
	flagsMainline   = FlagCongBitmap | FlagAckRequired | FlagRetrans
	flagsKnown      = flagsMainline | FlagHBPing | FlagHBPong | FlagExtExt
)

// Extension header types (h_exthdr).
const (
	ExtNone      = 0
	ExtVersion   = 1
	ExtRDMA      = 2
	ExtRDMADest  = 3
	ExtRDMABytes = 4
	ExtNPaths    = 5
	ExtGenNum    = 6
	ExtCapBits   = 7
	ExtSportIdx  = 8
	ExtCsum      = 9
)

// extSize is the payload size implied by each extension type; -1 means the
// type exists somewhere but its size is not established (parsing stops).
var extSize = [...]int{ExtNone: 0, ExtVersion: 4, ExtRDMA: 4, ExtRDMADest: 8, ExtRDMABytes: 8, ExtNPaths: 2,
	ExtGenNum: 4, ExtCapBits: 4, ExtSportIdx: -1, ExtCsum: -1}

// CongMapLen is the payload of a congestion-map update: 1024 little-endian
// 64-bit words, one bit per RDS port.
const CongMapLen = 8192

// MaxMsgLen is Linux RDS_MAX_MSG_SIZE (1 MiB): a longer h_len on TCP means the
// framing is lost (or the sender is not Linux).
const MaxMsgLen = 1 << 20

// Probe port: the MPRDS probe ping is sent from RDS port 1.
const ProbePort = 1

// Header is a view of an RDS header. Check Valid before using the accessors.
type Header []byte

// Valid reports whether the header is complete.
func (h Header) Valid() bool { return len(h) >= HeaderLen }

func (h Header) Seq() uint64   { return binary.BigEndian.Uint64(h[offSeq:]) }
func (h Header) Ack() uint64   { return binary.BigEndian.Uint64(h[offAck:]) }
func (h Header) Len() uint32   { return binary.BigEndian.Uint32(h[offLen:]) }
func (h Header) Sport() uint16 { return binary.BigEndian.Uint16(h[offSport:]) }
func (h Header) Dport() uint16 { return binary.BigEndian.Uint16(h[offDport:]) }
func (h Header) Flags() uint8  { return h[offFlags] }
func (h Header) Credit() uint8 { return h[offCredit] }
func (h Header) Pad() uint32   { return binary.BigEndian.Uint32(h[offPad:]) }
func (h Header) Csum() uint16  { return binary.BigEndian.Uint16(h[offCsum:]) }
func (h Header) Ext() []byte   { return h[offExt:HeaderLen] }
func (h Header) IsCong() bool  { return h[offFlags] == FlagCongBitmap } // Linux compares with ==
func (h Header) IsAckOnly() bool {
	return h.Sport() == 0 && h.Dport() == 0 && !h.IsCong() && h.Len() == 0
}

// ChecksumOK reports whether the stored checksum verifies: the one's-
// complement sum of the 24 header words, checksum included, is 0xFFFF. A zero
// checksum means "not computed" (Linux rds_message_verify_checksum accepts
// it); callers decide how to show that.
func (h Header) ChecksumOK() bool { return onesSum(h[:HeaderLen]) == 0xffff }

// Checksum computes the Internet checksum of the 48 header octets with h_csum
// taken as zero.
func Checksum(h []byte) uint16 {
	s := uint32(onesSum(h[:offCsum])) + uint32(onesSum(h[offCsum+2:HeaderLen]))
	s = (s & 0xffff) + s>>16
	return ^uint16(s)
}

func onesSum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for s > 0xffff {
		s = (s & 0xffff) + s>>16
	}
	return uint16(s)
}

// HeaderFields is the header's content, for building messages (tests, bench).
type HeaderFields struct {
	Seq, Ack     uint64
	Len          uint32
	Sport, Dport uint16
	Flags        uint8
	Credit       uint8
	Pad          uint32
	Csum         uint16
	Ext          [ExtLen]byte
	// SetCsum computes the checksum instead of using Csum.
	SetCsum bool
}

// Encode appends the 48-octet header to b.
func (f *HeaderFields) Encode(b []byte) []byte {
	start := len(b)
	b = binary.BigEndian.AppendUint64(b, f.Seq)
	b = binary.BigEndian.AppendUint64(b, f.Ack)
	b = binary.BigEndian.AppendUint32(b, f.Len)
	b = binary.BigEndian.AppendUint16(b, f.Sport)
	b = binary.BigEndian.AppendUint16(b, f.Dport)
	b = append(b, f.Flags, f.Credit)
	b = binary.BigEndian.AppendUint32(b, f.Pad)
	b = binary.BigEndian.AppendUint16(b, f.Csum)
	b = append(b, f.Ext[:]...)
	if f.SetCsum {
		binary.BigEndian.PutUint16(b[start+offCsum:], 0)
		binary.BigEndian.PutUint16(b[start+offCsum:], Checksum(b[start:]))
	}
	return b
}

// ExtStatus says how an extension-header walk ended.
type ExtStatus uint8

const (
	ExtOK      ExtStatus = iota // an extension was returned
	ExtEnd                      // type 0 or the 16 octets used up
	ExtUnknown                  // a type with no known size: the rest is not decodable
	ExtOverrun                  // the extension runs past the 16 octets
)

// ExtIter walks the extension headers without allocating.
type ExtIter struct {
	b []byte
	i int
}

// Exts starts a walk over h's extension area.
func (h Header) Exts() ExtIter { return ExtIter{b: h.Ext()} }

// Next returns the next extension: its type, its value and the offset of the
// type octet inside the extension area.
func (it *ExtIter) Next() (typ uint8, val []byte, off int, st ExtStatus) {
	if it.i >= len(it.b) {
		return 0, nil, it.i, ExtEnd
	}
	off = it.i
	typ = it.b[off]
	if typ == ExtNone {
		it.i = len(it.b)
		return 0, nil, off, ExtEnd
	}
	if int(typ) >= len(extSize) || extSize[typ] < 0 {
		it.i = len(it.b)
		return typ, it.b[off+1:], off, ExtUnknown
	}
	n := extSize[typ]
	if off+1+n > len(it.b) {
		it.i = len(it.b)
		return typ, it.b[off+1:], off, ExtOverrun
	}
	it.i = off + 1 + n
	return typ, it.b[off+1 : off+1+n], off, ExtOK
}

// Problem bits found by Check.
const (
	ProbPad        = 1 << iota // h_padding not zero
	ProbFlags                  // flag bits no Linux defines (0xC0)
	ProbFlagsNew               // flag bits only a Linux-derived tree defines
	ProbLen                    // h_len over MaxMsgLen
	ProbCongLen                // CONG_BITMAP with h_len != 8192
	ProbPortsZero              // ports 0/0 with payload, not a congestion map
	ProbExtUnknown             // extension type with no known size
	ProbExtOverrun             // extension runs past 16 octets
	ProbCsum                   // non-zero checksum that does not verify
)

// Check validates a complete header and returns the problems found.
func (h Header) Check() (p uint32) {
	p = h.shapeProblems()
	if h.Csum() != 0 && !h.ChecksumOK() {
		p |= ProbCsum
	}
	return p
}

// shapeProblems is Check without the checksum, which costs a pass over the
// header: the heuristics ask for the shape of every message first.
func (h Header) shapeProblems() (p uint32) {
	if h.Pad() != 0 {
		p |= ProbPad
	}
	fl := h.Flags()
	if fl&^flagsKnown != 0 {
		p |= ProbFlags
	}
	if fl&^flagsMainline&flagsKnown != 0 {
		p |= ProbFlagsNew
	}
	if h.Len() > MaxMsgLen {
		p |= ProbLen
	}
	if h.IsCong() && h.Len() != CongMapLen {
		p |= ProbCongLen
	}
	if h.Sport() == 0 && h.Dport() == 0 && !h.IsCong() && h.Len() != 0 {
		p |= ProbPortsZero
	}
	it := h.Exts()
	for {
		_, _, _, st := it.Next()
		if st == ExtUnknown {
			p |= ProbExtUnknown
		}
		if st == ExtOverrun {
			p |= ProbExtOverrun
		}
		if st != ExtOK {
			break
		}
	}
	return p
}

// Plausible is the resynchronisation test: could a message start here? It is
// strict because after a gap any 48 bytes of payload are a candidate: length
// sane, padding zero, only known flags, a known extension list, the checksum
// right where one is used, the congestion-map shape respected, small sequence
// numbers, and not all zero (a zeroed payload would otherwise look like an
// ACK-only header).
func (h Header) Plausible() bool {
	if !h.Valid() {
		return false
	}
	if h.Check()&(ProbPad|ProbFlags|ProbLen|ProbCongLen|ProbPortsZero|ProbExtUnknown|ProbExtOverrun|ProbCsum) != 0 {
		return false
	}
	if h.Seq() >= 1<<40 || h.Ack() >= 1<<40 {
		return false
	}
	if h.IsCong() && h.Seq() != 0 {
		return false
	}
	if h.IsAckOnly() {
		// An ACK-only header must acknowledge something; this also keeps
		// zeroed payload from passing as headers.
		return h.Ack() != 0 || h.Csum() != 0
	}
	return true
}
