package rdp

import (
	"net/netip"
	"testing"
)

// Worked by hand from RFC 908 §4.2.1 (v1) and RFC 793 p.16 via RFC 1151 (v2).
func TestChecksumV1ByHand(t *testing.T) {
	// A v1 NUL: flags 0x08|ver 1 = 0x09, hlen 9, sport 1, dport 2, dlen 0,
	// seq 1, ack 0, checksum zeroed. 18 octets, padded with 2 zero octets to 20:
	//   w0 = 0x09090102  w1 = 0x00000000  w2 = 0x00010000  w3 = 0  w4 = 0
	//   acc = rotl(0          + 0x09090102, 1) = 0x12120204
	//   acc = rotl(0x12120204 + 0,          1) = 0x24240408
	//   acc = rotl(0x24240408 + 0x00010000, 1) = rotl(0x24250408) = 0x484a0810
	//   acc = rotl(0x484a0810 + 0,          1) = 0x90941020
	//   acc = rotl(0x90941020 + 0,          1) = 0x21282040 | 1 (bit 31 wraps) = 0x21282041
	nul := []byte{0x09, 0x09, 0x01, 0x02, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef}
	if got := Checksum(1, noAddr, noAddr, nul, nil); got != 0x21282041 {
		t.Errorf("v1 NUL: got %#x, want 0x21282041", got)
	}
	// The carry out of bit 31 is discarded before the rotate. Segment: octets
	// 0-3 ff ff ff ff, 4-13 zero, checksum field 14-17 (ignored), then data
	// 00 00 (ends word 4) and 00 00 00 02 (word 5):
	//   acc = rotl(0 + 0xffffffff, 1)          = 0xffffffff (all ones rotate to themselves)
	//   w1..w4 = 0: acc stays                     0xffffffff
	//   acc = rotl(0xffffffff + 2, 1) = rotl(0x00000001, 1) = 0x00000002
	hdr := make([]byte, 18)
	copy(hdr, []byte{0xff, 0xff, 0xff, 0xff})
	hdr[14], hdr[15] = 1, 2 // checksum field: must not count
	if got := checksumV1(hdr, []byte{0, 0, 0, 0, 0, 2}); got != 2 {
		t.Errorf("carry: got %#x, want 0x2", got)
	}
}

// The spec's own vectors (spec §8), big-endian words.
func TestChecksumV1SpecVectors(t *testing.T) {
	syn := []byte{0x81, 0x0c, 0x02, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00,
		0x00, 0x00, 0x51, 0x41, 0x90, 0x80, 0x00, 0x08, 0x04, 0x00, 0x80, 0x00}
	if got := Checksum(1, noAddr, noAddr, syn, nil); got != 0x51419080 || Header(syn).Checksum() != got {
		t.Errorf("SYN: got %#x, want 0x51419080", got)
	}
	ack := []byte{0x41, 0x09, 0x41, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00, 0x65, 0x00, 0x00,
		0x00, 0xc8, 0x15, 0x41, 0xc6, 0x19}
	if got := Checksum(1, noAddr, noAddr, ack, []byte("abc")); got != 0x1541c619 {
		t.Errorf("ACK: got %#x, want 0x1541c619", got)
	}
}

func TestChecksumV2ByHand(t *testing.T) {
	src, dst := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	// v2 NUL: 0x0a (NUL|ver 2), hlen 9, sport 1024, dport 1025, dlen 0, seq 1.
	//   pseudo-header: 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 0x001b (proto 27)
	//                  + 0x0012 (length 18)                         = 0x1430
	//   header: 0x0a09 + 0x0400 + 0x0401 + 0x0000 + 0x0000 + 0x0001
	//           + 0x0000 + 0x0000 (+ checksum field as 0)             = 0x120b
	//   with pseudo-header: ~(0x1430 + 0x120b) = ~0x263b = 0xd9c4
	//   bare segment:       ~0x120b                      = 0xedf4
	nul := []byte{0x0a, 0x09, 0x04, 0x00, 0x04, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x55, 0x55}
	if got := Checksum(2, src, dst, nul, nil); got != 0xd9c4 {
		t.Errorf("v2 NUL: got %#x, want 0xd9c4", got)
	}
	if got := Checksum(2, noAddr, noAddr, nul, nil); got != 0xedf4 {
		t.Errorf("v2 NUL bare: got %#x, want 0xedf4", got)
	}
	// v2 ACK with 3 data octets ff ff ff (odd: padded with one zero octet):
	//   header: 0x4a09 + 0x0400 + 0x0401 + 0x0003 + 0 + 0x0002 + 0 + 0x0001 = 0x5210
	//   data:   0xffff + 0xff00 = 0x1feff
	//   bare:   0x5210 + 0x1feff = 0x2510f -> fold 0x510f + 0x2 = 0x5111 -> ~ = 0xaeee
	//   pseudo: 0x1403 + 0x001b + 0x0015 (length 21) = 0x1433;
	//           0x5111 + 0x1433 = 0x6544 -> ~ = 0x9abb
	ack := []byte{0x4a, 0x09, 0x04, 0x00, 0x04, 0x01, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0xaa, 0xbb}
	data := []byte{0xff, 0xff, 0xff}
	if got := Checksum(2, src, dst, ack, data); got != 0x9abb {
		t.Errorf("v2 data: got %#x, want 0x9abb", got)
	}
	if got := Checksum(2, noAddr, noAddr, ack, data); got != 0xaeee {
		t.Errorf("v2 data bare: got %#x, want 0xaeee", got)
	}
}

// Seal then verify round-trips for both versions, odd and even lengths, and a
// header length that is not a multiple of 4 octets (18, 22).
func TestSealRoundTrip(t *testing.T) {
	src, dst := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
	for v := uint8(1); v <= 2; v++ {
		for _, dl := range []int{0, 1, 2, 3, 4, 5, 1000} {
			hf := HeaderFields{Flags: FlagACK | FlagEAK, Version: v, SrcPort: 9, DstPort: 10, Seq: 7, Ack: 3, Eacks: []uint32{5}}
			seg := hf.Encode(nil, make([]byte, dl))
			for i := HeaderLen; i < len(seg); i++ {
				seg[i] = byte(i * 7)
			}
			Seal(seg, src, dst)
			h := Header(seg)
			hl := h.HLenOctets()
			if got := Checksum(v, src, dst, seg[:hl], seg[hl:]); got != h.Checksum() {
				t.Errorf("v%d dlen %d: sealed %#x, recomputed %#x", v, dl, h.Checksum(), got)
			}
		}
	}
}
