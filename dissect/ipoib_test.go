package dissect_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// IP over InfiniBand in native InfiniBand SENDs (ERF records): the engine
// decodes the IP, UDP, ARP... after the 4-octet IPoIB header, as tshark
// does (frame.protocols erf:infiniband:ethertype:ip:udp), with the IP ends
// as the frame's addresses and the layers after the InfiniBand node in the
// tree; payloads that are not IPoIB, or not at a message's start, stay
// InfiniBand payload.
func TestIPoIBInERF(t *testing.T) {
	const t0 = 1_700_000_000_123_456_789
	udp := testpkt.UDP4(nil, testpkt.Client, testpkt.Server, 49501, 40000, []byte("hello"))
	arp := append([]byte{0, 32, 0x08, 0, 20, 4, 0, 1}, make([]byte, 2*24)...) // RFC 4391 ARP, hardware type 32
	cases := []struct {
		name, chain string
		opcode      uint8
		payload     []byte
		ip          bool
	}{
		{"UD SEND Only, IPv4/UDP", "erf:infiniband:ethertype:ip:udp", 0x64, testpkt.IPoIB(0x0800, udp), true},
		{"RC SEND Only, IPv4/UDP (connected mode)", "erf:infiniband:ethertype:ip:udp", 0x04, testpkt.IPoIB(0x0800, udp), true},
		{"UD SEND Only, ARP", "erf:infiniband:ethertype:arp", 0x64, testpkt.IPoIB(0x0806, arp), false},
		{"reserved octets not zero", "erf:infiniband", 0x64, append([]byte{8, 0, 0, 1}, udp...), false},
		{"EtherType IPoIB does not carry", "erf:infiniband", 0x64, testpkt.IPoIB(0x88cc, udp), false},
		{"RC SEND Middle: not a message's start", "erf:infiniband", 0x01, testpkt.IPoIB(0x0800, udp), false},
		{"RC RDMA WRITE Only: memory, not a packet", "erf:infiniband", 0x0a, append(make([]byte, 16), testpkt.IPoIB(0x0800, udp)...), false},
	}
	eng := dissect.NewEngine(dissect.Options{})
	var tree dissect.Tree
	for i, c := range cases {
		data := testpkt.ERFIB(t0, 1, 5, 7, c.opcode, 0x100+uint32(i), 1, c.payload)
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: t0 / 1000 * 1000, LinkType: dissect.LinkTypeERF, Data: data})
		if got := string(eng.ProtoChain(nil, f)); got != c.chain {
			t.Errorf("%s: frame.protocols %q, want %q", c.name, got, c.chain)
		}
		for _, fd := range f.Findings {
			if fd.Sev >= dissect.Warn {
				t.Errorf("%s: finding %s", c.name, fd.Msg)
			}
		}
		if f.TimeNS != t0 {
			t.Errorf("%s: time %d, want the ERF header's %d", c.name, f.TimeNS, t0)
		}
		n := &f.Net
		if !c.ip {
			if n.HasIP {
				t.Errorf("%s: decoded as IP: %+v", c.name, n)
			}
			continue
		}
		if !n.HasIP || n.Src != netip.AddrFrom4(testpkt.Client) || n.Dst != netip.AddrFrom4(testpkt.Server) ||
			!n.HasL4 || n.SrcPort != 49501 || n.DstPort != 40000 || n.PayloadLen != 5 || string(data[n.PayloadOff:n.PayloadOff+5]) != "hello" {
			t.Errorf("%s: net %+v", c.name, n)
		}
		if f.Link.Kind != dissect.LinkNone {
			t.Errorf("%s: Source and Destination are the LIDs, not the IP ends", c.name)
		}
		eng.BuildTree(&tree, f)
		var order []string
		vals := map[string]string{}
		for j := range tree.Nodes {
			nd := &tree.Nodes[j]
			if nd.F == nil {
				continue
			}
			if nd.F.Type == dissect.TProtocol {
				order = append(order, nd.F.Abbrev)
			}
			vals[nd.F.Abbrev] = string(dissect.AppendField(nil, nd))
		}
		if got := strings.Join(order, " "); got != "frame erf infiniband ip udp" {
			t.Errorf("%s: tree protocols %q", c.name, got)
		}
		if vals["infiniband.rwh.etype"] != "0x0800" || vals["ip.src"] != "192.0.2.1" || vals["udp.srcport"] != "49501" ||
			vals["frame.interface_id"] != "0" || vals["erf.flags.cap"] != "1" || vals["erf.types.type"] != "21" {
			t.Errorf("%s: fields %v", c.name, vals)
		}
	}
}
