package ib

import (
	"encoding/binary"
	"hash/crc32"
)

// The ICRC of RoCEv2 over IPv4 without options, nearly every RoCE packet,
// without hashing its headers. The masked headers are 48 octets: 8 of 0xFF,
// the IPv4 header, UDP, BTH. Of these, only 12 octets change from packet to
// packet of one QP (IP total length and ID, UDP length, BTH opcode, flags,
// AckReq and PSN; positions below); the other 36 are the same or masked.
//
// CRC-32 is linear: the CRC value after headers H = T xor X, where T is the
// template (H with the changing octets zeroed) and X zero but for them, is
// crc(T) xor lin(X), and lin(X) is the xor, over the changing octets, of
// what one octet v at position i alone contributes (icrcPos). So a packet
// costs a comparison of its unchanging octets with a cached template and
// 12 table lookups, instead of a masked copy of 48 octets hashed in a
// crc32.Update call of its own (about 250 instructions); the rest of the
// packet, as it is, follows in one Update (none for 16 octets or less).
// icrcRoCEv2 stays the reference, and the path for every other shape.

// icrcHdrLen is the masked header run: 0xFF prefix, IPv4, UDP, BTH.
const icrcHdrLen = 8 + 20 + 8 + BTHLen

// icrcVary lists the positions, in the masked header run, of the octets
// that change per packet: IPv4 total length and identification, UDP
// length, BTH opcode, SE/M/PadCnt/TVer, AckReq and PSN.
var icrcVary = [...]int{10, 11, 12, 13, 32, 33, 36, 37, 44, 45, 46, 47}

// icrcPos[j][v] is the contribution of octet value v at position
// icrcVary[j] to the CRC value after the header run: the CRC register,
// started at zero, after v and the icrcHdrLen-1-icrcVary[j] zero octets
// that follow it (no complement: the linear part only).
var icrcPos = func() (t [len(icrcVary)][256]uint32) {
	for v := range 256 {
		r := uint32(0)
		j := len(icrcVary) - 1
		for pos := icrcHdrLen - 1; j >= 0; pos-- {
			if pos == icrcHdrLen-1 {
				r = crc32.IEEETable[v] // v itself, from a zero register
			} else {
				r = crc32.IEEETable[byte(r)] ^ r>>8 // one more zero octet after it
			}
			if pos == icrcVary[j] {
				t[j][v] = r
				j--
			}
		}
	}
	return
}()

// The unchanging octets, read as little-endian words of the IPv4 header
// (octets 0-7, 8-15, 16-19), the UDP ports and the BTH (octets 0-7): the
// masks keep the octets that must equal the template's, and drop the
// changing and the masked (all-ones) ones.
const (
	icrcKeepIP0  = 0xFFFF0000000000FF // version/IHL, flags/fragment offset
	icrcKeepIP1  = 0xFFFFFFFF0000FF00 // protocol, source address
	icrcKeepBTH0 = 0xFFFFFF00FFFF0000 // P_Key, destination QP
)

// icrcTemplate is one cached header shape: its unchanging octets and the
// CRC value of its template run.
type icrcTemplate struct {
	ip0, ip1, bth0 uint64
	ip2, udp       uint32
	crc            uint32
	ok             bool
}

// icrcCache holds the templates of the QPs last seen, direct-mapped by
// destination QP: a fixed size, and a miss only costs the template's CRC.
// h is where a template is laid out (crc32 lets its input escape: kept
// here, not on the stack).
type icrcCache struct {
	t [8]icrcTemplate
	h [icrcHdrLen]byte
}

// roce4 computes what icrcRoCEv2 does for RoCEv2 over IPv4 without options
// (ok false for any other shape: the caller falls back to icrcRoCEv2).
func (c *icrcCache) roce4(ip, udp, ib []byte) (crc uint32, ok bool) {
	if len(ip) != 20 || ip[0] != 0x45 || len(udp) < 8 || len(ib) < BTHLen {
		return 0, false
	}
	iph, uh, bh := (*[20]byte)(ip), (*[8]byte)(udp), (*[BTHLen]byte)(ib)
	ip0 := binary.LittleEndian.Uint64(iph[0:8]) & icrcKeepIP0
	ip1 := binary.LittleEndian.Uint64(iph[8:16]) & icrcKeepIP1
	ip2 := binary.LittleEndian.Uint32(iph[16:20])
	u := binary.LittleEndian.Uint32(uh[0:4]) // the ports
	b0 := binary.LittleEndian.Uint64(bh[0:8]) & icrcKeepBTH0
	t := &c.t[bh[7]&7]
	if !t.ok || t.ip0 != ip0 || t.ip1 != ip1 || t.ip2 != ip2 || t.udp != u || t.bth0 != b0 {
		*t = icrcTemplate{ip0: ip0, ip1: ip1, ip2: ip2, udp: u, bth0: b0, crc: c.templateCRC(iph, uh, bh), ok: true}
	}
	crc = t.crc ^
		icrcPos[0][iph[2]] ^ icrcPos[1][iph[3]] ^ icrcPos[2][iph[4]] ^ icrcPos[3][iph[5]] ^
		icrcPos[4][uh[4]] ^ icrcPos[5][uh[5]] ^
		icrcPos[6][bh[0]] ^ icrcPos[7][bh[1]] ^ icrcPos[8][bh[8]] ^ icrcPos[9][bh[9]] ^ icrcPos[10][bh[10]] ^ icrcPos[11][bh[11]]
	rest := ib[BTHLen:]
	if len(rest) > 16 {
		return crc32.Update(crc, crc32.IEEETable, rest), true
	}
	r := ^crc // a few octets (an AETH, a RETH): the table, octet by octet
	for _, x := range rest {
		r = crc32.IEEETable[byte(r)^x] ^ r>>8
	}
	return ^r, true
}

// templateCRC is the CRC value of the masked header run of ip, udp, bth
// with the changing octets (icrcVary) zero.
func (c *icrcCache) templateCRC(ip *[20]byte, udp *[8]byte, bth *[BTHLen]byte) uint32 {
	h := &c.h
	copy(h[:8], ones8[:])
	copy(h[8:28], ip[:])
	copy(h[28:36], udp[:])
	copy(h[36:], bth[:])
	h[9], h[16], h[18], h[19] = 0xFF, 0xFF, 0xFF, 0xFF // TOS, TTL, header checksum
	h[34], h[35] = 0xFF, 0xFF                          // UDP checksum
	h[40] = 0xFF                                       // BTH FECN, BECN, resv6
	for _, i := range icrcVary {
		h[i] = 0
	}
	return crc32.ChecksumIEEE(h[:])
}
