// Package flows keeps what rdx knows about conversations, as opposed to
// single packets: per-conversation counters (tshark's -z conv,ip|tcp|udp,
// and rdx's own kinds above the transport: InfiniBand QPs, RDP connections,
// Rx connections, RDS paths), the one request/response matcher the RPC
// protocols share (Matcher), the response-time tables (SRT) and the table
// type behind -z, rdx stats and rdx flows. It parses no bytes and imports no
// dissector: the engine and the dissectors hand it addresses, ids and
// lengths.
package flows

import (
	"net/netip"
	"sort"
	"strconv"
)

// Kinds of conversation. IP, TCP and UDP are keyed by the IP protocol
// number (0: addresses only); the kinds above the transport use numbers no
// IP protocol that rdx counts uses.
const (
	IP  uint8 = 0
	TCP uint8 = 6
	UDP uint8 = 17
	IB  uint8 = 0xF1 // InfiniBand/RoCE: (address, QP) pairs
	RDP uint8 = 0xF2 // RDP connections: RDP port pairs
	Rx  uint8 = 0xF3 // Rx connections: epoch and connection ID
	RDS uint8 = 0xF4 // RDS paths: the TCP connection carrying them
	Eth uint8 = 0xF0 // Ethernet: MAC address pairs (MACEndpoint), counted only when a table asks
)

// kinds names each kind's -z table (conv,NAME) and what it counts.
// fam keeps IPv4 (4) or IPv6 (6) rows only, as tshark's conv,ip and
// conv,ipv6; 0 keeps both.
var kinds = []struct {
	kind        uint8
	fam         uint8
	name, title string
}{
	{Eth, 0, "eth", "Conversations (eth)"},
	{IP, 4, "ip", "Conversations (ip)"},
	{IP, 6, "ipv6", "Conversations (ipv6)"},
	{TCP, 0, "tcp", "Conversations (tcp)"},
	{UDP, 0, "udp", "Conversations (udp)"},
	{IB, 0, "ib", "Conversations (ib: InfiniBand QPs, packets)"},
	{RDP, 0, "rdp", "Conversations (rdp: RDP connections, segments)"},
	{Rx, 0, "rx", "Conversations (rx: Rx connections, datagrams)"},
	{RDS, 0, "rds", "Conversations (rds: RDS paths over TCP, messages and message octets)"},
}

// MaxConversations bounds the table (all kinds together); later
// conversations are not counted.
const MaxConversations = 1 << 16

// NoQP marks an InfiniBand endpoint whose QP the packet does not carry (the
// source QP of a connected transport: only datagram packets carry it, in
// the DETH).
const NoQP = 1 << 24

// Endpoint is one side of a conversation above IP: an address and port, or
// for InfiniBand an address (GID, IP, or LID as 0.0.x.y) and a QP (NoQP:
// not known).
type Endpoint struct {
	Addr netip.AddrPort
	QP   uint32
}

// MACEndpoint is the endpoint of an Ethernet conversation: the MAC address
// in the last six octets of an IPv6 address (one key type for every kind).
func MACEndpoint(mac []byte) Endpoint {
	var a [16]byte
	copy(a[10:], mac[:6])
	return Endpoint{Addr: netip.AddrPortFrom(netip.AddrFrom16(a), 0)}
}

// mac formats a MACEndpoint's address as tshark does (aa:bb:cc:dd:ee:ff).
func mac(a netip.Addr) string {
	const hexd = "0123456789abcdef"
	b := a.As16()
	out := make([]byte, 0, 17)
	for i, x := range b[10:] {
		if i > 0 {
			out = append(out, ':')
		}
		out = append(out, hexd[x>>4], hexd[x&15])
	}
	return string(out)
}

// fits reports whether a conversation's address a is of family fam (4,
// 6, or 0: either).
func fits(a netip.Addr, fam uint8) bool {
	switch fam {
	case 4:
		return a.Unmap().Is4()
	case 6:
		return !a.Unmap().Is4()
	}
	return true
}

type key struct {
	kind uint8
	a, b Endpoint
	conn uint64 // tells apart conversations between the same endpoints (Rx: epoch<<32 | CID)
}

type unit struct {
	k     key
	n     int
	t     int64
	frame uint64
}

type stat struct {
	pkts, bytes [2]uint64 // [0]: a to b
	first, last int64
	frame0, frN uint64
	sub         uint32 // conversations first seen in frame0 before this one: with frame0, the order they were met
}

// Conversations counts packets and bytes each way between two endpoints.
// The zero value is ready; it is not safe for concurrent use.
type Conversations struct {
	m map[key]*stat
	// Logging keeps what the current frame counted (StartFrame clears it)
	// for the -z conv tables with a FILTER, which count a frame's units
	// once the filter has seen its tree (CountLogged). It grows to the most
	// units one frame carries, not with the input.
	Logging bool
	log     []unit
	// The frame that last began a conversation and how many it began: which
	// conversations a full table keeps depends on the order they were met,
	// and Merge must keep the same ones.
	order orderCounter
}

// Packet is what a conversation counts of one frame.
type Packet struct {
	Src, Dst         netip.Addr
	Proto            uint8 // IP protocol; TCP and UDP also count per port pair
	HasPorts         bool
	SrcPort, DstPort uint16
	WireLen          int
	TimeNS           int64
	Frame            uint64
}

// Count adds p to its IP conversation and, for TCP and UDP, to its port pair.
func (c *Conversations) Count(p *Packet) {
	c.add(key{a: Endpoint{Addr: netip.AddrPortFrom(p.Src, 0)}, b: Endpoint{Addr: netip.AddrPortFrom(p.Dst, 0)}},
		p.WireLen, p.TimeNS, p.Frame)
	if p.HasPorts && (p.Proto == TCP || p.Proto == UDP) {
		c.add(key{kind: p.Proto, a: Endpoint{Addr: netip.AddrPortFrom(p.Src, p.SrcPort)},
			b: Endpoint{Addr: netip.AddrPortFrom(p.Dst, p.DstPort)}}, p.WireLen, p.TimeNS, p.Frame)
	}
}

// Between counts one unit of a conversation of kind (an IB packet, an RDP
// segment, an Rx datagram, an RDS message) of n octets sent from src to dst
// in frame at timeNS; conn tells apart conversations between the same
// endpoints (0 if none).
func (c *Conversations) Between(kind uint8, src, dst Endpoint, conn uint64, n int, timeNS int64, frame uint64) {
	c.add(key{kind: kind, a: src, b: dst, conn: conn}, n, timeNS, frame)
}

// StartFrame forgets the units the previous frame counted (Logging).
func (c *Conversations) StartFrame() { c.log = c.log[:0] }

// CountLogged counts in c what from counted in its current frame
// (from.Logging must be set).
func (c *Conversations) CountLogged(from *Conversations) {
	for i := range from.log {
		u := &from.log[i]
		c.add(u.k, u.n, u.t, u.frame)
	}
}

func (c *Conversations) add(k key, n int, timeNS int64, frame uint64) {
	if c.Logging {
		c.log = append(c.log, unit{k, n, timeNS, frame})
	}
	if c.m == nil {
		c.m = map[key]*stat{}
	}
	dir := 0
	if d := k.b.Addr.Compare(k.a.Addr); d < 0 || d == 0 && k.b.QP < k.a.QP {
		k.a, k.b, dir = k.b, k.a, 1
	}
	s := c.m[k]
	if s == nil {
		if len(c.m) >= MaxConversations {
			return
		}
		s = &stat{first: timeNS, frame0: frame, sub: c.order.next(frame).Sub}
		c.m[k] = s
	}
	s.pkts[dir]++
	s.bytes[dir] += uint64(n)
	s.last, s.frN = timeNS, frame
}

func (k key) less(o key) bool {
	if c := k.a.Addr.Compare(o.a.Addr); c != 0 {
		return c < 0
	}
	if c := k.b.Addr.Compare(o.b.Addr); c != 0 {
		return c < 0
	}
	if k.a.QP != o.a.QP {
		return k.a.QP < o.a.QP
	}
	if k.b.QP != o.b.QP {
		return k.b.QP < o.b.QP
	}
	return k.conn < o.conn
}

// Reset forgets every conversation (a second pass counts again).
func (c *Conversations) Reset() {
	clear(c.m)
	c.order = orderCounter{}
}

// Header names the columns of Rows.
var Header = []string{"A", "B", "Packets A→B", "Bytes A→B", "Packets B→A", "Bytes B→A", "Frames", "Duration"}

// Rows lists the conversations of one kind, most bytes first, then first
// seen first, then by endpoints: the same input gives the same order (it
// did not when only bytes were compared). Rx rows start with the connection
// (epoch and ID).
func (c *Conversations) Rows(kind uint8) [][]string { return c.rows(kind, 0) }

func (c *Conversations) rows(kind, fam uint8) [][]string {
	var keys []key
	for k := range c.m {
		if k.kind == kind && fits(k.a.Addr.Addr(), fam) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.m[keys[i]], c.m[keys[j]]
		if x, y := a.bytes[0]+a.bytes[1], b.bytes[0]+b.bytes[1]; x != y {
			return x > y
		}
		if a.frame0 != b.frame0 {
			return a.frame0 < b.frame0
		}
		return keys[i].less(keys[j])
	})
	ep := func(e Endpoint) string {
		switch kind {
		case Eth:
			return mac(e.Addr.Addr())
		case IP:
			return e.Addr.Addr().String()
		case IB:
			s := e.Addr.Addr().Unmap().String()
			if e.QP != NoQP {
				s += " QP 0x" + hex6(e.QP)
			}
			return s
		}
		return e.Addr.String()
	}
	var rows [][]string
	for _, k := range keys {
		s := c.m[k]
		row := []string{ep(k.a), ep(k.b), U(s.pkts[0]), U(s.bytes[0]), U(s.pkts[1]), U(s.bytes[1]),
			U(s.frame0) + "-" + U(s.frN), Dur(s.last - s.first)}
		if kind == Rx {
			row = append([]string{"epoch 0x" + hex8(uint32(k.conn>>32)) + " cid 0x" + hex8(uint32(k.conn))}, row...)
		}
		rows = append(rows, row)
	}
	return rows
}

// ConvNames lists the -z names of the conversation tables.
func ConvNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = "conv," + k.name
	}
	return out
}

// IsConv reports whether name is a conversation table of this package.
func IsConv(name string) bool {
	for _, k := range kinds {
		if name == "conv,"+k.name {
			return true
		}
	}
	return false
}

// Table builds the -z table of a conversation kind by name ("conv,ib"),
// nil if name is none.
func (c *Conversations) Table(name string) *Table {
	for _, k := range kinds {
		if name == "conv,"+k.name {
			t := &Table{Title: k.title, Header: Header, Rows: c.rows(k.kind, k.fam), FrameCols: []int{6}}
			if k.kind == Rx {
				t.Header = append([]string{"Connection"}, Header...)
				t.FrameCols[0]++
			}
			return t
		}
	}
	return nil
}

func hex6(v uint32) string { return pad(strconv.FormatUint(uint64(v), 16), 6) }
func hex8(v uint32) string { return pad(strconv.FormatUint(uint64(v), 16), 8) }

func pad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// EndpointNames lists the -z endpoints tables: tshark's eth, ip, ipv6, tcp
// and udp, and rdx's ib (InfiniBand address and QP).
var EndpointNames = []string{"endpoints,eth", "endpoints,ip", "endpoints,ipv6", "endpoints,tcp", "endpoints,udp", "endpoints,ib"}

// Endpoints builds the -z endpoints table named name ("endpoints,ip"),
// nil if name is none: per endpoint of the conversations of the kind, the
// packets and bytes it sent and received, most bytes first. It is made
// from the conversation table, so it shares its limit (MaxConversations)
// and merges with it.
func (c *Conversations) Endpoints(name string) *Table {
	var kind uint8
	want := func(a netip.Addr) bool { return a.Unmap().Is4() }
	title := "IPv4 endpoints"
	switch name {
	case "endpoints,eth":
		kind, want, title = Eth, func(netip.Addr) bool { return true }, "Ethernet endpoints"
	case "endpoints,ip":
	case "endpoints,ipv6":
		want, title = func(a netip.Addr) bool { return !a.Unmap().Is4() }, "IPv6 endpoints"
	case "endpoints,tcp":
		kind, title = TCP, "TCP endpoints"
	case "endpoints,udp":
		kind, title = UDP, "UDP endpoints"
	case "endpoints,ib":
		kind, want, title = IB, func(netip.Addr) bool { return true }, "InfiniBand endpoints (address and QP)"
	default:
		return nil
	}
	type ep struct {
		pkts, bytes [2]uint64 // [0] sent, [1] received
		frame0      uint64
	}
	m := map[Endpoint]*ep{}
	get := func(e Endpoint, frame0 uint64) *ep {
		x := m[e]
		if x == nil {
			x = &ep{frame0: frame0}
			m[e] = x
		}
		x.frame0 = min(x.frame0, frame0)
		return x
	}
	for k, s := range c.m {
		if k.kind != kind || !want(k.a.Addr.Addr()) {
			continue
		}
		a, b := get(k.a, s.frame0), get(k.b, s.frame0)
		a.pkts[0] += s.pkts[0]
		a.bytes[0] += s.bytes[0]
		b.pkts[1] += s.pkts[0]
		b.bytes[1] += s.bytes[0]
		b.pkts[0] += s.pkts[1]
		b.bytes[0] += s.bytes[1]
		a.pkts[1] += s.pkts[1]
		a.bytes[1] += s.bytes[1]
	}
	keys := make([]Endpoint, 0, len(m))
	for e := range m {
		keys = append(keys, e)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := m[keys[i]], m[keys[j]]
		if x, y := a.bytes[0]+a.bytes[1], b.bytes[0]+b.bytes[1]; x != y {
			return x > y
		}
		if c := keys[i].Addr.Compare(keys[j].Addr); c != 0 {
			return c < 0
		}
		return keys[i].QP < keys[j].QP
	})
	t := &Table{Title: title, Header: []string{"Address", "Packets", "Bytes", "Tx Packets", "Tx Bytes", "Rx Packets", "Rx Bytes"}}
	if kind == TCP || kind == UDP {
		t.Header = append([]string{"Address", "Port"}, t.Header[1:]...)
	}
	for _, e := range keys {
		x := m[e]
		row := []string{e.Addr.Addr().Unmap().String()}
		switch kind {
		case Eth:
			row[0] = mac(e.Addr.Addr())
		case TCP, UDP:
			row = append(row, strconv.Itoa(int(e.Addr.Port())))
		case IB:
			if e.QP != NoQP {
				row[0] += " QP 0x" + hex6(e.QP)
			}
		}
		row = append(row, U(x.pkts[0]+x.pkts[1]), U(x.bytes[0]+x.bytes[1]), U(x.pkts[0]), U(x.bytes[0]), U(x.pkts[1]), U(x.bytes[1]))
		t.Rows = append(t.Rows, row)
	}
	return t
}
