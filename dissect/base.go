package dissect

import (
	"strconv"

	"github.com/gopacket/gopacket/layers"
)

// The frame, link, IP and transport layers: fields with Wireshark's names.
// As in Wireshark, the traffic class and VLAN priority are masks of the
// word they sit in (the IPv6 first word, the 802.1Q TCI), so their type
// and -T fields width are the word's.
const (
	ip6TClassMask = 0x0ff00000
	vlanPrioMask  = 0xe000
)

var (
	PFrame = RegisterProto("frame", "Frame", "")
	pEth   = RegisterProto("eth", "Ethernet II", "")
	pVLAN  = RegisterProto("vlan", "802.1Q Virtual LAN", "")
	pSLL   = RegisterProto("sll", "Linux cooked capture", "")
	pNull  = RegisterProto("null", "Null/Loopback", "")
	pIPoIB = RegisterProto("ipoib", "IP over InfiniBand", "")
	PIP    = RegisterProto("ip", "Internet Protocol Version 4", "")
	PIPv6  = RegisterProto("ipv6", "Internet Protocol Version 6", "")
	PUDP   = RegisterProto("udp", "User Datagram Protocol", "")
	PTCP   = RegisterProto("tcp", "Transmission Control Protocol", "")

	FFrameNumber = Register(&Field{Abbrev: "frame.number", Name: "Frame Number", Type: TUint32})
	FFrameTime   = Register(&Field{Abbrev: "frame.time", Name: "Arrival Time", Type: TAbsTime})
	FFrameEpoch  = Register(&Field{Abbrev: "frame.time_epoch", Name: "Epoch Time", Type: TRelTime, Desc: "seconds since the Unix epoch"})
	FFrameRel    = Register(&Field{Abbrev: "frame.time_relative", Name: "Time since reference or first frame", Type: TRelTime})
	FFrameDelta  = Register(&Field{Abbrev: "frame.time_delta", Name: "Time delta from previous captured frame", Type: TRelTime})
	FFrameLen    = Register(&Field{Abbrev: "frame.len", Name: "Frame Length", Type: TUint32})
	FFrameCapLen = Register(&Field{Abbrev: "frame.cap_len", Name: "Capture Length", Type: TUint32})
	FFrameIface  = Register(&Field{Abbrev: "frame.interface_id", Name: "Interface id", Type: TUint32})
	FFrameEncap  = Register(&Field{Abbrev: "frame.encap_type", Name: "Encapsulation type", Type: TInt16})
	FFrameProtos = Register(&Field{Abbrev: "frame.protocols", Name: "Protocols in frame", Type: TString})
	fEthDst      = Register(&Field{Abbrev: "eth.dst", Name: "Destination", Type: TEther})
	fEthSrc      = Register(&Field{Abbrev: "eth.src", Name: "Source", Type: TEther})
	fEthType     = Register(&Field{Abbrev: "eth.type", Name: "Type", Type: TUint16, Base: BaseHex})
	fIPoIBDst    = Register(&Field{Abbrev: "ipoib.dst", Name: "Destination hardware address", Type: TBytes})
	fIPoIBSrc    = Register(&Field{Abbrev: "ipoib.src", Name: "Source hardware address", Type: TBytes})
	fIPoIBType   = Register(&Field{Abbrev: "ipoib.type", Name: "Type", Type: TUint16, Base: BaseHex})
	fVLANID      = Register(&Field{Abbrev: "vlan.id", Name: "ID", Type: TUint16})
	fVLANPrio    = Register(&Field{Abbrev: "vlan.priority", Name: "Priority", Type: TUint16, Mask: vlanPrioMask})
	fVLANType    = Register(&Field{Abbrev: "vlan.etype", Name: "Type", Type: TUint16, Base: BaseHex})
	fSLLPkttype  = Register(&Field{Abbrev: "sll.pkttype", Name: "Packet type", Type: TUint16})
	fSLLEtype    = Register(&Field{Abbrev: "sll.etype", Name: "Protocol", Type: TUint16, Base: BaseHex})
	fNullFamily  = Register(&Field{Abbrev: "null.family", Name: "Family", Type: TUint32})
	fIPVersion   = Register(&Field{Abbrev: "ip.version", Name: "Version", Type: TUint8})
	fIPHdrLen    = Register(&Field{Abbrev: "ip.hdr_len", Name: "Header Length", Type: TUint8})
	fIPDSField   = Register(&Field{Abbrev: "ip.dsfield", Name: "Differentiated Services Field", Type: TUint8, Base: BaseHex})
	fIPLen       = Register(&Field{Abbrev: "ip.len", Name: "Total Length", Type: TUint16})
	fIPID        = Register(&Field{Abbrev: "ip.id", Name: "Identification", Type: TUint16, Base: BaseHexDec})
	fIPFlags     = Register(&Field{Abbrev: "ip.flags", Name: "Flags", Type: TUint8, Base: BaseHex})
	fIPFragOff   = Register(&Field{Abbrev: "ip.frag_offset", Name: "Fragment Offset", Type: TUint16})
	fIPTTL       = Register(&Field{Abbrev: "ip.ttl", Name: "Time to Live", Type: TUint8})
	fIPProto     = Register(&Field{Abbrev: "ip.proto", Name: "Protocol", Type: TUint8, Names: ipProtoNames})
	fIPChecksum  = Register(&Field{Abbrev: "ip.checksum", Name: "Header Checksum", Type: TUint16, Base: BaseHex})
	fIPSrc       = Register(&Field{Abbrev: "ip.src", Name: "Source Address", Type: TIPv4})
	fIPDst       = Register(&Field{Abbrev: "ip.dst", Name: "Destination Address", Type: TIPv4})
	fIP6Plen     = Register(&Field{Abbrev: "ipv6.plen", Name: "Payload Length", Type: TUint16})
	fIP6Nxt      = Register(&Field{Abbrev: "ipv6.nxt", Name: "Next Header", Type: TUint8, Names: ipProtoNames})
	fIP6Hlim     = Register(&Field{Abbrev: "ipv6.hlim", Name: "Hop Limit", Type: TUint8})
	fIP6Flow     = Register(&Field{Abbrev: "ipv6.flow", Name: "Flow Label", Type: TUint24, Base: BaseHex})
	fIP6TClass   = Register(&Field{Abbrev: "ipv6.tclass", Name: "Traffic Class", Type: TUint32, Base: BaseHex, Mask: ip6TClassMask})
	fIP6Src      = Register(&Field{Abbrev: "ipv6.src", Name: "Source Address", Type: TIPv6})
	fIP6Dst      = Register(&Field{Abbrev: "ipv6.dst", Name: "Destination Address", Type: TIPv6})
	fUDPSrcPort  = Register(&Field{Abbrev: "udp.srcport", Name: "Source Port", Type: TUint16})
	fUDPDstPort  = Register(&Field{Abbrev: "udp.dstport", Name: "Destination Port", Type: TUint16})
	fUDPLength   = Register(&Field{Abbrev: "udp.length", Name: "Length", Type: TUint16})
	fUDPChecksum = Register(&Field{Abbrev: "udp.checksum", Name: "Checksum", Type: TUint16, Base: BaseHex})
	fTCPSrcPort  = Register(&Field{Abbrev: "tcp.srcport", Name: "Source Port", Type: TUint16})
	fTCPDstPort  = Register(&Field{Abbrev: "tcp.dstport", Name: "Destination Port", Type: TUint16})
	fTCPSeq      = Register(&Field{Abbrev: "tcp.seq_raw", Name: "Sequence Number (raw)", Type: TUint32})
	fTCPAck      = Register(&Field{Abbrev: "tcp.ack_raw", Name: "Acknowledgment number (raw)", Type: TUint32})
	fTCPRelSeq   = Register(&Field{Abbrev: "tcp.seq", Name: "Sequence Number", Type: TUint32, Desc: "relative to the direction's start, as tshark shows it"})
	fTCPRelAck   = Register(&Field{Abbrev: "tcp.ack", Name: "Acknowledgment Number", Type: TUint32, Desc: "relative to the peer's start"})
	fTCPHdrLen   = Register(&Field{Abbrev: "tcp.hdr_len", Name: "Header Length", Type: TUint8})
	fTCPFlags    = Register(&Field{Abbrev: "tcp.flags", Name: "Flags", Type: TUint16, Base: BaseHex})
	fTCPWindow   = Register(&Field{Abbrev: "tcp.window_size_value", Name: "Window", Type: TUint16})
	fTCPChecksum = Register(&Field{Abbrev: "tcp.checksum", Name: "Checksum", Type: TUint16, Base: BaseHex})
	fTCPLen      = Register(&Field{Abbrev: "tcp.len", Name: "TCP Segment Len", Type: TUint32})

	// tshark's SEQ/ACK analysis (tcpseq.go): label fields, present when set.
	fTCPAnalysis      = Register(&Field{Abbrev: "tcp.analysis", Name: "SEQ/ACK analysis", Type: TNone})
	fTCPAnFlags       = Register(&Field{Abbrev: "tcp.analysis.flags", Name: "TCP Analysis Flags", Type: TNone})
	fTCPAnRetrans     = Register(&Field{Abbrev: "tcp.analysis.retransmission", Name: "Retransmission", Type: TNone, Desc: "the segment repeats sequence numbers already seen (also set for fast and spurious ones)"})
	fTCPAnFastRetrans = Register(&Field{Abbrev: "tcp.analysis.fast_retransmission", Name: "Fast Retransmission", Type: TNone, Desc: "a retransmission of what the peer duplicate-ACKed twice or more, within 20 ms of its last ACK"})
	fTCPAnSpurious    = Register(&Field{Abbrev: "tcp.analysis.spurious_retransmission", Name: "Spurious Retransmission", Type: TNone, Desc: "a retransmission of data the peer has already acknowledged"})
	fTCPAnOOO         = Register(&Field{Abbrev: "tcp.analysis.out_of_order", Name: "Out-Of-Order segment", Type: TNone, Desc: "below the highest sequence seen, within the handshake RTT (3 ms if unknown) of it"})
	fTCPAnLost        = Register(&Field{Abbrev: "tcp.analysis.lost_segment", Name: "Previous segment(s) not captured", Type: TNone, Desc: "the segment starts after the highest sequence seen"})
	fTCPAnDupAck      = Register(&Field{Abbrev: "tcp.analysis.duplicate_ack", Name: "Duplicate ACK", Type: TNone, Desc: "no data, same window, same ACK as the previous segment"})
	fTCPAnDupAckNum   = Register(&Field{Abbrev: "tcp.analysis.duplicate_ack_num", Name: "Duplicate ACK #", Type: TUint32})
	fTCPAnDupAckFrame = Register(&Field{Abbrev: "tcp.analysis.duplicate_ack_frame", Name: "Duplicate to the ACK in frame", Type: TFrameNum})
	fTCPAnKeepAlive   = Register(&Field{Abbrev: "tcp.analysis.keep_alive", Name: "Keep-Alive", Type: TNone, Desc: "zero or one octet one below the next expected sequence number"})
)

// ip6ExtNames names IPv6 extension headers in frame.protocols, as tshark does.
var ip6ExtNames = map[uint8]string{0: "ipv6.hopopts", 43: "ipv6.routing", 60: "ipv6.dstopts"}

var ipProtoNames = map[uint64]string{1: "ICMP", 6: "TCP", 17: "UDP", 27: "RDP", 58: "ICMPv6"}

// BaseTree adds the frame, link, IP and transport nodes of the engine's current
// frame to t. It must be called before the next Decode.
func (e *Engine) BaseTree(t *Tree, f *Frame, protocols string) {
	label := ""
	if t.Labels() {
		label = frameLabel(f)
	}
	t.Proto(PFrame, 0, f.CapLen, label)
	t.Uint(FFrameEncap, -1, 0, uint64(f.LinkType))
	t.Uint(FFrameTime, -1, 0, uint64(f.TimeNS))
	t.Int(FFrameEpoch, -1, 0, f.TimeNS)
	t.Int(FFrameDelta, -1, 0, f.TimeNS-e.prevTime)
	t.Int(FFrameRel, -1, 0, f.TimeNS-e.firstTime)
	t.Uint(FFrameNumber, -1, 0, f.Num)
	t.Uint(FFrameLen, -1, 0, uint64(f.WireLen))
	t.Uint(FFrameCapLen, -1, 0, uint64(f.CapLen))
	if f.Iface != 0 {
		t.Uint(FFrameIface, -1, 0, uint64(f.Iface))
	}
	t.String(FFrameProtos, -1, 0, protocols)
	for i := range f.Findings { // about the record itself: under Frame, as in tshark
		if f.Findings[i].PDU < 0 && f.Findings[i].Proto == "frame" {
			t.Finding(&f.Findings[i])
		}
	}
	off := 0
	if f.LinkType == LinkTypeIPoIB && len(f.Data) >= ipoibLen {
		t.Proto(pIPoIB, 0, ipoibLen, "")
		t.Bytes(fIPoIBDst, 0, 20, f.Data[0:20])
		t.Bytes(fIPoIBSrc, 20, 20, f.Data[20:40])
		t.Uint(fIPoIBType, 40, 2, uint64(f.Net.EtherType))
		off = ipoibLen
	}
	for _, lt := range e.types {
		switch lt {
		case layers.LayerTypeEthernet:
			t.Proto(pEth, off, 14, "")
			t.Bytes(fEthDst, off, 6, e.eth.DstMAC)
			t.Bytes(fEthSrc, off+6, 6, e.eth.SrcMAC)
			t.Uint(fEthType, off+12, 2, uint64(e.eth.EthernetType))
			off += len(e.eth.Contents)
		case layers.LayerTypeDot1Q:
			t.Proto(pVLAN, off, 4, "")
			t.Uint(fVLANPrio, off, 1, uint64(e.dot1q.Priority)<<13)
			t.Uint(fVLANID, off, 2, uint64(e.dot1q.VLANIdentifier))
			t.Uint(fVLANType, off+2, 2, uint64(e.dot1q.Type))
			off += len(e.dot1q.Contents)
		case layers.LayerTypeLinuxSLL:
			t.Proto(pSLL, off, len(e.sll.Contents), "")
			t.Uint(fSLLPkttype, off, 2, uint64(e.sll.PacketType))
			t.Uint(fSLLEtype, off+14, 2, uint64(e.sll.EthernetType))
			off += len(e.sll.Contents)
		case layers.LayerTypeLinuxSLL2:
			t.Proto(pSLL, off, len(e.sll2.Contents), "")
			t.Uint(fSLLEtype, off, 2, uint64(e.sll2.ProtocolType))
			t.Uint(fSLLPkttype, off+10, 1, uint64(e.sll2.PacketType))
			off += len(e.sll2.Contents)
		case layers.LayerTypeLoopback:
			t.Proto(pNull, off, 4, "")
			t.Uint(fNullFamily, off, 4, uint64(e.loop.Family))
			off += len(e.loop.Contents)
		case layers.LayerTypeIPv4:
			ip := &e.ip4
			t.Proto(PIP, off, len(ip.Contents), "")
			t.Uint(fIPVersion, off, 1, 4)
			t.Uint(fIPHdrLen, off, 1, uint64(ip.IHL)*4)
			t.Uint(fIPDSField, off+1, 1, uint64(ip.TOS))
			t.Uint(fIPLen, off+2, 2, uint64(ip.Length))
			t.Uint(fIPID, off+4, 2, uint64(ip.Id))
			t.Uint(fIPFlags, off+6, 1, uint64(ip.Flags))
			t.Uint(fIPFragOff, off+6, 2, uint64(ip.FragOffset))
			t.Uint(fIPTTL, off+8, 1, uint64(ip.TTL))
			t.Uint(fIPProto, off+9, 1, uint64(ip.Protocol))
			t.Uint(fIPChecksum, off+10, 2, uint64(ip.Checksum))
			t.Bytes(fIPSrc, off+12, 4, ip.SrcIP)
			t.Bytes(fIPDst, off+16, 4, ip.DstIP)
			off += len(ip.Contents)
		case layers.LayerTypeIPv6:
			ip := &e.ip6
			t.Proto(PIPv6, off, 40, "")
			t.Uint(fIP6TClass, off, 2, uint64(ip.TrafficClass)<<20)
			t.Uint(fIP6Flow, off+1, 3, uint64(ip.FlowLabel))
			t.Uint(fIP6Plen, off+4, 2, uint64(ip.Length))
			t.Uint(fIP6Nxt, off+6, 1, uint64(ip.NextHeader))
			t.Uint(fIP6Hlim, off+7, 1, uint64(ip.HopLimit))
			t.Bytes(fIP6Src, off+8, 16, ip.SrcIP)
			t.Bytes(fIP6Dst, off+24, 16, ip.DstIP)
			off += len(ip.Contents) + e.hbhLen
		case layers.LayerTypeUDP:
			u := &e.udp
			t.Proto(PUDP, off, 8, "")
			t.Uint(fUDPSrcPort, off, 2, uint64(u.SrcPort))
			t.Uint(fUDPDstPort, off+2, 2, uint64(u.DstPort))
			t.Uint(fUDPLength, off+4, 2, uint64(u.Length))
			t.Uint(fUDPChecksum, off+6, 2, uint64(u.Checksum))
			off += 8
		case layers.LayerTypeTCP:
			c := &e.tcp
			t.Proto(PTCP, off, len(c.Contents), "")
			t.Uint(fTCPSrcPort, off, 2, uint64(c.SrcPort))
			t.Uint(fTCPDstPort, off+2, 2, uint64(c.DstPort))
			t.Uint(fTCPRelSeq, off+4, 4, uint64(f.Net.RelSeq))
			t.Uint(fTCPSeq, off+4, 4, uint64(c.Seq))
			if c.ACK && f.Net.HasRelAck {
				t.Uint(fTCPRelAck, off+8, 4, uint64(f.Net.RelAck))
			}
			t.Uint(fTCPAck, off+8, 4, uint64(c.Ack))
			t.Uint(fTCPHdrLen, off+12, 1, uint64(c.DataOffset)*4)
			t.Uint(fTCPFlags, off+12, 2, tcpFlags(c))
			t.Uint(fTCPWindow, off+14, 2, uint64(c.Window))
			t.Uint(fTCPChecksum, off+16, 2, uint64(c.Checksum))
			t.Uint(fTCPLen, -1, 0, uint64(len(c.Payload)))
			if an := f.Net.TCPAnalysis; an != 0 {
				t.Uint(fTCPAnalysis, -1, 0, 0)
				t.Open()
				if an&TCPDuplicateAck != 0 {
					t.Uint(fTCPAnDupAck, -1, 0, 0)
					t.Uint(fTCPAnDupAckNum, -1, 0, uint64(f.Net.DupAckNum))
					t.Uint(fTCPAnDupAckFrame, -1, 0, f.Net.DupAckFrame)
				}
				t.Uint(fTCPAnFlags, -1, 0, 0)
				t.Open()
				for _, a := range tcpAnalyses {
					if an&a.flag != 0 {
						t.Uint(a.field, -1, 0, 0)
					}
				}
				t.Close()
				t.Close()
			}
			off += len(c.Contents)
		}
	}
	for i := range f.Findings {
		if f.Findings[i].PDU < 0 && f.Findings[i].Proto != "frame" {
			t.Finding(&f.Findings[i])
		}
	}
}

func tcpFlags(c *layers.TCP) uint64 {
	var v uint64
	for i, b := range []bool{c.FIN, c.SYN, c.RST, c.PSH, c.ACK, c.URG, c.ECE, c.CWR, c.NS} {
		if b {
			v |= 1 << i
		}
	}
	return v
}

// ProtoChain appends the frame's protocol chain ("eth:ethertype:ip:udp:rx")
// to dst, as frame.protocols shows it.
func (e *Engine) ProtoChain(dst []byte, f *Frame) []byte {
	start := len(dst)
	add := func(s string) {
		if len(dst) > start {
			dst = append(dst, ':')
		}
		dst = append(dst, s...)
	}
	if f.LinkType == LinkTypeIPoIB {
		add("ipoib")
	}
	for _, lt := range e.types {
		switch lt {
		case layers.LayerTypeEthernet:
			add("eth")
			add("ethertype")
		case layers.LayerTypeDot1Q:
			add("vlan")
			add("ethertype")
		case layers.LayerTypeLinuxSLL, layers.LayerTypeLinuxSLL2:
			add("sll")
			add("ethertype")
		case layers.LayerTypeLoopback:
			add("null")
		case layers.LayerTypeIPv4:
			add("ip")
		case layers.LayerTypeIPv6:
			add("ipv6")
			for _, x := range e.ext6[:e.n6ext] {
				add(ip6ExtNames[x])
			}
		case layers.LayerTypeUDP:
			add("udp")
		case layers.LayerTypeTCP:
			add("tcp")
		}
	}
	var last string
	for _, p := range f.PDUs {
		a := p.Proto().Abbrev
		if a != last {
			add(a)
			last = a
		}
	}
	return dst
}

func frameLabel(f *Frame) string {
	b := strconv.AppendUint(nil, f.Num, 10)
	b = append(b, ": "...)
	b = strconv.AppendInt(b, int64(f.WireLen), 10)
	b = append(b, " bytes on wire ("...)
	b = strconv.AppendInt(b, int64(f.WireLen)*8, 10)
	b = append(b, " bits), "...)
	b = strconv.AppendInt(b, int64(f.CapLen), 10)
	b = append(b, " bytes captured ("...)
	b = strconv.AppendInt(b, int64(f.CapLen)*8, 10)
	b = append(b, " bits)"...)
	return string(b)
}
