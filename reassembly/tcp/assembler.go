// Package tcp reassembles TCP byte streams per connection and direction. It
// hands consumers contiguous data together with its exact position: a 64-bit
// stream offset, the absolute TCP sequence number and the frames the bytes
// came from. Holes that never fill are reported as gaps of exact size, bytes
// that contradict earlier data are reported as conflicts (first data wins),
// and all memory is bounded by Config.
//
// Feed segments with Segment (or Add), call FlushAll at the end of the input
// and, for long live captures, FlushOlderThan now and then.
//
// Known limits: any RST closes the connection (no RFC 5961 window check); a
// data segment arriving after its connection closed starts a new connection
// anchored at that segment; bytes after a FIN are ignored. The assembler is
// not safe for concurrent use, and consumers must not call back into it from
// their callbacks.
package tcp

import (
	"bytes"
	"net/netip"
	"slices"
	"sort"
)

// Segment is one TCP segment as the caller decoded it. Payload is only read
// during the call: the assembler copies what it has to keep.
type Segment struct {
	Seq           uint32 // sequence number of the segment (of the SYN when SYN is set)
	SYN, FIN, RST bool
	Payload       []byte
	Frame         uint64 // capture frame number (1-based; 0 means unknown)
	TimeNS        int64
	// ACK and Ack carry the segment's acknowledgment: when the peer acks
	// bytes of the other direction that were never captured, the hole can
	// be reported at once instead of at a limit or the end of the capture.
	ACK bool
	Ack uint32
}

// FrameSpan says that Len bytes starting at Off in a chunk came from Frame.
type FrameSpan struct {
	Frame    uint64
	Off, Len int
}

// Chunk is contiguous stream data. It and its slices are only valid during
// the Data call: in-order bytes point into the caller's segment buffer.
type Chunk struct {
	Key    FlowKey
	Dir    Dir
	Bytes  []byte
	Offset uint64 // stream offset of Bytes[0]: 0 is ISN+1 or the first byte seen
	Seq    uint32 // sequence number of Bytes[0]; byte i has Seq+uint32(i)
	Frames []FrameSpan
	TimeNS int64 // capture time of the segment that carried the bytes
}

// GapReason says why the assembler stopped waiting for missing bytes.
type GapReason uint8

const (
	GapStreamLimit GapReason = iota + 1 // out-of-order data exceeded MaxBufferedPerStream
	GapTotalLimit                       // all held data exceeded MaxBufferedTotal
	GapClosed                           // RST, or a close with a hole
	GapFlush                            // Flush/FlushAll/FlushOlderThan
	GapEvicted                          // connection evicted by MaxStreams
	GapAcked                            // the peer acknowledged bytes the capture does not have
)

var gapReasonNames = [...]string{"", "stream-limit", "total-limit", "closed", "flush", "evicted", "acked"}

func (r GapReason) String() string { return gapReasonNames[r] }

// Gap is a hole of Size bytes at Offset that will never be filled; data
// resumes at ResumeOffset (= Offset+Size) with sequence number ResumeSeq.
type Gap struct {
	Key          FlowKey
	Dir          Dir
	Offset       uint64
	Size         uint64
	ResumeOffset uint64
	ResumeSeq    uint32
	Reason       GapReason
}

// AnomalyKind classifies bytes the assembler did not deliver as data.
type AnomalyKind uint8

const (
	// Conflict: retransmitted bytes differ from the ones already received;
	// the first ones were (or will be) delivered.
	Conflict AnomalyKind = iota + 1
	// BeforeStart: bytes before offset 0 (mid-stream start, then an earlier
	// segment arrived late); dropped.
	BeforeStart
	// TooFar: a segment more than 1 GiB ahead of the next expected byte;
	// dropped as bogus.
	TooFar
)

var anomalyNames = [...]string{"", "conflict", "before-start", "too-far"}

func (k AnomalyKind) String() string { return anomalyNames[k] }

// Anomaly reports Len bytes at Offset/Seq of segment Frame that were not
// delivered. For a Conflict the range spans the first to the last differing
// byte of one overlap, and PrevFrame is the frame of the first data (0 when no
// longer known).
type Anomaly struct {
	Key       FlowKey
	Dir       Dir
	Kind      AnomalyKind
	Offset    int64 // negative for BeforeStart
	Seq       uint32
	Len       int
	Frame     uint64
	PrevFrame uint64
}

// CloseReason says why a connection ended.
type CloseReason uint8

const (
	CloseFIN     CloseReason = iota + 1 // both directions reached their FIN
	CloseRST                            // RST seen
	CloseReused                         // a SYN with a new ISN reused the ports
	CloseFlush                          // FlushAll
	CloseIdle                           // FlushOlderThan
	CloseEvicted                        // MaxStreams reached
)

var closeNames = [...]string{"", "fin", "rst", "reused", "flush", "idle", "evicted"}

func (r CloseReason) String() string { return closeNames[r] }

// Consumer receives one connection's events, both directions, in order.
// Pointers passed to it are only valid during the call.
type Consumer interface {
	Data(c *Chunk)
	Gap(g *Gap)
	Anomaly(a *Anomaly)
	// Close is the last call for the connection; holes have already been
	// reported as gaps.
	Close(key FlowKey, reason CloseReason)
}

// Config bounds the assembler. Zero fields take the defaults.
type Config struct {
	// MaxBufferedPerStream bounds out-of-order bytes held per direction
	// (default 4 MiB).
	MaxBufferedPerStream int
	// MaxBufferedTotal bounds held bytes plus retransmission history over all
	// connections (default 256 MiB). It may be exceeded by one segment.
	MaxBufferedTotal int
	// MaxStreams bounds tracked connections; the least recently used one is
	// flushed and forgotten to make room (default 65536).
	MaxStreams int
	// History is how many delivered bytes per direction are kept to compare
	// retransmissions with (default 16 KiB, rounded up to a power of two;
	// negative disables). It grows lazily, so short connections keep little,
	// and all histories together use at most half of MaxBufferedTotal.
	History int
	// NewConsumer is called for each new connection; nil discards data.
	NewConsumer func(key FlowKey) Consumer
}

// Stats counts what the assembler saw.
type Stats struct {
	Segments        uint64
	Bytes           uint64 // payload bytes delivered
	OutOfOrder      uint64 // segments held for later
	Retransmissions uint64 // segments entirely made of bytes already received
	Overlaps        uint64 // segments partly made of bytes already received
	Conflicts       uint64 // overlaps with different bytes
	Unverified      uint64 // already-delivered bytes older than History, not compared
	Gaps            uint64
	GapBytes        uint64
	Dropped         uint64 // bytes dropped as BeforeStart or TooFar
	Conns           uint64 // connections created
	Evicted         uint64
	Buffered        int // bytes held + history now
}

const maxAhead = 1 << 30

type heldSeg struct {
	off    uint64
	data   []byte
	frame  uint64
	timeNS int64
}

func (s *heldSeg) end() uint64 { return s.off + uint64(len(s.data)) }

type mark struct{ off, frame uint64 }

// half is one direction of a connection.
type half struct {
	anchored bool
	finSeen  bool
	base     uint32 // sequence number of offset 0
	next     uint64 // offset of the next byte to deliver
	finOff   uint64

	held      []heldSeg // sorted, non-overlapping, all starting after next
	heldBytes int

	hist    []byte // ring of delivered bytes ending at next, len a power of 2
	histLen int
	// marks remember which frame delivered recent offsets, for PrevFrame.
	marks [16]mark
	nmark int
}

type conn struct {
	key        FlowKey
	h          [2]half
	cons       Consumer
	prev, next *conn // LRU list, most recent after the sentinel
	lastNS     int64
}

// Assembler reassembles any number of connections.
type Assembler struct {
	cfg   Config
	conns map[FlowKey]*conn
	lru   conn // sentinel
	free  []*conn
	total int
	stats Stats

	chunk   Chunk
	span    [1]FrameSpan
	gap     Gap
	anomaly Anomaly
	pieces  []heldSeg
}

// NewAssembler returns an assembler bounded by cfg.
func NewAssembler(cfg Config) *Assembler {
	if cfg.MaxBufferedPerStream <= 0 {
		cfg.MaxBufferedPerStream = 4 << 20
	}
	if cfg.MaxBufferedTotal <= 0 {
		cfg.MaxBufferedTotal = 256 << 20
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 65536
	}
	if cfg.History == 0 {
		cfg.History = 16 << 10
	}
	if cfg.History > 0 {
		// A power of two lets the ring index by offset.
		n := 512
		for n < cfg.History {
			n <<= 1
		}
		cfg.History = n
	}
	a := &Assembler{cfg: cfg, conns: make(map[FlowKey]*conn)}
	a.lru.prev, a.lru.next = &a.lru, &a.lru
	return a
}

// Stats returns the counters so far.
func (a *Assembler) Stats() Stats {
	s := a.stats
	s.Buffered = a.total
	return s
}

// Len returns the number of connections tracked.
func (a *Assembler) Len() int { return len(a.conns) }

// Add is Segment for a segment sent from src to dst.
func (a *Assembler) Add(src, dst netip.AddrPort, seg Segment) {
	k, d := NewFlowKey(src, dst)
	a.Segment(k, d, seg)
}

// Segment feeds one segment of direction dir of connection key.
func (a *Assembler) Segment(key FlowKey, dir Dir, seg Segment) {
	a.stats.Segments++
	dir &= 1
	c := a.conns[key]
	if c == nil {
		// A bare ACK, FIN or RST of an unknown (e.g. just closed) connection
		// has nothing to reassemble: do not resurrect the connection.
		if len(seg.Payload) == 0 && !seg.SYN {
			return
		}
		c = a.newConn(key)
	} else {
		a.touch(c)
	}
	c.lastNS = seg.TimeNS
	h := &c.h[dir]
	seq := seg.Seq
	if seg.SYN {
		seq++
		if h.anchored && seq != h.base {
			// A new ISN on the same ports is a new connection.
			a.closeConn(c, CloseReused)
			c = a.newConn(key)
			c.lastNS = seg.TimeNS
			h = &c.h[dir]
		}
	}
	if !h.anchored {
		h.anchored, h.base = true, seq
	}
	// Offsets are relative to next so that a stream longer than 4 GiB keeps
	// counting: the segment is within ±2 GiB of the next expected byte.
	off := int64(h.next) + int64(seqDiff(seq, seqAt(h.base, h.next)))
	if seg.RST {
		// RST payload is diagnostic text, not stream data.
		a.closeConn(c, CloseRST)
		return
	}
	if len(seg.Payload) > 0 {
		a.data(c, dir, off, seg.Payload, seg.Frame, seg.TimeNS)
	}
	if seg.FIN && !h.finSeen {
		if fin := off + int64(len(seg.Payload)); fin >= 0 {
			h.finSeen, h.finOff = true, uint64(fin)
		}
	}
	if seg.ACK {
		a.acked(c, dir^1, seg.Ack)
	}
	a.checkDone(c)
}

// acked handles an acknowledgment of direction dir: a hole before held data
// that the receiver has acknowledged past was lost by the capture, not the
// network, so it is reported now and the held data delivered. Without held
// data nothing is declared: the segments may still come (a capture point
// can see the ack before the data).
func (a *Assembler) acked(c *conn, dir Dir, ack uint32) {
	h := &c.h[dir]
	if !h.anchored || len(h.held) == 0 {
		return
	}
	ackOff := int64(h.next) + int64(seqDiff(ack, seqAt(h.base, h.next)))
	if ackOff > int64(h.next) {
		a.skip(c, dir, GapAcked)
	}
}

func (a *Assembler) data(c *conn, dir Dir, off int64, p []byte, frame uint64, ts int64) {
	h := &c.h[dir]
	end := off + int64(len(p))
	if off < 0 {
		n := int(min(-off, int64(len(p))))
		a.report(c, dir, BeforeStart, off, h.base+uint32(off), n, frame, 0)
		a.stats.Dropped += uint64(n)
		if end <= 0 {
			return
		}
		p, off = p[n:], 0
	}
	next := int64(h.next)
	if off-next > maxAhead {
		a.report(c, dir, TooFar, off, seqAt(h.base, uint64(off)), len(p), frame, 0)
		a.stats.Dropped += uint64(len(p))
		return
	}
	if off < next {
		n := min(end, next) - off
		a.checkDelivered(c, dir, uint64(off), p[:n], frame)
		if end <= next {
			a.stats.Retransmissions++
			return
		}
		a.stats.Overlaps++
		p, off = p[n:], next
	}
	if off == next && (len(h.held) == 0 || h.held[0].off >= uint64(end)) {
		// Steady state: pass the caller's bytes through, no copy.
		a.deliver(c, dir, p, frame, ts)
		a.release(c, dir)
		return
	}
	a.hold(c, dir, uint64(off), p, frame, ts)
	a.release(c, dir)
	a.enforce(c, dir)
}

// hold copies the parts of p not yet held; bytes already held win.
func (a *Assembler) hold(c *conn, dir Dir, off uint64, p []byte, frame uint64, ts int64) {
	h := &c.h[dir]
	end := off + uint64(len(p))
	i := sort.Search(len(h.held), func(i int) bool { return h.held[i].end() > off })
	pieces := a.pieces[:0]
	cur, overlapped := off, false
	for cur < end {
		if i == len(h.held) || h.held[i].off >= end {
			pieces = append(pieces, heldSeg{off: cur, data: p[cur-off:], frame: frame, timeNS: ts})
			break
		}
		s := &h.held[i]
		if s.off > cur {
			pieces = append(pieces, heldSeg{off: cur, data: p[cur-off : s.off-off], frame: frame, timeNS: ts})
			cur = s.off
		}
		oe := min(end, s.end())
		a.compare(c, dir, cur, p[cur-off:oe-off], s.data[cur-s.off:oe-s.off], frame, s.frame)
		overlapped = true
		cur = oe
		i++
	}
	a.pieces = pieces[:0]
	switch {
	case len(pieces) == 0:
		a.stats.Retransmissions++
		return
	case overlapped:
		a.stats.Overlaps++
	}
	a.stats.OutOfOrder++
	for _, pc := range pieces {
		pc.data = bytes.Clone(pc.data)
		j := sort.Search(len(h.held), func(j int) bool { return h.held[j].off > pc.off })
		h.held = slices.Insert(h.held, j, pc)
		h.heldBytes += len(pc.data)
		a.total += len(pc.data)
	}
	clear(pieces)
}

// release delivers held segments that have become contiguous.
func (a *Assembler) release(c *conn, dir Dir) {
	h := &c.h[dir]
	n := 0
	for n < len(h.held) && h.held[n].off == h.next {
		s := &h.held[n]
		a.deliver(c, dir, s.data, s.frame, s.timeNS)
		h.heldBytes -= len(s.data)
		a.total -= len(s.data)
		n++
	}
	if n > 0 {
		clear(h.held[:n])
		h.held = append(h.held[:0], h.held[n:]...)
		clear(h.held[len(h.held):cap(h.held)])
	}
}

// enforce skips holes until the memory limits hold again.
func (a *Assembler) enforce(c *conn, dir Dir) {
	h := &c.h[dir]
	for len(h.held) > 0 {
		switch {
		case h.heldBytes > a.cfg.MaxBufferedPerStream:
			a.skip(c, dir, GapStreamLimit)
		case a.total > a.cfg.MaxBufferedTotal:
			a.skip(c, dir, GapTotalLimit)
		default:
			return
		}
	}
}

// skip gives up on the hole at next: it reports it as a gap and delivers
// what follows. With nothing held, a FIN beyond next bounds the hole.
func (a *Assembler) skip(c *conn, dir Dir, reason GapReason) bool {
	h := &c.h[dir]
	var to uint64
	switch {
	case len(h.held) > 0:
		to = h.held[0].off
	case h.finSeen && h.finOff > h.next:
		to = h.finOff
	default:
		return false
	}
	g := &a.gap
	*g = Gap{Key: c.key, Dir: dir, Offset: h.next, Size: to - h.next, ResumeOffset: to,
		ResumeSeq: seqAt(h.base, to), Reason: reason}
	a.stats.Gaps++
	a.stats.GapBytes += g.Size
	h.next = to
	h.histLen = 0 // history must end at next
	if c.cons != nil {
		c.cons.Gap(g)
	}
	a.release(c, dir)
	return true
}

func (a *Assembler) deliver(c *conn, dir Dir, p []byte, frame uint64, ts int64) {
	h := &c.h[dir]
	a.remember(h, p, frame)
	ch := &a.chunk
	a.span[0] = FrameSpan{Frame: frame, Len: len(p)}
	*ch = Chunk{Key: c.key, Dir: dir, Bytes: p, Offset: h.next, Seq: seqAt(h.base, h.next),
		Frames: a.span[:], TimeNS: ts}
	h.next += uint64(len(p))
	a.stats.Bytes += uint64(len(p))
	if c.cons != nil {
		c.cons.Data(ch)
	}
	ch.Bytes = nil
}

// remember appends delivered bytes to the history ring, growing it lazily
// within the total budget.
func (a *Assembler) remember(h *half, p []byte, frame uint64) {
	if h.nmark == len(h.marks) {
		copy(h.marks[:], h.marks[1:])
		h.nmark--
	}
	h.marks[h.nmark] = mark{off: h.next, frame: frame}
	h.nmark++
	if a.cfg.History <= 0 {
		return
	}
	if want := min(a.cfg.History, h.histLen+len(p)); want > len(h.hist) {
		n := max(512, len(h.hist))
		for n < want {
			n <<= 1
		}
		// History may use half the total budget: the rest stays for
		// out-of-order data, which matters more.
		if a.total+n-len(h.hist) <= a.cfg.MaxBufferedTotal/2 {
			nh := make([]byte, n)
			for o := h.next - uint64(h.histLen); o < h.next; o++ {
				nh[o&uint64(n-1)] = h.hist[o&uint64(len(h.hist)-1)]
			}
			a.total += n - len(h.hist)
			h.hist = nh
		}
	}
	size := len(h.hist)
	if size == 0 {
		return
	}
	o := h.next
	if len(p) > size {
		o += uint64(len(p) - size)
		p = p[len(p)-size:]
	}
	for len(p) > 0 {
		i := int(o & uint64(size-1))
		n := copy(h.hist[i:], p)
		p, o = p[n:], o+uint64(n)
	}
	h.histLen = min(size, h.histLen+int(o-h.next)) // o-h.next: bytes written past next
}

// checkDelivered compares bytes at off (all before next) with the history.
func (a *Assembler) checkDelivered(c *conn, dir Dir, off uint64, p []byte, frame uint64) {
	h := &c.h[dir]
	lo := h.next - uint64(h.histLen)
	if off < lo {
		n := min(uint64(len(p)), lo-off)
		a.stats.Unverified += n
		p, off = p[n:], off+n
	}
	size := uint64(len(h.hist))
	for len(p) > 0 {
		i := off & (size - 1)
		n := min(uint64(len(p)), size-i)
		a.compare(c, dir, off, p[:n], h.hist[i:i+n], frame, h.frameAt(off))
		p, off = p[n:], off+n
	}
}

// frameAt returns the frame that delivered offset off, if still known.
func (h *half) frameAt(off uint64) uint64 {
	for i := h.nmark - 1; i >= 0; i-- {
		if h.marks[i].off <= off {
			return h.marks[i].frame
		}
	}
	return 0
}

// compare reports a Conflict when new differs from old (same offsets).
func (a *Assembler) compare(c *conn, dir Dir, off uint64, nw, old []byte, frame, prev uint64) {
	if bytes.Equal(nw, old) {
		return
	}
	first, last := -1, 0
	for i := range nw {
		if nw[i] != old[i] {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	a.stats.Conflicts++
	o := off + uint64(first)
	a.report(c, dir, Conflict, int64(o), seqAt(c.h[dir].base, o), last-first+1, frame, prev)
}

func (a *Assembler) report(c *conn, dir Dir, k AnomalyKind, off int64, seq uint32, n int, frame, prev uint64) {
	if c.cons == nil {
		return
	}
	an := &a.anomaly
	*an = Anomaly{Key: c.key, Dir: dir, Kind: k, Offset: off, Seq: seq, Len: n, Frame: frame, PrevFrame: prev}
	c.cons.Anomaly(an)
}

func (a *Assembler) checkDone(c *conn) {
	for d := range c.h {
		h := &c.h[d]
		if !h.finSeen || h.next < h.finOff {
			return
		}
	}
	a.closeConn(c, CloseFIN)
}

// closeConn reports the remaining holes as gaps, closes the consumer and
// forgets the connection.
func (a *Assembler) closeConn(c *conn, reason CloseReason) {
	gr := GapClosed
	switch reason {
	case CloseFlush, CloseIdle:
		gr = GapFlush
	case CloseEvicted:
		gr = GapEvicted
	}
	for d := range c.h {
		for a.skip(c, Dir(d), gr) {
		}
	}
	if c.cons != nil {
		c.cons.Close(c.key, reason)
	}
	for d := range c.h {
		h := &c.h[d]
		a.total -= h.heldBytes + len(h.hist)
	}
	delete(a.conns, c.key)
	c.prev.next, c.next.prev = c.next, c.prev
	// Recycle the struct and its smallest history rings, so that a stream
	// of short connections does not allocate per connection.
	h0, h1 := c.h[0].hist, c.h[1].hist
	*c = conn{}
	if len(a.free) < 1024 {
		if len(h0) <= 512 && len(h1) <= 512 {
			c.h[0].hist, c.h[1].hist = h0, h1
		}
		a.free = append(a.free, c)
	}
}

func (a *Assembler) newConn(key FlowKey) *conn {
	if len(a.conns) >= a.cfg.MaxStreams {
		a.stats.Evicted++
		a.closeConn(a.lru.prev, CloseEvicted)
	}
	var c *conn
	if n := len(a.free); n > 0 {
		c, a.free = a.free[n-1], a.free[:n-1]
		a.total += len(c.h[0].hist) + len(c.h[1].hist)
	} else {
		c = new(conn)
	}
	c.key = key
	if a.cfg.NewConsumer != nil {
		c.cons = a.cfg.NewConsumer(key)
	}
	a.conns[key] = c
	a.stats.Conns++
	c.prev, c.next = &a.lru, a.lru.next
	a.lru.next.prev = c
	a.lru.next = c
	return c
}

func (a *Assembler) touch(c *conn) {
	if a.lru.next == c {
		return
	}
	c.prev.next, c.next.prev = c.next, c.prev
	c.prev, c.next = &a.lru, a.lru.next
	a.lru.next.prev = c
	a.lru.next = c
}

// Flush reports the holes of one connection as gaps and closes it.
func (a *Assembler) Flush(key FlowKey) {
	if c := a.conns[key]; c != nil {
		a.closeConn(c, CloseFlush)
	}
}

// FlushAll closes every connection, reporting holes as gaps; call it at the
// end of the input.
func (a *Assembler) FlushAll() {
	for a.lru.prev != &a.lru {
		a.closeConn(a.lru.prev, CloseFlush)
	}
}

// FlushOlderThan closes connections whose last segment is older than timeNS.
func (a *Assembler) FlushOlderThan(timeNS int64) {
	for c := a.lru.prev; c != &a.lru && c.lastNS < timeNS; c = a.lru.prev {
		a.closeConn(c, CloseIdle)
	}
}
