package testpkt

import "encoding/binary"

// Client and Server are the documentation addresses (RFC 5737) the
// hand-built packets travel between.
var (
	Client = [4]byte{192, 0, 2, 1}
	Server = [4]byte{192, 0, 2, 2}
)

// ipv4 appends a 20-octet IPv4 header (no options, TTL 64, checksum left
// zero: the engine does not check it) for a datagram of n octets after it.
func ipv4(b []byte, proto byte, id, frag uint16, src, dst [4]byte, n int) []byte {
	h := make([]byte, 20)
	h[0], h[8], h[9] = 0x45, 64, proto
	binary.BigEndian.PutUint16(h[2:], uint16(20+n))
	binary.BigEndian.PutUint16(h[4:], id)
	binary.BigEndian.PutUint16(h[6:], frag)
	copy(h[12:], src[:])
	copy(h[16:], dst[:])
	return append(b, h...)
}

// UDP4 appends to b a raw IPv4 (link type 228) UDP datagram from
// src:sport to dst:dport carrying payload; checksums are left zero (UDP
// allows it).
func UDP4(b []byte, src, dst [4]byte, sport, dport uint16, payload []byte) []byte {
	b = ipv4(b, 17, 0, 0, src, dst, 8+len(payload))
	var u [8]byte
	binary.BigEndian.PutUint16(u[0:], sport)
	binary.BigEndian.PutUint16(u[2:], dport)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(payload)))
	b = append(b, u[:]...)
	return append(b, payload...)
}

// IPv4Frag is a raw IPv4 (link type 228) fragment, Client to Server, of UDP
// datagram id: payload at octet off, more fragments to come when more.
func IPv4Frag(id uint16, off int, more bool, payload []byte) []byte {
	fo := uint16(off / 8)
	if more {
		fo |= 0x2000
	}
	b := ipv4(make([]byte, 0, 20+len(payload)), 17, id, fo, Client, Server, len(payload))
	return append(b, payload...)
}

// TCP appends a 20-octet TCP header (no options, checksum left zero).
func TCP(b []byte, sport, dport uint16, seq, ack uint32, flags byte, win uint16) []byte {
	var h [20]byte
	binary.BigEndian.PutUint16(h[0:], sport)
	binary.BigEndian.PutUint16(h[2:], dport)
	binary.BigEndian.PutUint32(h[4:], seq)
	binary.BigEndian.PutUint32(h[8:], ack)
	h[12], h[13] = 5<<4, flags
	binary.BigEndian.PutUint16(h[14:], win)
	return append(b, h[:]...)
}
