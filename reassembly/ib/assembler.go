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

import "net/netip"

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

// Limits.
const (
	MaxMessage = 4 << 20 // octets stored per message
	MaxFrames  = 4096    // frame numbers listed per message
	maxOpen    = 1024    // messages in progress
	maxReads   = 4096    // outstanding READ requests
	psnMask    = 0xFFFFFF
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
	Payload        []byte
	Frame          uint64
}

// Message is one assembled message. The assembler reuses it and its Data:
// it is valid until the next call to Add.
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
	// Reissued counts READ requests re-issued to fetch the rest after
	// responses were lost: the message is the whole transfer, from the
	// first request's VA, with the frames of every response taken.
	Reissued int
}

// Truncated reports whether Data holds less than Len.
func (m *Message) Truncated() bool { return len(m.Data) < m.Len }

// Event says what Add made of a packet.
type Event uint8

const (
	None        Event = iota // not part of a message (ACK, atomic, unknown opcode)
	Partial                  // stored in a message still open
	Complete                 // finished a message (returned)
	Orphan                   // Middle/Last with no matching First (capture started late, or lost)
	Gap                      // PSN ahead of the open message's next one: the packet is discarded, as the receiver does, and the message waits for the retransmission (or, for a READ, the re-issued request's responses)
	Duplicate                // PSN behind the open message's next one: a retransmission of a packet already taken
	Restarted                // a First arrived while another message was open: the old one was dropped
	Unmatched                // READ response with no recorded request
	ReadRequest              // a READ request was recorded
)

type qpKey struct {
	src, dst netip.Addr
	qp       uint32
}

type readKey struct {
	src, dst netip.Addr // of the request
	psn      uint32
}

type readReq struct {
	va          uint64
	rkey, len   uint32
	frame, seq  uint64
	responderQP uint32
}

type open struct {
	msg     Message
	nextPSN uint32
	seq     uint64
}

// Assembler assembles messages for one engine. It is not safe for concurrent use.
type Assembler struct {
	open  map[qpKey]*open
	reads map[readKey]readReq
	free  []*open
	out   *open // last completed message, recycled on the next Add
	seq   uint64
	// Dropped counts messages abandoned (gap, restart, table full).
	Dropped int
}

// New makes an empty assembler.
func New() *Assembler {
	return &Assembler{open: map[qpKey]*open{}, reads: map[readKey]readReq{}}
}

// Reset forgets everything (a second pass starts afresh).
func (a *Assembler) Reset() {
	for k, o := range a.open {
		a.free = append(a.free, o)
		delete(a.open, k)
	}
	clear(a.reads)
}

func (a *Assembler) get() *open {
	if n := len(a.free); n > 0 {
		o := a.free[n-1]
		a.free = a.free[:n-1]
		return o
	}
	return &open{}
}

// start takes a message buffer for a First or Only packet. The caller puts
// it in the open table only when more packets are to come: an Only packet
// (most SENDs) then costs no table insertion and deletion.
func (a *Assembler) start(p *Packet, kind Kind) *open {
	if len(a.open) >= maxOpen {
		// evict the oldest open message: bounded memory beats completeness
		var ok qpKey
		var oldest *open
		for key, o := range a.open {
			if oldest == nil || o.seq < oldest.seq {
				ok, oldest = key, o
			}
		}
		delete(a.open, ok)
		a.free = append(a.free, oldest)
		a.Dropped++
	}
	o := a.get()
	a.seq++
	m := &o.msg
	data, frames, sizes := m.Data[:0], m.Frames[:0], m.Sizes[:0]
	*m = Message{Kind: kind, Src: p.Src, Dst: p.Dst, QP: p.DestQP, FirstPSN: p.PSN, LastPSN: p.PSN,
		Data: data, Frames: frames, Sizes: sizes}
	o.seq = a.seq
	o.nextPSN = p.PSN
	return o
}

func (o *open) add(p *Packet) {
	m := &o.msg
	if room := MaxMessage - len(m.Data); room > 0 {
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

func (a *Assembler) finish(k qpKey, o *open) *Message {
	delete(a.open, k)
	return a.done(o)
}

// done returns the completed message o, kept until the next Add.
func (a *Assembler) done(o *open) *Message {
	if a.out != nil {
		a.free = append(a.free, a.out)
	}
	a.out = o
	return &o.msg
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

// Add feeds one packet. When it completes a message, the message is returned
// (valid until the next Add) with ev == Complete.
func (a *Assembler) Add(p *Packet) (m *Message, ev Event) {
	if a.out != nil {
		a.free = append(a.free, a.out)
		a.out = nil
	}
	if p.Opcode&0x1F == 0x0C && p.Opcode>>5 != 3 && p.HasRETH { // RDMA READ Request
		a.recordRead(p)
		return nil, ReadRequest
	}
	kind, pos, ok := classify(p.Opcode)
	if !ok {
		return nil, None
	}
	k := qpKey{src: p.Src, dst: p.Dst, qp: p.DestQP}
	var o *open
	if len(a.open) > 0 { // often empty between messages: skip hashing the key
		o = a.open[k]
	}
	switch pos {
	case posFirst, posOnly:
		var req readReq
		if kind == KindRead {
			var found bool
			if req, found = a.matchRead(p); !found {
				return nil, Unmatched
			}
			if o != nil && o.continuedBy(p, req) {
				// The requester lost responses, discarded what followed,
				// and asked again for the rest (IBA 9.7.5.1.3): one transfer.
				o.msg.Reissued++
				o.add(p)
				if pos == posOnly {
					return a.finish(k, o), Complete
				}
				return nil, Partial
			}
		}
		ev = Partial
		if o != nil {
			delete(a.open, k)
			a.free = append(a.free, o)
			a.Dropped++
			ev = Restarted
		}
		o = a.start(p, kind)
		if kind == KindRead {
			o.msg.VA, o.msg.RKey, o.msg.DMALen, o.msg.ReqFrame = req.va, req.rkey, req.len, req.frame
		} else if p.HasRETH {
			o.msg.VA, o.msg.RKey, o.msg.DMALen = p.VA, p.RKey, p.DMALen
		}
		o.add(p)
		if pos == posOnly {
			return a.done(o), Complete
		}
		a.open[k] = o
		return nil, ev
	default:
		if o == nil || o.msg.Kind != kind {
			return nil, Orphan
		}
		if p.PSN != o.nextPSN {
			// Receivers take packets strictly in PSN order (go-back-N):
			// one ahead is dropped until the missing ones come again,
			// one behind was taken already.
			if (p.PSN-o.nextPSN)&psnMask >= 1<<23 {
				return nil, Duplicate
			}
			return nil, Gap
		}
		o.add(p)
		if pos == posLast {
			return a.finish(k, o), Complete
		}
		return nil, Partial
	}
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
	if len(a.reads) >= maxReads {
		// drop the oldest request: its response will show as unmatched
		var ok readKey
		var oldest uint64 = ^uint64(0)
		for key, r := range a.reads {
			if r.seq < oldest {
				ok, oldest = key, r.seq
			}
		}
		delete(a.reads, ok)
	}
	a.seq++
	a.reads[readKey{src: p.Src, dst: p.Dst, psn: p.PSN}] = readReq{va: p.VA, rkey: p.RKey, len: p.DMALen,
		frame: p.Frame, seq: a.seq, responderQP: p.DestQP}
}

// matchRead finds the request a READ response First/Only answers: same
// address pair reversed, and the response's PSN equal to the request's
// (responses reuse the request's PSN range, IBA 9.7.5.1.3).
func (a *Assembler) matchRead(p *Packet) (readReq, bool) {
	k := readKey{src: p.Dst, dst: p.Src, psn: p.PSN}
	r, ok := a.reads[k]
	if ok {
		delete(a.reads, k)
	}
	return r, ok
}

// Open is the number of messages in progress and READ requests outstanding.
func (a *Assembler) Open() (messages, reads int) { return len(a.open), len(a.reads) }
