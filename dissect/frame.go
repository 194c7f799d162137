package dissect

import (
	"net/netip"
	"strconv"
)

// PDU is one protocol data unit found in a frame: an Rx packet, an AFS call, an
// RDS message. Dissectors keep their PDU values in per-engine pools, so putting
// one in a Frame does not allocate.
type PDU interface {
	Proto() *ProtoInfo
	// Summary appends the PDU's info-column text to dst.
	Summary(dst []byte) []byte
	// Tree adds the PDU's nodes (its protocol node first) to t.
	Tree(t *Tree, f *Frame)
}

// Packet is one captured frame as the engine's input (Engine.Decode).
type Packet struct {
	Num      uint64 // frame number (1 for the first)
	TimeNS   int64  // Unix time in nanoseconds
	CapLen   int    // octets captured; with WireLen, 0 means len(Data)
	WireLen  int    // octets on the wire
	LinkType uint16 // LinkTypeEthernet, ...
	Iface    int    // pcapng interface index
	Data     []byte // valid for the call only
	// Pass is 1 during the first pass of a two-pass read, else 0 or 2.
	Pass int
	// Streams, when Given, are the frame's tcp.stream and udp.stream as
	// numbered over the whole capture (Engine.NumberStreams on the -j
	// reader, which sees every frame): the engine shows them instead of
	// its own, which count only the flows it sees.
	Streams StreamNumbers
}

// StreamNumbers are a frame's conversation numbers (Packet.Streams).
type StreamNumbers struct {
	Given   bool
	HasUDP  bool   // UDP holds the udp.stream of the frame's UDP header (its own, reassembled or quoted)
	UDPFull bool   // the udp.stream table was emptied at this frame (the note goes on it)
	TCP     uint32 // tcp.stream of the frame's TCP segment
	UDP     uint32
}

// TCPHeader holds the values of a TCP segment's header dissectors need, so
// they do not parse it again.
type TCPHeader struct {
	Seq, Ack uint32 // as on the wire (Net.RelSeq/RelAck are relative)
	Window   uint16
	Flags    uint16 // TCPFlagSYN, ...
	HdrLen   int    // octets, options included
}

// Net is a frame's network and transport context.
type Net struct {
	Src, Dst         netip.Addr
	IPProto          uint8 // IPProtoTCP, IPProtoUDP, IPProtoRDP, ...
	SrcPort, DstPort uint16
	HasIP, HasL4     bool
	L3Off, L4Off     int // offsets of the IP and transport headers in the frame
	PayloadOff       int // offset of the transport payload
	PayloadLen       int // captured payload bytes
	Truncated        bool
	Fragment         bool
	VLAN             uint16
	EtherType        uint16
	ECN              uint8 // the IP header's ECN bits (3: congestion experienced)
	// TCP sequence and acknowledgment numbers relative to each direction's
	// start (see tcpRelative); RelAck only when the peer's start is known.
	RelSeq, RelAck uint32
	HasRelAck      bool
	// TCPAnalysis holds tshark's SEQ/ACK analysis flags of the segment
	// (TCPRetransmission, ...; see tcpseq.go); for a duplicate ACK, its
	// number in the run and the frame of the ACK it repeats.
	TCPAnalysis uint16
	DupAckNum   uint32
	DupAckFrame uint64
	// TCPStream is tshark's tcp.stream; TCPWinScale the sender's window
	// shift (0-14), or -1 unknown, -2 not used (tcp.window_size_scalefactor).
	TCPStream   uint32
	TCPWinScale int8
	// TCPSegLen is tcp.len: the segment's length on the wire (from the IP
	// header: more than PayloadLen in a frame cut by the snapshot length).
	TCPSegLen int
	// TCPBytesInFlight is tcp.analysis.bytes_in_flight (0: none).
	TCPBytesInFlight uint32
	// tcpInfo is every analysis flag of the segment, the internal ones
	// (window update, keep-alive ACK) too: the Info column shows them.
	tcpInfo uint16
	// tcpHeld: a stream dissector keeps octets of this segment for a PDU
	// that a later segment completes (HoldTCPSegment).
	tcpHeld bool
	// TCP is the segment's header when IPProto is IPProtoTCP and HasL4.
	TCP TCPHeader
}

// TCPPayloadOffset returns the offset in f.Data of the n stream octets that
// start at TCP sequence number seq, or -1 when they do not all lie in this
// frame's TCP payload (stream dissectors show PDUs at their frame offsets).
func (f *Frame) TCPPayloadOffset(seq uint32, n int) int {
	net := &f.Net
	if !net.HasL4 || net.IPProto != IPProtoTCP {
		return -1
	}
	first := net.TCP.Seq
	if net.TCP.Flags&TCPFlagSYN != 0 {
		first++ // the SYN takes the first number
	}
	i := int(int32(seq - first))
	if i < 0 || n < 0 || i+n > net.PayloadLen || net.PayloadOff+i+n > len(f.Data) {
		return -1
	}
	return net.PayloadOff + i
}

// Frame is one captured frame with everything the engine and the protocol
// dissectors found in it. The engine reuses one Frame for every packet: keep
// nothing from it beyond the next Decode.
type Frame struct {
	Num      uint64
	TimeNS   int64
	CapLen   int
	WireLen  int
	LinkType uint16
	Iface    int
	Data     []byte

	Net Net
	// reasmUDP is the UDP header of the IPv4 datagram this frame's fragment
	// completed (the base tree shows it, as tshark does), else nil.
	reasmUDP []byte
	PDUs     []PDU
	Findings []Finding
	Checks   []CheckResult
	// Proto is the protocol column: the innermost protocol decoded.
	Proto string
	// Pass is 1 during the first pass of a two-pass read, else 0 or 2.
	Pass int
	// recTimeNS and recWireLen are the capture record's time and original
	// length where the frame's own header gives other ones (ERF): what -w
	// writes back.
	recTimeNS  int64
	recWireLen int
	// Link names the ends of a frame without IP where a protocol below
	// it says who they are (native InfiniBand, RoCEv1): the Source and
	// Destination columns, as tshark's.
	Link LinkAddrs
	// etherAt is 1 + the number of PDUs before the frame's IP and
	// transport layers when a protocol handed the engine an EtherType
	// payload (EtherPayload: IP over InfiniBand), else 0: frame.protocols
	// and the tree show those layers after those PDUs, as tshark does.
	etherAt int

	eng *Engine // the engine that owns this frame (for transport info)
	// A packet quoted in an ICMP error is being decoded (quoted.go); the
	// PDUs qLo..qHi-1 are that packet's.
	inError  bool
	qLo, qHi int
	// seq tells the engine's frames apart, also the calls of the
	// end-of-input flush, which all have number 0: a Pool starts over when
	// it changes.
	seq uint64
	// arena holds Keep's and Alloc's copies (pool.go).
	arena arena
	// states are the FrameState values of dissectors without an instance,
	// kept as long as the frame (its engine), by slot.
	states []any
}

// Record returns the capture record's time and original length, for
// writing the frame back: they differ from TimeNS and WireLen where the
// frame carries a header of its own that says them (ERF).
func (f *Frame) Record() (timeNS int64, wireLen int) {
	if f.recWireLen == 0 && f.recTimeNS == 0 {
		return f.TimeNS, f.WireLen
	}
	return f.recTimeNS, f.recWireLen
}

// Kinds of LinkAddrs.
const (
	LinkNone uint8 = iota
	LinkLID        // InfiniBand local IDs (an LRH without a GRH)
	LinkGID        // InfiniBand global IDs (a GRH)
)

// LinkAddrs are a frame's ends below IP (Frame.Link).
type LinkAddrs struct {
	Kind       uint8 // LinkNone, LinkLID, LinkGID
	SLID, DLID uint16
	SGID, DGID netip.Addr
}

// AppendLinkAddr appends the Source (src) or Destination column of a frame
// whose ends are LinkAddrs, as tshark writes them ("LID: 18", "GID:
// fe80::1"); nothing for LinkNone.
func (l *LinkAddrs) AppendLinkAddr(dst []byte, src bool) []byte {
	switch l.Kind {
	case LinkLID:
		v := l.DLID
		if src {
			v = l.SLID
		}
		dst = append(dst, "LID: "...)
		return strconv.AppendUint(dst, uint64(v), 10)
	case LinkGID:
		a := l.DGID
		if src {
			a = l.SGID
		}
		dst = append(dst, "GID: "...)
		return a.AppendTo(dst)
	}
	return dst
}

// TransportLast reports whether the frame's IP and transport layers came
// after its PDUs (IP over InfiniBand, Frame.EtherPayload) and no protocol
// decoded what they carry: the Info column then ends with what the
// transport says, as it does for an Ethernet frame.
func (f *Frame) TransportLast() bool {
	return f.etherAt > 0 && f.etherAt-1 == len(f.PDUs) && f.Net.HasIP
}

// AppendTransportInfo appends what the transport layer says when no
// protocol above it did, as tshark's info column does: for TCP the ports,
// flags, sequence and acknowledgment numbers, window and length; for UDP
// the ports and length.
func (f *Frame) AppendTransportInfo(dst []byte) []byte {
	if f.eng == nil || !f.Net.HasIP {
		return dst
	}
	if !f.Net.HasL4 {
		dst = append(dst, "IP protocol "...)
		dst = strconv.AppendUint(dst, uint64(f.Net.IPProto), 10)
		if name, ok := ipProtoNames[uint64(f.Net.IPProto)]; ok {
			dst = append(dst, " ("...)
			dst = append(dst, name...)
			dst = append(dst, ')')
		}
		return dst
	}
	n := &f.Net
	if n.IPProto == IPProtoTCP {
		dst = appendTCPAnalysisInfo(dst, n)
	}
	dst = strconv.AppendUint(dst, uint64(n.SrcPort), 10)
	dst = append(dst, " → "...)
	dst = strconv.AppendUint(dst, uint64(n.DstPort), 10)
	switch n.IPProto {
	case IPProtoTCP:
		dst = f.appendTCPInfo(dst)
		if n.tcpHeld {
			dst = append(dst, " [TCP segment of a reassembled PDU]"...)
		}
	case IPProtoUDP:
		dst = append(dst, " Len="...)
		dst = strconv.AppendInt(dst, int64(n.PayloadLen), 10)
	}
	return dst
}

// tcpInfoFlags are the flag names of tshark's TCP Info, in its order.
var tcpInfoFlags = [...]struct {
	bit  uint16
	name string
}{{TCPFlagFIN, "FIN"}, {TCPFlagSYN, "SYN"}, {TCPFlagRST, "RST"}, {TCPFlagPSH, "PSH"}, {TCPFlagACK, "ACK"},
	{TCPFlagURG, "URG"}, {TCPFlagECE, "ECE"}, {TCPFlagCWR, "CWR"}, {TCPFlagNS, "AE"}, {0xe00, "Reserved"}}

// appendTCPAnalysisInfo appends the "[TCP ...] " prefixes tshark puts
// before a TCP segment's Info for its analysis flags. tshark prepends each
// as it prints the flags (port reuse, retransmissions, lost and unseen
// segments, window, keep-alive, duplicate ACK, zero window), so they read
// in the reverse of that order.
func appendTCPAnalysisInfo(dst []byte, n *Net) []byte {
	an := n.tcpInfo
	if an&tcpZeroWindowProbe != 0 {
		dst = append(dst, "[TCP ZeroWindowProbe] "...)
	}
	if an&TCPDuplicateAck != 0 {
		dst = append(dst, "[TCP Dup ACK "...)
		dst = strconv.AppendUint(dst, n.DupAckFrame, 10)
		dst = append(dst, '#')
		dst = strconv.AppendUint(dst, uint64(n.DupAckNum), 10)
		dst = append(dst, "] "...)
	}
	if an&tcpKeepAliveAck != 0 {
		dst = append(dst, "[TCP Keep-Alive ACK] "...)
	}
	if an&TCPKeepAlive != 0 {
		dst = append(dst, "[TCP Keep-Alive] "...)
	}
	if an&tcpWindowUpdate != 0 {
		dst = append(dst, "[TCP Window Update] "...)
	}
	if an&TCPAckLostSegment != 0 {
		dst = append(dst, "[TCP ACKed unseen segment] "...)
	}
	if an&TCPLostSegment != 0 {
		dst = append(dst, "[TCP Previous segment not captured] "...)
	}
	if an&TCPOutOfOrder != 0 {
		dst = append(dst, "[TCP Out-Of-Order] "...)
	}
	switch {
	case an&TCPFastRetransmission != 0:
		dst = append(dst, "[TCP Fast Retransmission] "...)
	case an&TCPSpuriousRetransmission != 0:
		dst = append(dst, "[TCP Spurious Retransmission] "...)
	case an&TCPRetransmission != 0:
		dst = append(dst, "[TCP Retransmission] "...)
	}
	if an&TCPReusedPorts != 0 {
		dst = append(dst, "[TCP Port numbers reused] "...)
	}
	return dst
}

// appendTCPInfo appends the rest of a TCP segment's Info as tshark's:
// flags, relative numbers, the window scaled as the handshake said (not
// on a SYN), Urg when URG is set, the length on the wire, then the
// options in their order (MSS=1460 WS=128 SACK_PERM TSval=... TSecr=...
// SLE=... SRE=...).
func (f *Frame) appendTCPInfo(dst []byte) []byte {
	n := &f.Net
	t := &n.TCP
	h := f.tcpHeader()
	flags := t.Flags
	if len(h) >= 14 {
		flags |= uint16(h[12]&0x0e) << 8 // the reserved bits
	}
	dst = append(dst, " ["...)
	first := true
	for _, fl := range tcpInfoFlags {
		if flags&fl.bit != 0 {
			if !first {
				dst = append(dst, ", "...)
			}
			dst = append(dst, fl.name...)
			first = false
		}
	}
	dst = append(dst, "] Seq="...)
	dst = strconv.AppendUint(dst, uint64(n.RelSeq), 10)
	if t.Flags&TCPFlagACK != 0 {
		dst = append(dst, " Ack="...)
		if n.HasRelAck {
			dst = strconv.AppendUint(dst, uint64(n.RelAck), 10)
		} else {
			dst = strconv.AppendUint(dst, uint64(t.Ack), 10) // the peer's start is unknown: raw
		}
	}
	dst = append(dst, " Win="...)
	win := uint64(t.Window)
	if t.Flags&TCPFlagSYN == 0 && n.TCPWinScale >= 0 {
		win <<= uint(n.TCPWinScale)
	}
	dst = strconv.AppendUint(dst, win, 10)
	var urg uint16
	if len(h) >= 20 {
		urg = uint16(h[18])<<8 | uint16(h[19])
	}
	if t.Flags&TCPFlagURG != 0 {
		dst = append(dst, " Urg="...)
		dst = strconv.AppendUint(dst, uint64(urg), 10)
	}
	dst = append(dst, " Len="...)
	dst = strconv.AppendInt(dst, int64(max(n.PayloadLen, n.TCPSegLen)), 10)
	if len(h) > 20 {
		dst = appendTCPOptionsInfo(dst, n, h[20:])
	}
	return dst
}

// tcpHeader is the frame's TCP header with its options (what of it was
// captured), nil if none.
func (f *Frame) tcpHeader() []byte {
	n := &f.Net
	if !n.HasL4 || n.L4Off < 0 || n.L4Off >= len(f.Data) {
		return nil
	}
	h := f.Data[n.L4Off:]
	return h[:min(len(h), max(n.TCP.HdrLen, 0))]
}

// appendTCPOptionsInfo appends the options tshark's Info names; a bad
// option length ends the list, as it ends tshark's.
func appendTCPOptionsInfo(dst []byte, n *Net, opts []byte) []byte {
	for i := 0; i < len(opts); {
		kind := opts[i]
		l, ok := tcpOptLen(opts, i)
		if kind == 0 || !ok {
			break
		}
		o := opts[i : i+l]
		switch {
		case kind == 2 && l == 4:
			dst = append(dst, " MSS="...)
			dst = strconv.AppendUint(dst, uint64(o[2])<<8|uint64(o[3]), 10)
		case kind == 3 && l == 3:
			dst = append(dst, " WS="...)
			dst = strconv.AppendUint(dst, 1<<min(o[2], wsMax), 10)
		case kind == 4 && l == 2:
			dst = append(dst, " SACK_PERM"...)
		case kind == 8 && l == 10:
			dst = append(dst, " TSval="...)
			dst = strconv.AppendUint(dst, uint64(be32(o[2:])), 10)
			dst = append(dst, " TSecr="...)
			dst = strconv.AppendUint(dst, uint64(be32(o[6:])), 10)
		case kind == 5 && l >= 10 && (l-2)%8 == 0:
			var base uint32 // edges relative to the peer's start, as tcp.ack
			if n.HasRelAck {
				base = n.TCP.Ack - n.RelAck
			}
			for j := 2; j+8 <= l; j += 8 {
				dst = append(dst, " SLE="...)
				dst = strconv.AppendUint(dst, uint64(be32(o[j:])-base), 10)
				dst = append(dst, " SRE="...)
				dst = strconv.AppendUint(dst, uint64(be32(o[j+4:])-base), 10)
			}
		}
		i += l
	}
	return dst
}

func (f *Frame) reset() {
	f.resetFields()
	f.arena.reset()
}

// resetFields is reset but for the arena.
func (f *Frame) resetFields() {
	f.Net = Net{}
	f.PDUs = f.PDUs[:0]
	f.Findings = f.Findings[:0]
	f.Checks = f.Checks[:0]
	f.Proto = ""
	f.Link.Kind = LinkNone // the rest is read only with a Kind
	f.inError, f.qLo, f.qHi = false, 0, 0
	f.reasmUDP = nil
	f.etherAt = 0
}

// Reset empties f for another frame when dissectors run without an engine
// (tests, benchmarks): what the last frame added goes, and its frame-owned
// memory (Keep, Alloc, pools) starts over. The engine does this itself.
func (f *Frame) Reset() {
	f.reset()
	f.seq++
}

// ProtoStats reports whether the dissectors' own -z tables are wanted
// (Options.NoProtoStats unset, or no engine): counting for them is skipped
// otherwise.
func (f *Frame) ProtoStats() bool { return f.eng == nil || !f.eng.Opts.NoProtoStats }

// HoldTCPSegment is called by a stream dissector that keeps octets of the
// frame's TCP segment for a PDU not complete yet: like tshark's, the
// segment's Info then ends in "[TCP segment of a reassembled PDU]" when
// no PDU above TCP is shown in the frame.
func (f *Frame) HoldTCPSegment() {
	if f.Num != 0 && f.Net.IPProto == IPProtoTCP {
		f.Net.tcpHeld = true
	}
}

// AddPDU appends a PDU and returns its index.
func (f *Frame) AddPDU(p PDU) int {
	f.PDUs = append(f.PDUs, p)
	f.Proto = p.Proto().Abbrev
	return len(f.PDUs) - 1
}

// AddFinding records a finding on the PDU with index pdu (-1: the frame).
func (f *Frame) AddFinding(pdu int, sev Severity, g Group, field *Field, proto, msg string) {
	f.Findings = append(f.Findings, Finding{Sev: sev, Group: g, Field: field, Proto: proto, Msg: msg, PDU: pdu})
}

// TreeFindings adds the findings of PDU index pdu to t (dissectors call this at
// the end of their Tree method so findings show under their protocol).
func (f *Frame) TreeFindings(t *Tree, pdu int) {
	for i := range f.Findings {
		if f.Findings[i].PDU == pdu {
			t.Finding(&f.Findings[i])
		}
	}
}

// PDUIndex returns the index of p in the frame, or -1.
func (f *Frame) PDUIndex(p PDU) int {
	for i, q := range f.PDUs {
		if q == p {
			return i
		}
	}
	return -1
}

// AppendNumbers appends the frame (or other) numbers ns separated by sep,
// for tree fields that list every one.
func AppendNumbers(dst []byte, ns []uint64, sep string) []byte {
	for i, n := range ns {
		if i > 0 {
			dst = append(dst, sep...)
		}
		dst = strconv.AppendUint(dst, n, 10)
	}
	return dst
}

// AppendFrameList appends "frames 3,5,7-9" for a reassembled PDU's sources,
// with consecutive numbers as ranges and at most max items, then
// " (+N more)" when total exceeds what the list holds.
func AppendFrameList(dst []byte, frames []uint64, total, max int) []byte {
	dst = append(dst, "frames "...)
	items, shown := 0, 0
	for i := 0; i < len(frames); {
		j := i
		for j+1 < len(frames) && frames[j+1] == frames[j]+1 {
			j++
		}
		if items == max {
			break
		}
		if items > 0 {
			dst = append(dst, ',')
		}
		dst = AppendUint(dst, frames[i])
		if j > i {
			dst = append(dst, '-')
			dst = AppendUint(dst, frames[j])
		}
		items++
		shown += j - i + 1
		i = j + 1
	}
	if total < len(frames) {
		total = len(frames)
	}
	if total > shown {
		dst = append(dst, " (+"...)
		dst = strconv.AppendInt(dst, int64(total-shown), 10)
		dst = append(dst, " more)"...)
	}
	return dst
}
