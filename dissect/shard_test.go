package dissect_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

var (
	hostC = [4]byte{198, 18, 0, 7}
	hostS = [4]byte{198, 19, 255, 1}
)

// eth wraps an IP packet in Ethernet with the given VLAN tags.
func eth(et uint16, ip []byte, vlans ...uint16) []byte {
	b := []byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2}
	for _, v := range vlans {
		b = binary.BigEndian.AppendUint16(b, 0x8100)
		b = binary.BigEndian.AppendUint16(b, v)
	}
	b = binary.BigEndian.AppendUint16(b, et)
	return append(b, ip...)
}

func sll(ip []byte) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint16(b[14:], dissect.EtherTypeIPv4)
	return append(b, ip...)
}

func sll2(ip []byte) []byte {
	b := make([]byte, 20)
	binary.BigEndian.PutUint16(b[0:], dissect.EtherTypeIPv4)
	return append(b, ip...)
}

func null(ip []byte) []byte { return append([]byte{2, 0, 0, 0}, ip...) }

func ipv6(src, dst byte, next byte, payload []byte) []byte {
	b := make([]byte, 40)
	b[0], b[6], b[7] = 0x60, next, 64
	binary.BigEndian.PutUint16(b[4:], uint16(len(payload)))
	b[8], b[23] = 0x20, src // 2001:db8::/32 addresses, documentation
	b[9], b[10], b[11] = 0x01, 0x0d, 0xb8
	b[24], b[39] = 0x20, dst
	b[25], b[26], b[27] = 0x01, 0x0d, 0xb8
	return append(b, payload...)
}

// grh is a RoCEv1 frame (EtherType 0x8915): a GRH between GIDs ending in
// src and dst, then a BTH stub.
func rocev1(src, dst byte) []byte {
	g := ipv6(src, dst, 0x1b, make([]byte, 12))
	return eth(0x8915, g)
}

// lrh is a native InfiniBand packet from slid to dlid: LRH and a BTH stub.
func lrh(slid, dlid uint16) []byte {
	b := make([]byte, 8+12)
	b[0], b[1] = 0, 2
	binary.BigEndian.PutUint16(b[2:], dlid)
	binary.BigEndian.PutUint16(b[4:], uint16(len(b)/4))
	binary.BigEndian.PutUint16(b[6:], slid)
	return b
}

func erf(ib []byte) []byte {
	h := make([]byte, 16)
	h[8] = 21
	return append(h, ib...)
}

// TestShardKeyPairs: both directions of a flow, and the fragments of a
// datagram, share a key under every link header; other pairs do not.
func TestShardKeyPairs(t *testing.T) {
	fwd := testpkt.UDP4(nil, hostC, hostS, 7001, 7000, []byte("call"))
	rev := testpkt.UDP4(nil, hostS, hostC, 7000, 7001, []byte("reply"))
	other := testpkt.UDP4(nil, hostC, [4]byte{198, 19, 255, 2}, 7001, 7000, []byte("call"))
	frag0 := testpkt.IPv4Frag(9, 0, true, make([]byte, 16))
	frag1 := testpkt.IPv4Frag(9, 16, false, make([]byte, 8))
	whole := testpkt.UDP4(nil, testpkt.Server, testpkt.Client, 1, 2, nil)
	type enc struct {
		name string
		link uint16
		wrap func([]byte) []byte
	}
	for _, e := range []enc{
		{"raw", dissect.LinkTypeIPv4, func(b []byte) []byte { return b }},
		{"raw101", dissect.LinkTypeRaw, func(b []byte) []byte { return b }},
		{"ethernet", dissect.LinkTypeEthernet, func(b []byte) []byte { return eth(dissect.EtherTypeIPv4, b) }},
		{"vlan", dissect.LinkTypeEthernet, func(b []byte) []byte { return eth(dissect.EtherTypeIPv4, b, 10) }},
		{"qinq", dissect.LinkTypeEthernet, func(b []byte) []byte { return eth(dissect.EtherTypeIPv4, b, 10, 20) }},
		{"sll", dissect.LinkTypeLinuxSLL, sll},
		{"sll2", dissect.LinkTypeLinuxSLL2, sll2},
		{"null", dissect.LinkTypeNull, null},
	} {
		k := func(b []byte) uint64 { return dissect.ShardKey(e.link, e.wrap(b)) }
		if k(fwd) == 0 || k(fwd) != k(rev) {
			t.Errorf("%s: directions keyed %#x and %#x", e.name, k(fwd), k(rev))
		}
		if k(fwd) == k(other) {
			t.Errorf("%s: another host pair has the same key %#x", e.name, k(fwd))
		}
		if k(frag0) != k(whole) || k(frag1) != k(whole) {
			t.Errorf("%s: fragments keyed %#x, %#x, their flow %#x", e.name, k(frag0), k(frag1), k(whole))
		}
	}
	// The same pair keys alike whatever the link header.
	if a, b := dissect.ShardKey(dissect.LinkTypeIPv4, fwd), dissect.ShardKey(dissect.LinkTypeEthernet, eth(dissect.EtherTypeIPv4, rev, 5)); a != b {
		t.Errorf("raw %#x, Ethernet+VLAN %#x", a, b)
	}
}

func TestShardKeyIPv6RoCEIB(t *testing.T) {
	a, b := ipv6(1, 2, 17, make([]byte, 8)), ipv6(2, 1, 17, make([]byte, 8))
	c := ipv6(1, 3, 17, make([]byte, 8))
	k := func(l uint16, p []byte) uint64 { return dissect.ShardKey(l, p) }
	if k(dissect.LinkTypeIPv6, a) == 0 || k(dissect.LinkTypeIPv6, a) != k(dissect.LinkTypeRaw, b) ||
		k(dissect.LinkTypeEthernet, eth(dissect.EtherTypeIPv6, b, 3)) != k(dissect.LinkTypeIPv6, a) {
		t.Errorf("IPv6 directions differ")
	}
	if k(dissect.LinkTypeIPv6, a) == k(dissect.LinkTypeIPv6, c) {
		t.Errorf("IPv6: another pair has the same key")
	}
	if k(dissect.LinkTypeEthernet, rocev1(1, 2)) == 0 || k(dissect.LinkTypeEthernet, rocev1(1, 2)) != k(dissect.LinkTypeEthernet, rocev1(2, 1)) ||
		k(dissect.LinkTypeEthernet, rocev1(1, 2)) == k(dissect.LinkTypeEthernet, rocev1(1, 3)) {
		t.Errorf("RoCEv1: GID pair not keyed unordered")
	}
	if k(247, lrh(1, 2)) == 0 || k(247, lrh(1, 2)) != k(247, lrh(2, 1)) || k(247, lrh(1, 2)) == k(247, lrh(1, 3)) {
		t.Errorf("native IB: LID pair not keyed unordered")
	}
	if k(197, erf(lrh(1, 2))) != k(247, lrh(2, 1)) {
		t.Errorf("ERF: %#x, LINKTYPE_INFINIBAND %#x", k(197, erf(lrh(1, 2))), k(247, lrh(2, 1)))
	}
	arp := eth(0x0806, make([]byte, 28))
	if k(dissect.LinkTypeEthernet, arp) != 0 || k(999, a) != 0 {
		t.Errorf("ARP or an unknown link type keyed non-zero")
	}
}

// TestShardKeyTruncated: every prefix of every frame keys without a panic
// and reads nothing beyond it; no call allocates.
func TestShardKeyTruncated(t *testing.T) {
	ip := testpkt.UDP4(nil, hostC, hostS, 1, 2, []byte("x"))
	frames := []struct {
		link uint16
		b    []byte
	}{
		{dissect.LinkTypeEthernet, eth(dissect.EtherTypeIPv4, ip, 1, 2)},
		{dissect.LinkTypeEthernet, eth(dissect.EtherTypeIPv6, ipv6(1, 2, 17, nil))},
		{dissect.LinkTypeEthernet, rocev1(1, 2)},
		{dissect.LinkTypeLinuxSLL, sll(ip)},
		{dissect.LinkTypeLinuxSLL2, sll2(ip)},
		{dissect.LinkTypeNull, null(ip)},
		{dissect.LinkTypeLoop, null(ip)},
		{dissect.LinkTypeIPv6, ipv6(1, 2, 6, nil)},
		{dissect.LinkTypeIPoIB, append(append(make([]byte, 40), 8, 0, 0, 0), ip...)},
		{247, lrh(1, 2)},
		{197, erf(lrh(1, 2))},
		{197, append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0x80 | 21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, lrh(1, 2)...)},
	}
	for _, fr := range frames {
		full := dissect.ShardKey(fr.link, fr.b)
		if full == 0 {
			t.Errorf("link %d: whole frame keyed 0", fr.link)
		}
		for n := range len(fr.b) {
			// a copy of exactly n octets: reading past it panics
			_ = dissect.ShardKey(fr.link, append([]byte(nil), fr.b[:n]...))
		}
		if a := testing.AllocsPerRun(100, func() { dissect.ShardKey(fr.link, fr.b) }); a != 0 {
			t.Errorf("link %d: %v allocations per call", fr.link, a)
		}
	}
}

// TestDecodeShardTimes: a worker that sees only some frames still shows
// times relative to the capture's first and previous frame.
func TestDecodeShardTimes(t *testing.T) {
	e := dissect.NewEngine(dissect.Options{})
	ip := testpkt.UDP4(nil, hostC, hostS, 1, 2, nil)
	e.DecodeShard(&dissect.Packet{Num: 5, TimeNS: 5000, LinkType: dissect.LinkTypeIPv4, Data: ip}, 1000, 4000)
	if first, prev := e.Times(); first != 1000 || prev != 4000 {
		t.Errorf("after frame 5: first %d prev %d, want 1000 4000", first, prev)
	}
	e.DecodeShard(&dissect.Packet{Num: 9, TimeNS: 9000, LinkType: dissect.LinkTypeIPv4, Data: ip}, 1000, 8000)
	if first, prev := e.Times(); first != 1000 || prev != 8000 {
		t.Errorf("after frame 9: first %d prev %d, want 1000 8000", first, prev)
	}
}

// FuzzShardKey: any bytes under any link type key without a panic, a
// frame's key never depends on octets after its IP addresses, and a
// ShardCache gives the same keys.
func FuzzShardKey(f *testing.F) {
	f.Add(uint16(dissect.LinkTypeEthernet), eth(dissect.EtherTypeIPv4, testpkt.UDP4(nil, hostC, hostS, 1, 2, nil), 7))
	f.Add(uint16(dissect.LinkTypeEthernet), rocev1(1, 2))
	f.Add(uint16(247), lrh(3, 4))
	f.Add(uint16(197), erf(lrh(3, 4)))
	f.Add(uint16(dissect.LinkTypeLinuxSLL), sll(testpkt.UDP4(nil, hostC, hostS, 1, 2, nil)))
	f.Add(uint16(dissect.LinkTypeIPv6), ipv6(1, 2, 17, nil))
	var c dissect.ShardCache // across inputs: what one input leaves cached must not change another's key
	f.Fuzz(func(t *testing.T, link uint16, b []byte) {
		k := dissect.ShardKey(link, b)
		if k2 := dissect.ShardKey(link, append(b[:len(b):len(b)], 0xff, 0xee)); k != 0 && k2 != k {
			t.Fatalf("key %#x changed to %#x by octets after the frame", k, k2)
		}
		for range 2 { // a miss, then a hit
			if kc := c.Key(link, b); kc != k {
				t.Fatalf("ShardCache key %#x, ShardKey %#x", kc, k)
			}
		}
	})
}
