package dissect

import (
	"net/netip"
	"strconv"
	"unsafe"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// Per-direction TCP state for every TCP frame, whether or not a stream
// dissector reassembles it:
//
//   - relative sequence numbers, as tshark shows them by default: each
//     direction counts from its ISN (the SYN is 0) or, when the capture starts
//     mid-connection, from just before the first octet seen (it is 1); the raw
//     numbers stay in tcp.seq_raw and tcp.ack_raw;
//   - tshark's SEQ/ACK analysis (tcp.analysis.*), with Wireshark's
//     definitions (its user guide, "TCP Analysis"): retransmission, fast and
//     spurious retransmission, out-of-order, previous segment not captured,
//     ACKed segment that wasn't captured, duplicate ACK, keep-alive, port
//     numbers reused. Like tshark, it judges each frame by the frames before
//     it, in capture order.
//
// The table is bounded by maxTCPHalves and charged to the engine's budget
// (table "tcp-analysis"); entries sit in an LRU list so the least recently
// active direction goes first. No allocation per frame once the table has
// grown.

type tcpHalf struct{ src, dst netip.AddrPort }

// eq is *k == *o spelled out: the generated comparison of the 64-octet keys
// was a call, twice a frame; ports first, as they differ first.
func (k *tcpHalf) eq(o *tcpHalf) bool {
	return k.src.Port() == o.src.Port() && k.dst.Port() == o.dst.Port() && k.src.Addr() == o.src.Addr() && k.dst.Addr() == o.dst.Addr()
}

// maxTCPHalves bounds the directions tracked; past it the least recently
// active one is forgotten (a finding says so), and its connection then
// counts from its next segment again.
const maxTCPHalves = 1 << 16

// Analysis flags of one frame (Net.TCPAnalysis).
const (
	TCPRetransmission uint16 = 1 << iota
	TCPFastRetransmission
	TCPSpuriousRetransmission
	TCPOutOfOrder
	TCPLostSegment
	TCPDuplicateAck
	TCPKeepAlive
	tcpKeepAliveAck // internal: not a duplicate ACK
	tcpZeroWindowProbe
	tcpWindowUpdate
	TCPAckLostSegment // the segment acknowledges octets of the peer's that were not captured
	TCPReusedPorts    // a SYN with another ISN on ports seen before: a new connection
)

// tcpAnalysisOOOThreshold is Wireshark's default out-of-order threshold
// when the handshake RTT is unknown: a segment below the highest one seen
// that comes less than this after it is out of order, not a retransmission.
const tcpAnalysisOOOThreshold = 3_000_000 // ns

// tcpFastRetransWindow: a retransmission of the segment the peer has
// duplicate-ACKed at least twice, within this of the last ACK, is fast.
const tcpFastRetransWindow = 20_000_000 // ns

// tcpDir is one direction's state. Sequence numbers are raw; the has*
// flags stand for tshark's "non-zero" tests on relative numbers.
type tcpDir struct {
	key         tcpHalf
	prev, next  int32 // LRU list through Engine.tcpDirs, 0 is the sentinel
	stamp       uint64
	base        uint32 // relative sequence base
	nextSeq     uint32 // highest sequence number + length seen
	lastAck     uint32
	dupAcks     uint32
	nextSeqTime int64
	lastAckTime int64
	lastNonDup  uint64 // frame of the last ACK that was not a duplicate
	synTime     int64  // of the last SYN (not SYN+ACK) of this direction
	firstRTT    int64  // SYN to the first ACK of the handshake, once known
	window      uint16
	has         uint16 // hasNext, hasAck, hasWin, wasKeepAlive, ...
	unacked     uint32 // with hasUnacked: where the segments not yet acknowledged start
	unackedEnd  uint32 // and where the highest of them ends
	sacked      uint32 // octets in the first three SACK blocks of this side's latest segment (tshark's bytes in flight)
	peerBase    uint32 // the peer's base while the peer is unseen: its first ACK less one, as tshark
	maxToAck    uint32 // with hasMaxToAck: the end of the octets sent without a hole (tshark's maxseqtobeacked)
	wscale      int8   // window shift this side announced (tcp.window_size_scalefactor): wsUnknown, wsNone or 0-14
	stream      uint32
	// The peer direction's entry as peer last found it (0: none while the
	// table's gen was peerGen), so a frame of a known pair costs no hashing.
	peer    int32
	peerGen uint32
}

// Window scale states of a direction, as tshark's scale factor shows them.
const (
	wsUnknown = -1 // no handshake seen: windows are shown unscaled
	wsNone    = -2 // a side's SYN had no window scale option (RFC 7323 2.2: neither side scales)
	wsMax     = 14 // RFC 7323 2.3: a larger shift is used as 14
)

const (
	hasNext = 1 << iota
	hasAck
	hasWin
	wasKeepAlive
	hasSyn
	hasPeerBase
	hasUnacked // unacked holds the lowest sequence number not yet acknowledged
	noBif      // a segment was lost: no bytes in flight until the peer ACKs again (as tshark)
	hasMaxToAck
)

// tcpDirCost is what one tracked direction costs the budget: its entry,
// its map slot (key and index) and the map's overhead per slot.
const tcpDirCost = int64(unsafe.Sizeof(tcpDir{})) + int64(unsafe.Sizeof(tcpHalf{})) + 4 + 16

// tcpTable is the direction table; it implements budget.Table.
type tcpTable struct {
	idx     map[tcpHalf]int32
	dirs    [][]tcpDir // chunks of tcpChunk entries: growth never copies; entry 0 is the LRU sentinel
	n       int32      // entries allocated
	free    []int32
	acct    *budget.Account
	drops   uint64   // entries forgotten, by the limit or the budget
	dupMsgs []string // "Duplicate ACK (#n)", built once per n
	streams uint32   // tcp.stream of the next new connection
	gen     uint32   // entries created: a peer not found stays unfound until it changes
}

// tcpChunk is the number of entries allocated at once.
const tcpChunk = 1024

func (t *tcpTable) init(b *budget.Budget) {
	t.idx = make(map[tcpHalf]int32)
	t.dirs = [][]tcpDir{make([]tcpDir, tcpChunk)}
	t.n = 1
	t.acct = b.Register("tcp-analysis", t)
}

// d returns entry i (never negative: unsigned, the division is a shift and
// the remainder a mask, with no sign fix-up at each of a frame's dozen calls).
func (t *tcpTable) d(i int32) *tcpDir { u := uint32(i); return &t.dirs[u/tcpChunk][u%tcpChunk] }

func (t *tcpTable) unlink(i int32) {
	d := t.d(i)
	t.d(d.prev).next, t.d(d.next).prev = d.next, d.prev
}

func (t *tcpTable) pushFront(i int32) {
	d, s := t.d(i), t.d(0)
	d.prev, d.next = 0, s.next
	t.d(s.next).prev = i
	s.next = i
}

// get returns the index of k's entry, creating it (and forgetting the least
// recently active one when full) if need be; evicted reports that.
func (t *tcpTable) get(k tcpHalf, now uint64) (i int32, created, evicted bool) {
	if i := t.d(0).next; i != 0 && t.d(i).key.eq(&k) { // the last frame's direction: no hashing
		t.d(i).stamp = now
		return i, false, false
	}
	if i, ok := t.idx[k]; ok {
		if t.d(0).next != i {
			t.unlink(i)
			t.pushFront(i)
		}
		t.d(i).stamp = now
		return i, false, false
	}
	if len(t.idx) >= maxTCPHalves {
		t.dropOldest()
		evicted = true
	}
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if int(t.n) == len(t.dirs)*tcpChunk {
			t.dirs = append(t.dirs, make([]tcpDir, tcpChunk))
		}
		i = t.n
		t.n++
	}
	*t.d(i) = tcpDir{key: k, stamp: now, wscale: wsUnknown}
	t.idx[k] = i
	t.gen++
	t.pushFront(i)
	t.acct.Charge(tcpDirCost)
	return i, true, evicted
}

func (t *tcpTable) lookup(k tcpHalf) int32 { return t.idx[k] } // 0: none

// peer returns the index of entry i's reverse direction, 0 if none. The
// entry remembers it: a dropped peer's entry is cleared or reused with
// another key, which the key check sees, and a new one bumps gen.
func (t *tcpTable) peer(i int32) int32 {
	d := t.d(i)
	if d.peer == 0 && d.peerGen == t.gen {
		return 0
	}
	rk := tcpHalf{src: d.key.dst, dst: d.key.src}
	if j := d.peer; j != 0 && t.d(j).key.eq(&rk) {
		return j
	}
	d.peer, d.peerGen = t.idx[rk], t.gen
	return d.peer
}

func (t *tcpTable) dropOldest() tcpHalf {
	k := t.remove(t.d(0).prev)
	t.drops++
	return k
}

// remove forgets entry i and returns its key.
func (t *tcpTable) remove(i int32) tcpHalf {
	k := t.d(i).key
	t.unlink(i)
	delete(t.idx, k)
	*t.d(i) = tcpDir{}
	t.free = append(t.free, i)
	t.acct.Charge(-tcpDirCost)
	return k
}

// Oldest implements budget.Table.
func (t *tcpTable) Oldest() (uint64, bool) {
	if i := t.d(0).prev; i != 0 {
		return t.d(i).stamp, true
	}
	return 0, false
}

// DropOldest implements budget.Table.
func (t *tcpTable) DropOldest() string {
	if t.d(0).prev == 0 {
		return "no TCP direction"
	}
	k := t.dropOldest()
	return "TCP analysis state of " + k.src.String() + " → " + k.dst.String()
}

// reset forgets every direction (a second pass starts over).
func (t *tcpTable) reset() {
	if t.idx == nil {
		return
	}
	clear(t.idx)
	t.dirs = t.dirs[:1]
	clear(t.dirs[0])
	t.n = 1
	t.free = t.free[:0]
	t.streams = 0
	t.acct.Reset()
}

func (t *tcpTable) dupAckMsg(n uint32) string {
	const keep = 1024 // longer runs are formatted each time
	if n == 0 || n > keep {
		return "Duplicate ACK (#" + strconv.FormatUint(uint64(n), 10) + ")"
	}
	for uint32(len(t.dupMsgs)) < n {
		t.dupMsgs = append(t.dupMsgs, "Duplicate ACK (#"+strconv.Itoa(len(t.dupMsgs)+1)+")")
	}
	return t.dupMsgs[n-1]
}

func seqGT(a, b uint32) bool { return int32(a-b) > 0 }

func (e *Engine) tcpRelative(f *Frame) {
	t := &e.tcp
	n := &f.Net
	tab := &e.tcpTab
	if tab.idx == nil {
		tab.init(e.budget)
	}
	k := tcpHalf{src: netip.AddrPortFrom(n.Src, n.SrcPort), dst: netip.AddrPortFrom(n.Dst, n.DstPort)}
	i, created, evicted := tab.get(k, e.budget.Now())
	if evicted {
		f.AddFinding(-1, Note, GroupSequence, nil, "tcp", "TCP analysis table full ("+strconv.Itoa(maxTCPHalves)+
			" directions): the least recently active one was forgotten")
	}
	fwd := tab.d(i)
	var rev *tcpDir
	j := tab.peer(i)
	if j != 0 {
		rev = tab.d(j)
	}
	// tshark's port reuse: a SYN whose ISN is not this side's base, which
	// its earlier segments or the peer's ACKs (their first less one) set.
	reused := t.SYN && !t.ACK && (!created && t.Seq != fwd.base ||
		created && rev != nil && rev.has&hasPeerBase != 0 && t.Seq != rev.peerBase)
	if reused && rev != nil {
		// A new conversation for tshark: the peer's side of the old one
		// goes too, and its SYN+ACK counts afresh.
		tab.remove(j)
		rev = nil
	}
	if created || reused {
		if !created {
			// A new SYN with another ISN: a new connection on the same
			// ports, analysed afresh.
			*fwd = tcpDir{key: fwd.key, prev: fwd.prev, next: fwd.next, stamp: fwd.stamp, wscale: wsUnknown}
		}
		fwd.base = t.Seq - 1
		switch {
		case t.SYN:
			fwd.base = t.Seq
		case rev != nil && rev.has&hasPeerBase != 0:
			fwd.base = rev.peerBase // the peer has been acknowledging from there
		}
		// tcp.stream: the peer's connection, unless this is its first
		// frame or a SYN that starts a new one.
		if rev != nil && !(t.SYN && !t.ACK) {
			fwd.stream = rev.stream
		} else {
			fwd.stream = tab.streams
			tab.streams++
		}
	}
	if t.SYN {
		e.tcpWindowScale(fwd, rev)
	}
	n.TCPStream, n.TCPWinScale = fwd.stream, fwd.wscale
	if e.given.Given { // the -j reader numbered it over the whole capture, with this same code
		n.TCPStream = e.given.TCP
	}
	n.RelSeq = t.Seq - fwd.base
	n.HasRelAck = false
	switch {
	case rev != nil && t.ACK:
		n.RelAck, n.HasRelAck = t.Ack-rev.base, true
	case t.ACK:
		// The peer is not seen (yet): acknowledgments count from the
		// first one less one, as tshark's do.
		if fwd.has&hasPeerBase == 0 {
			fwd.peerBase = t.Ack - 1
			fwd.has |= hasPeerBase
		}
		n.RelAck, n.HasRelAck = t.Ack-fwd.peerBase, true
	}
	e.tcpAnalyze(f, fwd, rev, reused)
}

// tcpWindowScale records the shift a SYN announces (RFC 7323 2.2: each
// side's own, applying to the windows it sends; none unless both SYNs carry
// the option, which the SYN+ACK settles). A SYN+ACK also joins its
// connection's stream index, for a SYN that restarted the ports.
func (e *Engine) tcpWindowScale(fwd, rev *tcpDir) {
	t := &e.tcp
	fwd.wscale = wsUnknown
	for _, o := range t.Options {
		if o.OptionType == layers.TCPOptionKindWindowScale && len(o.OptionData) == 1 {
			fwd.wscale = int8(min(o.OptionData[0], wsMax))
		}
	}
	if !t.ACK {
		return
	}
	if rev != nil {
		fwd.stream = rev.stream
	}
	if fwd.wscale == wsUnknown || rev == nil || rev.wscale < 0 {
		fwd.wscale = wsNone
		if rev != nil {
			rev.wscale = wsNone
		}
	}
}

// tcpAnalyze sets f.Net.TCPAnalysis from the frame and the state of both
// directions, then updates this direction's state.
func (e *Engine) tcpAnalyze(f *Frame, fwd, rev *tcpDir, reused bool) {
	t := &e.tcp
	n := &f.Net
	seq, ack, win, now := t.Seq, t.Ack, t.Window, f.TimeNS
	seglen := e.tcpSegLen(n)
	n.TCPSegLen = seglen
	ctl := t.SYN || t.FIN || t.RST
	var an uint16
	if reused {
		an |= TCPReusedPorts
	}
	// An ACK past the end of what the peer sent without a hole: it
	// acknowledges octets the capture lost. Said once per hole: the mark
	// moves to the peer's highest octet.
	if t.ACK && rev != nil && rev.has&hasMaxToAck != 0 && seqGT(ack, rev.maxToAck) {
		an |= TCPAckLostSegment
		rev.maxToAck = rev.nextSeq
	}
	known := fwd.has&hasNext != 0
	if seglen == 1 && known && seq == fwd.nextSeq && rev != nil && rev.has&hasWin != 0 && rev.window == 0 {
		an |= tcpZeroWindowProbe
	}
	if known && seqGT(seq, fwd.nextSeq) && !t.RST {
		an |= TCPLostSegment
	}
	if seglen <= 1 && !ctl && known && seq == fwd.nextSeq-1 {
		an |= TCPKeepAlive
	}
	sameAck := t.ACK && fwd.has&hasAck != 0 && ack == fwd.lastAck
	if seglen == 0 && !ctl && known && seq == fwd.nextSeq && sameAck && win != 0 && fwd.has&hasWin != 0 {
		switch {
		case win != fwd.window:
			an |= tcpWindowUpdate
		case rev != nil && rev.has&wasKeepAlive != 0:
			an |= tcpKeepAliveAck
		default:
			fwd.dupAcks++
			an |= TCPDuplicateAck
		}
	}
	if an&(TCPKeepAlive|tcpZeroWindowProbe) == 0 && (seglen > 0 || t.SYN || t.FIN) && known && seqGT(fwd.nextSeq, seq) {
		thres := int64(tcpAnalysisOOOThreshold)
		if rtt := max(fwd.firstRTT, rev.rtt()); rtt > 0 { // the same in both once known
			thres = rtt
		}
		// Wireshark's precedence: spurious, fast, out-of-order, plain.
		switch {
		case seglen > 0 && rev != nil && rev.has&hasAck != 0 && !seqGT(seq+uint32(seglen), rev.lastAck):
			an |= TCPSpuriousRetransmission | TCPRetransmission
		case rev != nil && rev.dupAcks >= 2 && rev.has&hasAck != 0 && rev.lastAck == seq && now-rev.lastAckTime < tcpFastRetransWindow:
			an |= TCPFastRetransmission | TCPRetransmission
		case now-fwd.nextSeqTime < thres && fwd.nextSeq != seq+uint32(seglen):
			an |= TCPOutOfOrder
		default:
			an |= TCPRetransmission
		}
	}

	// Update this direction.
	nxt := seq + uint32(seglen)
	if t.SYN || t.FIN {
		nxt++
	}
	if (!known || seqGT(nxt, fwd.nextSeq)) && an&tcpZeroWindowProbe == 0 {
		fwd.nextSeq, fwd.nextSeqTime = nxt, now
		fwd.has |= hasNext
	}
	// The octets sent without a hole end where the highest one does once a
	// segment starts at their end (the one that fills a hole, or the next).
	if (fwd.has&hasMaxToAck == 0 || seq == fwd.maxToAck) && an&tcpZeroWindowProbe == 0 {
		fwd.maxToAck = fwd.nextSeq
		fwd.has |= hasMaxToAck
	}
	// tshark's bytes in flight: of a segment with data, the span from the
	// lowest sequence number the peer has not acknowledged to the highest
	// sent; none after a lost segment until the peer ACKs again, nor for
	// nonsense values.
	if seglen > 0 || t.SYN || t.FIN {
		end := seq + uint32(seglen)
		if t.SYN || t.FIN {
			end++
		}
		switch {
		case fwd.has&hasUnacked == 0:
			fwd.unacked, fwd.unackedEnd = seq, end
			fwd.has |= hasUnacked
		case seqGT(fwd.unacked, seq):
			fwd.unacked = seq
		}
		if seqGT(end, fwd.unackedEnd) {
			fwd.unackedEnd = end
		}
	}
	if an&TCPLostSegment != 0 {
		fwd.has |= noBif
	}
	n.TCPBytesInFlight = 0
	if seglen > 0 && fwd.has&(hasUnacked|noBif) == hasUnacked {
		bif := fwd.unackedEnd - fwd.unacked
		if rev != nil {
			bif -= rev.sacked // what the peer said it holds already
		}
		if bif > 0 && bif < 2_000_000_000 {
			if t.SYN || t.FIN {
				bif-- // counted in the end, but not an octet
			}
			n.TCPBytesInFlight = bif
		}
	}
	fwd.sacked = sackedOctets(f.tcpHeader()) // for the peer's next segments: tshark reads options after

	if t.ACK && rev != nil { // what this ACK acknowledges of the peer's
		rev.has &^= noBif
		if rev.has&hasUnacked != 0 {
			if !seqGT(rev.unackedEnd, ack) {
				rev.has &^= hasUnacked
			} else if seqGT(ack, rev.unacked) {
				rev.unacked = ack
			}
		}
	}
	if !sameAck {
		// A new ACK ends a run of duplicates (a window update or data with
		// the same ACK does not: tshark keeps counting across them).
		fwd.lastNonDup, fwd.dupAcks = f.Num, 0
	}
	fwd.window = win
	fwd.has |= hasWin
	fwd.has &^= hasAck | wasKeepAlive
	if t.ACK {
		fwd.has |= hasAck
	}
	if an&TCPKeepAlive != 0 {
		fwd.has |= wasKeepAlive
	}
	fwd.lastAck, fwd.lastAckTime = ack, now
	if t.SYN && !t.ACK {
		fwd.synTime = now
		fwd.has |= hasSyn
	} else if t.ACK && !t.SYN && fwd.firstRTT == 0 && rev.rtt() == 0 {
		// The connection's handshake RTT: from its SYN to the first ACK
		// after it, in either direction; kept in both.
		rtt := int64(0)
		switch {
		case fwd.has&hasSyn != 0:
			rtt = max(1, now-fwd.synTime)
		case rev != nil && rev.has&hasSyn != 0:
			rtt = max(1, now-rev.synTime)
		}
		fwd.firstRTT = rtt
		if rev != nil {
			rev.firstRTT = rtt
		}
	}

	n.tcpInfo = an
	an &= tcpAnalysisShown
	n.TCPAnalysis = an
	if an == 0 {
		return
	}
	if an&TCPDuplicateAck != 0 {
		n.DupAckNum, n.DupAckFrame = fwd.dupAcks, fwd.lastNonDup
	}
	e.tcpCount(an)
	for _, a := range tcpAnalyses {
		if an&a.flag != 0 {
			msg := a.msg
			if a.flag == TCPDuplicateAck {
				msg = e.tcpTab.dupAckMsg(fwd.dupAcks)
			}
			f.AddFinding(-1, a.sev, GroupSequence, a.field, "tcp", msg)
		}
	}
}

func (d *tcpDir) rtt() int64 {
	if d == nil {
		return 0
	}
	return d.firstRTT
}

// tcpSegLen is the segment's length as the IP header gives it (tshark's
// tcp.len), so a capture cut short by the snapshot length is analysed as
// sent; the captured payload when the header says nothing usable.
func (e *Engine) tcpSegLen(net *Net) int {
	t := &e.tcp
	n := len(t.Payload)
	hl := int(t.DataOffset) * 4
	var ip gopacket.LayerType
	for _, lt := range e.types {
		if lt == layers.LayerTypeIPv4 || lt == layers.LayerTypeIPv6 {
			ip = lt
		}
	}
	l := -1
	switch ip {
	case layers.LayerTypeIPv4:
		l = int(e.ip4.Length) - int(e.ip4.IHL)*4 - hl
	case layers.LayerTypeIPv6:
		// Payload Length counts extension headers too: take off what lies
		// between the IPv6 header and TCP.
		if off := net.L4Off - net.L3Off - 40; off >= 0 {
			l = int(e.ip6.Length) - off - hl
		}
	}
	if l >= n && l <= 0xffff {
		return l
	}
	return n
}

// tcpAnalysisShown are the flags that become fields and findings.
const tcpAnalysisShown = TCPRetransmission | TCPFastRetransmission | TCPSpuriousRetransmission |
	TCPOutOfOrder | TCPLostSegment | TCPDuplicateAck | TCPKeepAlive | TCPAckLostSegment | TCPReusedPorts

// tcpAnalyses lists the shown flags with their field, tshark's expert
// message and severity, in the order tshark adds them.
var tcpAnalyses = [...]struct {
	flag  uint16
	field *Field
	sev   Severity
	msg   string
	stat  string
}{
	{TCPReusedPorts, fTCPAnReused, Note, "A new tcp session is started with the same ports as an earlier session in this trace", "tcp.analysis.reused_ports"},
	{TCPFastRetransmission, fTCPAnFastRetrans, Note, "This frame is a (suspected) fast retransmission", "tcp.analysis.fast_retransmission"},
	{TCPSpuriousRetransmission, fTCPAnSpurious, Note, "This frame is a (suspected) spurious retransmission", "tcp.analysis.spurious_retransmission"},
	{TCPRetransmission, fTCPAnRetrans, Note, "This frame is a (suspected) retransmission", "tcp.analysis.retransmission"},
	{TCPOutOfOrder, fTCPAnOOO, Warn, "This frame is a (suspected) out-of-order segment", "tcp.analysis.out_of_order"},
	{TCPLostSegment, fTCPAnLost, Warn, "Previous segment(s) not captured (common at capture start)", "tcp.analysis.lost_segment"},
	{TCPAckLostSegment, fTCPAnAckLost, Warn, "ACKed segment that wasn't captured (common at capture start)", "tcp.analysis.ack_lost_segment"},
	{TCPDuplicateAck, fTCPAnDupAck, Note, "", "tcp.analysis.duplicate_ack"},
	{TCPKeepAlive, fTCPAnKeepAlive, Note, "This is a TCP keep-alive segment", "tcp.analysis.keep_alive"},
}

// IsTCPAnalysis reports whether fd is one of tshark's TCP analysis
// findings (the summary's TCP Info names them in its "[TCP ...]" prefix).
func IsTCPAnalysis(fd *Finding) bool {
	if fd.Field == nil || fd.Proto != "tcp" {
		return false
	}
	for i := range tcpAnalyses {
		if tcpAnalyses[i].field == fd.Field {
			return true
		}
	}
	return false
}

func (e *Engine) tcpCount(an uint16) {
	for i, a := range tcpAnalyses {
		if an&a.flag != 0 {
			e.tcpStats[i]++
		}
	}
}

// tcpAnalysisTable is `rdx stats`' "tcp,analysis": frames per flag, as
// tshark counts them with -Y tcp.analysis.X; no rows when nothing was
// flagged.
func (e *Engine) tcpAnalysisTable() *StatTable {
	t := &StatTable{Title: "TCP analysis (tshark's tcp.analysis flags)", Header: []string{"Flag", "Frames", "Expert message"}}
	var any uint64
	for _, c := range e.tcpStats {
		any += c
	}
	if any == 0 && e.tcpTab.drops == 0 {
		return t
	}
	for i, a := range tcpAnalyses {
		msg := a.msg
		if a.flag == TCPDuplicateAck {
			msg = "Duplicate ACK (#n)"
		}
		t.Rows = append(t.Rows, []string{a.stat, strconv.FormatUint(e.tcpStats[i], 10), msg})
	}
	if e.tcpTab.drops > 0 {
		t.Rows = append(t.Rows, []string{"(directions forgotten: table limit or --max-mem)", strconv.FormatUint(e.tcpTab.drops, 10), ""})
	}
	return t
}

// sackedOctets sums the first three blocks of a TCP header's SACK option
// (tshark keeps three for its bytes in flight), 0 without one.
func sackedOctets(h []byte) (sum uint32) {
	if len(h) <= 20 {
		return 0
	}
	opts := h[20:]
	for i := 0; i < len(opts); {
		kind := opts[i]
		l, ok := tcpOptLen(opts, i)
		if kind == 0 || !ok {
			break
		}
		if kind == 5 {
			for j, n := i+2, 0; j+8 <= i+l && n < 3; j, n = j+8, n+1 {
				sum += be32(opts[j+4:]) - be32(opts[j:])
			}
			return sum
		}
		i += l
	}
	return 0
}
