package rdp

import (
	"net/netip"
	"sort"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
)

var noAddr netip.Addr

// maxConns bounds the connection table; when it is full, the least recently
// active connection is dropped, with a finding. connOverhead is what one
// tracked connection costs (struct, map slot), charged to the memory budget.
const (
	maxConns     = 1 << 13
	connOverhead = 1536
)

// seenRing is how many recent segments per side are remembered for
// retransmission detection, and eackRing how many EACKed sequence numbers.
const (
	seenRing = 32
	eackRing = 16
)

// ConnState is a side's connection state as inferred from its segments (RFC
// 908 §3.2, spec §5). StateUnknown: nothing seen that tells.
type ConnState uint8

const (
	StateUnknown ConnState = iota
	StateListen
	StateSynSent
	StateSynRcvd
	StateOpen
	StateCloseWait
)

var stateNames = [...]string{"UNKNOWN", "LISTEN", "SYN-SENT", "SYN-RCVD", "OPEN", "CLOSE-WAIT"}

func (s ConnState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "?"
}

// SideStats counts what one side of a connection sent.
type SideStats struct {
	Segments    uint64
	DataBytes   uint64
	Retransmits uint64
	EACKs       uint64 // sequence numbers listed in its EACKs
	RSTs, NULs  uint64
}

// ConnSummary is one tracked connection, for a `stats` verb. Side 0 is the
// endpoint that sent the first segment seen (the SYN, when captured).
type ConnSummary struct {
	Endpoints   [2]netip.AddrPort
	Version     uint8
	State       [2]ConnState
	Established bool // SYN, SYN-ACK, ACK seen
	Reset       bool // an RST was seen
	// Negotiated in each side's SYN: what that side accepts from its peer.
	MaxOutstanding [2]uint16
	MaxSegment     [2]uint16
	SDM            [2]bool
	Stats          [2]SideStats
	FirstNS        int64
	LastNS         int64
	FirstFrame     uint64
	LastFrame      uint64
}

type seenRec struct {
	seq   uint32
	frame uint64
}

type side struct {
	ep       netip.AddrPort
	state    ConnState
	synSeen  bool
	iss      uint32
	synFrame uint64
	optsSeen bool
	maxOut   uint16
	maxSeg   uint16
	sdm      bool
	hasSeq   bool
	hiSeq    uint32 // highest sequence-consuming segment sent
	ackSeen  bool
	lastAck  uint32 // highest cumulative ACK sent (of the peer's segments)
	seen     [seenRing]seenRec
	nseen    int
	eacked   [eackRing]uint32 // peer segments this side EACKed
	neacked  int
	st       SideStats
}

type conn struct {
	side        [2]side
	version     uint8
	established bool
	closed      bool
	rstFrame    uint64
	first, last int64
	firstFrame  uint64
	lastFrame   uint64
}

func (c *conn) reset(src, dst netip.AddrPort, v uint8, f *dissect.Frame) {
	*c = conn{version: v, first: f.TimeNS, firstFrame: f.Num}
	c.side[0].ep, c.side[1].ep = src, dst
}

func (s *side) saw(seq uint32, frame uint64) (uint64, bool) {
	n := min(s.nseen, seenRing)
	for i := 0; i < n; i++ {
		if s.seen[i].seq == seq {
			return s.seen[i].frame, true
		}
	}
	return 0, false
}

func (s *side) remember(seq uint32, frame uint64) {
	s.seen[s.nseen%seenRing] = seenRec{seq, frame}
	s.nseen++
}

func (s *side) wasEacked(seq uint32) bool {
	n := min(s.neacked, eackRing)
	for i := 0; i < n; i++ {
		if s.eacked[i] == seq {
			return true
		}
	}
	return false
}

// Sequence arithmetic modulo 2^32 (RFC 908 §3.3: sequence numbers wrap).
func seqGT(a, b uint32) bool { return int32(a-b) > 0 }
func seqLE(a, b uint32) bool { return int32(a-b) <= 0 }

type connKey struct{ lo, hi netip.AddrPort }

func keyOf(a, b netip.AddrPort) connKey {
	if a.Compare(b) > 0 {
		a, b = b, a
	}
	return connKey{a, b}
}

// Connections appends a summary of every tracked connection to dst, oldest
// first. Connections evicted from the bounded table are not included.
func (d *State) Connections(dst []ConnSummary) []ConnSummary {
	start := len(dst)
	for _, c := range d.conns.All() {
		dst = append(dst, c.summary())
	}
	out := dst[start:]
	sort.Slice(out, func(i, j int) bool { return out[i].FirstFrame < out[j].FirstFrame })
	return dst
}

func (c *conn) summary() ConnSummary {
	s := ConnSummary{Version: c.version, Established: c.established, Reset: c.closed,
		FirstNS: c.first, LastNS: c.last, FirstFrame: c.firstFrame, LastFrame: c.lastFrame}
	for i := range c.side {
		sd := &c.side[i]
		s.Endpoints[i], s.State[i], s.Stats[i] = sd.ep, sd.state, sd.st
		s.MaxOutstanding[i], s.MaxSegment[i], s.SDM[i] = sd.maxOut, sd.maxSeg, sd.sdm
	}
	return s
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

// track runs the connection analysis for one well-formed segment.
func (d *State) track(f *dissect.Frame, s *Segment, bad bool) {
	if bad || !f.Net.HasIP {
		return
	}
	h := s.hdr
	fl := h.Flags()
	src := netip.AddrPortFrom(f.Net.Src, h.SrcPort())
	dst := netip.AddrPortFrom(f.Net.Dst, h.DstPort())
	k := keyOf(src, dst)
	if cv := f.Conversations(); cv != nil {
		cv.Between(flows.RDP, flows.Endpoint{Addr: src}, flows.Endpoint{Addr: dst}, 0, f.WireLen, f.TimeNS, f.Num)
	}
	var c *conn
	if e := d.conns.Get(k); e != nil {
		c = &e.V
	} else {
		e, old := d.conns.Add(k)
		if old != nil {
			s.find(f, dissect.Warn, dissect.GroupReassembly, nil, "connection table full ("+strconv.Itoa(maxConns)+
				" connections): dropped the least recently active, "+d.conns.Describe(old))
		}
		c = &e.V
		c.reset(src, dst, h.Version(), f)
	}
	dir := 0
	if c.side[0].ep != src {
		dir = 1
	}
	me, peer := &c.side[dir], &c.side[1-dir]
	seq, dl := h.Seq(), h.DataLen()

	if fl&FlagSYN != 0 {
		if me.synSeen && seq == me.iss {
			// Faber §4: SYNs are sent reliably, so repeats are normal.
			s.retrans = true
			me.st.Retransmits++
			me.st.Segments++
			c.last, c.lastFrame = f.TimeNS, f.Num
			s.find(f, dissect.Note, dissect.GroupSequence, fSeq, "retransmitted SYN (first in frame "+u(me.synFrame)+")")
			return
		}
		if me.synSeen || c.closed {
			// A new initial sequence number: a new connection on the same ports.
			if me.synSeen {
				s.find(f, dissect.Note, dissect.GroupSequence, fSeq, "SYN with a new initial sequence number "+
					u(uint64(seq))+" (was "+u(uint64(me.iss))+"): new connection")
			}
			c.reset(src, dst, h.Version(), f)
			dir = 0
			me, peer = &c.side[0], &c.side[1]
		}
		me.synSeen, me.iss, me.synFrame = true, seq, f.Num
		me.hasSeq, me.hiSeq = true, seq
		if h.HasSynOptions() {
			me.optsSeen, me.maxOut, me.maxSeg, me.sdm = true, h.MaxOutstanding(), h.MaxSegment(), h.SDM()
		}
		if fl&FlagACK != 0 {
			// SYN-ACK (RFC 908 §3.7.2 LISTEN: ACK<RCV.CUR> with RCV.CUR = the SYN's seq).
			if peer.synSeen && h.Ack() != peer.iss {
				s.find(f, dissect.Warn, dissect.GroupSequence, fAck, "SYN-ACK acknowledges "+u(uint64(h.Ack()))+
					", the SYN had sequence number "+u(uint64(peer.iss)))
			}
			me.state = StateSynRcvd
			me.ackSeen, me.lastAck = true, h.Ack()
			if peer.state == StateUnknown {
				peer.state = StateSynSent
			}
		} else {
			me.state = StateSynSent
			if peer.state == StateUnknown {
				peer.state = StateListen
			}
		}
		me.st.Segments++
		c.last, c.lastFrame = f.TimeNS, f.Num
		return
	}
	me.st.Segments++
	me.st.DataBytes += uint64(dl)
	c.last, c.lastFrame = f.TimeNS, f.Num

	if fl&FlagRST != 0 {
		me.st.RSTs++
		switch {
		case c.closed:
			s.find(f, dissect.Note, dissect.GroupSequence, nil, "RST on a connection already reset in frame "+u(c.rstFrame))
		case !c.established && peer.state == StateSynSent:
			s.find(f, dissect.Note, dissect.GroupSequence, nil, "connection refused (RST in answer to SYN)")
		default:
			s.find(f, dissect.Note, dissect.GroupSequence, nil, "connection reset (RST)")
		}
		if !c.closed {
			c.closed, c.rstFrame = true, f.Num
		}
		me.state, peer.state = StateCloseWait, StateCloseWait
		return
	}

	if fl&FlagACK != 0 {
		a := h.Ack()
		if peer.synSeen && seqGT(a, peer.hiSeq) {
			s.find(f, dissect.Warn, dissect.GroupSequence, fAck, "acknowledges segment "+u(uint64(a))+
				", never sent (highest seen "+u(uint64(peer.hiSeq))+")")
		}
		if !c.established && me.state == StateSynSent && peer.state == StateSynRcvd && a == peer.iss {
			c.established = true
			me.state, peer.state = StateOpen, StateOpen
			s.find(f, dissect.Note, dissect.GroupSequence, nil, established(me, peer))
		}
		if !me.ackSeen || seqGT(a, me.lastAck) {
			me.ackSeen, me.lastAck = true, a
		}
	}

	if fl&FlagEAK != 0 && fl&FlagACK != 0 {
		n := h.EackCount()
		me.st.EACKs += uint64(n)
		var list []byte
		for i := 0; i < n; i++ {
			e := h.Eack(i)
			if me.ackSeen && seqLE(e, me.lastAck) {
				s.find(f, dissect.Warn, dissect.GroupSequence, fEackSeq, "EACK of segment "+u(uint64(e))+
					", already acknowledged cumulatively (ack "+u(uint64(me.lastAck))+")")
			} else if peer.synSeen && seqGT(e, peer.hiSeq) {
				s.find(f, dissect.Warn, dissect.GroupSequence, fEackSeq, "EACK of segment "+u(uint64(e))+", never sent")
			}
			if !me.wasEacked(e) {
				me.eacked[me.neacked%eackRing] = e
				me.neacked++
			}
			if i < 8 {
				if i > 0 {
					list = append(list, ',')
				}
				list = strconv.AppendUint(list, uint64(e), 10)
			}
		}
		if n > 8 {
			list = append(list, ",..."...)
		}
		if n > 0 {
			s.find(f, dissect.Note, dissect.GroupSequence, fEackSeq, "segments "+string(list)+
				" received out of sequence (EACK, ack "+u(uint64(h.Ack()))+")")
		}
	}

	// Data and NUL segments consume a sequence number (spec §4).
	if dl == 0 && fl&FlagNUL == 0 {
		return
	}
	if fl&FlagNUL != 0 {
		me.st.NULs++
		s.find(f, dissect.Note, dissect.GroupSequence, nil, "NUL segment (keepalive)")
	}
	if c.closed && dl > 0 {
		// Spec §5: unacknowledged data is not delivered after close.
		s.find(f, dissect.Warn, dissect.GroupProtocol, fData, "data after the connection was reset in frame "+u(c.rstFrame))
	}
	if first, ok := me.saw(seq, f.Num); ok {
		s.retrans = true
		me.st.Retransmits++
		s.find(f, dissect.Note, dissect.GroupSequence, fSeq, "retransmission of segment "+u(uint64(seq))+
			" (first sent in frame "+u(first)+")")
		if peer.wasEacked(seq) {
			s.find(f, dissect.Warn, dissect.GroupSequence, fSeq, "retransmission of segment "+u(uint64(seq))+
				", which the peer had EACKed")
		}
		return
	}
	if peer.ackSeen && me.hasSeq && seqLE(seq, peer.lastAck) {
		s.retrans = true
		me.st.Retransmits++
		s.find(f, dissect.Note, dissect.GroupSequence, fSeq, "segment "+u(uint64(seq))+
			" was already acknowledged (ack "+u(uint64(peer.lastAck))+"): retransmission")
		return
	}
	if me.hasSeq && seq != me.hiSeq+1 {
		s.ooo = true
		if seqGT(seq, me.hiSeq) {
			s.find(f, dissect.Note, dissect.GroupSequence, fSeq, "out of sequence: expected "+u(uint64(me.hiSeq+1))+
				", got "+u(uint64(seq))+" ("+u(uint64(seq-me.hiSeq-1))+" missing or reordered)")
		} else {
			s.find(f, dissect.Note, dissect.GroupSequence, fSeq, "out of order: segment "+u(uint64(seq))+
				" after "+u(uint64(me.hiSeq)))
		}
	}
	// Flow control (spec §4): at most the peer's max outstanding segments may
	// be unacknowledged, so seq must not pass the peer's last ACK + max out.
	if peer.optsSeen && (peer.ackSeen || me.synSeen) {
		base := me.iss
		if peer.ackSeen && (!me.synSeen || seqGT(peer.lastAck, base)) {
			base = peer.lastAck
		}
		if lim := base + uint32(peer.maxOut); seqGT(seq, lim) {
			s.find(f, dissect.Warn, dissect.GroupSequence, fSeq, "segment "+u(uint64(seq))+
				" outside the receive window (last ack "+u(uint64(base))+" + max outstanding "+u(uint64(peer.maxOut))+")")
		}
	}
	// Max segment size: RFC 908 counts IP and RDP headers too; rdx checks the
	// data alone, the reading that cannot give false alarms.
	if peer.optsSeen && dl > int(peer.maxSeg) {
		s.find(f, dissect.Warn, dissect.GroupProtocol, fDLen, "data length "+strconv.Itoa(dl)+
			" exceeds the peer's max segment size "+u(uint64(peer.maxSeg)))
	}
	if !me.hasSeq || seqGT(seq, me.hiSeq) {
		me.hasSeq, me.hiSeq = true, seq
	}
	me.remember(seq, f.Num)
}

// dropped names a connection the table or the memory budget dropped.
func dropped(_ connKey, c *conn) string {
	return "RDP connection " + c.side[0].ep.String() + " <-> " + c.side[1].ep.String() + " (" +
		u(c.side[0].st.Segments+c.side[1].st.Segments) + " segments)"
}

func established(a, b *side) string {
	m := []byte("connection established: max outstanding ")
	m = strconv.AppendUint(m, uint64(a.maxOut), 10)
	m = append(m, '/')
	m = strconv.AppendUint(m, uint64(b.maxOut), 10)
	m = append(m, ", max segment "...)
	m = strconv.AppendUint(m, uint64(a.maxSeg), 10)
	m = append(m, '/')
	m = strconv.AppendUint(m, uint64(b.maxSeg), 10)
	if a.sdm || b.sdm {
		m = append(m, ", sequenced delivery"...)
	} else {
		m = append(m, ", arrival-order delivery"...)
	}
	return string(m)
}
