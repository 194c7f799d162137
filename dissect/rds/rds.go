package rds

import (
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// Port is RDS/TCP's IANA port (Linux RDS_TCP_PORT).
const Port = 16385

func init() {
	dissect.RegisterDissector(&dissect.Registration{
		Name:         "rds",
		TCPPorts:     []dissect.PortRange{{Lo: Port, Hi: Port}},
		HeuristicTCP: Heuristic,
		New: func(e *dissect.Engine) dissect.Dissector {
			d := New(e)
			d.conns.Register(e.Budget(), "rds")
			return d
		},
	})
}

// Heuristic accepts a TCP stream whose first bytes are a plausible RDS header
// that could open a connection (a congestion map or a small sequence number)
// and, when the first message ends inside b, is followed by another
// plausible header or by nothing. It must be strict: it sees every TCP
// stream no port claims.
func Heuristic(b []byte) bool {
	if len(b) < HeaderLen {
		return false
	}
	h := Header(b[:HeaderLen])
	if !h.Plausible() || h.Seq() >= 1<<32 || h.Ack() >= 1<<32 || (h.Seq() == 0 && !h.IsCong()) {
		return false
	}
	next := HeaderLen + int(h.Len())
	switch {
	case next == len(b) || next > len(b):
		return true
	case next+HeaderLen > len(b):
		return false // trailing bytes too short for a header
	}
	return Header(b[next : next+HeaderLen]).Plausible()
}

// Bounds on per-engine memory.
const (
	maxConns      = 1 << 16 // the assembler closes older ones first; this is a backstop (least recently active dropped, with a finding)
	connOverhead  = 1024    // one tracked connection (two halves, entry, map slot: measured 1.07 KB) charged to the memory budget
	maxMsgFrames  = 1 << 12 // frames listed per message (a 1 MiB message over 256-byte segments)
	maxCongPorts  = 1024    // congested ports kept per map (all are counted)
	seqRing       = 64      // recent messages per direction, for retransmission and ack lookups (grown from seqRingMin as messages come)
	seqRingMin    = 4
	maxPings      = 1 << 12
	maxGens       = 1 << 12
	maxLearned    = 1 << 16
	segmentNoSeq  = ^uint64(0)
	findingsProto = "rds"
)

// State is the per-engine RDS dissector.
type State struct {
	e    *dissect.Engine
	pool dissect.Pool[Message]

	conns    dissect.Table[tcp.FlowKey, conn]
	lastKey  tcp.FlowKey
	lastConn *dissect.Entry[tcp.FlowKey, conn]

	pings   map[pingKey]sent
	gens    map[netip.Addr]uint32
	learned map[uint64]uint64 // ping frame -> pong frame, learned in the first pass
	pass2   bool

	ibs ibState // RDS over InfiniBand (ib.go)

	stats stats // -z rds,stat and rds,srt (stats.go)
}

type pingKey struct {
	addr netip.Addr
	port uint16
}

type sent struct {
	seq   uint64
	frame uint64
	time  int64
}

// New returns a fresh per-engine state (e may be nil in tests that call
// StreamData directly; offsets in the frame are then unknown).
func New(e *dissect.Engine) *State {
	d := &State{e: e, pings: map[pingKey]sent{}, gens: map[netip.Addr]uint32{},
		learned: map[uint64]uint64{}}
	d.conns.Init(maxConns, connOverhead, droppedConn)
	return d
}

// Rewind implements dissect.Rewinder: the engine reassembles again from the
// start, so per-stream state goes; the ping->pong matches stay.
func (d *State) Rewind() {
	d.conns.Init(maxConns, connOverhead, droppedConn)
	clear(d.pings)
	clear(d.gens)
	d.lastConn = nil
	d.pass2 = true
	d.stats = stats{} // the second pass counts again
	d.pool.Reset()
	d.ibs.rewind()
}

// Dissect implements dissect.Dissector; RDS only arrives through StreamData.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {}

// conn is one TCP connection = one RDS path; half[dir] is what dir sends.
// Its buffers are allocated as messages need them, so the many connections
// that carry little cost little.
type conn struct {
	half    [2]half
	charged int // octets charged to the budget beside connOverhead
}

// held is what c holds beyond its struct.
func (c *conn) held() int {
	// Both halves spelled out: the loop cost ~40 instructions a chunk.
	h0, h1 := &c.half[0], &c.half[1]
	return (cap(h0.ring)+cap(h1.ring))*24 + (cap(h0.frames)+cap(h1.frames))*8 + (cap(h0.cong)+cap(h1.cong))*2
}

// charge brings the budget up to date with what e holds.
func (d *State) charge(e *dissect.Entry[tcp.FlowKey, conn]) {
	if h := e.V.held(); h != e.V.charged {
		d.conns.Charge(e, int64(h-e.V.charged))
		e.V.charged = h
	}
}

// Release implements dissect.Releaser: a dropped connection lets go of its
// buffers (its messages hold copies).
func (c *conn) Release() {
	for i := range c.half {
		c.half[i].ring, c.half[i].frames, c.half[i].cong = nil, nil, nil
	}
}

func droppedConn(k tcp.FlowKey, c *conn) string {
	s := "RDS connection " + k.Src(0).String() + " <-> " + k.Dst(0).String()
	for i := range c.half {
		if h := &c.half[i]; h.nhdr > 0 {
			s += " (a message in progress)"
			break
		}
	}
	return s
}

// half frames one direction of a connection into messages and tracks its
// sequence space.
type half struct {
	started bool
	synced  bool

	// message being assembled
	hdr     [HeaderLen]byte
	nhdr    int
	need    uint64 // payload octets still to come
	msgOff  uint64 // stream offset of the header
	msgSeq  uint32 // TCP sequence number of the header
	missing uint64 // payload octets lost in gaps
	frames  []uint64
	cong    []uint16
	congN   int
	lastSeg uint64   // frame that got a segment PDU for this message
	segMsg  *Message // that PDU (valid while lastSeg is the current frame)

	// resynchronisation after a gap or bad framing
	lostAt    uint64
	skipped   uint64
	tail      [HeaderLen - 1]byte
	ntail     int
	tailOff   uint64
	tailSeq   uint32
	tailFrame uint64

	seqTrack // what this direction sent, and acked of the other's
}

// seqTrack follows one direction of an RDS connection (a TCP path, or the
// QP the messages go to over InfiniBand): its sequence numbers, the recent
// messages it sent, for retransmission and ack lookups, and the acks it
// sent for the other direction's.
type seqTrack struct {
	haveSeq bool
	lastSeq uint64
	lastAck uint64
	ring    []sent // by seq % len(ring)
	nrec    int    // messages recorded in ring
}

// conn finds or creates k's connection. Messages copy what they show, so a
// dropped connection's value may be reused at once.
func (d *State) conn(f *dissect.Frame, k tcp.FlowKey) *dissect.Entry[tcp.FlowKey, conn] {
	if d.lastConn != nil && !d.lastConn.Live() {
		d.lastConn = nil // dropped: its value may be reused below
	}
	if d.lastConn != nil && d.lastKey == k {
		d.conns.Touch(d.lastConn)
		return d.lastConn
	}
	e := d.conns.Get(k)
	if e == nil {
		d.conns.Release()
		var old *dissect.Entry[tcp.FlowKey, conn]
		e, old = d.conns.Add(k)
		if old != nil && f.Num != 0 {
			f.AddFinding(-1, dissect.Warn, dissect.GroupReassembly, nil, findingsProto, "RDS connection table full ("+
				strconv.Itoa(maxConns)+"): dropped the least recently active, "+d.conns.Describe(old))
		}
		e.V = conn{}
	}
	d.lastKey, d.lastConn = k, e
	return e
}

// Message is one RDS message (PDU), or the part of one a frame carried.
type Message struct {
	d       *State
	hdr     [HeaderLen]byte
	kind    uint8
	segment bool // a part; the message completes in a later frame
	hidden  bool // a segment PDU whose message completed in the same frame after all
	trunc   bool // ended by a gap or close before h_len octets arrived
	have    uint64
	missing uint64
	off     int // offset of the header in the frame, -1 when reassembled
	idx     int
	sOff    uint64
	frames  []uint64
	cong    []uint16
	congN   int
	csum    uint8
	probs   uint32

	retransOf  uint64
	ackFrame   uint64
	ackLatency int64
	pingFrame  uint64
	pingRTT    int64
	pongFrame  uint64
}

// Proto implements dissect.PDU.
func (m *Message) Proto() *dissect.ProtoInfo { return PRDS }

// Header returns the message's header.
func (m *Message) Header() Header { return Header(m.hdr[:]) }

// Frames lists the frames the message's bytes came from.
func (m *Message) Frames() []uint64 { return m.frames }

// Segment reports whether this PDU is only a part of a message.
func (m *Message) Segment() bool { return m.segment }

// Truncated reports whether the message ended before all its payload.
func (m *Message) Truncated() bool { return m.trunc }

// Congested returns the congested ports of a congestion map (at most 1024)
// and their total count.
func (m *Message) Congested() ([]uint16, int) { return m.cong, m.congN }

func (d *State) newMsg(f *dissect.Frame) *Message {
	m, _ := d.pool.Get(f)
	// field by field: the composite literal built the Message in a
	// temporary and copied it (about 100 instructions a message)
	m.d, m.hdr, m.kind, m.segment, m.hidden, m.trunc = d, [HeaderLen]byte{}, 0, false, false, false
	m.have, m.missing, m.off, m.idx, m.sOff = 0, 0, -1, 0, 0
	m.frames, m.cong, m.congN, m.csum, m.probs = m.frames[:0], m.cong[:0], 0, dissect.StatusUnverified, 0
	m.retransOf, m.ackFrame, m.ackLatency, m.pingFrame, m.pingRTT, m.pongFrame = 0, 0, 0, 0, 0, 0
	return m
}

// StreamData implements dissect.StreamDissector.
func (d *State) StreamData(f *dissect.Frame, c *tcp.Chunk) {
	e := d.conn(f, c.Key)
	h := &e.V.half[c.Dir]
	if !h.started {
		h.started = true
		// A connection seen from its SYN starts on a message boundary; one
		// picked up mid-way is checked like data after a gap.
		h.synced = true
		if len(c.Bytes) >= HeaderLen && !Header(c.Bytes[:HeaderLen]).Plausible() && Header(c.Bytes[:HeaderLen]).Check()&(ProbLen|ProbPad|ProbFlags) != 0 {
			h.synced = false
			h.lostAt = c.Offset
		}
	}
	d.frameChunk(f, c, h, c.Bytes, 0)
	// Not deferred (a defer costs ~19 instructions a chunk): a panic
	// leaves the charge stale until the connection's next chunk, which
	// charges the whole difference.
	d.charge(e)
}

// frameChunk cuts b (= c.Bytes[base:]) into messages.
func (d *State) frameChunk(f *dissect.Frame, c *tcp.Chunk, h *half, b []byte, base int) {
	i := 0
	for i < len(b) {
		if !h.synced {
			if i = d.resync(f, c, h, b, base, i); i >= len(b) {
				return
			}
			continue
		}
		if h.nhdr < HeaderLen {
			if h.nhdr == 0 {
				h.msgOff, h.msgSeq = c.Offset+uint64(base+i), c.Seq+uint32(base+i)
				h.frames, h.cong, h.congN, h.missing = h.frames[:0], h.cong[:0], 0, 0
			}
			n := copy(h.hdr[h.nhdr:], b[i:])
			h.addFrames(c, base+i, n)
			h.nhdr += n
			i += n
			if h.nhdr < HeaderLen {
				break
			}
			hv := Header(h.hdr[:])
			if hv.Len() > MaxMsgLen {
				d.badLength(f, c, h)
				continue // unsynced: the rest is scanned
			}
			h.need = uint64(hv.Len())
			if h.need == 0 {
				d.emit(f, c, h, false)
			}
			continue
		}
		n := min(h.need, uint64(len(b)-i))
		if h.hdr[offFlags] == FlagCongBitmap {
			h.congBits(b[i:i+int(n)], uint64(Header(h.hdr[:]).Len())-h.need)
		}
		h.addFrames(c, base+i, int(n))
		h.need -= n
		i += int(n)
		if h.need == 0 {
			d.emit(f, c, h, false)
		}
	}
	if h.synced && h.nhdr > 0 && f.Num != 0 && h.lastSeg != f.Num && hasFrame(c, f.Num) {
		// This frame carried part of a message that completes later.
		h.lastSeg = f.Num
		m := d.newMsg(f)
		h.segMsg = m
		m.segment = true
		copy(m.hdr[:], h.hdr[:h.nhdr])
		m.have = uint64(h.nhdr)
		if h.nhdr == HeaderLen {
			m.have += uint64(Header(h.hdr[:]).Len()) - h.need
		}
		m.sOff = h.msgOff
		m.idx = f.AddPDU(m)
	}
}

func hasFrame(c *tcp.Chunk, n uint64) bool {
	for _, s := range c.Frames {
		if s.Frame == n {
			return true
		}
	}
	return false
}

// addFrames records the frames of chunk bytes [i, i+n) for the message.
func (h *half) addFrames(c *tcp.Chunk, i, n int) {
	if n <= 0 {
		return
	}
	for _, s := range c.Frames {
		if s.Off+s.Len <= i || s.Off >= i+n {
			continue
		}
		if k := len(h.frames); k > 0 && h.frames[k-1] == s.Frame {
			continue
		}
		if len(h.frames) < maxMsgFrames {
			h.frames = append(h.frames, s.Frame)
		}
	}
}

// congBits decodes congestion-map payload octets starting at payload offset
// pos: octet p holds ports 8p..8p+7 (little-endian 64-bit words, bit b of
// word w = port 64w+b).
func (h *half) congBits(b []byte, pos uint64) {
	for k := 0; k < len(b); k++ {
		v := b[k]
		if v == 0 {
			continue
		}
		for bit := 0; bit < 8; bit++ {
			if v&(1<<bit) != 0 {
				h.congN++
				if len(h.cong) < maxCongPorts {
					h.cong = append(h.cong, uint16((pos+uint64(k))*8+uint64(bit)))
				}
			}
		}
	}
}

// emit turns the assembled message into a PDU of f.
func (d *State) emit(f *dissect.Frame, c *tcp.Chunk, h *half, trunc bool) {
	m := d.newMsg(f)
	m.hdr = h.hdr
	m.trunc = trunc
	m.sOff = h.msgOff
	m.missing = h.missing
	hv := m.Header()
	if trunc {
		m.have = uint64(hv.Len()) - h.need - h.missing
	}
	m.frames = append(m.frames, h.frames...)
	m.cong = append(m.cong, h.cong...)
	m.congN = h.congN
	if len(h.frames) == 1 && h.frames[0] == f.Num && f.Num != 0 && !trunc {
		if off := f.TCPPayloadOffset(h.msgSeq, HeaderLen+int(hv.Len())); off >= 0 {
			m.off = off
		}
	}
	if h.lastSeg == f.Num && h.segMsg != nil && f.Num != 0 {
		h.segMsg.hidden = true // a later chunk of the same frame completed it
	}
	h.segMsg, h.lastSeg = nil, 0
	h.nhdr, h.need, h.missing = 0, 0, 0
	m.idx = f.AddPDU(m)
	d.analyze(f, c.Key, c.Dir, h, m)
}

// badLength handles a header whose h_len is impossible: the framing is lost
// (or the peer is not Linux); report it and look for the next header.
func (d *State) badLength(f *dissect.Frame, c *tcp.Chunk, h *half) {
	m := d.newMsg(f)
	m.hdr = h.hdr
	m.sOff = h.msgOff
	m.trunc = true
	m.frames = append(m.frames, h.frames...)
	m.idx = f.AddPDU(m)
	m.probs = m.Header().Check()
	m.kind = kindOf(m.Header())
	f.AddFinding(m.idx, dissect.Error, dissect.GroupMalformed, fLen, findingsProto,
		"impossible RDS length "+strconv.FormatUint(uint64(m.Header().Len()), 10)+" (Linux maximum "+
			strconv.Itoa(MaxMsgLen)+"): framing lost at stream offset "+strconv.FormatUint(h.msgOff, 10))
	f.Checked(checkHeader, m.idx, false)
	h.nhdr, h.need = 0, 0
	h.synced = false
	h.lostAt = h.msgOff + HeaderLen
	h.ntail, h.skipped = 0, 0
}

// StreamGap implements dissect.StreamDissector. A hole inside a message's
// payload keeps the framing (h_len says where the next header is); a hole
// anywhere else loses it until the next plausible header.
func (d *State) StreamGap(f *dissect.Frame, g *tcp.Gap) {
	h := &d.conn(f, g.Key).V.half[g.Dir]
	h.started = true
	if !h.synced {
		h.ntail = 0 // the kept bytes no longer precede the data
		h.skipped += g.Size
		return
	}
	if h.nhdr == HeaderLen && g.Size <= h.need {
		h.need -= g.Size
		h.missing += g.Size
		if h.need == 0 {
			d.emit(f, &tcp.Chunk{Key: g.Key, Dir: g.Dir, Offset: g.ResumeOffset, Seq: g.ResumeSeq}, h, false)
		}
		return
	}
	if h.nhdr > 0 {
		d.truncate(f, g.Key, g.Dir, h, "a TCP gap of "+strconv.FormatUint(g.Size, 10)+" bytes")
	}
	h.synced = false
	h.lostAt = g.Offset
	h.skipped = g.Size
	h.ntail = 0
}

// truncate reports the partly received message of h as truncated.
func (d *State) truncate(f *dissect.Frame, k tcp.FlowKey, dir tcp.Dir, h *half, why string) {
	if h.nhdr < HeaderLen {
		if f.Num != 0 {
			f.AddFinding(-1, dissect.Warn, dissect.GroupMalformed, nil, findingsProto,
				"RDS header cut short by "+why+": "+strconv.Itoa(h.nhdr)+" of 48 octets")
		}
		h.nhdr = 0
		return
	}
	hv := Header(h.hdr[:])
	got := uint64(hv.Len()) - h.need - h.missing
	d.emit(f, &tcp.Chunk{Key: k, Dir: dir}, h, true)
	if f.Num != 0 {
		m := f.PDUs[len(f.PDUs)-1].(*Message)
		f.AddFinding(m.idx, dissect.Error, dissect.GroupMalformed, fLen, findingsProto,
			"truncated RDS message: "+strconv.FormatUint(got, 10)+" of "+strconv.FormatUint(uint64(hv.Len()), 10)+
				" payload octets before "+why)
	}
}

// StreamClose implements dissect.StreamDissector.
func (d *State) StreamClose(f *dissect.Frame, key tcp.FlowKey, reason tcp.CloseReason) {
	e := d.conns.Get(key)
	if e == nil {
		return
	}
	c := &e.V
	for dir := range c.half {
		h := &c.half[dir]
		if h.synced && h.nhdr > 0 {
			d.truncate(f, key, tcp.Dir(dir), h, "the connection closed ("+reason.String()+")")
		}
	}
	d.conns.Delete(key)
	if d.lastConn == e {
		d.lastConn = nil
	}
}

// resync looks for the next plausible header from b[i:] on (with the up to
// 47 bytes kept from earlier chunks, since a header may straddle segments).
// It returns the index in b to continue framing from, or len(b).
func (d *State) resync(f *dissect.Frame, c *tcp.Chunk, h *half, b []byte, base, i int) int {
	rest := b[i:]
	at := c.Offset + uint64(base+i) // stream offset of rest[0]
	if h.ntail > 0 {
		var tmp [2 * HeaderLen]byte
		n := copy(tmp[:], h.tail[:h.ntail])
		m := copy(tmp[n:], rest[:min(len(rest), HeaderLen-1)])
		for k := 0; k < n && k+HeaderLen <= n+m; k++ {
			if !h.candidate(Header(tmp[k : k+HeaderLen])) {
				continue
			}
			h.skipped += uint64(k)
			d.resumed(f, h, h.tailOff+uint64(k), h.tailSeq+uint32(k))
			h.msgOff, h.msgSeq = h.tailOff+uint64(k), h.tailSeq+uint32(k)
			h.frames, h.cong, h.congN, h.missing = append(h.frames[:0], h.tailFrame), h.cong[:0], 0, 0
			h.nhdr = copy(h.hdr[:], tmp[k:n])
			h.ntail = 0
			return i
		}
	}
	for k := 0; k+HeaderLen <= len(rest); k++ {
		hv := Header(rest[k : k+HeaderLen])
		if !h.candidate(hv) {
			continue
		}
		// Confirm with the following header when it is already here.
		if next := k + HeaderLen + int(hv.Len()); next+HeaderLen <= len(rest) && !h.candidate(Header(rest[next:next+HeaderLen])) {
			continue
		}
		h.skipped += uint64(h.ntail + k)
		d.resumed(f, h, at+uint64(k), c.Seq+uint32(base+i+k))
		h.ntail = 0
		return i + k
	}
	// Nothing yet: keep the last 47 bytes seen (tail + rest).
	total := h.ntail + len(rest)
	keep := min(total, HeaderLen-1)
	h.skipped += uint64(total - keep)
	if len(rest) >= keep {
		copy(h.tail[:], rest[len(rest)-keep:])
		if len(c.Frames) > 0 {
			h.tailFrame = c.Frames[len(c.Frames)-1].Frame
		}
	} else {
		drop := h.ntail - (keep - len(rest))
		copy(h.tail[:], h.tail[drop:h.ntail])
		copy(h.tail[h.ntail-drop:], rest)
		h.tailOff += uint64(drop)
		h.tailSeq += uint32(drop)
		if (h.ntail == 0 || h.tailFrame == 0) && len(c.Frames) > 0 {
			h.tailFrame = c.Frames[0].Frame
		}
	}
	endOff := at + uint64(len(rest))
	h.tailOff, h.tailSeq = endOff-uint64(keep), c.Seq+uint32(base+len(b))-uint32(keep)
	h.ntail = keep
	return len(b)
}

// candidate is the resynchronisation test for this direction: a plausible
// header, sequenced unless it is a congestion map or an ACK-only message (on
// TCP even pings and pongs take a sequence number), and with a sequence
// number that fits the path's when one is known.
func (h *half) candidate(hv Header) bool {
	if !hv.Plausible() {
		return false
	}
	seq := hv.Seq()
	if seq == 0 {
		return hv.IsCong() || hv.IsAckOnly()
	}
	if h.haveSeq && (seq+64 <= h.lastSeq || seq > h.lastSeq+1<<20) {
		return false
	}
	return true
}

// resumed notes where decoding picks up again.
func (d *State) resumed(f *dissect.Frame, h *half, off uint64, seq uint32) {
	h.synced = true
	h.nhdr, h.need = 0, 0
	if f.Num == 0 {
		return
	}
	f.AddFinding(-1, dissect.Warn, dissect.GroupReassembly, nil, findingsProto,
		"RDS decoding resumed at stream offset "+strconv.FormatUint(off, 10)+" (TCP seq "+
			strconv.FormatUint(uint64(seq), 10)+") after "+strconv.FormatUint(h.skipped, 10)+
			" bytes without a plausible header (framing lost at offset "+strconv.FormatUint(h.lostAt, 10)+")")
	h.skipped = 0
}

func kindOf(h Header) uint8 {
	switch {
	case h.IsCong():
		return KindCong
	case h.Sport() == 0 && h.Dport() == 0:
		return KindAckOnly
	case h.Dport() == 0 && h.Sport() == ProbePort:
		return KindProbe
	case h.Dport() == 0:
		return KindPing
	case h.Sport() == 0 && h.Dport() == ProbePort:
		return KindProbePong
	case h.Sport() == 0:
		return KindPong
	}
	return KindData
}
