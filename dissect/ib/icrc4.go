package ib

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
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
// packet, as it is, follows in one Update from 64 octets on and eight at
// a time below that (icrcSlice8).
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

// icrcSlots is the size of the template cache: a fixed table (10 KiB),
// direct-mapped by addresses and QP, so that the two directions of a few
// hundred connections (64 clients: 128 templates) mostly keep theirs; a
// miss costs one template's CRC, about what a packet cost without them.
const icrcSlots = 256

// icrcCache holds the templates of the QP directions last seen. ip, udp
// and bth are where a template is laid out for icrcRoCEv2 (which lets its
// input escape: kept here, not on the stack).
type icrcCache struct {
	t   [icrcSlots]icrcTemplate
	ip  [20]byte
	udp [8]byte
	bth [BTHLen]byte
}

// roce4 computes what icrcRoCEv2 does for RoCEv2 over IPv4 without options
// (ok false for any other shape: the caller falls back to icrcRoCEv2).
func (c *icrcCache) roce4(s *scratch, ip, udp, ib []byte) (crc uint32, ok bool) {
	if len(ip) != 20 || ip[0] != 0x45 || len(udp) < 8 || len(ib) < BTHLen {
		return 0, false
	}
	iph, uh, bh := (*[20]byte)(ip), (*[8]byte)(udp), (*[BTHLen]byte)(ib)
	ip0 := binary.LittleEndian.Uint64(iph[0:8]) & icrcKeepIP0
	ip1 := binary.LittleEndian.Uint64(iph[8:16]) & icrcKeepIP1
	ip2 := binary.LittleEndian.Uint32(iph[16:20])
	u := binary.LittleEndian.Uint32(uh[0:4]) // the ports
	b0 := binary.LittleEndian.Uint64(bh[0:8]) & icrcKeepBTH0
	t := &c.t[icrcSlot(ip1, ip2, bh)]
	if !t.ok || t.ip0 != ip0 || t.ip1 != ip1 || t.ip2 != ip2 || t.udp != u || t.bth0 != b0 {
		*t = icrcTemplate{ip0: ip0, ip1: ip1, ip2: ip2, udp: u, bth0: b0, crc: c.templateCRC(s, iph, uh, bh), ok: true}
	}
	crc = t.crc ^
		icrcPos[0][iph[2]] ^ icrcPos[1][iph[3]] ^ icrcPos[2][iph[4]] ^ icrcPos[3][iph[5]] ^
		icrcPos[4][uh[4]] ^ icrcPos[5][uh[5]] ^
		icrcPos[6][bh[0]] ^ icrcPos[7][bh[1]] ^ icrcPos[8][bh[8]] ^ icrcPos[9][bh[9]] ^ icrcPos[10][bh[10]] ^ icrcPos[11][bh[11]]
	rest := ib[BTHLen:]
	if len(rest) >= 64 {
		// carry-less multiplication takes 16-octet steps from 64 on;
		// the tail (a First or Last READ Response's AETH, a SEND's last
		// octets) below, not octet by octet as crc32 does it
		n := len(rest) &^ 15
		crc, rest = crc32.Update(crc, crc32.IEEETable, rest[:n]), rest[n:]
	}
	return ^icrcSlice8(^crc, rest), true
}

// icrcSlices[k][v] is the CRC register after octet v and k zero octets,
// from a zero register: icrcSlice8's tables (8 KiB).
var icrcSlices = func() (t [8][256]uint32) {
	t[0] = *crc32.IEEETable
	for k := 1; k < 8; k++ {
		for v := range 256 {
			r := t[k-1][v]
			t[k][v] = t[0][byte(r)] ^ r>>8
		}
	}
	return
}()

// icrcSlice8 runs the CRC register r (not complemented) over b, which is
// short (under 64 octets: an AETH, a RETH, a tail after crc32.Update):
// eight octets per step with eight independent lookups, then four, then
// octet by octet. crc32 goes octet by octet below 16 octets, each octet's
// lookup waiting for the one before.
func icrcSlice8(r uint32, b []byte) uint32 {
	t := &icrcSlices
	for ; len(b) >= 8; b = b[8:] {
		x := r ^ binary.LittleEndian.Uint32(b)
		r = t[7][byte(x)] ^ t[6][byte(x>>8)] ^ t[5][byte(x>>16)] ^ t[4][x>>24] ^
			t[3][b[4]] ^ t[2][b[5]] ^ t[1][b[6]] ^ t[0][b[7]]
	}
	if len(b) >= 4 {
		x := r ^ binary.LittleEndian.Uint32(b)
		r = t[3][byte(x)] ^ t[2][byte(x>>8)] ^ t[1][byte(x>>16)] ^ t[0][x>>24]
		b = b[4:]
	}
	for _, x := range b {
		r = t[0][byte(r)^x] ^ r>>8
	}
	return r
}

// icrcSlot is the cache slot of a template: source and destination
// address (one rotated, so that the two directions differ) and QP, mixed
// by a multiplicative hash.
func icrcSlot(ip1 uint64, ip2 uint32, bh *[BTHLen]byte) uint8 {
	h := uint32(ip1>>32) ^ bits.RotateLeft32(ip2, 16) ^ uint32(bh[7])<<8 ^ uint32(bh[6])
	return uint8((h * 0x9E3779B1) >> 24)
}

// templateCRC is the CRC value of the masked header run of ip, udp, bth
// with the changing octets (icrcVary) zero: icrcRoCEv2 of the headers
// alone, so that the masking has one definition.
func (c *icrcCache) templateCRC(s *scratch, ip *[20]byte, udp *[8]byte, bth *[BTHLen]byte) uint32 {
	c.ip, c.udp, c.bth = *ip, *udp, *bth
	c.ip[2], c.ip[3], c.ip[4], c.ip[5] = 0, 0, 0, 0                                 // total length, identification
	c.udp[4], c.udp[5] = 0, 0                                                       // length
	c.bth[0], c.bth[1], c.bth[8], c.bth[9], c.bth[10], c.bth[11] = 0, 0, 0, 0, 0, 0 // opcode, flags, AckReq, PSN
	crc, _ := icrcRoCEv2(s, c.ip[:], c.udp[:], c.bth[:])
	return crc
}
