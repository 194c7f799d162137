package dissect

import (
	"encoding/binary"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Whole-capture conversation numbers under -j (tcp.stream, udp.stream).
// Each number is the conversation's index in order of first frame over the
// whole capture, but a -j worker sees only the flows hashed to it. So the
// reading goroutine, which sees every frame in order, keeps an engine of
// its own that only numbers: NumberStreams runs the same header decoding,
// TCP direction table (tcpRelative: a new SYN with another ISN starts a new
// stream), IPv4 reassembly and udp.stream table as Decode and BuildTree,
// and puts the numbers in the Packet; the worker's engine shows those
// instead of its own. No rule is written twice: only which frames reach
// the UDP numbering is mirrored here (the frame's UDP header, the UDP
// header of a datagram its fragment completes, the UDP header an ICMP
// error quotes), next to where the tree reaches it (BaseTree, quotedHdr).
//
// Not mirrored, so numbered by the worker alone (-j 1 may differ): an ICMP
// error behind IPv6 extension headers other than hop-by-hop, and a
// decode-as rule (-d) that moves ip.proto 1 or 58 away from ICMP.
// The reader's tables have the limits of an engine's (maxTCPHalves,
// maxUDPStreams, maxDefrag) and its own whole budget, so past them the
// numbers follow the reader's evictions, not a worker's.

// NumberStreams sets pkt.Streams: the frame's tcp.stream and udp.stream
// in this engine's numbering, which must see every frame of the pass in
// order (Rewind starts a pass over). The engine dissects nothing above
// TCP and UDP, so it costs a header decode and a table lookup or two.
func (e *Engine) NumberStreams(pkt *Packet) {
	pkt.Streams = StreamNumbers{Given: true}
	if pkt.CapLen == 0 && pkt.WireLen == 0 {
		pkt.CapLen, pkt.WireLen = len(pkt.Data), len(pkt.Data)
	}
	f := &e.frame
	f.reset()
	e.frames++
	f.seq = e.frames
	e.budget.Tick(e.frames)
	f.Num, f.TimeNS, f.CapLen, f.WireLen, f.LinkType, f.Iface, f.Data, f.Pass = pkt.Num, pkt.TimeNS, pkt.CapLen, pkt.WireLen, pkt.LinkType, pkt.Iface, pkt.Data, pkt.Pass
	e.types, e.lazy, e.linkOff = e.types[:0], false, 0
	e.n6ext, e.hbhLen = 0, 0
	e.given = StreamNumbers{}
	e.inFrame = true
	defer e.recoverFrame(f) // a decoder panic, as in Decode
	e.numberStreams(f, pkt)
	e.endFrame() // the budget, as in Decode
}

// numberStreams is NumberStreams after the frame is set up.
func (e *Engine) numberStreams(f *Frame, pkt *Packet) {
	if i := e.tLink.dense[pkt.LinkType]; i != 0 {
		if !e.linkEther(f, e.tLink.ents[i-1].d, pkt.LinkType, pkt.Data) {
			return // a link dissector's frame has no TCP or UDP layer, unless it hands one on (IPoIB)
		}
	} else if !e.netHeaders(f, pkt.LinkType, pkt.Data) {
		return
	}
	n := &f.Net
	s := &pkt.Streams
	s.TCP = n.TCPStream
	last := gopacket.LayerTypeZero
	if len(e.types) > 0 {
		last = e.types[len(e.types)-1]
	}
	// The cases of dispatch that lead to a UDP header in the tree.
	switch {
	case last == layers.LayerTypeUDP:
		e.numberUDP(s, n.Src, n.Dst, n.SrcPort, n.DstPort) // e.udp is not decoded on the fast path (fastUDP4)
	case n.Fragment && n.IPProto != IPProtoTCP && last == layers.LayerTypeIPv4:
		payload, _ := e.reassemble(f)
		switch {
		case payload == nil:
		case n.IPProto == IPProtoUDP && len(payload) >= 8: // fragment's f.reasmUDP
			e.numberUDP(s, n.Src, n.Dst, binary.BigEndian.Uint16(payload), binary.BigEndian.Uint16(payload[2:]))
		case (n.IPProto == ipProtoICMP || n.IPProto == ipProtoICMPv6) && e.tIP.dense[n.IPProto] != 0:
			e.numberQuoted(s, n.IPProto == ipProtoICMPv6, payload)
		}
	case n.HasIP && !n.HasL4 && (n.IPProto == ipProtoICMP || n.IPProto == ipProtoICMPv6) && e.tIP.dense[n.IPProto] != 0 && !n.Fragment:
		var payload []byte
		switch last {
		case layers.LayerTypeIPv4:
			payload = e.ip4.Payload
		case layers.LayerTypeIPv6:
			payload = e.ip6.Payload
		default:
			return
		}
		e.numberQuoted(s, n.IPProto == ipProtoICMPv6, payload)
	}
}

// ICMP's IP protocol numbers (the icmp package registers its dissector
// under them; dissect cannot import it).
const (
	ipProtoICMP   = 1
	ipProtoICMPv6 = 58
)

// numberQuoted numbers the UDP header an ICMP error quotes, as icmp's
// Dissect (isError) and DissectQuoted reach it.
func (e *Engine) numberQuoted(s *StreamNumbers, v6 bool, msg []byte) {
	const hdr = 8 // the ICMP header before the quoted packet
	if len(msg) <= hdr {
		return
	}
	typ := msg[0]
	if v6 && (typ < 1 || typ > 4) || !v6 && typ != 3 && typ != 4 && typ != 5 && typ != 11 && typ != 12 {
		return
	}
	b := msg[hdr:]
	l4, src, dst, proto, whole := parseQuoted(b)
	if l4 == 0 || !whole || proto != IPProtoUDP || len(b)-l4 < 8 {
		return
	}
	e.numberUDP(s, src, dst, binary.BigEndian.Uint16(b[l4:]), binary.BigEndian.Uint16(b[l4+2:]))
}

func (e *Engine) numberUDP(s *StreamNumbers, src, dst netip.Addr, sp, dp uint16) {
	s.UDP, s.UDPFull = e.udpStreamIndex(netip.AddrPortFrom(src, sp), netip.AddrPortFrom(dst, dp))
	s.HasUDP = true
}
