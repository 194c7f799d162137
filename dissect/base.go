package dissect

import (
	"net/netip"
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
	fEthAddr     = Register(&Field{Abbrev: "eth.addr", Name: "Address", Type: TEther, Desc: "source or destination hardware address"})
	// The LG and IG bits of the address's first octet, as masks of its first
	// three octets (Wireshark's 24-bit booleans).
	fEthDstLG   = Register(&Field{Abbrev: "eth.dst.lg", Name: "LG bit", Type: TBool, Mask: ethLGMask, Bits: 24})
	fEthDstIG   = Register(&Field{Abbrev: "eth.dst.ig", Name: "IG bit", Type: TBool, Mask: ethIGMask, Bits: 24})
	fEthSrcLG   = Register(&Field{Abbrev: "eth.src.lg", Name: "LG bit", Type: TBool, Mask: ethLGMask, Bits: 24})
	fEthSrcIG   = Register(&Field{Abbrev: "eth.src.ig", Name: "IG bit", Type: TBool, Mask: ethIGMask, Bits: 24})
	fEthLG      = Register(&Field{Abbrev: "eth.lg", Name: "LG bit", Type: TBool, Mask: ethLGMask, Bits: 24, Hidden: true})
	fEthIG      = Register(&Field{Abbrev: "eth.ig", Name: "IG bit", Type: TBool, Mask: ethIGMask, Bits: 24, Hidden: true})
	fIPoIBDst   = Register(&Field{Abbrev: "ipoib.dst", Name: "Destination hardware address", Type: TBytes})
	fIPoIBSrc   = Register(&Field{Abbrev: "ipoib.src", Name: "Source hardware address", Type: TBytes})
	fIPoIBType  = Register(&Field{Abbrev: "ipoib.type", Name: "Type", Type: TUint16, Base: BaseHex})
	fVLANID     = Register(&Field{Abbrev: "vlan.id", Name: "ID", Type: TUint16})
	fVLANPrio   = Register(&Field{Abbrev: "vlan.priority", Name: "Priority", Type: TUint16, Mask: vlanPrioMask})
	fVLANType   = Register(&Field{Abbrev: "vlan.etype", Name: "Type", Type: TUint16, Base: BaseHex})
	fSLLPkttype = Register(&Field{Abbrev: "sll.pkttype", Name: "Packet type", Type: TUint16})
	fSLLEtype   = Register(&Field{Abbrev: "sll.etype", Name: "Protocol", Type: TUint16, Base: BaseHex})
	fNullFamily = Register(&Field{Abbrev: "null.family", Name: "Family", Type: TUint32})
	fIPVersion  = Register(&Field{Abbrev: "ip.version", Name: "Version", Type: TUint8})
	fIPHdrLen   = Register(&Field{Abbrev: "ip.hdr_len", Name: "Header Length", Type: TUint8})
	fIPDSField  = Register(&Field{Abbrev: "ip.dsfield", Name: "Differentiated Services Field", Type: TUint8, Base: BaseHex})
	fIPDSCP     = Register(&Field{Abbrev: "ip.dsfield.dscp", Name: "Differentiated Services Codepoint", Type: TUint8, Mask: 0xfc, Bits: 8})
	fIPECN      = Register(&Field{Abbrev: "ip.dsfield.ecn", Name: "Explicit Congestion Notification", Type: TUint8, Mask: 0x03, Bits: 8, Names: ecnNames})
	fIPLen      = Register(&Field{Abbrev: "ip.len", Name: "Total Length", Type: TUint16})
	fIPID       = Register(&Field{Abbrev: "ip.id", Name: "Identification", Type: TUint16, Base: BaseHexDec})
	// ip.flags and its bits are masks of the header's seventh octet, the
	// fragment offset one of the 16-bit word (Wireshark shows them so).
	fIPFlags    = Register(&Field{Abbrev: "ip.flags", Name: "Flags", Type: TUint8, Base: BaseHex, Mask: 0xe0, Bits: 8})
	fIPFlagRB   = Register(&Field{Abbrev: "ip.flags.rb", Name: "Reserved bit", Type: TBool, Mask: 0x80, Bits: 8})
	fIPFlagDF   = Register(&Field{Abbrev: "ip.flags.df", Name: "Don't fragment", Type: TBool, Mask: 0x40, Bits: 8})
	fIPFlagMF   = Register(&Field{Abbrev: "ip.flags.mf", Name: "More fragments", Type: TBool, Mask: 0x20, Bits: 8})
	fIPFragOff  = Register(&Field{Abbrev: "ip.frag_offset", Name: "Fragment Offset", Type: TUint16, Mask: 0x1fff, Bits: 16, Desc: "in units of 8 octets, as in the header"})
	fIPTTL      = Register(&Field{Abbrev: "ip.ttl", Name: "Time to Live", Type: TUint8})
	fIPProto    = Register(&Field{Abbrev: "ip.proto", Name: "Protocol", Type: TUint8, Names: ipProtoNames})
	fIPChecksum = Register(&Field{Abbrev: "ip.checksum", Name: "Header Checksum", Type: TUint16, Base: BaseHex})
	fIPCkStatus = Register(&Field{Abbrev: "ip.checksum.status", Name: "Header checksum status", Type: TUint8, Names: StatusNames, Desc: unverifiedDesc})
	fIPSrc      = Register(&Field{Abbrev: "ip.src", Name: "Source Address", Type: TIPv4})
	fIPDst      = Register(&Field{Abbrev: "ip.dst", Name: "Destination Address", Type: TIPv4})
	// Hidden in the tree as in Wireshark: either address, and the "host"
	// strings (the address itself: rdx resolves no names).
	fIPAddr      = Register(&Field{Abbrev: "ip.addr", Name: "Source or Destination Address", Type: TIPv4, Hidden: true})
	fIPSrcHost   = Register(&Field{Abbrev: "ip.src_host", Name: "Source Host", Type: TString, Hidden: true})
	fIPDstHost   = Register(&Field{Abbrev: "ip.dst_host", Name: "Destination Host", Type: TString, Hidden: true})
	fIPHost      = Register(&Field{Abbrev: "ip.host", Name: "Source or Destination Host", Type: TString, Hidden: true})
	fIP6Ver      = Register(&Field{Abbrev: "ipv6.version", Name: "Version", Type: TUint8})
	fIP6Plen     = Register(&Field{Abbrev: "ipv6.plen", Name: "Payload Length", Type: TUint16})
	fIP6Nxt      = Register(&Field{Abbrev: "ipv6.nxt", Name: "Next Header", Type: TUint8, Names: ipProtoNames})
	fIP6Hlim     = Register(&Field{Abbrev: "ipv6.hlim", Name: "Hop Limit", Type: TUint8})
	fIP6Flow     = Register(&Field{Abbrev: "ipv6.flow", Name: "Flow Label", Type: TUint24, Base: BaseHex})
	fIP6TClass   = Register(&Field{Abbrev: "ipv6.tclass", Name: "Traffic Class", Type: TUint32, Base: BaseHex, Mask: ip6TClassMask})
	fIP6DSCP     = Register(&Field{Abbrev: "ipv6.tclass.dscp", Name: "Differentiated Services Codepoint", Type: TUint32, Mask: 0x0fc00000, Bits: 32})
	fIP6ECN      = Register(&Field{Abbrev: "ipv6.tclass.ecn", Name: "Explicit Congestion Notification", Type: TUint32, Mask: 0x00300000, Bits: 32, Names: ecnNames})
	fIP6Src      = Register(&Field{Abbrev: "ipv6.src", Name: "Source Address", Type: TIPv6})
	fIP6Dst      = Register(&Field{Abbrev: "ipv6.dst", Name: "Destination Address", Type: TIPv6})
	fIP6Addr     = Register(&Field{Abbrev: "ipv6.addr", Name: "Source or Destination Address", Type: TIPv6, Hidden: true})
	fIP6SrcHost  = Register(&Field{Abbrev: "ipv6.src_host", Name: "Source Host", Type: TString, Hidden: true})
	fIP6DstHost  = Register(&Field{Abbrev: "ipv6.dst_host", Name: "Destination Host", Type: TString, Hidden: true})
	fIP6Host     = Register(&Field{Abbrev: "ipv6.host", Name: "Source or Destination Host", Type: TString, Hidden: true})
	fUDPSrcPort  = Register(&Field{Abbrev: "udp.srcport", Name: "Source Port", Type: TUint16})
	fUDPDstPort  = Register(&Field{Abbrev: "udp.dstport", Name: "Destination Port", Type: TUint16})
	fUDPLength   = Register(&Field{Abbrev: "udp.length", Name: "Length", Type: TUint16})
	fUDPChecksum = Register(&Field{Abbrev: "udp.checksum", Name: "Checksum", Type: TUint16, Base: BaseHex})
	fUDPCkStatus = Register(&Field{Abbrev: "udp.checksum.status", Name: "Checksum Status", Type: TUint8, Names: StatusNames, Desc: unverifiedDesc})
	fUDPPort     = Register(&Field{Abbrev: "udp.port", Name: "Source or Destination Port", Type: TUint16, Hidden: true})
	fUDPStream   = Register(&Field{Abbrev: "udp.stream", Name: "Stream index", Type: TUint32, Global: true, Desc: "the conversation (address and port pair) in order of first frame, from 0"})
	fTCPSrcPort  = Register(&Field{Abbrev: "tcp.srcport", Name: "Source Port", Type: TUint16})
	fTCPDstPort  = Register(&Field{Abbrev: "tcp.dstport", Name: "Destination Port", Type: TUint16})
	fTCPSeq      = Register(&Field{Abbrev: "tcp.seq_raw", Name: "Sequence Number (raw)", Type: TUint32})
	fTCPAck      = Register(&Field{Abbrev: "tcp.ack_raw", Name: "Acknowledgment number (raw)", Type: TUint32})
	fTCPRelSeq   = Register(&Field{Abbrev: "tcp.seq", Name: "Sequence Number", Type: TUint32, Desc: "relative to the direction's start, as tshark shows it"})
	fTCPRelAck   = Register(&Field{Abbrev: "tcp.ack", Name: "Acknowledgment Number", Type: TUint32, Desc: "relative to the peer's start"})
	fTCPHdrLen   = Register(&Field{Abbrev: "tcp.hdr_len", Name: "Header Length", Type: TUint8})
	fTCPFlags    = Register(&Field{Abbrev: "tcp.flags", Name: "Flags", Type: TUint16, Base: BaseHex, Mask: 0xfff})
	fTCPWindow   = Register(&Field{Abbrev: "tcp.window_size_value", Name: "Window", Type: TUint16})
	fTCPChecksum = Register(&Field{Abbrev: "tcp.checksum", Name: "Checksum", Type: TUint16, Base: BaseHex})
	fTCPLen      = Register(&Field{Abbrev: "tcp.len", Name: "TCP Segment Len", Type: TUint32})
	fTCPPort     = Register(&Field{Abbrev: "tcp.port", Name: "Source or Destination Port", Type: TUint16, Hidden: true})
	fTCPStream   = Register(&Field{Abbrev: "tcp.stream", Name: "Stream index", Type: TUint32, Global: true, Desc: "the connection in order of first frame, from 0; a new SYN with another ISN on the same ports starts a new one"})
	fTCPNxtSeq   = Register(&Field{Abbrev: "tcp.nxtseq", Name: "Next Sequence Number", Type: TUint32, Desc: "relative sequence number after this segment (SYN and FIN count one)"})
	fTCPWinSize  = Register(&Field{Abbrev: "tcp.window_size", Name: "Calculated window size", Type: TUint32, Desc: "the window scaled by the shift its sender announced in the handshake (RFC 7323 2.3); unscaled in SYNs and when the handshake was not seen"})
	fTCPWinScale = Register(&Field{Abbrev: "tcp.window_size_scalefactor", Name: "Window size scaling factor", Type: TInt32, Desc: "the multiplier: -1 when unknown (no handshake seen), -2 when a side did not offer scaling"})
	fTCPCkStatus = Register(&Field{Abbrev: "tcp.checksum.status", Name: "Checksum Status", Type: TUint8, Names: StatusNames, Desc: unverifiedDesc})
	fTCPUrgent   = Register(&Field{Abbrev: "tcp.urgent_pointer", Name: "Urgent Pointer", Type: TUint16})
	fTCPFlagStr  = Register(&Field{Abbrev: "tcp.flags.str", Name: "TCP Flags", Type: TString})
	fTCPOptions  = Register(&Field{Abbrev: "tcp.options", Name: "Options", Type: TBytes})
	fTCPOptKind  = Register(&Field{Abbrev: "tcp.option_kind", Name: "Kind", Type: TUint8, Names: tcpOptNames})
	fTCPOptLen   = Register(&Field{Abbrev: "tcp.option_len", Name: "Length", Type: TUint8})
	fTCPOptMSS   = Register(&Field{Abbrev: "tcp.options.mss_val", Name: "MSS Value", Type: TUint16})
	fTCPOptShift = Register(&Field{Abbrev: "tcp.options.wscale.shift", Name: "Shift count", Type: TUint8})
	fTCPOptMult  = Register(&Field{Abbrev: "tcp.options.wscale.multiplier", Name: "Multiplier", Type: TUint16})
	fTCPOptTSval = Register(&Field{Abbrev: "tcp.options.timestamp.tsval", Name: "Timestamp value", Type: TUint32})
	fTCPOptTSecr = Register(&Field{Abbrev: "tcp.options.timestamp.tsecr", Name: "Timestamp echo reply", Type: TUint32})
	fTCPOptSackL = Register(&Field{Abbrev: "tcp.options.sack_le", Name: "TCP SACK Left Edge", Type: TUint32, Desc: "relative to the peer's start, as tshark shows it"})
	fTCPOptSackR = Register(&Field{Abbrev: "tcp.options.sack_re", Name: "TCP SACK Right Edge", Type: TUint32, Desc: "relative to the peer's start, as tshark shows it"})
	fTCPOptSackN = Register(&Field{Abbrev: "tcp.options.sack.count", Name: "TCP SACK Count", Type: TUint8})

	// The twelve flag bits, high to low, as masks of the 16-bit word after
	// the data offset (Wireshark's 12-bit booleans); tcpFlagLetters is
	// tcp.flags.str's alphabet in the same order.
	tcpFlagBits = [12]*Field{
		Register(&Field{Abbrev: "tcp.flags.res", Name: "Reserved", Type: TBool, Mask: 0xe00, Bits: 12}),
		nil, nil, // the reserved field covers three bits
		Register(&Field{Abbrev: "tcp.flags.ae", Name: "Accurate ECN", Type: TBool, Mask: 0x100, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.cwr", Name: "Congestion Window Reduced", Type: TBool, Mask: 0x80, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.ece", Name: "ECN-Echo", Type: TBool, Mask: 0x40, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.urg", Name: "Urgent", Type: TBool, Mask: 0x20, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.ack", Name: "Acknowledgment", Type: TBool, Mask: 0x10, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.push", Name: "Push", Type: TBool, Mask: 0x8, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.reset", Name: "Reset", Type: TBool, Mask: 0x4, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.syn", Name: "Syn", Type: TBool, Mask: 0x2, Bits: 12}),
		Register(&Field{Abbrev: "tcp.flags.fin", Name: "Fin", Type: TBool, Mask: 0x1, Bits: 12}),
	}

	// TCP options: each a node of its bytes (Wireshark registers them as
	// protocols named tcp.options.*), by kind.
	tcpOptFields = map[uint8]*Field{
		0:  Register(&Field{Abbrev: "tcp.options.eol", Name: "TCP Option - End of Option List (EOL)", Type: TBytes}),
		1:  Register(&Field{Abbrev: "tcp.options.nop", Name: "TCP Option - No-Operation (NOP)", Type: TBytes}),
		2:  Register(&Field{Abbrev: "tcp.options.mss", Name: "TCP Option - Maximum segment size", Type: TBytes}),
		3:  Register(&Field{Abbrev: "tcp.options.wscale", Name: "TCP Option - Window scale", Type: TBytes}),
		4:  Register(&Field{Abbrev: "tcp.options.sack_perm", Name: "TCP Option - SACK permitted", Type: TBytes}),
		5:  Register(&Field{Abbrev: "tcp.options.sack", Name: "TCP Option - SACK", Type: TBytes}),
		8:  Register(&Field{Abbrev: "tcp.options.timestamp", Name: "TCP Option - Timestamps", Type: TBytes}),
		19: Register(&Field{Abbrev: "tcp.options.md5", Name: "TCP Option - TCP MD5 signature", Type: TBytes}),
		28: Register(&Field{Abbrev: "tcp.options.user_to", Name: "TCP Option - User Timeout", Type: TBytes}),
		29: Register(&Field{Abbrev: "tcp.options.ao", Name: "TCP Option - TCP AO", Type: TBytes}),
		34: Register(&Field{Abbrev: "tcp.options.tfo", Name: "TCP Option - TCP Fast Open", Type: TBytes}),
	}
	fTCPOptUnknown = Register(&Field{Abbrev: "tcp.options.unknown", Name: "TCP Option - Unknown", Type: TBytes})

	// tshark's SEQ/ACK analysis (tcpseq.go): label fields, present when set.
	fTCPAnalysis      = Register(&Field{Abbrev: "tcp.analysis", Name: "SEQ/ACK analysis", Type: TNone})
	fTCPAnFlags       = Register(&Field{Abbrev: "tcp.analysis.flags", Name: "TCP Analysis Flags", Type: TNone})
	fTCPAnRetrans     = Register(&Field{Abbrev: "tcp.analysis.retransmission", Name: "Retransmission", Type: TNone, Desc: "the segment repeats sequence numbers already seen (also set for fast and spurious ones)"})
	fTCPAnFastRetrans = Register(&Field{Abbrev: "tcp.analysis.fast_retransmission", Name: "Fast Retransmission", Type: TNone, Desc: "a retransmission of what the peer duplicate-ACKed twice or more, within 20 ms of its last ACK"})
	fTCPAnSpurious    = Register(&Field{Abbrev: "tcp.analysis.spurious_retransmission", Name: "Spurious Retransmission", Type: TNone, Desc: "a retransmission of data the peer has already acknowledged"})
	fTCPAnOOO         = Register(&Field{Abbrev: "tcp.analysis.out_of_order", Name: "Out-Of-Order segment", Type: TNone, Desc: "below the highest sequence seen, within the handshake RTT (3 ms if unknown) of it"})
	fTCPAnLost        = Register(&Field{Abbrev: "tcp.analysis.lost_segment", Name: "Previous segment(s) not captured", Type: TNone, Desc: "the segment starts after the highest sequence seen"})
	fTCPAnAckLost     = Register(&Field{Abbrev: "tcp.analysis.ack_lost_segment", Name: "ACKed segment that wasn't captured (common at capture start)", Type: TNone, Desc: "the ACK is past the end of the octets the peer sent without a hole"})
	fTCPAnReused      = Register(&Field{Abbrev: "tcp.analysis.reused_ports", Name: "A new tcp session is started with the same ports as an earlier session in this trace", Type: TNone, Desc: "a SYN with another ISN on the ports of an earlier connection"})
	fTCPAnDupAck      = Register(&Field{Abbrev: "tcp.analysis.duplicate_ack", Name: "Duplicate ACK", Type: TNone, Desc: "no data, same window, same ACK as the previous segment"})
	fTCPAnDupAckNum   = Register(&Field{Abbrev: "tcp.analysis.duplicate_ack_num", Name: "Duplicate ACK #", Type: TUint32})
	fTCPAnDupAckFrame = Register(&Field{Abbrev: "tcp.analysis.duplicate_ack_frame", Name: "Duplicate to the ACK in frame", Type: TFrameNum})
	fTCPAnAcksFrame   = Register(&Field{Abbrev: "tcp.analysis.acks_frame", Name: "This is an ACK to the segment in frame", Type: TFrameNum})
	fTCPAnAckRTT      = Register(&Field{Abbrev: "tcp.analysis.ack_rtt", Name: "The RTT to ACK the segment was", Type: TRelTime})
	fTCPAnIRTT        = Register(&Field{Abbrev: "tcp.analysis.initial_rtt", Name: "iRTT", Type: TRelTime, Desc: "from the SYN to the ACK that ends the handshake; shown from that ACK on"})
	fTCPAnBIF         = Register(&Field{Abbrev: "tcp.analysis.bytes_in_flight", Name: "Bytes in flight", Type: TUint32, Desc: "of a segment with data: its end past the peer's last acknowledgment"})
	fTCPTimeRel       = Register(&Field{Abbrev: "tcp.time_relative", Name: "Time since first frame in this TCP stream", Type: TRelTime})
	fTCPTimeDelta     = Register(&Field{Abbrev: "tcp.time_delta", Name: "Time since previous frame in this TCP stream", Type: TRelTime})
	fTCPAnKeepAlive   = Register(&Field{Abbrev: "tcp.analysis.keep_alive", Name: "Keep-Alive", Type: TNone, Desc: "zero or one octet one below the next expected sequence number"})
)

const (
	ethLGMask = 0x020000
	ethIGMask = 0x010000
	// unverifiedDesc: rdx shows checksums unverified, as tshark does by
	// default (its ip/udp/tcp "validate checksum" preferences are off).
	unverifiedDesc = "2 (unverified): rdx does not verify it in the tree, as tshark by default"
	tcpFlagLetters = "RRRACEUAPRSF"
)

var ecnNames = map[uint64]string{0: "Not ECN-Capable Transport", 1: "ECN-Capable Transport codepoint '01'",
	2: "ECN-Capable Transport codepoint '10'", 3: "Congestion Experienced"}

var tcpOptNames = map[uint64]string{0: "End of Option List", 1: "No-Operation (NOP)", 2: "Maximum Segment Size",
	3: "Window Scale", 4: "SACK Permitted", 5: "SACK", 8: "Time Stamp Option", 19: "TCP MD5 Signature Option",
	28: "User Timeout", 29: "TCP Authentication Option", 34: "TCP Fast Open Cookie"}

// ip6ExtNames names IPv6 extension headers in frame.protocols, as tshark does.
var ip6ExtNames = map[uint8]string{0: "ipv6.hopopts", 43: "ipv6.routing", 60: "ipv6.dstopts"}

var ipProtoNames = map[uint64]string{1: "ICMP", 6: "TCP", 17: "UDP", 27: "RDP", 58: "ICMPv6"}

// BaseTree adds the frame, link, IP and transport nodes of the engine's current
// frame to t. It must be called before the next Decode.
func (e *Engine) BaseTree(t *Tree, f *Frame, protocols string) {
	// A fast path's UDP frame without findings in a sparse tree that
	// keeps no frame field: what SkipProto and layersTree would do, in
	// one step (addBaseUDP4), for -T fields and -Y.
	if t.mayBaseUDP4() && e.lazy && len(f.Findings) == 0 && f.etherAt == 0 && f.Net.IPProto == IPProtoUDP &&
		t.addBaseUDP4(frameNodes(f), f.Data) {
		return
	}
	// A fast path's frame (e.lazy) is not decoded again: layersTree reads
	// its headers from the bytes fastUDP4 or fastTCP4 checked.
	if !t.SkipProto(PFrame, frameNodes(f)) {
		e.frameTree(t, f, protocols)
	}
	off := 0
	if f.LinkType == LinkTypeIPoIB && len(f.Data) >= ipoibLen {
		t.Proto(pIPoIB, 0, ipoibLen, "")
		t.Bytes(fIPoIBDst, 0, 20, f.Data[0:20])
		t.Bytes(fIPoIBSrc, 20, 20, f.Data[20:40])
		t.Uint(fIPoIBType, 40, 2, uint64(f.Net.EtherType))
		off = ipoibLen
	}
	if f.etherAt == 0 { // else BuildTree adds them after the PDU that handed them on
		e.layersTree(t, f, off)
	}
}

// layersTree adds the nodes of the link, IP and transport layers the engine
// decoded in the current frame, the first at frame offset off.
func (e *Engine) layersTree(t *Tree, f *Frame, off int) {
	if e.lazy {
		// A fast path's frame (fastUDP4, fastTCP4): Ethernet at 0, IPv4
		// without options, then UDP or TCP, read from the bytes those
		// paths checked; gopacket has not decoded them.
		d := f.Data
		if f.Net.IPProto == IPProtoUDP && t.addUDP4(d) {
			e.layerFindings(t, f)
			return
		}
		ethTree(t, 0, d[0:6], d[6:12], EtherTypeIPv4)
		e.ip4Tree(t, 14, d[14:34])
		if f.Net.IPProto == IPProtoUDP {
			e.udpTree(t, 34, d[34:42], f.Net.Src, f.Net.Dst, true)
		} else {
			e.tcpLayerTree(t, f, 34)
		}
		e.layerFindings(t, f)
		return
	}
	for _, lt := range e.types {
		switch lt {
		case layers.LayerTypeEthernet:
			ethTree(t, off, e.eth.DstMAC, e.eth.SrcMAC, uint16(e.eth.EthernetType))
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
			e.ip4Tree(t, off, e.ip4.Contents)
			off += len(e.ip4.Contents)
			if h := f.reasmUDP; len(h) >= 8 { // the datagram this fragment completed
				base, det := t.Base()
				t.SetBase(0, true)
				e.udpTree(t, -1, h, f.Net.Src, f.Net.Dst, true)
				t.SetBase(base, det)
			}
		case layers.LayerTypeIPv6:
			e.ip6Tree(t, off, e.ip6.Contents)
			off += len(e.ip6.Contents) + e.hbhLen
		case layers.LayerTypeUDP:
			e.udpTree(t, off, e.udp.Contents, f.Net.Src, f.Net.Dst, f.Net.Src.Is4())
			off += 8
		case layers.LayerTypeTCP:
			off += e.tcpLayerTree(t, f, off)
		}
	}
	e.layerFindings(t, f)
}

// planUDP4 is the plan (basePlan) of what sparse tree t keeps of a
// fast-path UDP frame's headers, read off the whole tree layersTree's
// builders make of such headers; nodes is storage to reuse. Not ok for a
// whole tree.
func planUDP4(t *Tree, nodes []planNode) basePlan {
	p := basePlan{nodes: nodes}
	if t == nil || !t.sparse {
		return p
	}
	var hdr [42]byte // Ethernet, IPv4 (20 octets), UDP
	hdr[12], hdr[14], hdr[23] = 0x08, 0x45, IPProtoUDP
	var e Engine
	var w Tree
	ethTree(&w, 0, hdr[0:6], hdr[6:12], EtherTypeIPv4)
	e.ip4Tree(&w, 14, hdr[14:34])
	e.udpTree(&w, 34, hdr[34:42], netip.Addr{}, netip.Addr{}, true)
	if w.cut || w.count != len(w.Nodes) {
		return p
	}
	p.total = w.count
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.F != nil && n.F.Type == TProtocol {
			p.last = n.F
		}
		if !t.has(n.F) {
			continue
		}
		if n.U != 0 || n.S != "" || n.Label != "" || n.Off < 0 {
			return p
		}
		pn := planNode{f: n.F, at: i, depth: n.Depth, off: int(n.Off), n: int(n.Len)}
		switch {
		case n.F.Type == TProtocol && n.B == nil:
		case len(n.B) == pn.n && pn.n > 0 && pn.off+pn.n <= len(hdr) && &n.B[0] == &hdr[pn.off]:
			pn.bytes = true // the header's own bytes: the frame's at the same offset
		default:
			return p
		}
		p.nodes = append(p.nodes, pn)
	}
	p.ok = true
	return p
}

// layerFindings adds the findings about the link, IP and transport layers.
func (e *Engine) layerFindings(t *Tree, f *Frame) {
	for i := range f.Findings {
		if f.Findings[i].PDU < 0 && f.Findings[i].Proto != "frame" {
			t.Finding(&f.Findings[i])
		}
	}
}

// ethTree adds an Ethernet header at frame offset off. A -T fields or -Y
// run without eth fields skips its 14 nodes.
func ethTree(t *Tree, off int, dst, src []byte, typ uint16) {
	if !t.SkipProto(pEth, 2+ethAddrNodes(dst)+ethAddrNodes(src)) {
		t.Proto(pEth, off, 14, "")
		ethAddr(t, fEthDst, fEthDstLG, fEthDstIG, off, dst)
		ethAddr(t, fEthSrc, fEthSrcLG, fEthSrcIG, off+6, src)
		t.Uint(fEthType, off+12, 2, uint64(typ))
	}
}

// tcpLayerTree adds the TCP header at frame offset off (the engine's decoded
// layer) and its analysis nodes; it returns the header's length.
func (e *Engine) tcpLayerTree(t *Tree, f *Frame, off int) int {
	c := &e.tcp
	h := c.Contents // at least 20 octets once decoded
	n := &f.Net
	seglen := e.tcpSegLen(n)
	t.Proto(PTCP, off, len(h), "")
	t.Uint(fTCPSrcPort, off, 2, uint64(c.SrcPort))
	t.Uint(fTCPDstPort, off+2, 2, uint64(c.DstPort))
	t.Uint(fTCPPort, off, 2, uint64(c.SrcPort))
	t.Uint(fTCPPort, off+2, 2, uint64(c.DstPort))
	t.Uint(fTCPStream, -1, 0, uint64(n.TCPStream))
	t.Uint(fTCPLen, -1, 0, uint64(seglen))
	t.Uint(fTCPRelSeq, off+4, 4, uint64(n.RelSeq))
	t.Uint(fTCPSeq, off+4, 4, uint64(c.Seq))
	nxt := n.RelSeq + uint32(seglen)
	if c.SYN {
		nxt++
	}
	if c.FIN {
		nxt++
	}
	t.Uint(fTCPNxtSeq, -1, 0, uint64(nxt))
	switch {
	case !c.ACK:
		t.Uint(fTCPRelAck, off+8, 4, 0) // no acknowledgment: tshark shows 0
	case n.HasRelAck:
		t.Uint(fTCPRelAck, off+8, 4, uint64(n.RelAck))
	}
	t.Uint(fTCPAck, off+8, 4, uint64(c.Ack))
	t.Uint(fTCPHdrLen, off+12, 1, uint64(c.DataOffset)*4)
	flags := uint64(h[12])<<8 | uint64(h[13])
	label, str := e.tcpFlagTexts(flags)
	t.UintLabel(fTCPFlags, off+12, 2, flags, label)
	t.Open()
	for _, bf := range tcpFlagBits {
		if bf != nil {
			t.Uint(bf, off+12, 2, flags)
		}
	}
	t.String(fTCPFlagStr, -1, 0, str)
	t.Close()
	t.Uint(fTCPWindow, off+14, 2, uint64(c.Window))
	win := uint64(c.Window)
	if !c.SYN {
		if n.TCPWinScale >= 0 {
			win <<= uint(n.TCPWinScale)
		}
	}
	t.Uint(fTCPWinSize, -1, 0, win)
	if !c.SYN {
		sf := int64(n.TCPWinScale)
		if sf >= 0 {
			sf = 1 << sf
		}
		t.Int(fTCPWinScale, -1, 0, sf)
	}
	t.Uint(fTCPChecksum, off+16, 2, uint64(c.Checksum))
	t.Uint(fTCPCkStatus, -1, 0, ckStatus(e.ckL4, StatusUnverified))
	t.Uint(fTCPUrgent, off+18, 2, uint64(c.Urgent))
	if len(h) > 20 {
		e.tcpOptionsTree(t, off+20, h[20:])
	}
	var ta tcpAcked
	var irtt int64
	if t != nil {
		ta = e.tcpTreeAnalysis(t, f, seglen)
		// the connection's: either direction may hold it (one seen
		// before the other had a frame)
		a, b := netip.AddrPortFrom(n.Src, n.SrcPort), netip.AddrPortFrom(n.Dst, n.DstPort)
		for _, k := range [2]tcpHalf{{a, b}, {b, a}} {
			if i := e.tcpTab.lookup(k); i != 0 {
				irtt = max(irtt, e.tcpTab.d(i).firstRTT)
			}
		}
	}
	if an := n.TCPAnalysis; an != 0 || ta.acksFrame != 0 || seglen > 0 && irtt > 0 || n.TCPBytesInFlight > 0 {
		// tshark's SEQ/ACK analysis node, shown when something is in it
		// (on a data segment, with the iRTT: for its bytes in flight)
		t.Uint(fTCPAnalysis, -1, 0, 0)
		t.Open()
		if ta.acksFrame != 0 {
			t.Uint(fTCPAnAcksFrame, -1, 0, ta.acksFrame)
			t.Int(fTCPAnAckRTT, -1, 0, ta.ackRTT)
		}
		if irtt > 0 {
			t.Int(fTCPAnIRTT, -1, 0, irtt)
		}
		if n.TCPBytesInFlight > 0 {
			t.Uint(fTCPAnBIF, -1, 0, uint64(n.TCPBytesInFlight))
		}
		if an&TCPDuplicateAck != 0 {
			t.Uint(fTCPAnDupAck, -1, 0, 0)
			t.Uint(fTCPAnDupAckNum, -1, 0, uint64(n.DupAckNum))
			t.Uint(fTCPAnDupAckFrame, -1, 0, n.DupAckFrame)
		}
		if an != 0 {
			t.Uint(fTCPAnFlags, -1, 0, 0)
			t.Open()
			for _, a := range tcpAnalyses {
				if an&a.flag != 0 {
					t.Uint(a.field, -1, 0, 0)
				}
			}
			t.Close()
		}
		t.Close()
	}
	if t != nil {
		t.Text(-1, 0, "Timestamps")
		t.Open()
		t.Int(fTCPTimeRel, -1, 0, ta.rel)
		t.Int(fTCPTimeDelta, -1, 0, ta.delta)
		t.Close()
	}
	return len(e.tcp.Contents)
}

// ipFlagsLabels are the -V texts of the three IPv4 flag bits, as tshark's:
// "0x2, Don't fragment".
var ipFlagsLabels = func() (l [8]string) {
	for v := range l {
		l[v] = "0x" + strconv.FormatUint(uint64(v), 16)
		for i, name := range [...]string{"Reserved bit", "Don't fragment", "More fragments"} {
			if v&(4>>i) != 0 {
				l[v] += ", " + name
			}
		}
	}
	return l
}()

// tcpFlagTexts returns the -V label and tcp.flags.str of the 12 flag bits
// in v, made once per value and engine.
func (e *Engine) tcpFlagTexts(v uint64) (label, str string) {
	v &= 0xfff
	if e.tcpFlagText == nil {
		e.tcpFlagText = new([0x1000][2]string)
	}
	c := &e.tcpFlagText[v]
	if c[0] == "" {
		var b [len(tcpFlagLetters) * 2]byte // '·' is two octets in UTF-8
		sb := b[:0]
		for i := range tcpFlagLetters {
			if v&(0x800>>i) != 0 {
				sb = append(sb, tcpFlagLetters[i])
			} else {
				sb = append(sb, "·"...)
			}
		}
		c[0], c[1] = tcpFlagsLabel(v), string(sb)
	}
	return c[0], c[1]
}

// tcpFlagsLabel is the -V text of the TCP flags, as tshark's: "0x012 (SYN,
// ACK)", the set flags from the lowest bit up.
func tcpFlagsLabel(v uint64) string {
	v &= 0xfff
	b := []byte("0x")
	b = AppendHexDigits(b, v, 3)
	n := 0
	for i, name := range [...]string{"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR", "AE", "Reserved"} {
		set := v&(1<<i) != 0
		if i == 9 {
			set = v&0xe00 != 0
		}
		if !set {
			continue
		}
		if n == 0 {
			b = append(b, " ("...)
		} else {
			b = append(b, ", "...)
		}
		b = append(b, name...)
		n++
	}
	if n > 0 {
		b = append(b, ')')
	}
	return string(b)
}

// ckStatus is a checksum's status field: what verifyChecksums found
// (v = status+1), else unverified (or, for UDP over IPv4, not present).
func ckStatus(v uint8, unverified uint64) uint64 {
	if v == 0 {
		return unverified
	}
	return uint64(v - 1)
}

// ethAddr adds a MAC address with tshark's children: the address again as
// eth.addr, and its LG and IG bits under both the address's and the
// generic names (eth.lg and eth.ig hidden).
// frameTree adds the frame protocol's subtree.
func (e *Engine) frameTree(t *Tree, f *Frame, protocols string) {
	label := ""
	if t.Labels() {
		label = frameLabel(f)
	}
	t.Proto(PFrame, 0, f.CapLen, label)
	if !t.SkipSpan(frameTimes) {
		t.Uint(FFrameEncap, -1, 0, uint64(f.LinkType))
		t.Uint(FFrameTime, -1, 0, uint64(f.TimeNS))
		t.Int(FFrameEpoch, -1, 0, f.TimeNS)
		t.Int(FFrameDelta, -1, 0, f.TimeNS-e.prevTime)
		t.Int(FFrameRel, -1, 0, f.TimeNS-e.firstTime)
	}
	t.Uint(FFrameNumber, -1, 0, f.Num)
	if !t.SkipSpan(frameLens) {
		t.Uint(FFrameLen, -1, 0, uint64(f.WireLen))
		t.Uint(FFrameCapLen, -1, 0, uint64(f.CapLen))
	}
	if f.Iface != 0 || f.LinkType == LinkTypeERF { // tshark names every ERF record's interface
		t.Uint(FFrameIface, -1, 0, uint64(f.Iface))
	}
	t.String(FFrameProtos, -1, 0, protocols)
	for i := range f.Findings { // about the record itself: under Frame, as in tshark
		if frameFinding(&f.Findings[i]) {
			t.Finding(&f.Findings[i])
		}
	}
}

func frameFinding(fd *Finding) bool { return fd.PDU < 0 && fd.Proto == "frame" }

// frameNodes is the nodes frameTree adds for f (SkipProto).
func frameNodes(f *Frame) int {
	n := 10 // the protocol, 8 fields, frame.protocols
	if f.Iface != 0 || f.LinkType == LinkTypeERF {
		n++
	}
	for i := range f.Findings {
		if frameFinding(&f.Findings[i]) {
			n++
		}
	}
	return n
}

// ethAddrNodes is the nodes ethAddr adds for mac (SkipProto).
func ethAddrNodes(mac []byte) int {
	if len(mac) < 3 {
		return 1
	}
	return 6
}

func ethAddr(t *Tree, addr, lg, ig *Field, off int, mac []byte) {
	t.Bytes(addr, off, 6, mac)
	if len(mac) < 3 {
		return
	}
	v := uint64(mac[0])<<16 | uint64(mac[1])<<8 | uint64(mac[2])
	t.Open()
	t.Bytes(fEthAddr, off, 6, mac)
	t.Uint(lg, off, 3, v)
	t.Uint(fEthLG, off, 3, v)
	t.Uint(ig, off, 3, v)
	t.Uint(fEthIG, off, 3, v)
	t.Close()
}

// ipAddr adds an IPv4 or IPv6 address and tshark's hidden either-way
// fields after it; the host names are the address (rdx resolves none, as
// tshark -n). The address strings of the last two hosts are kept: most
// frames repeat them, and the tree then allocates none.
func (e *Engine) ipAddr(t *Tree, addr, hostOne, either, host *Field, rest *Span, off int, ip []byte) {
	n := len(ip)
	t.Bytes(addr, off, n, ip)
	if t == nil || t.SkipSpan(rest) { // the hidden fields after it: asked for less often
		return
	}
	t.Bytes(either, off, n, ip)
	if !t.Wants(hostOne) && !t.Wants(host) {
		// the same calls as a whole tree (a sparse tree is cut where the
		// whole one is), without the text nobody reads
		t.String(hostOne, off, n, "")
		t.String(host, off, n, "")
		return
	}
	var a netip.Addr
	switch n {
	case 4:
		a = netip.AddrFrom4([4]byte(ip))
	case 16:
		a = netip.AddrFrom16([16]byte(ip))
	default:
		return
	}
	c := &e.hostNames
	i := 0
	switch {
	case c[0].a == a:
	case c[1].a == a:
		i = 1
	default:
		c[1] = c[0]
		c[0] = hostName{a, a.String()}
	}
	t.String(hostOne, off, n, c[i].s)
	t.String(host, off, n, c[i].s)
}

// hostName is an address and its text, for ipAddr.
type hostName struct {
	a netip.Addr
	s string
}

// ip4Tree adds an IPv4 header h (at least 20 octets) at frame offset off.
func (e *Engine) ip4Tree(t *Tree, off int, h []byte) {
	t.Proto(PIP, off, len(h), "")
	if !t.SkipSpan(ip4Fixed) {
		t.Uint(fIPVersion, off, 1, uint64(h[0]>>4))
		t.Uint(fIPHdrLen, off, 1, uint64(h[0]&15)*4)
		t.Flags(fIPDSField, off+1, 1, uint64(h[1]), "", fIPDSCP, fIPECN)
		t.Uint(fIPLen, off+2, 2, uint64(be16(h[2:])))
		t.Uint(fIPID, off+4, 2, uint64(be16(h[4:])))
		t.Flags(fIPFlags, off+6, 1, uint64(h[6]), ipFlagsLabels[h[6]>>5], fIPFlagRB, fIPFlagDF, fIPFlagMF)
		t.Uint(fIPFragOff, off+6, 2, uint64(be16(h[6:])))
		t.Uint(fIPTTL, off+8, 1, uint64(h[8]))
		t.Uint(fIPProto, off+9, 1, uint64(h[9]))
		t.Uint(fIPChecksum, off+10, 2, uint64(be16(h[10:])))
		t.Uint(fIPCkStatus, -1, 0, ckStatus(e.ckIP, StatusUnverified))
	}
	if !t.SkipSpan(ip4SrcSpan) {
		e.ipAddr(t, fIPSrc, fIPSrcHost, fIPAddr, fIPHost, ip4SrcRest, off+12, h[12:16])
	}
	if !t.SkipSpan(ip4DstSpan) {
		e.ipAddr(t, fIPDst, fIPDstHost, fIPAddr, fIPHost, ip4DstRest, off+16, h[16:20])
	}
}

// The spans of the frame and IPv4 trees (Tree.SkipSpan): a -T fields run
// showing ip.src walks four nodes of IPv4's twenty-four.
var (
	frameTimes = NewSpan(FFrameEncap, FFrameTime, FFrameEpoch, FFrameDelta, FFrameRel)
	frameLens  = NewSpan(FFrameLen, FFrameCapLen)
	ip4Fixed   = NewSpan(fIPVersion, fIPHdrLen, fIPDSField, fIPDSCP, fIPECN, fIPLen, fIPID,
		fIPFlags, fIPFlagRB, fIPFlagDF, fIPFlagMF, fIPFragOff, fIPTTL, fIPProto, fIPChecksum, fIPCkStatus)
	ip4SrcSpan = NewSpan(fIPSrc, fIPAddr, fIPSrcHost, fIPHost)
	ip4DstSpan = NewSpan(fIPDst, fIPAddr, fIPDstHost, fIPHost)
	// ipAddr's nodes after the address
	ip4SrcRest = NewSpan(fIPAddr, fIPSrcHost, fIPHost)
	ip4DstRest = NewSpan(fIPAddr, fIPDstHost, fIPHost)
)

// ip6Tree adds the fixed IPv6 header h (40 octets) at frame offset off.
func (e *Engine) ip6Tree(t *Tree, off int, h []byte) {
	word := uint64(be32(h))
	t.Proto(PIPv6, off, 40, "")
	if !t.SkipSpan(ip6Fixed) {
		t.Uint(fIP6Ver, off, 1, word>>28)
		t.Flags(fIP6TClass, off, 2, word, "", fIP6DSCP, fIP6ECN)
		t.Uint(fIP6Flow, off+1, 3, word&0xfffff)
		t.Uint(fIP6Plen, off+4, 2, uint64(be16(h[4:])))
		t.Uint(fIP6Nxt, off+6, 1, uint64(h[6]))
		t.Uint(fIP6Hlim, off+7, 1, uint64(h[7]))
	}
	if !t.SkipSpan(ip6SrcSpan) {
		e.ipAddr(t, fIP6Src, fIP6SrcHost, fIP6Addr, fIP6Host, ip6SrcRest, off+8, h[8:24])
	}
	if !t.SkipSpan(ip6DstSpan) {
		e.ipAddr(t, fIP6Dst, fIP6DstHost, fIP6Addr, fIP6Host, ip6DstRest, off+24, h[24:40])
	}
}

var (
	ip6Fixed   = NewSpan(fIP6Ver, fIP6TClass, fIP6DSCP, fIP6ECN, fIP6Flow, fIP6Plen, fIP6Nxt, fIP6Hlim)
	ip6SrcSpan = NewSpan(fIP6Src, fIP6Addr, fIP6SrcHost, fIP6Host)
	ip6DstSpan = NewSpan(fIP6Dst, fIP6Addr, fIP6DstHost, fIP6Host)
	ip6SrcRest = NewSpan(fIP6Addr, fIP6SrcHost, fIP6Host)
	ip6DstRest = NewSpan(fIP6Addr, fIP6DstHost, fIP6Host)
)

// udpTree adds a UDP header h (8 octets) at frame offset off, between src
// and dst. A zero checksum over IPv4 is "not present" (RFC 768).
func (e *Engine) udpTree(t *Tree, off int, h []byte, src, dst netip.Addr, ipv4 bool) {
	if t.SkipProto(PUDP, udpNodes) { // numbers no conversation either (below)
		return
	}
	sp, dp, ck := be16(h), be16(h[2:]), be16(h[6:])
	t.Proto(PUDP, off, 8, "")
	t.Uint(fUDPSrcPort, off, 2, uint64(sp))
	t.Uint(fUDPDstPort, off+2, 2, uint64(dp))
	t.Uint(fUDPPort, off, 2, uint64(sp))
	t.Uint(fUDPPort, off+2, 2, uint64(dp))
	t.Uint(fUDPLength, off+4, 2, uint64(be16(h[4:])))
	t.Uint(fUDPChecksum, off+6, 2, uint64(ck))
	status := uint64(StatusUnverified)
	if ck == 0 && ipv4 {
		status = StatusNotPresent
	}
	t.Uint(fUDPCkStatus, -1, 0, ckStatus(e.ckL4, status))
	if t != nil {
		// Numbering probes a map per frame (a fifth of the tree of a -T
		// fields run that shows no udp.stream): a sparse tree that keeps
		// neither it nor findings counts the node and numbers nothing. The
		// trees of an engine all keep the same fields (one run), so its
		// numbers never have gaps.
		var s uint32
		if t.Wants(fUDPStream) || t.Wants(fExpert) {
			s = e.udpStream(t, netip.AddrPortFrom(src, sp), netip.AddrPortFrom(dst, dp))
		}
		t.Uint(fUDPStream, -1, 0, uint64(s))
	}
}

// udpNodes is the nodes udpTree adds: the protocol, 8 fields (a finding
// only where udp.stream or findings are kept, when SkipProto says no).
const udpNodes = 9

func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }

// tcpOptLen is the length of the TCP option at opts[i]: 1 for End of
// Option List and No-Operation, else its length octet; ok is false when that
// length does not fit the options (the walks stop there, as tshark's).
func tcpOptLen(opts []byte, i int) (l int, ok bool) {
	if opts[i] <= 1 {
		return 1, true
	}
	if i+1 >= len(opts) || opts[i+1] < 2 || i+int(opts[i+1]) > len(opts) {
		return 0, false
	}
	return int(opts[i+1]), true
}

// tcpOptionsTree adds the TCP options in opts (at off in the frame): one
// node per option with its kind, length and values, as tshark shows them.
// A length that does not fit ends the walk with the rest as one unknown
// option and an expert note.
func (e *Engine) tcpOptionsTree(t *Tree, off int, opts []byte) {
	n := &e.frame.Net
	t.Bytes(fTCPOptions, off, len(opts), opts)
	t.Open()
	defer t.Close()
	for i := 0; i < len(opts); {
		kind := opts[i]
		l, ok := tcpOptLen(opts, i)
		if !ok {
			t.Bytes(fTCPOptUnknown, off+i, len(opts)-i, opts[i:])
			t.Finding(&Finding{Sev: Warn, Group: GroupMalformed, Field: fTCPOptLen, Proto: "tcp", PDU: -1,
				Msg: "TCP option of kind " + strconv.Itoa(int(kind)) + " at header offset " + strconv.Itoa(20+i) + ": its length does not fit the options"})
			return
		}
		o := opts[i : i+l]
		fo := tcpOptFields[kind]
		if fo == nil {
			fo = fTCPOptUnknown
		}
		t.Bytes(fo, off+i, l, o)
		t.Open()
		t.Uint(fTCPOptKind, off+i, 1, uint64(kind))
		if l > 1 {
			t.Uint(fTCPOptLen, off+i+1, 1, uint64(l))
		}
		switch {
		case kind == 2 && l == 4:
			t.Uint(fTCPOptMSS, off+i+2, 2, uint64(o[2])<<8|uint64(o[3]))
		case kind == 3 && l == 3:
			t.Uint(fTCPOptShift, off+i+2, 1, uint64(o[2]))
			t.Uint(fTCPOptMult, off+i+2, 1, 1<<min(o[2], wsMax))
		case kind == 8 && l == 10:
			t.Uint(fTCPOptTSval, off+i+2, 4, uint64(be32(o[2:])))
			t.Uint(fTCPOptTSecr, off+i+6, 4, uint64(be32(o[6:])))
		case kind == 5 && l >= 10 && (l-2)%8 == 0:
			// Edges relative to the peer's start, like tcp.ack, when known.
			var base uint32
			if n.HasRelAck {
				base = n.TCP.Ack - n.RelAck
			}
			for j := 2; j+8 <= l; j += 8 {
				t.Uint(fTCPOptSackL, off+i+j, 4, uint64(be32(o[j:])-base))
				t.Uint(fTCPOptSackR, off+i+j+4, 4, uint64(be32(o[j+4:])-base))
			}
			t.Uint(fTCPOptSackN, -1, 0, uint64((l-2)/8))
		}
		t.Close()
		i += l // past an end of list too: tshark shows each padding octet as one more
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
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
	switch f.LinkType {
	case LinkTypeIPoIB:
		add("ipoib")
	case LinkTypeERF:
		add("erf")
	}
	var last string
	pdus := f.PDUs
	if f.etherAt > 0 { // the PDUs that handed on the IP layers come first (EtherPayload)
		k := min(f.etherAt-1, len(pdus))
		for _, p := range pdus[:k] {
			if a := p.Proto().Abbrev; a != last {
				add(a)
				last = a
			}
		}
		add("ethertype")
		pdus, last = pdus[k:], ""
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
			if f.reasmUDP != nil {
				add("udp")
			}
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
	for _, p := range pdus {
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

// udpConv is a UDP conversation, the lower address-port first.
type udpConv struct{ a, b netip.AddrPort }

// maxUDPStreams bounds the UDP conversations numbered for udp.stream. When
// it is reached the table is emptied (a note says so) and numbering goes
// on: a conversation seen again then gets a new number.
const maxUDPStreams = 1 << 18

// udpStream returns the udp.stream of the conversation between a and b:
// its index in order of first frame, as tshark numbers them (a packet
// quoted in an ICMP error gets its own conversation's). It runs only when
// a tree is built, which is every frame of the pass that builds them, in
// order. A number the -j reader gave (Packet.Streams) wins.
func (e *Engine) udpStream(t *Tree, a, b netip.AddrPort) uint32 {
	s, emptied := e.given.UDP, e.given.UDPFull
	if !e.given.HasUDP {
		s, emptied = e.udpStreamIndex(a, b)
	}
	if emptied {
		t.Finding(&Finding{Sev: Note, Group: GroupSequence, Proto: "udp", PDU: -1,
			Msg: "udp.stream table full (" + strconv.Itoa(maxUDPStreams) + " conversations): emptied, conversations seen again get new numbers"})
	}
	return s
}

// udpStreamIndex numbers the conversation between a and b (udpStream, and
// NumberStreams on the -j reader); emptied reports that the table was full
// and started over.
func (e *Engine) udpStreamIndex(a, b netip.AddrPort) (s uint32, emptied bool) {
	if b.Addr().Less(a.Addr()) || a.Addr() == b.Addr() && b.Port() < a.Port() {
		a, b = b, a
	}
	k := udpConv{a, b}
	if e.udpStreams.has && e.udpStreams.last == k { // most frames continue the last one's conversation
		return e.udpStreams.lastIdx, false
	}
	if s, ok := e.udpStreams.idx[k]; ok {
		e.udpStreams.last, e.udpStreams.lastIdx, e.udpStreams.has = k, s, true
		return s, false
	}
	if e.udpStreams.idx == nil {
		e.udpStreams.idx = make(map[udpConv]uint32)
	}
	if len(e.udpStreams.idx) >= maxUDPStreams {
		clear(e.udpStreams.idx) // (the cached last conversation is replaced below)
		emptied = true
	}
	s = e.udpStreams.next
	e.udpStreams.next++
	e.udpStreams.idx[k] = s
	e.udpStreams.last, e.udpStreams.lastIdx, e.udpStreams.has = k, s, true
	return s, emptied
}
