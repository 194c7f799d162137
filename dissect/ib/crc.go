package ib

import "hash/crc32"

// The ICRC is CRC-32 (IEEE, reflected, init and final complement, as
// crc32.ChecksumIEEE) over a masked copy of the packet, preceded by 8 octets
// of 0xFF standing in for a LRH on RoCE (native IB covers the real LRH with
// its VL masked). Variant fields are replaced by all-ones. The result is
// transmitted least significant octet first: the check is
// binary.LittleEndian.Uint32(icrc) == computed.

var ones8 = [8]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}

// scratch holds masked copies of headers. crc32.Update lets its input
// escape, so the dissector keeps one in its State instead of on the stack.
type scratch [64]byte

// crcBTHAndRest feeds the BTH (rest holds at least 12 octets) with octet 4
// forced to 0xFF, then the rest.
func crcBTHAndRest(b *scratch, crc uint32, rest []byte) uint32 {
	copy(b[:], rest[:BTHLen])
	b[4] = 0xFF
	crc = crc32.Update(crc, crc32.IEEETable, b[:BTHLen])
	return crc32.Update(crc, crc32.IEEETable, rest[BTHLen:])
}

func crcGRH(b *scratch, crc uint32, g []byte) uint32 {
	copy(b[:], g[:GRHLen])
	b[0] |= 0x0F // TClass high nibble
	b[1], b[2], b[3] = 0xFF, 0xFF, 0xFF
	b[7] = 0xFF // HopLmt
	return crc32.Update(crc, crc32.IEEETable, b[:GRHLen])
}

// ICRCRoCEv2 computes the ICRC of a RoCEv2 packet: ip is the IPv4 header
// (with options) or the IPv6 header, udp the 8-octet UDP header, ib the BTH
// through the pad (ICRC excluded). It returns false if a header is short.
func ICRCRoCEv2(ip, udp, ib []byte) (uint32, bool) { return icrcRoCEv2(new(scratch), ip, udp, ib) }

func icrcRoCEv2(b *scratch, ip, udp, ib []byte) (uint32, bool) {
	if len(ip) < 20 || len(udp) < 8 || len(ib) < BTHLen {
		return 0, false
	}
	crc := crc32.Update(0, crc32.IEEETable, ones8[:])
	switch ip[0] >> 4 {
	case 4:
		n := int(ip[0]&0x0F) * 4
		if n < 20 || n > len(ip) || n > 60 {
			return 0, false
		}
		copy(b[:], ip[:n])
		b[1] = 0xFF               // TOS (DSCP, ECN)
		b[8] = 0xFF               // TTL
		b[10], b[11] = 0xFF, 0xFF // header checksum
		crc = crc32.Update(crc, crc32.IEEETable, b[:n])
	case 6:
		if len(ip) < 40 {
			return 0, false
		}
		copy(b[:], ip[:40])
		b[0] |= 0x0F
		b[1], b[2], b[3] = 0xFF, 0xFF, 0xFF // traffic class, flow label
		b[7] = 0xFF                         // hop limit
		crc = crc32.Update(crc, crc32.IEEETable, b[:40])
		crc = crc32.Update(crc, crc32.IEEETable, ip[40:]) // extension headers, as they are
	default:
		return 0, false
	}
	copy(b[:8], udp[:8])
	b[6], b[7] = 0xFF, 0xFF // UDP checksum
	crc = crc32.Update(crc, crc32.IEEETable, b[:8])
	return crcBTHAndRest(b, crc, ib), true
}

// ICRCRoCEv1 computes the ICRC of a RoCEv1 packet: ib is the GRH through the
// pad (ICRC excluded).
func ICRCRoCEv1(ib []byte) (uint32, bool) { return icrcRoCEv1(new(scratch), ib) }

func icrcRoCEv1(b *scratch, ib []byte) (uint32, bool) {
	if len(ib) < GRHLen+BTHLen {
		return 0, false
	}
	crc := crc32.Update(0, crc32.IEEETable, ones8[:])
	crc = crcGRH(b, crc, ib)
	return crcBTHAndRest(b, crc, ib[GRHLen:]), true
}

// ICRCNative computes the ICRC of a native IB packet: ib is the LRH through
// the pad (ICRC and VCRC excluded). Without a GRH the LRH is covered with its
// VL masked; with a GRH (LNH 3) the LRH counts as 8 octets of 0xFF.
func ICRCNative(ib []byte) (uint32, bool) { return icrcNative(new(scratch), ib) }

func icrcNative(b *scratch, ib []byte) (uint32, bool) {
	if len(ib) < LRHLen+BTHLen {
		return 0, false
	}
	copy(b[:], ib[:LRHLen])
	b[0] |= 0xF0 // VL
	global := LRH(ib).LNH() == LNHGlobal
	if global {
		// Routed packets: the whole LRH (rewritten by each router) counts
		// as all-ones, exactly as the 8 octets RoCE puts in its place.
		// Verified on the multicast UD packets of infiniband_erf.pcap.
		copy(b[:], ones8[:])
	}
	crc := crc32.Update(0, crc32.IEEETable, b[:LRHLen])
	rest := ib[LRHLen:]
	if global {
		if len(rest) < GRHLen+BTHLen {
			return 0, false
		}
		crc = crcGRH(b, crc, rest)
		rest = rest[GRHLen:]
	}
	return crcBTHAndRest(b, crc, rest), true
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
