package icmp_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

var (
	ip6A = []byte{0x20, 0x01, 0x0d, 0xb8, 15: 1}
	ip6B = []byte{0x20, 0x01, 0x0d, 0xb8, 15: 2}
)

// ipv6 builds an IPv6 header (hop limit 64) and payload.
func ipv6(src, dst []byte, next uint8, payload []byte) []byte {
	h := make([]byte, 40, 40+len(payload))
	h[0] = 0x60
	binary.BigEndian.PutUint16(h[4:], uint16(len(payload)))
	h[6], h[7] = next, 64
	copy(h[8:], src)
	copy(h[24:], dst)
	return append(h, payload...)
}

// icmp6 builds an ICMPv6 message from src to dst with the pseudo-header checksum.
func icmp6(src, dst []byte, typ, code uint8, rest4, body []byte) []byte {
	m := append([]byte{typ, code, 0, 0}, rest4...)
	m = append(m, body...)
	ph := append(append(append([]byte{}, src...), dst...), 0, 0, byte(len(m)>>8), byte(len(m)), 0, 0, 0, 58)
	binary.BigEndian.PutUint16(m[2:], csum(append(ph, m...)))
	return m
}

func arpPkt(op uint16, sha, spa, tha, tpa []byte) []byte {
	b := []byte{0, 1, 8, 0, 6, 4, byte(op >> 8), byte(op)}
	for _, a := range [][]byte{sha, spa, tha, tpa} {
		b = append(b, a...)
	}
	return append(b, make([]byte, 18)...) // Ethernet padding to 60 octets
}

// TestInfo checks the Info column of crafted messages against what tshark
// 4.0.17 -2 prints for the same frames (RDX_WRITE_PCAP=prefix writes them).
func TestInfo(t *testing.T) {
	zero6 := make([]byte, 6)
	quote := ipv4(ipA, ipB, 17, 1, 3, udp(33434, 33435, make([]byte, 12)))
	quote6 := ipv6(ip6A, ip6B, 17, udp(33434, 33435, make([]byte, 12)))
	e4 := func(src, dst []byte, m []byte) []byte {
		return eth(macA, macB, 0x0800, ipv4(src, dst, 1, 64, 5, m))
	}
	e6 := func(src, dst []byte, m []byte) []byte {
		return eth(macA, macB, 0x86dd, ipv6(src, dst, 58, m))
	}
	mtu := []byte{0, 0, 0x05, 0xdc}
	cases := []struct {
		frame []byte
		info  string
	}{
		{e4(ipA, ipB, icmpMsg(8, 0, []byte{0x12, 0x34, 0, 1}, make([]byte, 16))), "Echo (ping) request  id=0x1234, seq=1/256, ttl=64 (reply in 2)"},
		{e4(ipB, ipA, icmpMsg(0, 0, []byte{0x12, 0x34, 0, 1}, make([]byte, 16))), "Echo (ping) reply    id=0x1234, seq=1/256, ttl=64 (request in 1)"},
		{e4(ipB, ipA, icmpMsg(11, 0, []byte{0, 0, 0, 0}, quote)), "Time-to-live exceeded (Time to live exceeded in transit)"},
		{e4(ipB, ipA, icmpMsg(3, 4, mtu, quote)), "Destination unreachable (Fragmentation needed)"},
		{e4(ipB, ipA, icmpMsg(3, 1, []byte{0, 0, 0, 0}, quote)), "Destination unreachable (Host unreachable)"},
		{e4(ipB, ipA, icmpMsg(12, 0, []byte{20, 0, 0, 0}, quote)), "Parameter problem    (Pointer indicates the error)"},
		{e6(ip6A, ip6B, icmp6(ip6A, ip6B, 128, 0, []byte{0x12, 0x34, 0, 1}, make([]byte, 8))), "Echo (ping) request id=0x1234, seq=1, hop limit=64 (no response found!)"},
		{e6(ip6B, ip6A, icmp6(ip6B, ip6A, 1, 4, []byte{0, 0, 0, 0}, quote6)), "Destination Unreachable (Port unreachable)"},
		{e6(ip6B, ip6A, icmp6(ip6B, ip6A, 2, 0, mtu, quote6)), "Packet Too Big"},
		{e6(ip6B, ip6A, icmp6(ip6B, ip6A, 3, 0, []byte{0, 0, 0, 0}, quote6)), "Time Exceeded (hop limit exceeded in transit)"},
		{e6(ip6A, ip6B, icmp6(ip6A, ip6B, 135, 0, []byte{0, 0, 0, 0}, append(append([]byte{}, ip6B...), 1, 1, 0x52, 0x54, 0, 0, 1, 1))), "Neighbor Solicitation for 2001:db8::2 from 52:54:00:00:01:01"},
		{e6(ip6B, ip6A, icmp6(ip6B, ip6A, 136, 0, []byte{0x60, 0, 0, 0}, append(append([]byte{}, ip6B...), 2, 1, 0x52, 0x54, 0, 0, 1, 2))), "Neighbor Advertisement 2001:db8::2 (sol, ovr) is at 52:54:00:00:01:02"},
		{eth(macA, macB, 0x0806, arpPkt(1, macA, ipA, zero6, ipB)), "Who has 198.51.100.2? Tell 198.51.100.1"},
		{eth(macB, macA, 0x0806, arpPkt(2, macB, ipB, macA, ipA)), "198.51.100.2 is at 52:54:00:00:01:02"},
		{eth(macA, macB, 0x0806, arpPkt(1, macA, []byte{0, 0, 0, 0}, zero6, ipB)), "Who has 198.51.100.2? (ARP Probe)"},
		{eth(macA, macB, 0x0806, arpPkt(1, macA, ipA, zero6, ipA)), "ARP Announcement for 198.51.100.1"},
	}
	var frames [][]byte
	for _, c := range cases {
		frames = append(frames, c.frame)
	}
	out := run(t, frames, rxOpts(t))
	for i, c := range cases {
		if out[i].info != c.info {
			t.Errorf("frame %d: info %q, want %q", i+1, out[i].info, c.info)
		}
		if len(out[i].findings) != 0 {
			t.Errorf("frame %d: findings %q", i+1, out[i].findings)
		}
	}
}

// UDP behind IPv6 hop-by-hop options: gopacket strips the options from the
// IPv6 payload, and the engine used to count only the fixed header, so the
// Rx header was placed 8 octets early in the frame.
func TestHopByHopOffsets(t *testing.T) {
	hbh := []byte{17, 0, 5, 2, 0, 0, 1, 0} // next UDP, router alert, PadN
	frame := eth(macA, macB, 0x86dd, ipv6(ip6A, ip6B, 0, append(hbh, udp(1792, 7000, rxData(1, 2))...)))
	eng := dissect.NewEngine(rxOpts(t))
	f := eng.Decode(dissect.Packet{Num: 1, TimeNS: 0, CapLen: len(frame), WireLen: len(frame), LinkType: 1, Iface: 0, Data: frame, Pass: 0})
	if got := string(eng.ProtoChain(nil, f)); got != "eth:ethertype:ipv6:ipv6.hopopts:udp:rx:afs" {
		t.Errorf("protocols %q", got)
	}
	var tree dissect.Tree
	eng.BuildTree(&tree, f)
	want := map[string]int32{"udp.srcport": 14 + 40 + 8, "rx.seq": 14 + 40 + 8 + 8 + 12}
	for _, n := range tree.Nodes {
		if n.F == nil {
			continue
		}
		if off, ok := want[n.F.Abbrev]; ok {
			if n.Off != off {
				t.Errorf("%s at %d, want %d", n.F.Abbrev, n.Off, off)
			}
			delete(want, n.F.Abbrev)
		}
	}
	if len(want) != 0 {
		t.Errorf("missing %v", want)
	}
}
