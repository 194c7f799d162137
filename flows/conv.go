// Package flows keeps what rdx knows about conversations, as opposed to
// single packets: per-conversation counters (tshark's -z conv,ip|tcp|udp).
// It parses no bytes; the engine hands it addresses, ports and lengths.
package flows

import (
	"net/netip"
	"sort"
	"strconv"
	"time"
)

// Kinds of conversation, by the IP protocol that keys them (0: addresses only).
const (
	IP  uint8 = 0
	TCP uint8 = 6
	UDP uint8 = 17
)

// MaxConversations bounds the table; later conversations are not counted.
const MaxConversations = 1 << 16

type key struct {
	proto uint8
	a, b  netip.AddrPort
}

type stat struct {
	pkts, bytes [2]uint64 // [0]: a to b
	first, last int64
	frame0, frN uint64
}

// Conversations counts packets and bytes each way between two endpoints.
// The zero value is ready; it is not safe for concurrent use.
type Conversations struct {
	m map[key]*stat
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
	if c.m == nil {
		c.m = map[key]*stat{}
	}
	c.add(key{a: netip.AddrPortFrom(p.Src, 0), b: netip.AddrPortFrom(p.Dst, 0)}, p)
	if p.HasPorts && (p.Proto == TCP || p.Proto == UDP) {
		c.add(key{proto: p.Proto, a: netip.AddrPortFrom(p.Src, p.SrcPort), b: netip.AddrPortFrom(p.Dst, p.DstPort)}, p)
	}
}

func (c *Conversations) add(k key, p *Packet) {
	dir := 0
	if k.b.Compare(k.a) < 0 {
		k.a, k.b, dir = k.b, k.a, 1
	}
	s := c.m[k]
	if s == nil {
		if len(c.m) >= MaxConversations {
			return
		}
		s = &stat{first: p.TimeNS, frame0: p.Frame}
		c.m[k] = s
	}
	s.pkts[dir]++
	s.bytes[dir] += uint64(p.WireLen)
	s.last, s.frN = p.TimeNS, p.Frame
}

// Reset forgets every conversation (a second pass counts again).
func (c *Conversations) Reset() { clear(c.m) }

// Header names the columns of Rows.
var Header = []string{"A", "B", "Packets A→B", "Bytes A→B", "Packets B→A", "Bytes B→A", "Frames", "Duration"}

// Rows lists the conversations of one kind, most bytes first.
func (c *Conversations) Rows(kind uint8) [][]string {
	var keys []key
	for k := range c.m {
		if k.proto == kind {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.m[keys[i]], c.m[keys[j]]
		return a.bytes[0]+a.bytes[1] > b.bytes[0]+b.bytes[1]
	})
	ep := func(a netip.AddrPort) string {
		if kind == IP {
			return a.Addr().String()
		}
		return a.String()
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	var rows [][]string
	for _, k := range keys {
		s := c.m[k]
		rows = append(rows, []string{ep(k.a), ep(k.b), u(s.pkts[0]), u(s.bytes[0]), u(s.pkts[1]), u(s.bytes[1]),
			u(s.frame0) + "-" + u(s.frN), time.Duration(s.last - s.first).Round(time.Microsecond).String()})
	}
	return rows
}
