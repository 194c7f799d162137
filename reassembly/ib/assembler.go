// Package ib assembles InfiniBand transport messages from packets: SEND and
// RDMA WRITE messages (First/Middle/Last or Only) per direction and QP, and
// RDMA READ responses matched with the READ Request whose PSN starts them.
// It knows nothing of how packets were captured; dissect/ib feeds it and
// hands the finished messages to upper layers (RPC-over-RDMA, RDS).
//
// Memory is bounded: at most MaxMessage octets are kept per message (the rest
// is counted, not stored), at most MaxFrames frame numbers are listed, and the
// tables of open messages and outstanding READ requests are capped.
package ib

import (
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/internal/smallmap"
	"github.com/rdx-project/rdx/reassembly/budget"
)

// Kind is what a message is.
type Kind uint8

const (
	KindSend  Kind = iota + 1 // SEND First..Last or Only (payload to the receive queue)
	KindWrite                 // RDMA WRITE: data placed at RKey/VA
	KindRead                  // RDMA READ response: data read from RKey/VA of the request
)

func (k Kind) String() string {
	switch k {
	case KindSend:
		return "SEND"
	case KindWrite:
		return "RDMA WRITE"
	case KindRead:
		return "RDMA READ"
	}
	return "unknown"
}

// Limits. Every table is also charged to the engine's memory budget
// (SetBudget), which may drop its least recently active entries sooner.
const (
	MaxMessage = 4 << 20 // octets stored per message; data grows as packets arrive, never pre-sized
	MaxFrames  = 4096    // frame numbers listed per message
	maxOpen    = 1024    // messages in progress; beyond it the least recently active is dropped
	maxReads   = 4096    // outstanding READ requests; beyond it the oldest is dropped
	maxStreams = 1 << 14 // PSN spaces (QP and direction) remembered; beyond it the least recently active is forgotten
	// maxHeld is how many packets ahead of the next PSN a stream holds
	// while it waits for the missing ones; maxHeldAll bounds them over all
	// streams. When a stream is full, the missing PSNs are taken as lost
	// by the capture and the held packets go on.
	maxHeld    = 512
	maxHeldAll = 8192
	psnMask    = 0xFFFFFF
	// window is how many PSNs behind the highest one taken a stream
	// remembers one by one, to tell a retransmission of a packet already
	// taken from a late first copy of one that never was. Go-back-N
	// resends at most what was in flight; a PSN further behind is taken
	// for a retransmission.
	window = 2048
	// Budget charges: a fixed estimate per entry (struct, map slot, list
	// links) on top of the octets of data held.
	streamCost = 448
	readCost   = 408 // a readReq and its slot in reads' spill table (smallmap.SpillCost; TestCosts)
	frameCost  = 16  // a frame number and a size per packet of an open message
	heldCost   = 160 // a held packet's header, on top of its payload
)

// Packet is what the assembler needs of one IB packet.
type Packet struct {
	Src, Dst netip.Addr // addresses of the sender and receiver (IP, GID or LID)
	Opcode   uint8      // BTH opcode
	DestQP   uint32
	PSN      uint32
	// RETH (WRITE First/Only, READ Request).
	HasRETH bool
	VA      uint64
	RKey    uint32
	DMALen  uint32
	// ImmDt or IETH.
	HasImm, HasInv bool
	Imm, InvRKey   uint32
	// AETH (Acknowledge): the receiver's word on what it has taken.
	HasAETH  bool
	Syndrome uint8
	// Payload is read, never kept: a message of this one packet has it as
	// its Data, so it must stay as it is until the next Add.
	Payload []byte
	Frame   uint64
	TimeNS  int64 // the frame's time: a READ's response time is counted from its request's
	// Hash is KeyHash(Src, Dst, DestQP, HashResp) when HasHash: a caller
	// that hashed the PSN space's key already (dissect/ib's PSN check, when
	// its recent slot missed) spares the assembler hashing it again.
	Hash              uint64
	HasHash, HashResp bool
}

// Message is one assembled message. The assembler reuses it and its Data
// (or lends it the payload of its one packet): it is valid until the next
// call to Add.
type Message struct {
	Kind     Kind
	Src, Dst netip.Addr // sender and receiver of the data
	QP       uint32     // destination QP of the data packets
	FirstPSN uint32
	LastPSN  uint32
	VA       uint64 // WRITE: RETH VA; READ: the request's VA
	RKey     uint32
	DMALen   uint32 // WRITE/READ: the length announced in the RETH
	HasImm   bool
	HasInv   bool
	Imm      uint32
	InvRKey  uint32
	Len      int      // octets carried (Data may be shorter when over MaxMessage)
	Data     []byte   // the first min(Len, MaxMessage) octets
	Frames   []uint64 // frames that carried it, in order (at most MaxFrames)
	Sizes    []int    // octets each of those frames carried
	ReqFrame uint64   // READ: frame of the request
	ReqTime  int64    // READ: time of the request's first copy (its Packet.TimeNS)
	// Reissued counts READ requests re-issued to fetch the rest after
	// responses were lost: the message is the whole transfer, from the
	// first request's VA, with the frames of every response taken.
	Reissued int
	// READ responses when the assembler places reads (PlaceReads): the
	// payload of the packet just taken, its offset in the message, and
	// how many octets were handed out so far (at most MaxMessage). Such a
	// message keeps no Data: the upper layer copies each piece once, to
	// where it belongs.
	Piece     []byte
	PieceOff  int
	PlacedLen int
}

// Truncated reports whether Data holds less than Len.
func (m *Message) Truncated() bool { return len(m.Data) < m.Len }

// Event says what Add made of a packet.
type Event uint8

const (
	None     Event = iota // not part of a message (ACK, atomic, unknown opcode)
	Partial               // stored in a message still open
	Complete              // finished a message (returned)
	Orphan                // Middle/Last with no matching First (capture started late, or lost)
	// Gap: PSN ahead of the next one. A request is held until the missing
	// PSNs come (then it is taken in order), the receiver says it has them,
	// or the sender's retransmission shows they were lost by the capture; a
	// READ response ahead of its open message is dropped (the requester
	// re-issues the READ).
	Gap
	Duplicate   // a retransmission of a packet already taken (go-back-N): never handed on twice
	Restarted   // a First arrived while another message was open: the old one was dropped
	Unmatched   // READ response with no recorded request
	ReadRequest // a READ request was recorded
)

// streamKey names one PSN space: the packets one side sends to a QP, either
// its requests (SEND, RDMA WRITE, READ requests) or its responses to the
// other side's READs, which carry the other side's PSNs.
type streamKey struct {
	src, dst netip.Addr
	qp       uint32
	resp     bool
}

// eq is k == *o, field by field: the compiler compares a struct holding
// two netip.Addrs by calling memequal, on every packet.
func (k *streamKey) eq(o *streamKey) bool {
	return k.qp == o.qp && k.resp == o.resp && k.src == o.src && k.dst == o.dst
}

// is reports whether k is the key of p's stream (resp: its responses).
func (k *streamKey) is(p *Packet, resp bool) bool {
	return k.qp == p.DestQP && k.resp == resp && k.src == p.Src && k.dst == p.Dst
}

type pairKey struct{ src, dst netip.Addr }

type readKey struct {
	src, dst netip.Addr // of the request
	psn      uint32
}

// hash is reads' hash of a key (smallmap.Map.SetHash): with many READs
// outstanding (64 clients) they spill by it, not into a Go map hashing the
// whole key; a few are compared without hashing.
func (k readKey) hash() uint64 { return KeyHash(k.src, k.dst, k.psn, false) }

type readReq struct {
	key         readKey
	va          uint64
	rkey, len   uint32
	frame       uint64
	at          int64 // the request's time
	responderQP uint32
	stamp       uint64
	prev, next  *readReq // oldest first
}

type open struct {
	msg     Message
	nextPSN uint32
	charged int64 // octets charged to the budget for it
	// lent: msg.Data is the payload of its one packet, not a copy (see
	// begin); own keeps the buffer Data is built in meanwhile.
	lent bool
	own  []byte
	// READ: the requests' stream, whose PSNs its responses use
	reqS   *stream
	reqKey streamKey
}

// held is a request packet ahead of the next PSN, kept (with a copy of its
// payload) until it can be taken in order.
type held struct {
	p   Packet
	buf []byte
}

// stream is the state of one PSN space: the message in progress, which
// PSNs were taken (a retransmitted packet is never taken twice), and for
// requests the packets held ahead of a gap.
type stream struct {
	key   streamKey
	msg   *open
	seen  bool
	hi    uint32              // highest PSN taken
	top   uint32              // highest PSN seen, taken or held
	taken [window / 64]uint64 // PSNs taken in (hi-window, hi], bit psn%window
	// readWin is how many PSNs after hi the next request may skip: a READ
	// request's responses use up to one PSN per 256 octets.
	readWin uint32
	held    []held // ahead of hi, in PSN order
	stamp   uint64 // budget stamp of the last packet
	// all streams, least recently active first; and those with a message
	// in progress, in the same order
	prev, next   *stream
	oprev, onext *stream
}

// dup reports whether psn was taken already: at or behind the highest PSN
// taken (modulo 2^24) and either marked, or too far behind to know.
func (s *stream) dup(psn uint32) bool {
	if !s.seen {
		return false
	}
	d := (psn - s.hi) & psnMask
	switch {
	case d == 0:
		return true
	case d < 1<<23:
		return false // ahead
	case psnMask+1-d >= window:
		return true
	}
	return s.taken[psn%window/64]&(1<<(psn%64)) != 0
}

// next reports whether a request at psn is the next one (allowing for
// the PSNs a READ request's responses use) or behind it, not yet taken.
func (s *stream) inOrder(psn uint32) bool {
	if !s.seen {
		return true
	}
	d := (psn - s.hi) & psnMask
	return d <= 1+s.readWin || d >= 1<<23
}

// sentBefore reports whether psn is not beyond the highest PSN seen: a
// packet ahead of the next PSN that the sender had sent already is a
// retransmission, and go-back-N senders go back to the PSN the receiver
// asks for, so the receiver has everything before it.
func (s *stream) sentBefore(psn uint32) bool { return (s.top-psn)&psnMask < 1<<23 }

func (s *stream) seeTop(psn uint32) {
	if !s.seen || (psn-s.top)&psnMask < 1<<23 {
		s.top = psn
	}
}

// take marks psn taken, moving the window when it is ahead.
func (s *stream) take(psn uint32) {
	if !s.seen {
		s.seen, s.hi, s.top = true, psn, psn
		clear(s.taken[:])
	} else if d := (psn - s.hi) & psnMask; d != 0 && d < 1<<23 {
		s.skip(psn)
	}
	s.seeTop(psn)
	s.taken[psn%window/64] |= 1 << (psn % 64)
}

// skip moves hi ahead to psn; the PSNs between are not taken.
func (s *stream) skip(psn uint32) {
	switch d := (psn - s.hi) & psnMask; {
	case d == 0:
		// none between (resync taking consecutive held packets), not
		// once round the 2^24 PSNs unmarking every one
	case d >= window:
		clear(s.taken[:])
	default:
		for q := (s.hi + 1) & psnMask; q != psn; q = (q + 1) & psnMask {
			s.taken[q%window/64] &^= 1 << (q % 64)
		}
	}
	s.hi = psn
	s.readWin = 0
}

// Eviction is what a table limit or the memory budget made the assembler
// drop: the engine reports it as a finding.
type Eviction struct {
	What   string // "message", "READ request", "PSN state"
	Kind   Kind
	Src    netip.Addr
	Dst    netip.Addr
	QP     uint32 // destination QP (READ request: the responder's)
	PSN    uint32
	Octets int // message octets lost
	Reason string
}

// String describes the eviction for a finding.
func (e *Eviction) String() string {
	b := make([]byte, 0, 128)
	if e.What == "message" {
		b = append(b, e.Kind.String()...)
		b = append(b, " message in progress"...)
	} else {
		b = append(b, e.What...)
	}
	b = append(b, " on QP 0x"...)
	b = strconv.AppendUint(b, uint64(e.QP), 16)
	b = append(b, ' ')
	b = e.Src.AppendTo(b)
	b = append(b, " → "...)
	b = e.Dst.AppendTo(b)
	b = append(b, " (PSN "...)
	b = strconv.AppendUint(b, uint64(e.PSN), 10)
	if e.Octets > 0 {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(e.Octets), 10)
		b = append(b, " octets"...)
	}
	b = append(b, ')')
	if e.Reason != "" {
		b = append(b, ": "...)
		b = append(b, e.Reason...)
	}
	return string(b)
}

// Assembler assembles messages for one engine. It is not safe for concurrent use.
type Assembler struct {
	taking   bool // takeHeld is taking a held packet (its payload is not the frame's)
	streams  map[streamKey]*stream
	lru      stream // sentinel of the list of all streams (lru.next is the least recently active)
	openList stream // sentinel of the list of streams with a message in progress
	nopen    int
	reads    smallmap.Map[readKey, *readReq] // a few outstanding at a time: no hashing (readKey.hash beyond Front)
	readList readReq                         // sentinel: oldest request first
	// cache holds streams by slotOf their key (two a slot, the most
	// recently cached first), in front of streams: with many clients
	// interleaved, the key is hashed cheaply and compared in place instead
	// of hashed by the map
	cache [1 << cacheBits][2]*stream
	// recent is by QP and direction alone: without hashing the addresses
	// it holds the few streams of one connection
	recent [8]*stream
	// stalled is, per address pair, the last stream that held packets: an
	// ACK from the receiver finds it there.
	stalled map[pairKey]*stream
	nheld   int
	free    []*open
	freeS   []*stream
	freeR   []*readReq
	bufs    [][]byte
	outs    []*open // messages completed by the last Add, recycled on the next
	nout    int     // how many of outs Next has returned
	// place: READ responses are handed out packet by packet (Placed), not
	// stored; placed is the message the last Add put a piece in.
	place  bool
	placed *open
	acct   *budget.Account
	// Dropped counts messages abandoned (gap, restart, table full, budget).
	Dropped int
	// Evictions counts entries dropped by a table limit; LastEviction
	// says what the last drop (limit or budget) was.
	Evictions    uint64
	LastEviction Eviction
	// ReadRequests counts READ requests of a PSN not outstanding: a
	// request sent again while its first copy awaits responses is not
	// counted again (nor one whose first copy the capture lost, but then
	// the copy is the first seen).
	ReadRequests uint64
}

// New makes an empty assembler.
func New() *Assembler {
	a := &Assembler{streams: map[streamKey]*stream{}, stalled: map[pairKey]*stream{}}
	a.reads.SetHash(readKey.hash)
	a.initLists()
	return a
}

func (a *Assembler) initLists() {
	a.lru.prev, a.lru.next = &a.lru, &a.lru
	a.openList.oprev, a.openList.onext = &a.openList, &a.openList
	a.readList.prev, a.readList.next = &a.readList, &a.readList
	a.nopen, a.nheld = 0, 0
	a.cache = [1 << cacheBits][2]*stream{}
	a.recent = [8]*stream{}
}

// PlaceReads makes the assembler hand out each READ response packet's
// payload as it is taken (Placed) instead of copying it into the
// message: an upper layer that places READ data somewhere of its own
// (RPC-over-RDMA read chunks, rebuilt into the RPC message) then copies it
// once, from the frame, rather than once here, once into its own buffer
// and once more. Completed READ messages have Len and PlacedLen but no Data.
func (a *Assembler) PlaceReads(on bool) { a.place = on }

// Placed returns the READ response message the last Add took a packet into
// when reads are placed (PlaceReads), with Piece and PieceOff set to the
// packet's payload and its offset in the message; nil otherwise. It is
// valid until the next Add (when the packet completed the message, it is
// also the message Add or Next returned).
func (a *Assembler) Placed() *Message {
	if a.placed == nil {
		return nil
	}
	return &a.placed.msg
}

// SetBudget charges the assembler's tables to b as "infiniband"; the
// budget may then drop the least recently active stream or READ request.
func (a *Assembler) SetBudget(b *budget.Budget) {
	if a.acct != nil {
		a.acct.Close()
	}
	a.acct = b.Register("infiniband", a)
}

// Reset forgets everything (a second pass starts afresh).
func (a *Assembler) Reset() {
	a.recycle()
	a.placed = nil
	for k, s := range a.streams {
		a.release(s)
		a.freeS = append(a.freeS, s)
		delete(a.streams, k)
	}
	a.reads.All(func(_ readKey, r *readReq) bool {
		a.freeR = append(a.freeR, r)
		return true
	})
	a.reads.Clear()
	clear(a.stalled)
	a.initLists()
	a.acct.Reset()
}

// release frees what s holds (its message and held packets) without
// uncharging: the caller does.
func (a *Assembler) release(s *stream) {
	if s.msg != nil {
		a.put(s.msg)
		s.msg = nil
	}
	for i := range s.held {
		a.bufs = append(a.bufs, s.held[i].buf[:0])
		s.held[i] = held{}
	}
	s.held = s.held[:0]
}

func (a *Assembler) get() *open {
	if n := len(a.free); n > 0 {
		o := a.free[n-1]
		a.free = a.free[:n-1]
		return o
	}
	return &open{}
}

// touch makes s the most recently active stream (O(1)).
func (a *Assembler) touch(s *stream) {
	s.stamp = a.acct.Now()
	if a.lru.prev == s {
		return
	}
	s.prev.next, s.next.prev = s.next, s.prev
	s.prev, s.next = a.lru.prev, &a.lru
	a.lru.prev.next = s
	a.lru.prev = s
	if s.msg != nil {
		s.oprev.onext, s.onext.oprev = s.onext, s.oprev
		s.oprev, s.onext = a.openList.oprev, &a.openList
		a.openList.oprev.onext = s
		a.openList.oprev = s
	}
}

// lookup finds or creates the stream of k; a new one may make room by
// forgetting the least recently active stream.
func (a *Assembler) lookup(p *Packet, resp bool) *stream {
	// The recent stream of the QP and direction, then the cached streams
	// of the key's hashed slot, compared field by field against p: a key
	// built only to be compared costs as much as the compare. A miss
	// (other keys in them) asks the map.
	rc := &a.recent[recentOf(p.DestQP, resp)]
	if s := *rc; s != nil && s.key.is(p, resp) {
		a.touch(s)
		return s
	}
	h := p.Hash
	if !p.HasHash || p.HashResp != resp {
		h = KeyHash(p.Src, p.Dst, p.DestQP, resp)
	}
	c := &a.cache[h>>(64-cacheBits)]
	if s := c[0]; s != nil && s.key.is(p, resp) {
		a.touch(s)
		*rc = s
		return s
	}
	if s := c[1]; s != nil && s.key.is(p, resp) {
		a.touch(s)
		*rc = s
		return s
	}
	k := &streamKey{src: p.Src, dst: p.Dst, qp: p.DestQP, resp: resp}
	s := a.streams[*k]
	if s == nil {
		if len(a.streams) >= maxStreams {
			a.dropStream(a.lru.next, "more than 16384 QP directions tracked")
		}
		if n := len(a.freeS); n > 0 {
			s, a.freeS = a.freeS[n-1], a.freeS[:n-1]
		} else {
			s = new(stream)
		}
		s.key, s.msg, s.seen, s.readWin = *k, nil, false, 0
		s.prev, s.next = a.lru.prev, &a.lru
		a.lru.prev.next = s
		a.lru.prev = s
		a.streams[*k] = s
		a.acct.Charge(streamCost)
		s.stamp = a.acct.Now()
	} else {
		a.touch(s)
	}
	c[0], c[1] = s, c[0]
	*rc = s
	return s
}

// find is a.streams[*k] without touching it: the request stream of a READ
// response is most often among the last streams used.
func (a *Assembler) find(k *streamKey) *stream {
	if s := a.recent[recentOf(k.qp, k.resp)]; s != nil && s.key.eq(k) {
		return s
	}
	c := &a.cache[slotOf(k.src, k.dst, k.qp, k.resp)]
	for _, s := range c {
		if s != nil && s.key.eq(k) {
			return s
		}
	}
	return a.streams[*k]
}

// evicted records a drop; only those of a table limit (with a reason)
// count in Evictions: the engine reports budget drops itself.
func (a *Assembler) evicted(e Eviction) {
	if e.Reason != "" {
		a.Evictions++
	}
	a.LastEviction = e
}

// dropStream forgets s, its message in progress and its held packets.
func (a *Assembler) dropStream(s *stream, reason string) {
	e := Eviction{What: "PSN state", Src: s.key.src, Dst: s.key.dst, QP: s.key.qp, PSN: s.hi, Reason: reason}
	if s.msg != nil {
		e.What, e.Kind, e.PSN, e.Octets = "message", s.msg.msg.Kind, s.msg.msg.FirstPSN, s.msg.msg.Len
		a.dropMessage(s)
		a.Dropped++
	}
	for i := range s.held {
		e.Octets += len(s.held[i].p.Payload)
	}
	a.dropHeld(s)
	a.evicted(e)
	s.prev.next, s.next.prev = s.next, s.prev
	s.prev, s.next = nil, nil
	delete(a.streams, s.key)
	c := &a.cache[slotOf(s.key.src, s.key.dst, s.key.qp, s.key.resp)]
	for i := range c {
		if c[i] == s {
			c[i] = nil
		}
	}
	if rc := &a.recent[recentOf(s.key.qp, s.key.resp)]; *rc == s {
		*rc = nil
	}
	a.freeS = append(a.freeS, s)
	a.acct.Charge(-streamCost)
}

// setOpen makes o the message in progress of s.
func (a *Assembler) setOpen(s *stream, o *open) {
	s.msg = o
	s.oprev, s.onext = a.openList.oprev, &a.openList
	a.openList.oprev.onext = s
	a.openList.oprev = s
	a.nopen++
}

// unlinkOpen takes s's message out of the open list and uncharges it; the
// caller recycles or returns it.
func (a *Assembler) unlinkOpen(s *stream) *open {
	o := s.msg
	s.oprev.onext, s.onext.oprev = s.onext, s.oprev
	s.oprev, s.onext, s.msg = nil, nil, nil
	a.nopen--
	a.acct.Charge(-o.charged)
	o.charged = 0
	return o
}

func (a *Assembler) dropMessage(s *stream) {
	a.put(a.unlinkOpen(s))
}

// keepCap is the most buffer a recycled message keeps: a large one goes to
// the garbage collector, so what the budget dropped is really released.
const keepCap = 256 << 10

// put recycles o.
func (a *Assembler) put(o *open) {
	if o.lent { // back to the own buffer: Data must never append into a packet
		o.msg.Data, o.own, o.lent = o.own, nil, false
	}
	if cap(o.msg.Data) > keepCap {
		o.msg.Data = nil
	}
	if cap(o.msg.Frames) > keepCap/8 {
		o.msg.Frames, o.msg.Sizes = nil, nil
	}
	a.free = append(a.free, o)
}

// start takes a message buffer for a First or Only packet.
func (a *Assembler) start(p *Packet, kind Kind) *open {
	o := a.get()
	m := &o.msg
	// field by field: the composite literal built the Message in a
	// temporary and copied it (about 130 instructions a message)
	m.Kind, m.Src, m.Dst, m.QP, m.FirstPSN, m.LastPSN = kind, p.Src, p.Dst, p.DestQP, p.PSN, p.PSN
	m.VA, m.RKey, m.DMALen, m.HasImm, m.HasInv, m.Imm, m.InvRKey = 0, 0, 0, false, false, 0, 0
	m.Len, m.Data, m.Frames, m.Sizes, m.ReqFrame, m.ReqTime, m.Reissued = 0, m.Data[:0], m.Frames[:0], m.Sizes[:0], 0, 0, 0
	m.Piece, m.PieceOff, m.PlacedLen = nil, 0, 0
	o.nextPSN, o.charged = p.PSN, 0
	return o
}

// add takes p into o: its payload is copied into the message, or for a
// READ response with reads placed, handed out as the message's Piece.
func (a *Assembler) add(o *open, p *Packet) {
	m := &o.msg
	if a.place && m.Kind == KindRead {
		room := max(0, MaxMessage-m.PlacedLen)
		m.Piece, m.PieceOff = p.Payload[:min(room, len(p.Payload))], m.PlacedLen
		m.PlacedLen += len(m.Piece)
		a.placed = o
	} else if o.lent { // Data is the payload already
	} else if room := MaxMessage - len(m.Data); room > 0 {
		m.Data = append(m.Data, p.Payload[:min(room, len(p.Payload))]...)
	}
	m.Len += len(p.Payload)
	if len(m.Frames) < MaxFrames {
		m.Frames = append(m.Frames, p.Frame)
		m.Sizes = append(m.Sizes, len(p.Payload))
	}
	m.LastPSN = p.PSN
	o.nextPSN = (p.PSN + 1) & psnMask
	if p.HasImm {
		m.HasImm, m.Imm = true, p.Imm
	}
	if p.HasInv {
		m.HasInv, m.InvRKey = true, p.InvRKey
	}
}

// grow adds p to s's open message, charging what it holds: the capacity
// of its buffers, which append grows ahead of their length.
func (a *Assembler) grow(s *stream, p *Packet) {
	o := s.msg
	a.add(o, p)
	c := int64(cap(o.msg.Data) + frameCost*cap(o.msg.Frames))
	a.acct.Charge(c - o.charged)
	o.charged = c
}

// done queues the completed message o for the caller.
func (a *Assembler) done(o *open) Event {
	a.outs = append(a.outs, o)
	return Complete
}

func (a *Assembler) recycle() {
	for i, o := range a.outs {
		a.put(o)
		a.outs[i] = nil
	}
	a.outs, a.nout = a.outs[:0], 0
}

// position of an opcode inside its message.
const (
	posFirst = iota + 1
	posMiddle
	posLast
	posOnly
)

// classify maps the opcode's low 5 bits to a kind and position (RC, UC, RD,
// UD and XRC share them); ok is false for packets outside messages.
func classify(op uint8) (kind Kind, pos int, ok bool) {
	c := &opClasses[op]
	return c.kind, int(c.pos), c.ok
}

// opClass is what classify, isAck and isReadRequest tell of an opcode,
// looked up per packet: the switch of classifyOp cost about 16
// instructions a call, and a packet takes two or three of them.
type opClass struct {
	kind             Kind
	pos              uint8
	ok, ack, readReq bool
}

var opClasses = func() (t [256]opClass) {
	for op := range t {
		k, pos, ok := classifyOp(uint8(op))
		t[op] = opClass{kind: k, pos: uint8(pos), ok: ok, ack: ackOp(uint8(op)), readReq: readRequestOp(uint8(op))}
	}
	return
}()

// classifyOp defines classify.
func classifyOp(op uint8) (kind Kind, pos int, ok bool) {
	if op>>5 == 4 || op>>5 > 5 { // CNP and reserved classes
		return 0, 0, false
	}
	switch op & 0x1F {
	case 0x00:
		return KindSend, posFirst, true
	case 0x01:
		return KindSend, posMiddle, true
	case 0x02, 0x03, 0x16:
		return KindSend, posLast, true
	case 0x04, 0x05, 0x17:
		return KindSend, posOnly, true
	case 0x06:
		return KindWrite, posFirst, true
	case 0x07:
		return KindWrite, posMiddle, true
	case 0x08, 0x09:
		return KindWrite, posLast, true
	case 0x0A, 0x0B:
		return KindWrite, posOnly, true
	case 0x0D:
		return KindRead, posFirst, true
	case 0x0E:
		return KindRead, posMiddle, true
	case 0x0F:
		return KindRead, posLast, true
	case 0x10:
		return KindRead, posOnly, true
	}
	return 0, 0, false
}

// Add feeds one packet. When messages complete, the first is returned with
// ev == Complete and Next returns the others (a packet that fills a gap
// completes the held packets behind it too); all are valid until the next
// Add. A packet whose PSN was taken already (a go-back-N retransmission)
// gives Duplicate and is never part of a second message; a READ request
// sent again is recorded again (the responder executes it again), but its
// responses are taken once.
func (a *Assembler) Add(p *Packet) (m *Message, ev Event) {
	a.recycle()
	a.placed = nil
	ev = a.addPacket(p)
	if len(a.outs) > 0 {
		a.nout = 1
		return &a.outs[0].msg, Complete
	}
	if ev == Complete { // cannot happen: done queues every completed message
		ev = Partial
	}
	return nil, ev
}

// Next returns the next message the last Add completed, or nil.
func (a *Assembler) Next() *Message {
	if a.nout >= len(a.outs) {
		return nil
	}
	a.nout++
	return &a.outs[a.nout-1].msg
}

func isReadRequest(op uint8, hasRETH bool) bool { return opClasses[op].readReq && hasRETH }

// readRequestOp and ackOp define isReadRequest and isAck (the opcodes,
// outside UD).
func readRequestOp(op uint8) bool { return op&0x1F == 0x0C && op>>5 != 3 }
func ackOp(op uint8) bool         { return op&0x1F == 0x11 && op>>5 != 3 }

func isAck(op uint8, hasAETH bool) bool { return opClasses[op].ack && hasAETH }

// Wants reports whether Add would do anything with a packet of opcode op
// (with an AETH, with a RETH): an Acknowledge matters only while a stream
// holds packets ahead of a gap, and a packet outside messages (atomics,
// CNP, reserved opcodes) never does. A caller may skip Add, and building
// its Packet, when it does not (a third of the packets of a RoCE
// connection are ACKs).
func (a *Assembler) Wants(op uint8, hasAETH, hasRETH bool) bool {
	c := &opClasses[op]
	if c.ack && hasAETH {
		return len(a.stalled) > 0
	}
	return c.ok || c.readReq && hasRETH
}

func (a *Assembler) addPacket(p *Packet) Event {
	if isAck(p.Opcode, p.HasAETH) {
		if len(a.stalled) > 0 {
			a.ack(p)
		}
		return None
	}
	readReq := isReadRequest(p.Opcode, p.HasRETH)
	kind, pos, ok := classify(p.Opcode)
	if !ok && !readReq {
		return None
	}
	s := a.lookup(p, kind == KindRead)
	if readReq {
		// Recorded even when sent again (the responder executes it
		// again) or ahead (the sender will send it again).
		a.recordRead(p)
	}
	if c := p.Opcode >> 5; c == 1 || c == 3 {
		// UC and UD: nothing is sent again, and a UD QP hears many
		// senders' PSNs: packets are taken as they come.
		return a.unreliable(s, p, kind, pos)
	}
	if s.dup(p.PSN) {
		if kind == KindRead && (pos == posFirst || pos == posOnly) {
			a.matchRead(p) // the request was sent again; its answer is not new
		}
		return Duplicate
	}
	if kind == KindRead {
		return a.response(s, p, pos)
	}
	if !s.inOrder(p.PSN) {
		if !s.sentBefore(p.PSN) {
			// The receiver discards what is ahead of the PSN it expects
			// and asks for the missing ones: hold it until they come.
			if a.hold(s, p) {
				return Gap
			}
			// full: the capture lost the missing ones; go on from the first held
			q := p.PSN
			if len(s.held) > 0 {
				q = s.held[0].p.PSN
			}
			a.resync(s, (q-1)&psnMask)
		} else {
			// A retransmission past the PSN we wait for: the receiver has
			// all before it, some of which the capture lost.
			a.resync(s, (p.PSN-1)&psnMask)
		}
		if s.dup(p.PSN) {
			return Duplicate
		}
	}
	ev := a.request(s, p, kind, pos, readReq)
	if len(s.held) > 0 {
		a.drain(s)
	}
	return ev
}

// request takes a SEND, RDMA WRITE or READ request packet in PSN order.
func (a *Assembler) request(s *stream, p *Packet, kind Kind, pos int, readReq bool) Event {
	s.take(p.PSN)
	if readReq {
		if p.DMALen > 256 {
			s.readWin = min((p.DMALen+255)/256-1, 1<<22)
		}
		return ReadRequest
	}
	s.readWin = 0
	o := s.msg
	switch pos {
	case posFirst, posOnly:
		return a.begin(s, p, kind, pos)
	default:
		if o == nil || o.msg.Kind != kind || p.PSN != o.nextPSN {
			if o != nil {
				a.dropMessage(s) // a piece of it is missing for good
				a.Dropped++
			}
			return Orphan
		}
		a.grow(s, p)
		if pos == posLast {
			return a.done(a.unlinkOpen(s))
		}
		return Partial
	}
}

// begin starts a message with a First or Only packet, dropping (and
// counting) one still in progress on s; an Only packet completes it.
func (a *Assembler) begin(s *stream, p *Packet, kind Kind, pos int) Event {
	ev := Partial
	if s.msg != nil {
		a.dropMessage(s)
		a.Dropped++
		ev = Restarted
	}
	o := a.start(p, kind)
	if p.HasRETH {
		o.msg.VA, o.msg.RKey, o.msg.DMALen = p.VA, p.RKey, p.DMALen
	}
	if pos == posOnly {
		if !a.taking && !(a.place && kind == KindRead) {
			// One packet (a SEND Only, nearly every RPC message): Data is
			// its payload, capped so that nothing appends into the frame,
			// not a copy. The frame outlives the message (valid until the
			// next Add); a held packet's buffer is reused sooner, so it is
			// copied. A placed READ (a UC/UD READ response opcode reaches
			// here) keeps no Data: add hands its payload out as a Piece.
			o.own, o.lent = o.msg.Data, true
			n := min(MaxMessage, len(p.Payload))
			o.msg.Data = p.Payload[:n:n]
		}
		a.add(o, p)
		return a.done(o)
	}
	a.open(s, o, p)
	return ev
}

// unreliable takes a UC or UD packet: a First starts a message, a Middle
// or Last must follow the one before (UC drops a message with a gap).
func (a *Assembler) unreliable(s *stream, p *Packet, kind Kind, pos int) Event {
	o := s.msg
	switch pos {
	case posFirst, posOnly:
		return a.begin(s, p, kind, pos)
	default:
		if o == nil || o.msg.Kind != kind {
			return Orphan
		}
		if p.PSN != o.nextPSN {
			a.dropMessage(s)
			a.Dropped++
			return Gap
		}
		a.grow(s, p)
		if pos == posLast {
			return a.done(a.unlinkOpen(s))
		}
		return Partial
	}
}

// open makes o, started by p, the message in progress of s.
func (a *Assembler) open(s *stream, o *open, p *Packet) {
	if a.nopen >= maxOpen {
		// bounded memory beats completeness
		old := a.openList.onext
		a.evicted(Eviction{What: "message", Kind: old.msg.msg.Kind, Src: old.key.src, Dst: old.key.dst, QP: old.key.qp,
			PSN: old.msg.msg.FirstPSN, Octets: old.msg.msg.Len, Reason: "more than 1024 messages in progress"})
		a.dropMessage(old)
		a.Dropped++
	}
	a.setOpen(s, o)
	a.grow(s, p)
}

// response takes a READ response packet. Responses are not held: a
// requester that misses one re-issues the READ for the rest.
func (a *Assembler) response(s *stream, p *Packet, pos int) Event {
	o := s.msg
	switch pos {
	case posFirst, posOnly:
		if o != nil {
			if d := (p.PSN - o.nextPSN) & psnMask; d != 0 && d < 1<<23 {
				// The requester discards what is ahead of the PSN it
				// expects and re-issues the READs from there.
				return Gap
			}
		}
		req, found := a.matchRead(p)
		if !found {
			return Unmatched
		}
		s.take(p.PSN)
		rk := streamKey{src: req.key.src, dst: req.key.dst, qp: req.responderQP}
		rs := a.find(&rk)
		consumed(rs, rk, p.PSN)
		if o != nil && o.continuedBy(p, req) {
			// The requester lost responses, discarded what followed,
			// and asked again for the rest (IBA 9.7.5.1.3): one transfer.
			o.msg.Reissued++
			o.reqS, o.reqKey = rs, rk
			a.grow(s, p)
			if pos == posOnly {
				return a.done(a.unlinkOpen(s))
			}
			return Partial
		}
		ev := Partial
		if o != nil {
			a.dropMessage(s)
			a.Dropped++
			ev = Restarted
		}
		o = a.start(p, KindRead)
		o.msg.VA, o.msg.RKey, o.msg.DMALen, o.msg.ReqFrame, o.msg.ReqTime = req.va, req.rkey, req.len, req.frame, req.at
		o.reqS, o.reqKey = rs, rk
		if pos == posOnly {
			a.add(o, p)
			return a.done(o)
		}
		a.open(s, o, p)
		return ev
	default:
		if o == nil || o.msg.Kind != KindRead {
			return Orphan
		}
		if p.PSN != o.nextPSN {
			if (p.PSN-o.nextPSN)&psnMask >= 1<<23 {
				return Duplicate
			}
			return Gap
		}
		s.take(p.PSN)
		consumed(o.reqS, o.reqKey, p.PSN)
		a.grow(s, p)
		if pos == posLast {
			return a.done(a.unlinkOpen(s))
		}
		return Partial
	}
}

// consumed notes that a READ response used psn of the requests' stream rs
// (when it is still the stream of key k): the next request comes after it,
// whatever the path MTU.
func consumed(rs *stream, k streamKey, psn uint32) {
	if rs == nil || !rs.key.eq(&k) || !rs.seen {
		return
	}
	if d := (psn - rs.hi) & psnMask; d < 1<<23 && d > rs.readWin {
		rs.readWin = d
	}
}

// hold keeps p, ahead of the next PSN, in PSN order; false when s or the
// assembler holds all it may.
func (a *Assembler) hold(s *stream, p *Packet) bool {
	s.seeTop(p.PSN)
	d := (p.PSN - s.hi) & psnMask
	i := len(s.held)
	for i > 0 {
		e := (s.held[i-1].p.PSN - s.hi) & psnMask
		if e == d {
			return true // a second copy of a held packet
		}
		if e < d {
			break
		}
		i--
	}
	if len(s.held) >= maxHeld || a.nheld >= maxHeldAll {
		return false
	}
	var buf []byte
	if n := len(a.bufs); n > 0 {
		buf, a.bufs = a.bufs[n-1], a.bufs[:n-1]
	}
	buf = append(buf[:0], p.Payload...)
	h := held{p: *p, buf: buf}
	h.p.Payload = buf
	s.held = append(s.held, held{})
	copy(s.held[i+1:], s.held[i:])
	s.held[i] = h
	a.nheld++
	a.acct.Charge(int64(heldCost + len(buf)))
	a.stalled[pairKey{p.Src, p.Dst}] = s
	return true
}

// unhold removes the first n held packets of s.
func (a *Assembler) unhold(s *stream, n int) {
	for i := 0; i < n; i++ {
		h := &s.held[i]
		a.acct.Charge(-int64(heldCost + len(h.buf)))
		if h.buf != nil {
			a.bufs = append(a.bufs, h.buf[:0])
		}
	}
	m := copy(s.held, s.held[n:])
	clear(s.held[m:])
	s.held = s.held[:m]
	a.nheld -= n
	if m == 0 {
		k := pairKey{s.key.src, s.key.dst}
		if a.stalled[k] == s {
			delete(a.stalled, k)
		}
	}
}

func (a *Assembler) dropHeld(s *stream) { a.unhold(s, len(s.held)) }

// drain takes the held packets that are now in order.
func (a *Assembler) drain(s *stream) {
	for len(s.held) > 0 {
		h := &s.held[0]
		if s.dup(h.p.PSN) {
			a.unhold(s, 1)
			continue
		}
		if !s.inOrder(h.p.PSN) {
			return
		}
		a.takeHeld(s)
	}
}

// takeHeld takes the first held packet.
func (a *Assembler) takeHeld(s *stream) {
	p := s.held[0].p // the payload stays valid: its buffer is reused only by the next hold
	kind, pos, _ := classify(p.Opcode)
	if s.msg != nil && !isReadRequest(p.Opcode, p.HasRETH) && s.msg.nextPSN != p.PSN {
		a.dropMessage(s) // its missing packets were lost by the capture
		a.Dropped++
	}
	// Keep the payload's buffer until the packet is taken (its octets are
	// copied into the message), then give it back.
	buf := s.held[0].buf
	s.held[0].buf = nil
	a.unhold(s, 1)
	a.acct.Charge(-int64(len(buf)))
	a.taking = true
	a.request(s, &p, kind, pos, isReadRequest(p.Opcode, p.HasRETH))
	a.taking = false
	a.bufs = append(a.bufs, buf[:0])
}

// resync moves s past a gap up to q that will not be filled: the receiver
// has every PSN through q, and the capture lost the missing ones. Held
// packets up to q are taken in order, then the rest in order after q.
// Every held packet is ahead of hi here, so skipping to just before one
// never moves hi back: a request that readWin lets past held packets is
// always followed by drain, which takes them (behind hi is in order), and
// resync runs only before anything is taken (addPacket, ack).
// TestHeldAheadOfHi checks it.
func (a *Assembler) resync(s *stream, q uint32) {
	for len(s.held) > 0 {
		h := &s.held[0]
		if s.dup(h.p.PSN) {
			a.unhold(s, 1)
			continue
		}
		if d := (q - h.p.PSN) & psnMask; d >= 1<<23 { // beyond q
			break
		}
		s.skip((h.p.PSN - 1) & psnMask)
		a.takeHeld(s)
	}
	if d := (q - s.hi) & psnMask; d != 0 && d < 1<<23 {
		s.skip(q)
		if s.msg != nil && (s.msg.nextPSN-q-1)&psnMask != 0 {
			a.dropMessage(s)
			a.Dropped++
		}
	}
	a.drain(s)
}

// ack reads an Acknowledge from the receiver of a stream that holds
// packets: an ACK says the receiver took every PSN through its PSN, a NAK
// for a PSN sequence error every PSN before it. What we wait for there was
// lost by the capture, not on the wire.
func (a *Assembler) ack(p *Packet) {
	s := a.stalled[pairKey{p.Dst, p.Src}]
	if s == nil || len(s.held) == 0 {
		return
	}
	q := p.PSN
	switch p.Syndrome >> 5 & 3 {
	case 0: // ACK
	case 3: // NAK
		if p.Syndrome&0x1F != 0 { // only a PSN sequence error says what was taken
			return
		}
		q = (q - 1) & psnMask
	default:
		return
	}
	// It must be one of this stream's PSNs: ahead of hi, not beyond what was sent.
	if d := (q - s.hi) & psnMask; d == 0 || d >= 1<<23 || !s.sentBefore(q) {
		return
	}
	a.resync(s, q)
}

// continuedBy reports whether a READ response First/Only answering req
// carries on the READ o, cut short by lost responses: the request was
// re-issued for the rest, from the next PSN, the next address and the same
// key.
func (o *open) continuedBy(p *Packet, req readReq) bool {
	m := &o.msg
	return m.Kind == KindRead && p.PSN == o.nextPSN && req.rkey == m.RKey && req.va == m.VA+uint64(m.Len)
}

func (a *Assembler) recordRead(p *Packet) {
	k := readKey{src: p.Src, dst: p.Dst, psn: p.PSN}
	r, _ := a.reads.Get(k)
	at := p.TimeNS
	if r != nil { // sent again: the latest copy counts, timed from the first
		a.unlinkRead(r)
		at = r.at
	} else {
		a.ReadRequests++
		if a.reads.Len() >= maxReads {
			// drop the oldest request: its response will show as unmatched
			old := a.readList.next
			a.evicted(Eviction{What: "READ request", Src: old.key.src, Dst: old.key.dst, QP: old.responderQP, PSN: old.key.psn,
				Reason: "more than 4096 READ requests outstanding"})
			a.removeRead(old)
		}
		if n := len(a.freeR); n > 0 {
			r, a.freeR = a.freeR[n-1], a.freeR[:n-1]
		} else {
			r = new(readReq)
		}
		a.reads.Set(k, r)
		a.acct.Charge(readCost)
	}
	*r = readReq{key: k, va: p.VA, rkey: p.RKey, len: p.DMALen, frame: p.Frame, at: at, responderQP: p.DestQP, stamp: a.acct.Now()}
	r.prev, r.next = a.readList.prev, &a.readList
	a.readList.prev.next = r
	a.readList.prev = r
}

func (a *Assembler) unlinkRead(r *readReq) {
	r.prev.next, r.next.prev = r.next, r.prev
	r.prev, r.next = nil, nil
}

func (a *Assembler) removeRead(r *readReq) {
	a.unlinkRead(r)
	a.reads.Delete(r.key)
	a.freeR = append(a.freeR, r)
	a.acct.Charge(-readCost)
}

// matchRead finds the request a READ response First/Only answers: same
// address pair reversed, and the response's PSN equal to the request's
// (responses reuse the request's PSN range, IBA 9.7.5.1.3).
func (a *Assembler) matchRead(p *Packet) (readReq, bool) {
	r, _ := a.reads.Get(readKey{src: p.Dst, dst: p.Src, psn: p.PSN})
	if r == nil {
		return readReq{}, false
	}
	v := *r
	a.removeRead(r)
	return v, true
}

// Open is the number of messages in progress and READ requests outstanding.
func (a *Assembler) Open() (messages, reads int) { return a.nopen, a.reads.Len() }

// Held is the number of packets held ahead of a gap.
func (a *Assembler) Held() int { return a.nheld }

// Oldest implements budget.Table: the least recently active stream or
// oldest READ request.
func (a *Assembler) Oldest() (uint64, bool) {
	s, r := a.lru.next, a.readList.next
	switch {
	case s == &a.lru && r == &a.readList:
		return 0, false
	case s == &a.lru:
		return r.stamp, true
	case r == &a.readList || s.stamp <= r.stamp:
		return s.stamp, true
	}
	return r.stamp, true
}

// DropOldest implements budget.Table.
func (a *Assembler) DropOldest() string {
	s, r := a.lru.next, a.readList.next
	switch {
	case s != &a.lru && (r == &a.readList || s.stamp <= r.stamp):
		a.dropStream(s, "")
	case r != &a.readList:
		a.evicted(Eviction{What: "READ request", Src: r.key.src, Dst: r.key.dst, QP: r.responderQP, PSN: r.key.psn})
		a.removeRead(r)
	default:
		return "nothing"
	}
	return "InfiniBand " + a.LastEviction.String()
}
