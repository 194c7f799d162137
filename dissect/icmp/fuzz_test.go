package icmp_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// fuzzFrames runs Ethernet frames (ICMP, ICMPv6 or ARP inside, any bytes)
// through a strict engine with the Rx and RoCE dissectors behind the quote,
// and renders the summary and the tree: nothing may panic.
func fuzzFrames(t *testing.T, frames [][]byte) {
	eng := dissect.NewEngine(rxOpts(t))
	var tree dissect.Tree
	for pass := 1; pass <= 2; pass++ {
		for i, b := range frames {
			f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i+1) * 1e9, CapLen: len(b), WireLen: len(b) + 4, LinkType: 1, Iface: 0, Data: b, Pass: pass})
			render.Summary(nil, f, 0, nil)
			eng.BuildTree(&tree, f)
			render.Verbose(nil, &tree, nil)
		}
		eng.Rewind()
	}
}

// FuzzICMP feeds any octets as the ICMP message of an IPv4 packet, twice:
// once alone and once after the packet its quote would name.
func FuzzICMP(f *testing.F) {
	data := ipv4(ipB, ipA, 17, 64, 1, udp(7003, 1792, rxData(1, 2)))
	f.Add(icmpMsg(3, 3, []byte{0, 0, 0, 0}, data))
	f.Add(icmpMsg(3, 3, []byte{0, 0, 0, 0}, rocev2(5)))
	f.Add(icmpMsg(8, 0, []byte{0, 1, 0, 1}, make([]byte, 16)))
	f.Add(icmpMsg(12, 0, []byte{1, 0, 0, 0}, data[:20]))
	f.Fuzz(func(t *testing.T, msg []byte) {
		fr := eth(macB, macA, 0x0800, ipv4(ipB, ipA, 1, 64, 9, msg))
		fuzzFrames(t, [][]byte{eth(macB, macA, 0x0800, data), fr, fr})
	})
}

// FuzzICMPv6 does the same for ICMPv6 (checksum over the pseudo-header; ND
// options).
func FuzzICMPv6(f *testing.F) {
	quote6 := ipv6(ip6A, ip6B, 17, udp(1792, 7003, rxData(1, 2)))
	f.Add(icmp6(ip6B, ip6A, 1, 4, []byte{0, 0, 0, 0}, quote6))
	f.Add(icmp6(ip6A, ip6B, 135, 0, []byte{0, 0, 0, 0}, append(append([]byte{}, ip6B...), 1, 1, 0x52, 0x54, 0, 0, 1, 1)))
	f.Add(icmp6(ip6A, ip6B, 134, 0, []byte{64, 0, 0, 30}, append(make([]byte, 8), 1, 0)))
	f.Add(icmp6(ip6A, ip6B, 128, 0, []byte{0, 1, 0, 1}, nil))
	f.Fuzz(func(t *testing.T, msg []byte) {
		fr := eth(macB, macA, 0x86dd, ipv6(ip6B, ip6A, 58, msg))
		fuzzFrames(t, [][]byte{fr, fr})
	})
}

// FuzzARP feeds any octets as an ARP packet, on Ethernet and over IPoIB.
func FuzzARP(f *testing.F) {
	f.Add(arpPkt(1, macA, ipA, make([]byte, 6), ipB))
	f.Add(arpPkt(2, macB, ipB, macA, ipA))
	f.Add([]byte{0, 32, 8, 0, 20, 4, 0, 1})
	f.Fuzz(func(t *testing.T, pkt []byte) {
		fuzzFrames(t, [][]byte{eth(macA, macB, 0x0806, pkt)})
		ipoib := make([]byte, 44, 44+len(pkt))
		ipoib[40], ipoib[41] = 0x08, 0x06
		eng := dissect.NewEngine(dissect.Options{})
		var tree dissect.Tree
		b := append(ipoib, pkt...)
		fr := eng.Decode(dissect.Packet{Num: 1, TimeNS: 0, CapLen: len(b), WireLen: len(b), LinkType: 242, Iface: 0, Data: b, Pass: 0})
		render.Summary(nil, fr, 0, nil)
		eng.BuildTree(&tree, fr)
	})
}
