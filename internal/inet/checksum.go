// Package inet has the Internet checksum (RFC 1071) used where rdx builds,
// rewrites (synth, replay) or checks (icmp) IPv4, UDP, TCP and ICMP headers.
package inet

// Sum adds b to the running one's-complement sum s as 16-bit big-endian
// words, an odd last octet padded with zero.
func Sum(s uint32, b []byte) uint32 {
	for len(b) >= 2 {
		s += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint32(b[0]) << 8
	}
	return s
}

// Fold folds the carries of a running sum into 16 bits.
func Fold(s uint32) uint16 {
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return uint16(s)
}

// Checksum is the complemented folded sum of b, as an IPv4 header carries it.
func Checksum(b []byte) uint16 { return ^Fold(Sum(0, b)) }
