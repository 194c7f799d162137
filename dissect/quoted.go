package dissect

import (
	"encoding/binary"
	"net/netip"
)

// Packets quoted in ICMP and ICMPv6 errors (destination unreachable, time
// exceeded, parameter problem, packet too big): the error carries the start
// of the packet that caused it, which tshark decodes like any packet. rdx
// does too: the quoted IP and UDP/TCP headers become PDUs of the frame and a
// UDP payload goes to the udp.port table, with the frame marked "in error"
// (Wireshark's pinfo->flags.in_error_pkt) so that stateful dissectors decode
// the bytes but learn nothing from them: a quoted Rx DATA packet is not a
// retransmission, a quoted RoCE packet does not move PSN tracking.

// InError reports whether the dissectors are decoding a packet quoted in an
// ICMP error: they must not update cross-frame state (sequence tracking,
// call matching, retransmissions, reassembly, statistics) from it.
func (f *Frame) InError() bool { return f.inError }

// IsQuoted reports whether PDU i of the frame belongs to a quoted packet.
// The Info column leaves those out, as tshark's does.
func (f *Frame) IsQuoted(i int) bool { return i >= f.qLo && i < f.qHi }

// quotedHdr is a quoted IP, UDP or TCP header shown as a PDU.
type quotedHdr struct {
	proto *ProtoInfo
	b     []byte // the header octets present
	off   int    // frame offset of b
	// src, dst: the quoted packet's addresses, for the UDP header's
	// udp.stream
	src, dst netip.Addr
}

func (q *quotedHdr) Proto() *ProtoInfo         { return q.proto }
func (q *quotedHdr) Summary(dst []byte) []byte { return dst }

// Tree shows the quoted header with the base layers' fields, so -e ip.src
// lists the outer then the quoted address, as in tshark.
func (q *quotedHdr) Tree(t *Tree, f *Frame) {
	b := q.b
	o := func(k int) int { // frame offset of octet k (-1: not in the frame)
		if q.off < 0 {
			return -1
		}
		return q.off + k
	}
	switch q.proto {
	case PIP:
		if e := f.eng; e != nil {
			e.ip4Tree(t, o(0), b)
		}
	case PIPv6:
		if e := f.eng; e != nil {
			e.ip6Tree(t, o(0), b)
		}
	case PUDP:
		if e := f.eng; e != nil {
			e.udpTree(t, o(0), b, q.src, q.dst, q.src.Is4())
		}
	case PTCP: // RFC 792 quotes only 8 octets: ports and sequence number
		t.Proto(PTCP, o(0), len(b), "")
		t.Uint(fTCPSrcPort, o(0), 2, uint64(binary.BigEndian.Uint16(b)))
		t.Uint(fTCPDstPort, o(2), 2, uint64(binary.BigEndian.Uint16(b[2:])))
		t.Uint(fTCPSeq, o(4), 4, uint64(binary.BigEndian.Uint32(b[4:])))
	}
	f.TreeFindings(t, f.PDUIndex(q))
}

// DissectQuoted decodes the packet quoted in an ICMP error: b holds it from
// its IP header on, at frame offset off (off < 0: not in the frame). The
// quoted IP and transport headers become PDUs; a UDP payload goes to the
// udp.port table (ports and heuristics, decode-as included) with f.Net
// describing the quoted packet and InError set. A TCP payload is not handed
// on: the stream dissectors need the stream, which one quoted segment is
// not. f.Net and f.Proto are restored afterwards. It reports whether a
// protocol took the payload. Quotes do not nest (RFC 1122 3.2.2: no ICMP
// error about an ICMP error), so a second call in the frame does nothing.
func (f *Frame) DissectQuoted(b []byte, off int) bool {
	e := f.eng
	if e == nil || f.inError || f.qHi > 0 || len(b) == 0 {
		return false
	}
	saved, proto := f.Net, f.Proto
	f.inError = true
	f.qLo = len(f.PDUs)
	defer func() {
		f.qHi = len(f.PDUs)
		f.Net, f.Proto, f.inError = saved, proto, false
	}()
	at := func(n int) int {
		if off < 0 {
			return -1
		}
		return off + n
	}
	n := Net{HasIP: true, L3Off: at(0)}
	l4, src, dst, qp, whole := parseQuoted(b)
	if l4 == 0 {
		return false
	}
	ipProto := PIP
	if b[0]>>4 == 6 {
		ipProto = PIPv6
	}
	f.addQuoted(ipProto, b[:l4], at(0))
	n.Src, n.Dst, n.IPProto = src, dst, qp
	if !whole {
		return false // a fragment (not the first, or more follow): no transport header to trust
	}
	rest := b[l4:]
	switch {
	case n.IPProto == IPProtoUDP && len(rest) >= 8:
		f.addQuoted(PUDP, rest[:8], at(l4))
		f.PDUs[len(f.PDUs)-1].(*quotedHdr).src, f.PDUs[len(f.PDUs)-1].(*quotedHdr).dst = n.Src, n.Dst
	case n.IPProto == IPProtoTCP && len(rest) >= 8:
		f.addQuoted(PTCP, rest[:8], at(l4))
		return false
	default:
		return false
	}
	n.HasL4, n.L4Off = true, at(l4)
	n.SrcPort, n.DstPort = binary.BigEndian.Uint16(rest), binary.BigEndian.Uint16(rest[2:])
	payload := rest[8:]
	if len(payload) == 0 {
		return false // RFC 792's 8 octets: nothing above the UDP header (tshark stops here too)
	}
	n.PayloadOff, n.PayloadLen = at(l4+8), len(payload)
	f.Net = n
	return e.ports(e.tUDP, f, payload, n.PayloadOff)
}

// addQuoted adds a quoted header PDU from the engine's pool.
func (f *Frame) addQuoted(p *ProtoInfo, b []byte, off int) {
	q, _ := f.eng.quoted.Get(f)
	*q = quotedHdr{proto: p, b: b, off: off}
	f.AddPDU(q)
}

// parseQuoted reads the IP header a quoted packet starts with: its length
// (0: none usable), addresses and protocol, and whether the transport
// header follows it (whole: not a fragment). IPv6 extension headers are not
// walked: only UDP/TCP right after the header. DissectQuoted and the -j
// reader's NumberStreams both use it, so they agree on what is quoted.
func parseQuoted(b []byte) (hl int, src, dst netip.Addr, proto uint8, whole bool) {
	if len(b) == 0 {
		return 0, src, dst, 0, false
	}
	switch b[0] >> 4 {
	case 4:
		hl = int(b[0]&15) * 4
		if hl < 20 || len(b) < hl {
			return 0, src, dst, 0, false
		}
		return hl, netip.AddrFrom4([4]byte(b[12:16])), netip.AddrFrom4([4]byte(b[16:20])), b[9],
			binary.BigEndian.Uint16(b[6:])&0x3fff == 0
	case 6:
		if len(b) < 40 {
			return 0, src, dst, 0, false
		}
		return 40, netip.AddrFrom16([16]byte(b[8:24])), netip.AddrFrom16([16]byte(b[24:40])), b[6], true
	}
	return 0, src, dst, 0, false
}
