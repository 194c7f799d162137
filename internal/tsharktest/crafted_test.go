package tsharktest

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

var updateCrafted = flag.Bool("update-crafted", false, "rewrite "+craftedPcap+" from craftedFrames (then run scripts/base-truth.sh on it)")

// craftedPcap holds the corner cases of the base layers no real capture in
// pcaps/ has; TestBaseFieldsMatchTshark compares rdx with tshark on it like
// on every other capture (its .base-fields.tsv.gz is tshark's decode).
const craftedPcap = "../../pcaps/crafted/base_fields.pcap"

var (
	macA = []byte{0x02, 0, 0, 0, 0, 0x0a} // locally administered
	macB = []byte{0x01, 0, 0x5e, 0, 0, 0x0b}
	v4A  = [4]byte{198, 51, 100, 1} // RFC 5737 documentation addresses
	v4B  = [4]byte{198, 51, 100, 2}
	v6A  = []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1} // 2001:db8::/32 (RFC 3849)
	v6B  = []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
)

func be16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// eth is an Ethernet header, with an 802.1Q tag when tci is not 0.
func eth(src, dst []byte, etype uint16, tci uint16) []byte {
	if tci != 0 {
		return cat(dst, src, be16(0x8100), be16(tci), be16(etype))
	}
	return cat(dst, src, be16(etype))
}

// ip4 is an IPv4 header (checksum 0x1111: tshark does not verify it).
func ip4(src, dst [4]byte, tos byte, id uint16, flagsFrag uint16, proto byte, n int) []byte {
	return cat([]byte{0x45, tos}, be16(uint16(20+n)), be16(id), be16(flagsFrag), []byte{64, proto}, be16(0x1111), src[:], dst[:])
}

func ip6(src, dst []byte, tclass byte, flow uint32, nxt byte, n int) []byte {
	return cat(be32(6<<28|uint32(tclass)<<20|flow&0xfffff), be16(uint16(n)), []byte{nxt, 64}, src, dst)
}

func udp(sp, dp uint16, ck uint16, payload []byte) []byte {
	return cat(be16(sp), be16(dp), be16(uint16(8+len(payload))), be16(ck), payload)
}

// tcp is a TCP header with options opts (padded to 32 bits with EOL) and
// flags as the 12 bits after the data offset.
func tcp(sp, dp uint16, seq, ack uint32, flags uint16, win uint16, opts []byte, payload []byte) []byte {
	for len(opts)%4 != 0 {
		opts = append(opts, 0)
	}
	off := uint16(5+len(opts)/4) << 12
	return cat(be16(sp), be16(dp), be32(seq), be32(ack), be16(off|flags&0xfff), be16(win), be16(0x2222), be16(0), opts, payload)
}

func tcp4(src, dst [4]byte, t []byte) []byte {
	return cat(eth(macA, macB, 0x0800, 0), ip4(src, dst, 0, 7, 0x4000, 6, len(t)), t)
}

const (
	fFIN = 0x01
	fSYN = 0x02
	fRST = 0x04
	fPSH = 0x08
	fACK = 0x10
)

var (
	optMSS  = []byte{2, 4, 0x05, 0xb4}
	optSACK = []byte{4, 2}
	optNOP  = []byte{1}
)

func optWS(shift byte) []byte { return []byte{3, 3, shift} }

// inetChecksum is the Internet checksum of b (RFC 1071).
func inetChecksum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// craftedFrames are the frames of craftedPcap, each there for a case.
func craftedFrames() [][]byte {
	var fr [][]byte
	add := func(b []byte) { fr = append(fr, b) }
	pl := []byte("rdx!")
	// 1: VLAN (priority 5, ID 100), DSCP 46 and ECN 1, the reserved
	// ("evil") and don't-fragment bits, a UDP checksum of zero (not present).
	add(cat(eth(macA, macB, 0x0800, 5<<13|100), ip4(v4A, v4B, 46<<2|1, 1, 0xc000, 17, 12), udp(40123, 40124, 0, pl)))
	// 2: the same conversation the other way (same udp.stream).
	add(cat(eth(macB, macA, 0x0800, 0), ip4(v4B, v4A, 0, 2, 0, 17, 12), udp(40124, 40123, 0x3333, pl)))
	// 3: IPv6 with traffic class (DSCP 10, ECN 3) and a flow label; a new
	// conversation.
	add(cat(eth(macA, macB, 0x86dd, 0), ip6(v6A, v6B, 10<<2|3, 0xabcde, 17, 12), udp(40123, 40124, 0x4444, pl)))
	// 4-7: a handshake where only the SYN offers window scaling: neither
	// side scales (RFC 7323 2.2), the SYN's shift is 15 (used as 14).
	add(tcp4(v4A, v4B, tcp(40000, 80, 1000, 0, fSYN, 65535, cat(optMSS, optSACK, optNOP, optWS(15)), nil)))
	add(tcp4(v4B, v4A, tcp(80, 40000, 5000, 1001, fSYN|fACK, 65535, cat(optMSS, optSACK), nil)))
	add(tcp4(v4A, v4B, tcp(40000, 80, 1001, 5001, fACK, 512, nil, nil)))
	add(tcp4(v4B, v4A, tcp(80, 40000, 5001, 1001, fPSH|fACK, 300, nil, pl)))
	// 8-12: both offer scaling (shifts 2 and 7); SACK blocks; every
	// flag bit but SYN (which would start a connection); a timestamp
	// option whose length runs past the header.
	add(tcp4(v4A, v4B, tcp(40001, 80, 7000, 0, fSYN, 65535, cat(optMSS, optNOP, optWS(2)), nil)))
	add(tcp4(v4B, v4A, tcp(80, 40001, 9000, 7001, fSYN|fACK, 65535, cat(optMSS, optNOP, optWS(7)), nil)))
	add(tcp4(v4A, v4B, tcp(40001, 80, 7001, 9001, fACK, 1000, cat(optNOP, optNOP, []byte{5, 10}, be32(9101), be32(9201)), nil)))
	add(tcp4(v4B, v4A, tcp(80, 40001, 9001, 7001, 0xfff&^fSYN, 100, nil, nil)))
	add(tcp4(v4A, v4B, tcp(40001, 80, 7001, 9001, fACK, 1000, []byte{1, 8, 12, 0, 0, 0, 0, 0}, nil)))
	// 13-14: a connection seen from its middle, one direction only: the
	// scale factor is unknown, acknowledgments count from the first less one.
	add(tcp4(v4A, v4B, tcp(40002, 80, 123456, 654321, fACK, 700, nil, pl)))
	add(tcp4(v4A, v4B, tcp(40002, 80, 123460, 654421, fACK|fFIN, 700, nil, nil)))
	// 15-16: the first connection's ports again with a new ISN after a
	// reset: a new tcp.stream.
	add(tcp4(v4A, v4B, tcp(40000, 80, 1100, 5100, fRST|fACK, 0, nil, nil)))
	add(tcp4(v4A, v4B, tcp(40000, 80, 77777, 0, fSYN, 65535, optMSS, nil)))
	// 17-18: a UDP datagram in two IPv4 fragments: the second frame shows
	// the reassembled datagram's UDP header.
	dgram := udp(40200, 40201, 0x5555, bytes.Repeat([]byte{0xab}, 24))
	add(cat(eth(macA, macB, 0x0800, 0), ip4(v4A, v4B, 0, 99, 0x2000, 17, 16), dgram[:16]))
	add(cat(eth(macA, macB, 0x0800, 0), ip4(v4A, v4B, 0, 99, 2, 17, len(dgram)-16), dgram[16:]))
	// 19: ICMP port unreachable quoting frame 2's datagram: the quoted
	// header's fields, and its conversation's udp.stream.
	quoted := cat(ip4(v4B, v4A, 0, 2, 0, 17, 12), udp(40124, 40123, 0x3333, pl))
	icmp := cat([]byte{3, 3}, be16(0), be32(0), quoted)
	binary.BigEndian.PutUint16(icmp[2:], inetChecksum(icmp))
	add(cat(eth(macA, macB, 0x0800, 0), ip4(v4A, v4B, 0xc0, 3, 0, 1, len(icmp)), icmp))
	return fr
}

// TestCraftedCapture keeps craftedPcap what craftedFrames make (rewrite it
// with -update-crafted, then its tshark decode with scripts/base-truth.sh).
func TestCraftedCapture(t *testing.T) {
	frames := craftedFrames()
	tmp := filepath.Join(t.TempDir(), "base_fields.pcap")
	testpkt.WriteFrames(t, tmp, dissect.LinkTypeEthernet, 1_000_000, frames)
	want, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if *updateCrafted {
		if err := os.MkdirAll(filepath.Dir(craftedPcap), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(craftedPcap, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(craftedPcap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what craftedFrames make: run this test with -update-crafted, then scripts/base-truth.sh on it", craftedPcap)
	}
	if _, err := os.Stat(craftedPcap + ".base-fields.tsv.gz"); err != nil {
		t.Fatalf("no tshark decode of %s: run scripts/base-truth.sh on it: %v", craftedPcap, err)
	}
}
