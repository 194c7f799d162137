package ib

import "hash/crc32"

// The ICRC is CRC-32 (IEEE, reflected, init and final complement, as
// crc32.ChecksumIEEE) over a masked copy of the packet, preceded by 8 octets
// of 0xFF standing in for a LRH on RoCE (native IB covers the real LRH with
// its VL masked). Variant fields are replaced by all-ones. The result is
// transmitted least significant octet first: the check is
// binary.LittleEndian.Uint32(icrc) == computed.

var ones8 = [8]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}

// scratch holds the masked copy of the headers, laid out from offset lead
// on: the 0xFF prefix (or LRH), IP or GRH, UDP and BTH one after the other,
// then, moved in, as much of the packet's start as makes the rest a
// multiple of 16 octets. crc32.Update lets its input escape, so the
// dissector keeps one scratch in its State instead of on the stack.
//
// Why: on amd64 hash/crc32 uses carry-less multiplication only for runs of
// 64 octets or more, in 16-octet steps, and goes octet by octet (slicing)
// for anything shorter and for the tail. The masked headers are 40-60
// octets, so hashed as they are they took the slow path, and cost more than
// a 1 KiB payload. Leading zero octets change a CRC's register in a fixed,
// invertible way, so hashing z zero octets from the state zeroLead[z]
// arrives exactly at the initial state 0: the run is padded at its front
// with the zeros of the scratch's first lead octets (never written) to a
// multiple of 16 and at least 64 octets, and nothing is hashed octet by
// octet (BenchmarkICRC: a 4-octet ACK 45 -> 27 ns, a 148-octet SEND 54 ->
// 45 ns, a 1 KiB READ Response 90 -> 69 ns).
//
// A rest of at most moveMax octets is moved in whole, so that the packet
// takes one crc32.Update, not two: each call costs about 110 instructions
// before its first octet (the IEEE table's sync.Once, the dispatch, the
// carry-less setup and reduction), more than moving a short rest does.
type scratch [lead + 8 + 60 + 8 + BTHLen + moveMax]byte // lead zeros, headers (at most RoCEv2 over IPv4 with options), moved payload

const (
	lead = 64
	// moveMax is the longest rest moved into the scratch whole; a longer
	// one is hashed in place (a 1 KiB copy costs about what the call saves).
	moveMax = 512
)

// zeroLead[z] is the CRC value from which z zero octets lead to 0, the
// value crc32.ChecksumIEEE starts from: Update(zeroLead[z], zeros(z)) == 0.
var zeroLead = func() (t [lead]uint32) {
	// Step the register back one zero octet at a time. Forward (reflected):
	// r' = T[r&0xFF] ^ r>>8, so r' and T[r&0xFF] share their top octet,
	// which is unique per table entry for CRC-32.
	var byTop [256]uint8
	for i, v := range crc32.IEEETable {
		byTop[v>>24] = uint8(i)
	}
	r := ^uint32(0) // the register at the start of a checksum
	for z := range lead {
		t[z] = ^r
		i := byTop[r>>24]
		r = (r^crc32.IEEETable[i])<<8 | uint32(i)
	}
	return
}()

// maskBTH copies the BTH with octet 4 (FECN, BECN, resv6) forced to 0xFF.
func maskBTH(m, bth []byte) int {
	c := (*[BTHLen]byte)(m) // fixed-size copies are moves, not memmove calls
	*c = [BTHLen]byte(bth)
	c[4] = 0xFF
	return BTHLen
}

// move40 copies 40 octets (a GRH, an IPv6 header) as three moves: the
// compiler makes a copy, or an array assignment over 16 octets, a memmove
// call.
func move40(m, b []byte) {
	*(*[16]byte)(m) = *(*[16]byte)(b)
	*(*[16]byte)(m[16:]) = *(*[16]byte)(b[16:])
	*(*[8]byte)(m[32:]) = *(*[8]byte)(b[32:])
}

// maskGRH copies the GRH with traffic class, flow label and hop limit
// forced to all-ones.
func maskGRH(m, g []byte) int {
	move40(m, g)
	m[0] |= 0x0F // TClass high nibble
	m[1], m[2], m[3] = 0xFF, 0xFF, 0xFF
	m[7] = 0xFF // HopLmt
	return GRHLen
}

// finish hashes, from crc, the masked headers b[lead:lead+n], then the rest
// of the packet as it is (see scratch).
func finish(b *scratch, crc uint32, n int, rest []byte) uint32 {
	if crc != 0 { // IPv6 extension headers were hashed already: no zero lead-in from here
		crc = crc32.Update(crc, crc32.IEEETable, b[lead:lead+n])
		return crc32.Update(crc, crc32.IEEETable, rest)
	}
	k := len(rest) % 16
	if len(rest) <= moveMax {
		k = len(rest) // all of it: one run, one call
	}
	n += copy(b[lead+n:], rest[:k])
	rest = rest[k:]
	z := -n & 15
	for n+z < 64 {
		z += 16
	}
	crc = crc32.Update(zeroLead[z], crc32.IEEETable, b[lead-z:lead+n])
	if len(rest) == 0 {
		return crc
	}
	return crc32.Update(crc, crc32.IEEETable, rest)
}

// ICRCRoCEv2 computes the ICRC of a RoCEv2 packet: ip is the IPv4 header
// (with options) or the IPv6 header, udp the 8-octet UDP header, ib the BTH
// through the pad (ICRC excluded). It returns false if a header is short.
func ICRCRoCEv2(ip, udp, ib []byte) (uint32, bool) { return icrcRoCEv2(new(scratch), ip, udp, ib) }

func icrcRoCEv2(b *scratch, ip, udp, ib []byte) (uint32, bool) {
	if len(ip) < 20 || len(udp) < 8 || len(ib) < BTHLen {
		return 0, false
	}
	h := b[lead:]
	*(*[8]byte)(h) = ones8
	n, crc := 8, uint32(0)
	switch ip[0] >> 4 {
	case 4:
		hl := int(ip[0]&0x0F) * 4
		if hl < 20 || hl > len(ip) || hl > 60 {
			return 0, false
		}
		m := h[n : n+hl]
		if hl == 20 { // no options, nearly always: two moves (see move40)
			*(*[16]byte)(m) = *(*[16]byte)(ip)
			*(*[4]byte)(m[16:]) = *(*[4]byte)(ip[16:])
		} else {
			copy(m, ip[:hl])
		}
		m[1] = 0xFF               // TOS (DSCP, ECN)
		m[8] = 0xFF               // TTL
		m[10], m[11] = 0xFF, 0xFF // header checksum
		n += hl
	case 6:
		if len(ip) < 40 {
			return 0, false
		}
		m := h[n : n+40]
		move40(m, ip)
		m[0] |= 0x0F
		m[1], m[2], m[3] = 0xFF, 0xFF, 0xFF // traffic class, flow label
		m[7] = 0xFF                         // hop limit
		n += 40
		if len(ip) > 40 { // extension headers, as they are
			crc = crc32.Update(crc, crc32.IEEETable, h[:n])
			crc = crc32.Update(crc, crc32.IEEETable, ip[40:])
			n = 0
		}
	default:
		return 0, false
	}
	m := (*[8]byte)(h[n:])
	*m = [8]byte(udp)
	m[6], m[7] = 0xFF, 0xFF // UDP checksum
	n += 8
	n += maskBTH(h[n:], ib)
	return finish(b, crc, n, ib[BTHLen:]), true
}

// ICRCRoCEv1 computes the ICRC of a RoCEv1 packet: ib is the GRH through the
// pad (ICRC excluded).
func ICRCRoCEv1(ib []byte) (uint32, bool) { return icrcRoCEv1(new(scratch), ib) }

func icrcRoCEv1(b *scratch, ib []byte) (uint32, bool) {
	if len(ib) < GRHLen+BTHLen {
		return 0, false
	}
	h := b[lead:]
	copy(h, ones8[:])
	n := 8 + maskGRH(h[8:], ib)
	n += maskBTH(h[n:], ib[GRHLen:])
	return finish(b, 0, n, ib[GRHLen+BTHLen:]), true
}

// ICRCNative computes the ICRC of a native IB packet: ib is the LRH through
// the pad (ICRC and VCRC excluded). Without a GRH the LRH is covered with its
// VL masked; with a GRH (LNH 3) the LRH counts as 8 octets of 0xFF.
func ICRCNative(ib []byte) (uint32, bool) { return icrcNative(new(scratch), ib) }

func icrcNative(b *scratch, ib []byte) (uint32, bool) {
	if len(ib) < LRHLen+BTHLen {
		return 0, false
	}
	h := b[lead:]
	copy(h, ib[:LRHLen])
	h[0] |= 0xF0 // VL
	global := LRH(ib).LNH() == LNHGlobal
	if global {
		// Routed packets: the whole LRH (rewritten by each router) counts
		// as all-ones, exactly as the 8 octets RoCE puts in its place.
		// Verified on the multicast UD packets of infiniband_erf.pcap.
		copy(h, ones8[:])
	}
	n := LRHLen
	rest := ib[LRHLen:]
	if global {
		if len(rest) < GRHLen+BTHLen {
			return 0, false
		}
		n += maskGRH(h[n:], rest)
		rest = rest[GRHLen:]
	}
	n += maskBTH(h[n:], rest)
	return finish(b, 0, n, rest[BTHLen:]), true
}

// crc16Table is CRC-16 with polynomial 0x100B, reflected (0xD008).
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i)
		for k := 0; k < 8; k++ {
			if c&1 != 0 {
				c = c>>1 ^ 0xD008
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return
}()

// VCRC computes the variant CRC of a native IB packet: CRC-16 (polynomial
// 0x100B reflected, init 0xFFFF, final complement) over the LRH through the
// ICRC, unmasked.
func VCRC(b []byte) uint16 {
	c := uint16(0xFFFF)
	for _, x := range b {
		c = c>>8 ^ crc16Table[byte(c)^x]
	}
	return ^c
}
