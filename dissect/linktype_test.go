package dissect_test

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

func udpTo9(payload []byte) []byte {
	u := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(u[0:], 40000)
	binary.BigEndian.PutUint16(u[2:], 9)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(payload)))
	return append(u, payload...)
}

func ipv6UDP(payload []byte) []byte {
	u := udpTo9(payload)
	b := make([]byte, 40, 40+len(u))
	b[0] = 0x60
	binary.BigEndian.PutUint16(b[4:], uint16(len(u)))
	b[6], b[7] = 17, 64
	b[8], b[9], b[23] = 0x20, 0x01, 1 // 2001::1
	b[24], b[25], b[39] = 0x20, 0x01, 2
	return append(b, u...)
}

// Every link type rdx reads gets to the UDP payload with the right offset.
func TestLinkTypes(t *testing.T) {
	v4 := ipv4(17, 1, 0, false, udpTo9([]byte("rx!")))
	v6 := ipv6UDP([]byte("rx!"))
	eth := func(etype uint16, rest []byte) []byte {
		b := make([]byte, 14, 14+len(rest))
		binary.BigEndian.PutUint16(b[12:], etype)
		return append(b, rest...)
	}
	vlan := func(id uint16, etype uint16, rest []byte) []byte {
		b := make([]byte, 4, 4+len(rest))
		binary.BigEndian.PutUint16(b, id)
		binary.BigEndian.PutUint16(b[2:], etype)
		return append(b, rest...)
	}
	sll := func(etype uint16, rest []byte) []byte { // Linux cooked v1, 16 octets
		b := make([]byte, 16, 16+len(rest))
		binary.BigEndian.PutUint16(b[2:], 772)
		binary.BigEndian.PutUint16(b[14:], etype)
		return append(b, rest...)
	}
	sll2 := func(etype uint16, rest []byte) []byte { // Linux cooked v2, 20 octets
		b := make([]byte, 20, 20+len(rest))
		binary.BigEndian.PutUint16(b[0:], etype)
		binary.BigEndian.PutUint16(b[8:], 772)
		return append(b, rest...)
	}
	null := func(family uint32, le bool, rest []byte) []byte {
		b := make([]byte, 4, 4+len(rest))
		if le {
			binary.LittleEndian.PutUint32(b, family)
		} else {
			binary.BigEndian.PutUint32(b, family)
		}
		return append(b, rest...)
	}
	cases := []struct {
		name string
		lt   uint16
		data []byte
		v6   bool
		vlan uint16
	}{
		{"ethernet v4", 1, eth(0x0800, v4), false, 0},
		{"ethernet v6", 1, eth(0x86dd, v6), true, 0},
		{"ethernet vlan", 1, eth(0x8100, vlan(42, 0x0800, v4)), false, 42},
		{"sll v4", 113, sll(0x0800, v4), false, 0},
		{"sll2 v6", 276, sll2(0x86dd, v6), true, 0},
		{"raw 101 v4", 101, v4, false, 0},
		{"raw 101 v6", 101, v6, true, 0},
		{"ipv4 228", 228, v4, false, 0},
		{"ipv6 229", 229, v6, true, 0},
		{"null v4 host order", 0, null(2, true, v4), false, 0},
		{"null v6 host order", 0, null(24, true, v6), true, 0},
		{"loop v4 network order", 108, null(2, false, v4), false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := dissect.NewEngine(dissect.Options{})
			udpSink.got, udpSink.offs = nil, nil
			f := eng.Decode(dissect.Packet{Num: 1, LinkType: c.lt, Data: c.data})
			if len(udpSink.got) != 1 || string(udpSink.got[0]) != "rx!" {
				t.Fatalf("payload %q, findings %+v", udpSink.got, f.Findings)
			}
			if off := udpSink.offs[0]; string(c.data[off:off+3]) != "rx!" {
				t.Errorf("offset %d does not point at the payload", off)
			}
			if f.Net.Src.Is6() != c.v6 || f.Net.DstPort != 9 || f.Net.VLAN != c.vlan {
				t.Errorf("net %+v", f.Net)
			}
		})
	}
	eng := dissect.NewEngine(dissect.Options{})
	f := eng.Decode(dissect.Packet{Num: 1, CapLen: 4, WireLen: 4, LinkType: 9999, Data: []byte{1, 2, 3, 4}})
	if len(f.Findings) != 1 || f.Findings[0].Msg != "link type 9999 is not supported" {
		t.Errorf("unknown link type: %+v", f.Findings)
	}
}

// LINKTYPE_IPOIB (242): tcpdump's test capture; every frame decodes to the
// addresses (and TCP ports) tcpdump's expected output shows, and its ARP
// frames carry EtherType 0x0806.
func TestIPoIB(t *testing.T) {
	got, err := tsharktest.Decode("../pcaps/public/the-tcpdump-group+tcpdump__ipoib.pcap", dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("../pcaps/public/the-tcpdump-group+tcpdump__ipoib.out")
	lines := strings.Split(strings.TrimSpace(string(want)), "\n")
	if len(got) != len(lines) || len(got) == 0 {
		t.Fatalf("%d frames, tcpdump shows %d", len(got), len(lines))
	}
	for i, l := range lines {
		m := got[uint64(i+1)]
		// tcpdump: "N  DATE TIME IP 192.168.56.10 > 192.168.56.24: ICMP ..."
		f := strings.Fields(l)
		one := func(k string) string {
			if len(m[k]) == 0 {
				return ""
			}
			return m[k][0]
		}
		if len(f) > 3 && f[3] == "ARP," {
			if one("ipoib.type") != "0x0806" || one("ip.src") != "" {
				t.Errorf("frame %d: type %s, tcpdump %q", i+1, one("ipoib.type"), l)
			}
			continue
		}
		if len(f) < 8 || f[3] != "IP" {
			t.Fatalf("unexpected tcpdump line %q", l)
		}
		// "A.B.C.D" for ICMP, "A.B.C.D.PORT" for TCP
		src, dst := f[4], strings.TrimSuffix(f[6], ":")
		if one("ip.proto") == "6" {
			src, dst = one("ip.src")+"."+one("tcp.srcport"), one("ip.dst")+"."+one("tcp.dstport")
			if src != f[4] || dst != strings.TrimSuffix(f[6], ":") {
				t.Errorf("frame %d: %s > %s, tcpdump %q", i+1, src, dst, l)
			}
			continue
		}
		if one("ip.src") != src || one("ip.dst") != dst || one("ip.proto") != "1" || one("ipoib.type") != "0x0800" {
			t.Errorf("frame %d: src %s dst %s proto %s type %s; tcpdump %q", i+1, one("ip.src"), one("ip.dst"),
				one("ip.proto"), one("ipoib.type"), l)
		}
	}
}
