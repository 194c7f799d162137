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
	"strconv"
	"unsafe"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// Segment is one TCP segment as the caller decoded it. Payload is only read
// during the call, unless Lent: the assembler copies what it has to keep.
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
	// Lent says Payload stays valid and unchanged until the caller's next
	// Reclaim: the retransmission history then keeps a reference to the
	// delivered bytes instead of copying them, and Reclaim copies only
	// what the history still holds (at most History octets a direction).
	Lent bool
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
	GapStreamLimit  GapReason = iota + 1 // out-of-order data exceeded MaxBufferedPerStream
	GapTotalLimit                        // all held data exceeded MaxBufferedTotal
	GapClosed                            // RST, or a close with a hole
	GapFlush                             // Flush/FlushAll/FlushOlderThan
	GapEvicted                           // connection evicted by MaxStreams
	GapAcked                             // the peer acknowledged bytes the capture does not have
	GapSegmentLimit                      // held segments exceeded MaxSegmentsPerStream
	GapBudget                            // connection dropped by the shared memory budget (--max-mem)
)

var gapReasonNames = [...]string{"", "stream-limit", "total-limit", "closed", "flush", "evicted", "acked", "segment-limit", "budget"}

// Limit reports whether the hole was given up because a memory limit was
// reached, not because the bytes are known to be lost: they may still be
// on the wire.
func (r GapReason) Limit() bool {
	return r == GapStreamLimit || r == GapTotalLimit || r == GapSegmentLimit || r == GapBudget
}

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
	CloseBudget                         // dropped by the shared memory budget
)

var closeNames = [...]string{"", "fin", "rst", "reused", "flush", "idle", "evicted", "budget"}

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
	// MaxBufferedPerStream bounds out-of-order bytes held per direction,
	// each held segment counting SegmentOverhead octets more than its
	// payload (default 4 MiB).
	MaxBufferedPerStream int
	// MaxSegmentsPerStream bounds the held segments per direction (default
	// DefaultMaxSegments).
	MaxSegmentsPerStream int
	// MaxBufferedTotal bounds held bytes (with their overhead) plus
	// retransmission history over all connections (default 256 MiB). It may
	// be exceeded by one segment.
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
	// Budget, when set, is the shared memory allowance: the assembler
	// registers as table "tcp", charges every connection, held segment and
	// history ring, and gives up its least recently active connection when
	// the budget asks (its holes become gaps with reason GapBudget).
	Budget *budget.Budget
}

// DefaultMaxSegments is the default MaxSegmentsPerStream: far above real
// windows (4 MiB of 1448-octet segments is 2897), it stops a flood of tiny
// out-of-order segments from making a stream's hole list long.
const DefaultMaxSegments = 1 << 15

// SegmentOverhead is what one held segment costs beyond its payload: the
// skip-list node and the allocation of the payload copy. It counts against
// the per-stream and total limits, so millions of one-octet segments
// cannot be held for the price of their payload.
const SegmentOverhead = int(unsafe.Sizeof(skipNode{})) + 32

// ConnOverhead is what one tracked connection costs without held data or
// history: its struct, its map slot and the consumer's binding. It is
// charged to the budget so that a million idle connections count.
const ConnOverhead = int(unsafe.Sizeof(conn{})) + int(unsafe.Sizeof(FlowKey{})) + 48

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
	Buffered        int // bytes held (with overhead) + history now
	// Steps counts the skip-list nodes visited, inserted and released: the
	// work spent on held segments, which must grow linearly (times log n)
	// with the segments, never quadratically.
	Steps uint64
}

// Add adds o's counters to s (the streams of another assembler, as when
// the statistics of parallel engines are merged).
func (s *Stats) Add(o Stats) {
	s.Segments += o.Segments
	s.Bytes += o.Bytes
	s.OutOfOrder += o.OutOfOrder
	s.Retransmissions += o.Retransmissions
	s.Overlaps += o.Overlaps
	s.Conflicts += o.Conflicts
	s.Unverified += o.Unverified
	s.Gaps += o.Gaps
	s.GapBytes += o.GapBytes
	s.Dropped += o.Dropped
	s.Conns += o.Conns
	s.Evicted += o.Evicted
	s.Buffered += o.Buffered
	s.Steps += o.Steps
}

const maxAhead = 1 << 30

// minHist is the first size of a history ring: a connection that carries a
// few octets keeps a few, and the ring doubles as more is delivered.
const minHist = 64

// recycleHist is the largest history ring kept with a recycled connection
// (at most 1024 of them are kept).
const recycleHist = 512

type heldSeg struct {
	off    uint64
	data   []byte
	frame  uint64
	timeNS int64
}

func (s *heldSeg) end() uint64 { return s.off + uint64(len(s.data)) }

// skipLevels bounds the skip list's height; with a level ratio of 1/4 it
// keeps searches logarithmic up to about 4^10 (a million) held segments,
// well past what the limits allow in one stream.
const skipLevels = 10

// skipNode is one held segment in its direction's skip list, sorted by
// offset: O(log n) to find or insert, O(1) to release the first.
type skipNode struct {
	seg  heldSeg
	next [skipLevels]*skipNode
	lvl  uint8
}

type mark struct{ off, frame uint64 }

// half is one direction of a connection.
type half struct {
	anchored bool
	finSeen  bool
	base     uint32 // sequence number of offset 0
	next     uint64 // offset of the next byte to deliver
	finOff   uint64

	// head is the skip list of held segments (sorted, non-overlapping, all
	// starting after next); a sentinel node allocated on the first hold.
	head      *skipNode
	nheld     int
	heldBytes int // payload plus SegmentOverhead per segment

	hist    []byte // ring of delivered bytes ending at next, len a power of 2
	histLen int
	// lastRef is 1 + the index in Assembler.refs of the newest delivery
	// whose bytes are not yet in hist (0: none); the refs chain back
	// through prev and end at next, contiguous.
	lastRef int32
	// marks remember which frame delivered recent offsets, for PrevFrame
	// (a conflict with older bytes says 0, "no longer known"). Few, as
	// every tracked connection carries them: a ring, the newest at
	// marks[(nmark-1)%len(marks)] (nmark counts every delivery; len(marks)
	// is a power of two).
	marks [4]mark
	nmark int
}

type conn struct {
	key        FlowKey
	h          [2]half
	cons       Consumer
	prev, next *conn // LRU list, most recent after the sentinel
	lastNS     int64
	stamp      uint64 // budget activity stamp of the last segment
}

// Assembler reassembles any number of connections.
type Assembler struct {
	cfg   Config
	conns map[FlowKey]*conn
	lru   conn // sentinel
	free  []*conn
	total int
	stats Stats
	acct  *budget.Account
	rng   uint64      // skip-list levels: deterministic, so runs repeat
	nodes []*skipNode // free nodes, so steady reordering does not allocate

	chunk   Chunk
	span    [1]FrameSpan
	gap     Gap
	anomaly Anomaly
	pieces  []heldSeg
	update  [skipLevels]*skipNode

	// refs are lent deliveries (Segment.Lent) not yet copied into their
	// history ring, pending the halves that have some; Reclaim empties both.
	refs    []histRef
	pending []*half
}

// histRef is a lent delivery the history ring still has to copy.
type histRef struct {
	p    []byte
	prev int32 // lastRef of the half before this delivery
}

// maxRefs bounds the lent deliveries kept between two Reclaims (32 octets
// each): at the limit they are all copied, as Reclaim would, so a caller
// that lends a great many segments between Reclaims costs a copy each
// again, never more memory.
const maxRefs = 4096

// maxFreeNodes bounds the free-node list (memory kept for reuse: 1024 nodes
// of about 150 octets).
const maxFreeNodes = 1024

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
	if cfg.MaxSegmentsPerStream <= 0 {
		cfg.MaxSegmentsPerStream = DefaultMaxSegments
	}
	if cfg.History == 0 {
		cfg.History = 16 << 10
	}
	if cfg.History > 0 {
		// A power of two lets the ring index by offset.
		n := minHist
		for n < cfg.History {
			n <<= 1
		}
		cfg.History = n
	}
	a := &Assembler{cfg: cfg, conns: make(map[FlowKey]*conn), rng: 0x9e3779b97f4a7c15}
	a.lru.prev, a.lru.next = &a.lru, &a.lru
	a.acct = cfg.Budget.Register("tcp", a)
	return a
}

// Close gives the assembler's memory back to the budget and leaves it;
// the assembler must not be used afterwards.
func (a *Assembler) Close() { a.acct.Close() }

// charge adds n octets to the held total and to the budget.
func (a *Assembler) charge(n int) {
	a.total += n
	a.acct.Charge(int64(n))
}

// Oldest is the budget stamp of the least recently active connection
// (budget.Table).
func (a *Assembler) Oldest() (uint64, bool) {
	if c := a.lru.prev; c != &a.lru {
		return c.stamp, true
	}
	return 0, false
}

// DropOldest closes the least recently active connection for the budget:
// its holes are reported as gaps with reason GapBudget, so the consumer
// resynchronises, and everything it held is released (budget.Table).
func (a *Assembler) DropOldest() string {
	c := a.lru.prev
	if c == &a.lru {
		return "no TCP stream"
	}
	b := make([]byte, 0, 96)
	b = append(b, "TCP stream "...)
	b = c.key.A.AppendTo(b)
	b = append(b, " ⇄ "...)
	b = c.key.B.AppendTo(b)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(c.h[0].nheld+c.h[1].nheld), 10)
	b = append(b, " held segments)"...)
	a.stats.Evicted++
	a.closeConn(c, CloseBudget)
	return string(b)
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
	// The most recent connection first, in either direction, before the
	// key is normalized (Segment looks there too): a capture's segments
	// come in runs of one connection.
	if c := a.lru.next; c != &a.lru {
		if c.key.A == src && c.key.B == dst {
			a.segment(c, &c.key, 0, &seg)
			return
		}
		if c.key.A == dst && c.key.B == src {
			a.segment(c, &c.key, 1, &seg)
			return
		}
	}
	k, d := NewFlowKey(src, dst)
	a.Segment(k, d, seg)
}

// Segment feeds one segment of direction dir of connection key.
func (a *Assembler) Segment(key FlowKey, dir Dir, seg Segment) {
	// The most recent connection (the LRU's head) first: a capture's
	// segments come in runs of one connection, and hashing a key of two
	// netip.AddrPorts costs more than the rest of the lookup.
	c := a.lru.next
	if c == &a.lru || !c.key.eq(&key) {
		c = a.conns[key]
	}
	a.segment(c, &key, dir, &seg)
}

// segment is Segment once the connection is looked up: c is key's, nil if
// none. key and seg by pointer: copying both cost ~30 instructions a
// segment; key may be &c.key, which closeConn clears.
func (a *Assembler) segment(c *conn, key *FlowKey, dir Dir, seg *Segment) {
	a.stats.Segments++
	dir &= 1
	if c == nil {
		// A bare ACK, FIN or RST of an unknown (e.g. just closed) connection
		// has nothing to reassemble: do not resurrect the connection.
		if len(seg.Payload) == 0 && !seg.SYN {
			return
		}
		c = a.newConn(*key)
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
			k := *key // closeConn clears c.key
			a.closeConn(c, CloseReused)
			c = a.newConn(k)
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
		a.data(c, dir, off, seg.Payload, seg.Frame, seg.TimeNS, seg.Lent)
	}
	if seg.FIN && !h.finSeen {
		if fin := off + int64(len(seg.Payload)); fin >= 0 {
			h.finSeen, h.finOff = true, uint64(fin)
		}
	}
	if seg.ACK && c.h[dir^1].nheld != 0 { // acked's first test, without the call
		a.acked(c, dir^1, seg.Ack)
	}
	if c.h[0].finSeen && c.h[1].finSeen {
		a.checkDone(c)
	}
}

// acked handles an acknowledgment of direction dir: a hole before held data
// that the receiver has acknowledged past was lost by the capture, not the
// network, so it is reported now and the held data delivered. Without held
// data nothing is declared: the segments may still come (a capture point
// can see the ack before the data).
func (a *Assembler) acked(c *conn, dir Dir, ack uint32) {
	h := &c.h[dir]
	if !h.anchored || h.nheld == 0 {
		return
	}
	ackOff := int64(h.next) + int64(seqDiff(ack, seqAt(h.base, h.next)))
	if ackOff > int64(h.next) {
		a.skip(c, dir, GapAcked)
	}
}

func (a *Assembler) data(c *conn, dir Dir, off int64, p []byte, frame uint64, ts int64, lent bool) {
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
	if off == next && (h.nheld == 0 || h.first().off >= uint64(end)) {
		// Steady state: pass the caller's bytes through, no copy. Nothing
		// held before, nothing to release after.
		a.deliver(c, dir, p, frame, ts, lent)
		if h.nheld != 0 {
			a.release(c, dir)
		}
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
	pieces := a.pieces[:0]
	cur, overlapped := off, false
	for s := a.seek(h, off); cur < end; s = s.next[0] {
		a.stats.Steps++
		if s == nil || s.seg.off >= end {
			pieces = append(pieces, heldSeg{off: cur, data: p[cur-off:], frame: frame, timeNS: ts})
			break
		}
		if s.seg.off > cur {
			pieces = append(pieces, heldSeg{off: cur, data: p[cur-off : s.seg.off-off], frame: frame, timeNS: ts})
			cur = s.seg.off
		}
		oe := min(end, s.seg.end())
		a.compare(c, dir, cur, p[cur-off:oe-off], s.seg.data[cur-s.seg.off:oe-s.seg.off], frame, s.seg.frame)
		overlapped = true
		cur = oe
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
		a.insert(h, pc)
		n := len(pc.data) + SegmentOverhead
		h.heldBytes += n
		a.charge(n)
	}
	clear(pieces)
}

// first is the held segment with the lowest offset; h.nheld must be > 0.
func (h *half) first() *heldSeg { return &h.head.next[0].seg }

// seek returns the first held node that ends after off, nil if none.
func (a *Assembler) seek(h *half, off uint64) *skipNode {
	if h.head == nil {
		return nil
	}
	x := h.head
	for l := skipLevels - 1; l >= 0; l-- {
		for n := x.next[l]; n != nil && n.seg.end() <= off; n = x.next[l] {
			a.stats.Steps++
			x = n
		}
	}
	return x.next[0]
}

// insert links s into the skip list by offset (it overlaps nothing held).
func (a *Assembler) insert(h *half, s heldSeg) {
	if h.head == nil {
		h.head = a.node()
	}
	x := h.head
	for l := skipLevels - 1; l >= 0; l-- {
		for n := x.next[l]; n != nil && n.seg.off < s.off; n = x.next[l] {
			a.stats.Steps++
			x = n
		}
		a.update[l] = x
	}
	n := a.node()
	n.seg = s
	// Level k with probability 4^-k: two random bits per level.
	a.rng ^= a.rng << 13
	a.rng ^= a.rng >> 7
	a.rng ^= a.rng << 17
	n.lvl = 1
	for r := a.rng; r&3 == 0 && n.lvl < skipLevels; r >>= 2 {
		n.lvl++
	}
	for l := range int(n.lvl) {
		n.next[l] = a.update[l].next[l]
		a.update[l].next[l] = n
	}
	h.nheld++
	a.stats.Steps++
}

// popFirst unlinks the first held node: it is first on every level it is on.
func (a *Assembler) popFirst(h *half) {
	n := h.head.next[0]
	for l := range int(n.lvl) {
		h.head.next[l] = n.next[l]
	}
	h.nheld--
	a.stats.Steps++
	a.freeNode(n)
}

func (a *Assembler) node() *skipNode {
	if k := len(a.nodes); k > 0 {
		n := a.nodes[k-1]
		a.nodes = a.nodes[:k-1]
		return n
	}
	return new(skipNode)
}

func (a *Assembler) freeNode(n *skipNode) {
	*n = skipNode{}
	if len(a.nodes) < maxFreeNodes {
		a.nodes = append(a.nodes, n)
	}
}

// release delivers held segments that have become contiguous.
func (a *Assembler) release(c *conn, dir Dir) {
	h := &c.h[dir]
	for h.nheld > 0 && h.first().off == h.next {
		s := h.first()
		a.deliver(c, dir, s.data, s.frame, s.timeNS, false) // s.data is freed after
		n := len(s.data) + SegmentOverhead
		h.heldBytes -= n
		a.charge(-n)
		a.popFirst(h)
	}
}

// enforce skips holes until the memory limits hold again.
func (a *Assembler) enforce(c *conn, dir Dir) {
	h := &c.h[dir]
	for h.nheld > 0 {
		switch {
		case h.heldBytes > a.cfg.MaxBufferedPerStream:
			a.skip(c, dir, GapStreamLimit)
		case h.nheld > a.cfg.MaxSegmentsPerStream:
			a.skip(c, dir, GapSegmentLimit)
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
	case h.nheld > 0:
		to = h.first().off
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
	h.histLen, h.lastRef = 0, 0 // history must end at next
	if c.cons != nil {
		c.cons.Gap(g)
	}
	a.release(c, dir)
	return true
}

func (a *Assembler) deliver(c *conn, dir Dir, p []byte, frame uint64, ts int64, lent bool) {
	h := &c.h[dir]
	a.remember(h, p, frame, lent)
	ch := &a.chunk
	a.span[0] = FrameSpan{Frame: frame, Len: len(p)}
	// Field by field: the composite literal was built in a temporary and
	// copied (about 40 instructions a delivery).
	ch.Key, ch.Dir, ch.Bytes, ch.Offset, ch.Seq = c.key, dir, p, h.next, seqAt(h.base, h.next)
	ch.Frames, ch.TimeNS = a.span[:], ts
	h.next += uint64(len(p))
	a.stats.Bytes += uint64(len(p))
	if c.cons != nil {
		c.cons.Data(ch)
	}
	ch.Bytes = nil
}

// remember appends delivered bytes to the history ring, growing it lazily
// within the total budget. Lent bytes are only referenced (lend) until
// Reclaim, or a read of the ring, copies them (settle): a stream delivered
// in 1448-octet segments otherwise copied every octet into a 16 KiB ring
// that kept about one in ten of them until the next Reclaim.
func (a *Assembler) remember(h *half, p []byte, frame uint64, lent bool) {
	h.marks[h.nmark&(len(h.marks)-1)] = mark{off: h.next, frame: frame} // len is a power of two
	h.nmark++
	// Steady state: the ring has its full size and p (1 to size octets)
	// wraps at most once. The general path below does the same in a loop,
	// after a growth check that cannot fire at full size.
	if size := len(h.hist); size == a.cfg.History && uint(len(p)-1) < uint(size) {
		if lent {
			a.lend(h, p)
		} else {
			if h.lastRef != 0 {
				a.settle(h) // the refs end where p starts
			}
			n := copy(h.hist[int(h.next)&(size-1):], p)
			if n < len(p) {
				copy(h.hist, p[n:])
			}
		}
		h.histLen = min(size, h.histLen+len(p))
		return
	}
	if a.cfg.History <= 0 {
		return
	}
	if want := min(a.cfg.History, h.histLen+len(p)); want > len(h.hist) {
		n := max(minHist, len(h.hist))
		for n < want {
			n <<= 1
		}
		// History may use half the total budget: the rest stays for
		// out-of-order data, which matters more.
		if a.total+n-len(h.hist) <= a.cfg.MaxBufferedTotal/2 {
			nh := make([]byte, n)
			// The kept bytes, in at most two pieces each side of the old
			// ring's end, to where their offsets fall in the new one.
			for o := h.next - uint64(h.histLen); o < h.next; {
				i, j := o&uint64(len(h.hist)-1), o&uint64(n-1)
				k := copy(nh[j:], h.hist[i:min(uint64(len(h.hist)), i+(h.next-o))])
				o += uint64(k)
			}
			a.charge(n - len(h.hist))
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
	if lent {
		// A clipped p is the whole ring: settle stops at it.
		a.lend(h, p)
		h.histLen = min(size, h.histLen+int(o+uint64(len(p))-h.next))
		return
	}
	if h.lastRef != 0 {
		a.settle(h)
	}
	for len(p) > 0 {
		i := int(o & uint64(size-1))
		n := copy(h.hist[i:], p)
		p, o = p[n:], o+uint64(n)
	}
	h.histLen = min(size, h.histLen+int(o-h.next)) // o-h.next: bytes written past next
}

// lend records p, delivered next (lent), as h's newest history bytes
// without copying them. Small enough to inline: h's first ref since the
// last Reclaim and a full refs take lendSlow.
func (a *Assembler) lend(h *half, p []byte) {
	n := len(a.refs)
	if h.lastRef == 0 || n == cap(a.refs) {
		a.lendSlow(h, p)
		return
	}
	a.refs = a.refs[:n+1]
	a.refs[n] = histRef{p: p, prev: h.lastRef}
	h.lastRef = int32(n + 1)
}

func (a *Assembler) lendSlow(h *half, p []byte) {
	if len(a.refs) >= maxRefs {
		a.Reclaim()
	}
	if h.lastRef == 0 {
		a.pending = append(a.pending, h)
	}
	a.refs = append(a.refs, histRef{p: p, prev: h.lastRef})
	h.lastRef = int32(len(a.refs))
}

// settle copies h's lent deliveries into its ring, newest first and only
// the last len(hist) octets: the older ones would be overwritten. They end
// at next, contiguous (skip and closeConn forget them). The ring may have
// grown since: what it moved of theirs is overwritten here, and the octets
// it holds beyond histLen are never read.
func (a *Assembler) settle(h *half) {
	size := uint64(len(h.hist))
	lo := h.next - min(h.next, size)
	end := h.next
	for i := h.lastRef; i != 0 && end > lo; {
		r := &a.refs[i-1]
		p, at := r.p, end-uint64(len(r.p))
		if end-lo < uint64(len(p)) {
			p, at = p[uint64(len(p))-(end-lo):], lo
		}
		j := at & (size - 1)
		if n := copy(h.hist[j:], p); n < len(p) {
			copy(h.hist, p[n:])
		}
		end, i = at, r.prev
	}
	h.lastRef = 0
}

// Reclaim copies into the history rings the lent bytes (Segment.Lent) they
// still reference. Call it before memory that a lent Payload was in is
// written again; the assembler then keeps no reference to it.
func (a *Assembler) Reclaim() {
	for _, h := range a.pending {
		if h.lastRef != 0 {
			a.settle(h)
		}
	}
	clear(a.pending)
	clear(a.refs)
	a.pending, a.refs = a.pending[:0], a.refs[:0]
}

// checkDelivered compares bytes at off (all before next) with the history.
func (a *Assembler) checkDelivered(c *conn, dir Dir, off uint64, p []byte, frame uint64) {
	h := &c.h[dir]
	if h.lastRef != 0 {
		a.settle(h)
	}
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
		a.compare(c, dir, off, p[:n], h.hist[i:i+n], frame, prevFromMarks)
		p, off = p[n:], off+n
	}
}

// frameAt returns the frame that delivered offset off, if still known.
func (h *half) frameAt(off uint64) uint64 {
	for i := h.nmark - 1; i >= max(0, h.nmark-len(h.marks)); i-- {
		if m := &h.marks[i&(len(h.marks)-1)]; m.off <= off {
			return m.frame
		}
	}
	return 0
}

// prevFromMarks tells compare to find the frame that first sent the first
// differing octet in the delivery marks (bytes from the history ring).
const prevFromMarks = ^uint64(0)

// compare reports a Conflict when new differs from old (same offsets); prev
// is the frame old came from, or prevFromMarks.
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
	if prev == prevFromMarks {
		prev = c.h[dir].frameAt(o)
	}
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
	case CloseBudget:
		gr = GapBudget
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
		a.charge(-(h.heldBytes + len(h.hist)))
		if h.head != nil {
			a.freeNode(h.head)
		}
	}
	a.acct.Charge(-int64(ConnOverhead))
	delete(a.conns, c.key)
	c.prev.next, c.next.prev = c.next, c.prev
	// Recycle the struct and its smallest history rings, so that a stream
	// of short connections does not allocate per connection.
	h0, h1 := c.h[0].hist, c.h[1].hist
	*c = conn{}
	if len(a.free) < 1024 {
		if len(h0) <= recycleHist && len(h1) <= recycleHist {
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
		a.charge(len(c.h[0].hist) + len(c.h[1].hist))
	} else {
		c = new(conn)
	}
	a.acct.Charge(int64(ConnOverhead))
	c.key, c.stamp = key, a.acct.Now()
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
	c.stamp = a.acct.Now()
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
