// Package rdp dissects the Reliable Data Protocol, IP protocol 27: version 1
// (RFC 908) and version 2 (RFC 1151). It verifies both checksum algorithms
// and tracks connections (handshake, sequence, EACK, retransmission, window,
// close). It is not Microsoft's Remote Desktop Protocol, which Wireshark also
// calls "rdp".
package rdp

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
)

// The fixed header is 18 octets in both versions (spec §1, §2); Header Length
// counts 2-octet units, so 9 means "no variable area".
//
//	v1 (RFC 908):  flags+ver(1) hlen(1) sport(1) dport(1) dlen(2) seq(4) ack(4) cksum(4)
//	v2 (RFC 1151): flags+ver(1) hlen(1) sport(2) dport(2) dlen(2) seq(4) ack(4) cksum(2)
const (
	offFlags = 0
	offHLen  = 1
	offPorts = 2

	v1OffDLen  = 4
	v1OffSeq   = 6
	v1OffAck   = 10
	v1OffCksum = 14

	v2OffDLen  = 6
	v2OffSeq   = 8
	v2OffAck   = 12
	v2OffCksum = 16

	HeaderLen = 18 // fixed header octets, both versions
	MinHLen   = 9  // minimum Header Length (2-octet units)
	SynHLen   = 12 // Header Length of a SYN: fixed header + 3 option words (spec §2.1)

	// SYN variable area (spec §2.1), same in both versions.
	offMaxOut  = 18
	offMaxSeg  = 20
	offOptFlag = 22
	OptSDM     = 0x8000 // sequenced delivery mode
)

// Flag bits of octet 0 (RFC 908 §4.1: bit 0 is the leftmost, 0x80).
const (
	FlagSYN    = 0x80
	FlagACK    = 0x40
	FlagEAK    = 0x20
	FlagRST    = 0x10
	FlagNUL    = 0x08
	FlagUnused = 0x04 // must be zero
	VerMask    = 0x03
)

// IPProto is RDP's IANA protocol number (RFC 908 left it "???").
const IPProto = 27

// Header is a view of an RDP header, variable area included. Check Valid
// before the fixed-header accessors; the layout after the ports depends on the
// version bits (version 2 and the unassigned 3 use the RFC 1151 layout).
type Header []byte

// Valid reports whether the fixed header is complete.
func (h Header) Valid() bool { return len(h) >= HeaderLen }

func (h Header) v2() bool        { return h[offFlags]&VerMask >= 2 }
func (h Header) Flags() uint8    { return h[offFlags] &^ VerMask }
func (h Header) Version() uint8  { return h[offFlags] & VerMask }
func (h Header) HLen() int       { return int(h[offHLen]) }
func (h Header) HLenOctets() int { return 2 * int(h[offHLen]) }
func (h Header) Has(flag uint8) bool {
	return h[offFlags]&flag != 0
}

// SrcPort and DstPort are 8 bits in v1, 16 in v2 (RFC 1151 change 2).
func (h Header) SrcPort() uint16 {
	if h.v2() {
		return binary.BigEndian.Uint16(h[offPorts:])
	}
	return uint16(h[offPorts])
}

func (h Header) DstPort() uint16 {
	if h.v2() {
		return binary.BigEndian.Uint16(h[offPorts+2:])
	}
	return uint16(h[offPorts+1])
}

// PortLen is the size of each port field.
func (h Header) PortLen() int {
	if h.v2() {
		return 2
	}
	return 1
}

func (h Header) DataLen() int { return int(binary.BigEndian.Uint16(h[h.offDLen():])) }
func (h Header) Seq() uint32  { return binary.BigEndian.Uint32(h[h.offSeq():]) }
func (h Header) Ack() uint32  { return binary.BigEndian.Uint32(h[h.offAck():]) }

// Checksum is the wire checksum: 32 bits in v1, 16 in v2.
func (h Header) Checksum() uint32 {
	if h.v2() {
		return uint32(binary.BigEndian.Uint16(h[v2OffCksum:]))
	}
	return binary.BigEndian.Uint32(h[v1OffCksum:])
}

// Field offsets for the tree.
func (h Header) offDLen() int { return pick(h.v2(), v2OffDLen, v1OffDLen) }
func (h Header) offSeq() int  { return pick(h.v2(), v2OffSeq, v1OffSeq) }
func (h Header) offAck() int  { return pick(h.v2(), v2OffAck, v1OffAck) }

// CksumOff and CksumLen locate the checksum field.
func (h Header) CksumOff() int { return pick(h.v2(), v2OffCksum, v1OffCksum) }
func (h Header) CksumLen() int { return pick(h.v2(), 2, 4) }

func pick(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

// HasSynOptions reports whether the three SYN option words are present.
func (h Header) HasSynOptions() bool {
	return h.HLenOctets() >= HeaderLen+6 && len(h) >= HeaderLen+6
}

func (h Header) MaxOutstanding() uint16 { return binary.BigEndian.Uint16(h[offMaxOut:]) }
func (h Header) MaxSegment() uint16     { return binary.BigEndian.Uint16(h[offMaxSeg:]) }
func (h Header) OptFlags() uint16       { return binary.BigEndian.Uint16(h[offOptFlag:]) }
func (h Header) SDM() bool              { return h.OptFlags()&OptSDM != 0 }

// EackCount is how many 32-bit sequence numbers the header length announces
// in the EACK list (spec §2.2), capped at those present in h.
func (h Header) EackCount() int {
	end := h.HLenOctets()
	if end > len(h) {
		end = len(h)
	}
	if end <= HeaderLen {
		return 0
	}
	return (end - HeaderLen) / 4
}

// Eack returns EACK list entry i (< EackCount).
func (h Header) Eack(i int) uint32 { return binary.BigEndian.Uint32(h[HeaderLen+4*i:]) }

// HeaderFields is a segment's content, for building packets (tests, synth,
// the userspace stack).
type HeaderFields struct {
	Flags            uint8 // FlagSYN|FlagACK|...; the version bits are ignored
	Version          uint8 // 1 or 2
	SrcPort, DstPort uint16
	Seq, Ack         uint32
	Checksum         uint32 // written as is; see Seal
	// SYN options (written when FlagSYN is set).
	MaxOutstanding, MaxSegment uint16
	SDM                        bool
	Eacks                      []uint32 // written when FlagEAK is set
	// HLen, when non-zero, overrides the computed Header Length, and DataLen,
	// when SetDataLen, the data length: for building malformed segments.
	HLen       uint8
	DataLen    uint16
	SetDataLen bool
}

// Encode appends the header, variable area and data to b.
func (f *HeaderFields) Encode(b []byte, data []byte) []byte {
	hl := MinHLen
	if f.Flags&FlagSYN != 0 {
		hl = SynHLen
	} else if f.Flags&FlagEAK != 0 {
		hl += 2 * len(f.Eacks)
	}
	if f.HLen != 0 {
		hl = int(f.HLen)
	}
	dl := uint16(len(data))
	if f.SetDataLen {
		dl = f.DataLen
	}
	b = append(b, f.Flags&^VerMask|f.Version&VerMask, byte(hl))
	if f.Version >= 2 {
		b = binary.BigEndian.AppendUint16(b, f.SrcPort)
		b = binary.BigEndian.AppendUint16(b, f.DstPort)
		b = binary.BigEndian.AppendUint16(b, dl)
		b = binary.BigEndian.AppendUint32(b, f.Seq)
		b = binary.BigEndian.AppendUint32(b, f.Ack)
		b = binary.BigEndian.AppendUint16(b, uint16(f.Checksum))
	} else {
		b = append(b, byte(f.SrcPort), byte(f.DstPort))
		b = binary.BigEndian.AppendUint16(b, dl)
		b = binary.BigEndian.AppendUint32(b, f.Seq)
		b = binary.BigEndian.AppendUint32(b, f.Ack)
		b = binary.BigEndian.AppendUint32(b, f.Checksum)
	}
	if f.Flags&FlagSYN != 0 {
		var opt uint16
		if f.SDM {
			opt = OptSDM
		}
		b = binary.BigEndian.AppendUint16(b, f.MaxOutstanding)
		b = binary.BigEndian.AppendUint16(b, f.MaxSegment)
		b = binary.BigEndian.AppendUint16(b, opt)
	} else if f.Flags&FlagEAK != 0 {
		for _, s := range f.Eacks {
			b = binary.BigEndian.AppendUint32(b, s)
		}
	}
	return append(b, data...)
}

// Seal computes seg's checksum (header length taken from seg) and writes it.
// src and dst feed the v2 pseudo-header; pass zero Addrs to leave it out.
func Seal(seg []byte, src, dst netip.Addr) {
	h := Header(seg)
	if !h.Valid() {
		return
	}
	hl := h.HLenOctets()
	if hl < HeaderLen || hl > len(seg) {
		hl = HeaderLen
	}
	c := Checksum(h.Version(), src, dst, seg[:hl], seg[hl:])
	if h.v2() {
		binary.BigEndian.PutUint16(seg[v2OffCksum:], uint16(c))
	} else {
		binary.BigEndian.PutUint32(seg[v1OffCksum:], c)
	}
}

// Checksum computes the checksum of a segment split into hdr (the whole
// header, variable area included; its checksum field is treated as zero) and
// data, for the version given: v1 returns 32 bits, v2 16 bits. src and dst are
// the IP addresses of the v2 pseudo-header; if either is invalid the v2 sum is
// taken over the segment alone. hdr must be at least 18 octets.
func Checksum(version uint8, src, dst netip.Addr, hdr, data []byte) uint32 {
	if version >= 2 {
		return uint32(checksumV2(src, dst, hdr, data))
	}
	return checksumV1(hdr, data)
}

// checksumV1 is RFC 908 §4.2.1 (spec §3.1): over the segment with the checksum
// field zeroed and zero-padded to a multiple of 4, acc = rotl(acc + w, 1) for
// each 32-bit word, carries out of bit 31 discarded, no final complement.
// ASSUMPTION: words are big-endian; RFC 908 only says "32-bit memory word".
func checksumV1(hdr, data []byte) uint32 {
	var acc uint32
	n := len(hdr) + len(data)
	at := func(i int) uint32 {
		switch {
		case i < v1OffCksum:
			return uint32(hdr[i])
		case i < v1OffCksum+4:
			return 0
		case i < len(hdr):
			return uint32(hdr[i])
		case i < n:
			return uint32(data[i-len(hdr)])
		}
		return 0
	}
	i := 0
	// Words touching the header go byte by byte; then whole data words.
	for ; i < n && i < len(hdr); i += 4 {
		w := at(i)<<24 | at(i+1)<<16 | at(i+2)<<8 | at(i+3)
		acc = bits.RotateLeft32(acc+w, 1)
	}
	for ; i+4 <= n; i += 4 {
		d := data[i-len(hdr):]
		acc = bits.RotateLeft32(acc+binary.BigEndian.Uint32(d), 1)
	}
	if i < n {
		w := at(i)<<24 | at(i+1)<<16 | at(i+2)<<8 | at(i+3)
		acc = bits.RotateLeft32(acc+w, 1)
	}
	return acc
}

// checksumV2 is the RFC 793 p.16 TCP checksum that RFC 1151 points to (spec
// §3.2): one's complement of the one's complement sum of the pseudo-header
// (src, dst, zero, protocol 27, segment length), the header with the checksum
// field zeroed, and the data padded to even length. For IPv6 the RFC 8200
// §8.1 pseudo-header is used (an rdx choice: RFC 1151 predates IPv6).
func checksumV2(src, dst netip.Addr, hdr, data []byte) uint16 {
	var sum uint64
	if src.IsValid() && dst.IsValid() {
		seglen := uint64(len(hdr) + len(data))
		if src.Is4() && dst.Is4() {
			s, d := src.As4(), dst.As4()
			sum += uint64(binary.BigEndian.Uint32(s[:])) + uint64(binary.BigEndian.Uint32(d[:]))
			sum += IPProto + seglen
		} else {
			s, d := src.As16(), dst.As16()
			for i := 0; i < 16; i += 4 {
				sum += uint64(binary.BigEndian.Uint32(s[i:])) + uint64(binary.BigEndian.Uint32(d[i:]))
			}
			sum += seglen + IPProto
		}
	}
	// hdr has even length (2-octet units), so data starts on a word boundary.
	sum += sum16(hdr[:v2OffCksum])
	sum += sum16(hdr[v2OffCksum+2:])
	sum += sum16(data)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// sum16 adds b as big-endian 16-bit words (odd tail padded with zero); the
// uint64 accumulator defers the end-around carry to the caller.
func sum16(b []byte) uint64 {
	var s uint64
	for len(b) >= 8 {
		s += uint64(binary.BigEndian.Uint32(b)) + uint64(binary.BigEndian.Uint32(b[4:]))
		b = b[8:]
	}
	for len(b) >= 2 {
		s += uint64(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint64(b[0]) << 8
	}
	return s
}
