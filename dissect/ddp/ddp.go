// Package ddp dissects DDP (RFC 5041) segments and the RDMAP (RFC 5040,
// RFC 7306) messages they carry, as MPA hands them over: tagged and untagged
// headers, every opcode (atomics and immediate data included), Read
// Request/Response matching, Terminate with its terminated header decoded
// again, and Send reassembly by QN/MSN/MO with gap detection.
package ddp

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// Header lengths (RFC 5041 §4).
const (
	TaggedLen      = 14
	UntaggedLen    = 18
	ReadReqLen     = 28
	maxMessage     = 1 << 20  // Send bytes kept per message for upper layers (grown as segments arrive)
	maxOpenMessage = 1024     // Send messages in progress; beyond it the least recently active is dropped
	maxReads       = 4096     // Read Requests awaiting responses; beyond it the oldest is dropped
	maxQueues      = 4096     // queues whose last MSN is remembered; beyond it they are forgotten
	maxLearned     = 1 << 16  // request → response frames learned in the first pass
	msgCost        = 160      // budget estimate per message besides its data
	readCost       = 128      // per Read Request
	maxSpare       = 64       // messages and Read Requests kept for reuse, each
	spareData      = 16 << 10 // a spare message's data buffer kept up to this capacity
)

func init() {
	// MPA carries DDP alone: every ULPDU is a DDP segment.
	dissect.AddHeuristic(mpa.ULP.Name(), "iwarp_ddp_rdmap", func(d dissect.Dissector, f *dissect.Frame, u *mpa.ULPDU) bool {
		d.(*State).ULPDU(f, u)
		return true
	})
	dissect.RegisterDissector(&dissect.Registration{
		Name: "iwarp_ddp_rdmap",
		New: func(e *dissect.Engine) dissect.Dissector {
			d := New()
			d.register(e.Budget().Register("iwarp_ddp", d))
			return d
		},
	})
}

// Message is a completed untagged (Send-class) message.
type Message struct {
	Key    tcp.FlowKey
	Dir    tcp.Dir
	QN     uint32
	MSN    uint32
	Opcode uint8
	Data   []byte // valid during the hook call
	Frames []uint64
}

// UntaggedTable is the table of the protocols on Send messages (RPC-over-RDMA),
// keyed by queue number: every completed Send message is handed to it.
var UntaggedTable = dissect.NewDissectorTable[*Message]("iwarp_ddp.untagged", "iWARP DDP untagged queue number (completed Send messages)", 32)

// TaggedTable is the table of the protocols that read placed data (RPC-over-RDMA
// chunks), keyed by STag: every RDMA Write and Read Response segment is
// handed to it.
var TaggedTable = dissect.NewHexDissectorTable[*Placement]("iwarp_ddp.tagged", "iWARP DDP STag (RDMA Write and Read Response segments)", 32)

// Placement is one tagged DDP segment: data an RDMA Write or Read Response
// places at STag/TO in the receiver's memory (RFC 5041 §5.2). Segments are
// placed one by one, as DDP does: the hook sees every segment, in order of
// arrival, and the upper layer puts the pieces together by STag and TO.
type Placement struct {
	Key    tcp.FlowKey
	Dir    tcp.Dir // direction the data travels
	Opcode uint8   // OpWrite or OpReadResponse
	STag   uint32  // where the data goes (Read Response: the sink STag)
	TO     uint64
	Last   bool
	Data   []byte // valid during the hook call
	Frame  uint64 // the frame the segment completed in
	// Read Response matched with its Read Request (RFC 5040 §4.4): the
	// data was read from SrcSTag at SrcTO, the request's source TO advanced
	// by this segment's offset into the response. This is what an upper
	// layer that advertised the source buffer (an RPC-over-RDMA read
	// chunk) knows it by.
	Matched  bool
	ReqFrame uint64
	SrcSTag  uint32
	SrcTO    uint64
}

// Segment is one DDP segment: the PDU.
type Segment struct {
	b        []byte
	off      int
	idx      int
	respIn   uint64
	reqIn    uint64
	msgLen   int
	msgFrags int
}

// Proto implements dissect.PDU.
func (s *Segment) Proto() *dissect.ProtoInfo { return PDDP }

// Header accessors.
func Tagged(b []byte) bool  { return b[0]&0x80 != 0 }
func Last(b []byte) bool    { return b[0]&0x40 != 0 }
func DV(b []byte) uint8     { return b[0] & 3 }
func RV(b []byte) uint8     { return b[1] >> 6 }
func Opcode(b []byte) uint8 { return b[1] & 0x0f }
func STag(b []byte) uint32  { return binary.BigEndian.Uint32(b[2:]) }
func TO(b []byte) uint64    { return binary.BigEndian.Uint64(b[6:]) }
func QN(b []byte) uint32    { return binary.BigEndian.Uint32(b[6:]) }
func MSN(b []byte) uint32   { return binary.BigEndian.Uint32(b[10:]) }
func MO(b []byte) uint32    { return binary.BigEndian.Uint32(b[14:]) }
func HeaderLen(b []byte) int {
	if Tagged(b) {
		return TaggedLen
	}
	return UntaggedLen
}
func rsvdULP(b []byte) uint32  { return binary.BigEndian.Uint32(b[2:]) }
func isSend(op uint8) bool     { return op >= OpSend && op <= OpSendSEInv }
func wantTagged(op uint8) bool { return op == OpWrite || op == OpReadResponse }

// wantQN is the queue number RFC 5040 §5.1 gives the untagged messages
// that are not Sends (which use queue 0).
func wantQN(op uint8) (uint32, bool) {
	switch op {
	case OpReadRequest:
		return 1, true
	case OpTerminate:
		return 2, true
	case OpAtomicReq:
		return 3, true
	}
	return 0, false
}

// appendControl appends the two control octets: T (tagged), L (last) and
// DDP version 1, then RDMAP version 1 and the opcode.
func appendControl(dst []byte, tagged, last bool, op uint8) []byte {
	c := byte(0x01)
	if tagged {
		c |= 0x80
	}
	if last {
		c |= 0x40
	}
	return append(dst, c, 0x40|op)
}

// EncodeTagged appends a tagged segment header and payload.
func EncodeTagged(dst []byte, last bool, op uint8, stag uint32, to uint64, payload []byte) []byte {
	dst = appendControl(dst, true, last, op)
	dst = binary.BigEndian.AppendUint32(dst, stag)
	dst = binary.BigEndian.AppendUint64(dst, to)
	return append(dst, payload...)
}

// EncodeUntagged appends an untagged segment header and payload.
func EncodeUntagged(dst []byte, last bool, op uint8, rsvd, qn, msn, mo uint32, payload []byte) []byte {
	dst = appendControl(dst, false, last, op)
	dst = binary.BigEndian.AppendUint32(dst, rsvd)
	dst = binary.BigEndian.AppendUint32(dst, qn)
	dst = binary.BigEndian.AppendUint32(dst, msn)
	dst = binary.BigEndian.AppendUint32(dst, mo)
	return append(dst, payload...)
}

// EncodeReadRequest appends an RDMA Read Request message (RFC 5040 §4.4):
// data sink STag and TO, size, data source STag and TO.
func EncodeReadRequest(dst []byte, sink uint32, sinkTO uint64, size uint32, src uint32, srcTO uint64) []byte {
	dst = binary.BigEndian.AppendUint32(dst, sink)
	dst = binary.BigEndian.AppendUint64(dst, sinkTO)
	dst = binary.BigEndian.AppendUint32(dst, size)
	dst = binary.BigEndian.AppendUint32(dst, src)
	return binary.BigEndian.AppendUint64(dst, srcTO)
}

// Terminate layers and error types (RFC 5040 §4.8, RFC 6581 for the LLP
// codes 5-7), as the Terminate Control field carries them.
const (
	TermRDMA = 0 // layer
	TermDDP  = 1
	TermLLP  = 2

	TermRDMARemoteProt = 1 // RDMA error type: Remote Protection
	TermRDMARemoteOp   = 2 // Remote Operation
	TermDDPTagged      = 1 // DDP error type: Tagged Buffer
	TermDDPUntagged    = 2 // Untagged Buffer
	TermMPA            = 0 // LLP error type

	TermInvalidSTag = 0x00 // RDMA and DDP tagged codes
	TermBounds      = 0x01
	TermAccess      = 0x02 // RDMA only
	TermUnexpectOp  = 0x06 // RDMA Remote Operation: unexpected opcode
	TermInvalidQN   = 0x01 // DDP untagged codes
	TermNoBuffer    = 0x02
	TermInvalidMSN  = 0x03
	TermInvalidMO   = 0x04
	TermTooLong     = 0x05
	TermCRC         = 0x02 // LLP (MPA) codes
	TermMarker      = 0x03
	TermBadStartup  = 0x04
	TermNoIRD       = 0x06
	TermNoRTR       = 0x07

	HdrctM = 0x80 // Terminate hdrct: DDP Segment Length valid
	HdrctD = 0x40 // terminated DDP header included
	HdrctR = 0x20 // terminated RDMAP header included
)

// EncodeTerminate appends a Terminate message body (RFC 5040 §4.8): the
// control word (layer, error type, code, hdrct), then, when the terminated
// segment's DDP header ddpHdr is given, its DDP Segment Length segLen and
// the header (hdrct M and D), then the terminated RDMAP header rdmaHdr (a
// Read Request's 28 octets; hdrct R) when given.
func EncodeTerminate(dst []byte, layer, etype, code uint8, ddpHdr []byte, segLen int, rdmaHdr []byte) []byte {
	var hdrct uint8
	if len(ddpHdr) > 0 {
		hdrct = HdrctM | HdrctD
	}
	if len(rdmaHdr) > 0 {
		hdrct |= HdrctR
	}
	dst = append(dst, layer<<4|etype&15, code, hdrct, 0)
	if len(ddpHdr) > 0 {
		dst = binary.BigEndian.AppendUint16(dst, uint16(segLen))
		dst = append(dst, ddpHdr...)
	}
	return append(dst, rdmaHdr...)
}

// TermText names the error a Terminate's control word t (4 octets) reports.
func TermText(t []byte) string { return termText(t) }

type readKey struct {
	k    tcp.FlowKey
	dir  tcp.Dir // direction the responses travel
	stag uint32
}

// reqID names a Read Request: its frame and PDU index there.
type reqID struct {
	frame uint64
	pdu   int
}

type readReq struct {
	id     reqID // id.frame is the request's frame
	at     int64 // the request's time
	left   uint64
	to     uint64 // sink TO the next response segment should carry
	sinkTO uint64 // as requested
	src    uint32 // data source STag and TO
	srcTO  uint64

	key  readKey
	next *readReq             // the next request on the same key, issued later
	lru  budget.Elem[readReq] // charged readCost
}

type msgKey struct {
	k   tcp.FlowKey
	dir tcp.Dir
	qn  uint32
	msn uint32
}

type message struct {
	next   uint32
	data   []byte
	frames []uint64
	bad    bool

	key msgKey
	lru budget.Elem[message]
}

type qKey struct {
	k   tcp.FlowKey
	dir tcp.Dir
	qn  uint32
}

// State is one engine's DDP/RDMAP dissector.
type State struct {
	pool dissect.Pool[Segment]

	// Read Requests awaiting responses: per key the oldest, the rest
	// chained through next in the order they were issued. Responders
	// answer Read Requests in the order issued (RFC 5040 §5.5, Ordering and Completions), and perftest
	// issues many with one sink STag and TO, so a key can hold several.
	reads   map[readKey]*readReq
	nReads  int // requests in reads, at most maxReads
	msgs    map[msgKey]*message
	lastMSN map[qKey]uint32
	place   Placement
	// learned in pass 1: request (frame, PDU: one frame can carry several)
	// -> first response frame
	learned map[reqID]uint64
	msg     Message

	msgList  budget.LRU[message] // least recently active first
	readList budget.LRU[readReq] // oldest first
	acct     *budget.Account

	// Messages and Read Requests done with, reused by the next ones with
	// their buffers, so that a steady flow allocates nothing: at most
	// maxSpare each, holding at most maxSpare*spareData octets of data
	// beside the budget.
	spareMsgs  []*message
	spareReads []*readReq

	ops      [nOps]opStats // -z iwarp,stat (stats.go)
	readStat flows.Reads   // -z iwarp,srt
}

// newMessage is a message for k, a spare one when there is one.
func (d *State) newMessage(k msgKey) *message {
	n := len(d.spareMsgs)
	if n == 0 {
		return &message{key: k}
	}
	m := d.spareMsgs[n-1]
	d.spareMsgs = d.spareMsgs[:n-1]
	*m = message{key: k, data: m.data[:0], frames: m.frames[:0]}
	return m
}

// spareMsg keeps m, out of the table, for reuse.
func (d *State) spareMsg(m *message) {
	if len(d.spareMsgs) >= maxSpare {
		return
	}
	if cap(m.data) > spareData {
		m.data = nil
	}
	d.spareMsgs = append(d.spareMsgs, m)
}

// newRead is a Read Request to fill in, a spare one when there is one.
func (d *State) newRead() *readReq {
	n := len(d.spareReads)
	if n == 0 {
		return new(readReq)
	}
	r := d.spareReads[n-1]
	d.spareReads = d.spareReads[:n-1]
	return r
}

// spareRead keeps r, out of its queue, for reuse.
func (d *State) spareRead(r *readReq) {
	if len(d.spareReads) < maxSpare {
		d.spareReads = append(d.spareReads, r)
	}
}

// New creates the dissector.
func New() *State {
	d := &State{learned: map[reqID]uint64{}}
	d.reset()
	return d
}

// register charges both lists to a.
func (d *State) register(a *budget.Account) {
	d.acct = a
	d.msgList.Init(a)
	d.readList.Init(a)
}

func (d *State) reset() {
	d.msgList.Reset()
	d.readList.Reset()
	d.acct.Reset()
	if d.reads == nil {
		d.reads, d.msgs, d.lastMSN = map[readKey]*readReq{}, map[msgKey]*message{}, map[qKey]uint32{}
		return
	}
	clear(d.reads) // keep the maps: a rewind must not allocate
	d.nReads = 0
	clear(d.msgs)
	clear(d.lastMSN)
}

// unlinkMsg takes m out of the table and uncharges it.
func (d *State) unlinkMsg(m *message) {
	d.msgList.Remove(&m.lru)
	delete(d.msgs, m.key)
}

// removeRead takes r out of its key's queue and uncharges it.
func (d *State) removeRead(r *readReq) {
	d.readList.Remove(&r.lru)
	d.nReads--
	head := d.reads[r.key]
	switch {
	case head == r && r.next == nil:
		delete(d.reads, r.key)
	case head == r:
		d.reads[r.key] = r.next
	default:
		for p := head; p != nil; p = p.next {
			if p.next == r {
				p.next = r.next
				break
			}
		}
	}
	r.next = nil
}

// Oldest implements budget.Table: the least recently active Send message
// or the oldest Read Request.
func (d *State) Oldest() (uint64, bool) {
	ms, mok := d.msgList.Oldest()
	rs, rok := d.readList.Oldest()
	if mok && (!rok || ms <= rs) {
		return ms, true
	}
	return rs, rok
}

// DropOldest implements budget.Table.
func (d *State) DropOldest() string {
	ms, mok := d.msgList.Oldest()
	rs, rok := d.readList.Oldest()
	if mok && (!rok || ms <= rs) {
		m := d.msgList.Back()
		d.unlinkMsg(m)
		d.spareMsg(m) // reused at the next message, after this returns
		return "DDP Send message in progress (queue " + strconv.FormatUint(uint64(m.key.qn), 10) + ", MSN " +
			strconv.FormatUint(uint64(m.key.msn), 10) + ", " + strconv.Itoa(len(m.data)) + " octets)"
	}
	if rok {
		r := d.readList.Back()
		d.removeRead(r)
		d.spareRead(r)
		return "RDMAP Read Request of frame " + strconv.FormatUint(r.id.frame, 10) + " awaiting its response"
	}
	return "nothing"
}

// Rewind implements dissect.Rewinder.
func (d *State) Rewind() {
	d.reset()
	d.pool.Reset()
	d.ops, d.readStat = [nOps]opStats{}, flows.Reads{} // the second pass counts again
}

// Dissect is unused: DDP arrives through MPA.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {}

func (d *State) newSeg(f *dissect.Frame) *Segment {
	s, _ := d.pool.Get(f)
	*s = Segment{}
	return s
}

// ULPDU implements mpa.Upper.
func (d *State) ULPDU(f *dissect.Frame, u *mpa.ULPDU) {
	s := d.newSeg(f)
	s.b, s.off = u.Data, u.Off
	s.idx = f.AddPDU(s)
	b := u.Data
	add := func(sev dissect.Severity, g dissect.Group, fl *dissect.Field, msg string) {
		f.AddFinding(s.idx, sev, g, fl, "iwarp_ddp_rdmap", msg)
	}
	if len(b) < 2 || len(b) < HeaderLen(b) {
		add(dissect.Error, dissect.GroupMalformed, nil, "DDP segment of "+strconv.Itoa(len(b))+" octets is shorter than its header")
		return
	}
	if DV(b) != 1 {
		add(dissect.Warn, dissect.GroupProtocol, fDV, "DDP version "+strconv.Itoa(int(DV(b)))+" (RFC 5041 requires 1)")
	}
	if RV(b) != 1 {
		add(dissect.Warn, dissect.GroupProtocol, fRV, "RDMAP version "+strconv.Itoa(int(RV(b)))+" (RFC 5040 requires 1)")
	}
	if b[0]&0x3c != 0 || b[1]&0x30 != 0 {
		add(dissect.Note, dissect.GroupProtocol, fDDPRsvd, "reserved control bits not zero")
	}
	op := Opcode(b)
	if op > OpAtomicResp {
		add(dissect.Error, dissect.GroupProtocol, fOpcode, "reserved RDMAP opcode 0x"+strconv.FormatUint(uint64(op), 16))
		return
	}
	if wantTagged(op) != Tagged(b) {
		add(dissect.Error, dissect.GroupProtocol, fTFlag, opNames[uint64(op)]+" must use the "+map[bool]string{true: "tagged", false: "untagged"}[wantTagged(op)]+" buffer model")
		return
	}
	d.count(op, len(b)-HeaderLen(b), Last(b))
	if Tagged(b) {
		d.tagged(f, s, u, op, add)
		return
	}
	qn := QN(b)
	if w, ok := wantQN(op); ok && qn != w || isSend(op) && qn != 0 {
		add(dissect.Warn, dissect.GroupProtocol, fQN, "invalid QN "+strconv.FormatUint(uint64(qn), 10)+" for "+opNames[uint64(op)])
	}
	if (op == OpSend || op == OpSendSE || op == OpReadRequest || op == OpTerminate) && rsvdULP(b) != 0 {
		add(dissect.Note, dissect.GroupProtocol, fReserved, "RsvdULP not zero")
	}
	switch op {
	case OpReadRequest:
		if len(b) < UntaggedLen+ReadReqLen {
			add(dissect.Error, dissect.GroupMalformed, fRR, "Read Request shorter than 46 octets")
			return
		}
		if !Last(b) || MO(b) != 0 {
			add(dissect.Warn, dissect.GroupProtocol, fLFlag, "Read Request must be a single segment (L=1, MO=0)")
		}
		r := b[UntaggedLen:]
		sink := binary.BigEndian.Uint32(r)
		rk := readKey{u.Key, u.Dir ^ 1, sink}
		to := binary.BigEndian.Uint64(r[4:])
		if d.nReads >= maxReads {
			old := d.readList.Back()
			add(dissect.Warn, dissect.GroupResponse, nil, "more than "+strconv.Itoa(maxReads)+
				" Read Requests await responses: forgot the oldest, of frame "+strconv.FormatUint(old.id.frame, 10))
			d.removeRead(old)
			d.spareRead(old)
		}
		req := d.newRead()
		d.readStat.Requests++
		*req = readReq{id: reqID{f.Num, s.idx}, at: f.TimeNS, left: uint64(binary.BigEndian.Uint32(r[12:])), to: to, sinkTO: to,
			src: binary.BigEndian.Uint32(r[16:]), srcTO: binary.BigEndian.Uint64(r[20:]), key: rk}
		d.readList.Touch(&req.lru, req)
		d.readList.Charge(&req.lru, readCost)
		d.nReads++
		if p := d.reads[rk]; p == nil {
			d.reads[rk] = req
		} else {
			for p.next != nil {
				p = p.next
			}
			p.next = req
		}
		s.respIn = d.learned[reqID{f.Num, s.idx}]
	case OpTerminate:
		if len(b) < UntaggedLen+4 {
			add(dissect.Error, dissect.GroupMalformed, fTerm, "Terminate shorter than its control field")
		} else {
			add(dissect.Note, dissect.GroupProtocol, fTerm, "Terminate: "+termText(b[UntaggedLen:]))
		}
	}
	d.untagged(f, s, u, op, add)
}

func termText(t []byte) string {
	layer, et, code := uint64(t[0]>>4), uint64(t[0]&15), uint64(t[1])
	s := layerNames[layer]
	if s == "" {
		s = "layer " + strconv.FormatUint(layer, 10)
	}
	var m map[uint64]string
	switch layer {
	case 0:
		m = rdmaErr
	case 1:
		if et == 1 {
			m = ddpTagErr
		} else if et == 2 {
			m = ddpUntagErr
		}
	case 2:
		m = llpErr
	}
	if n, ok := m[code]; ok {
		return s + " error: " + n
	}
	return s + " error type " + strconv.FormatUint(et, 10) + " code 0x" + strconv.FormatUint(code, 16)
}

func (d *State) tagged(f *dissect.Frame, s *Segment, u *mpa.ULPDU, op uint8, add func(dissect.Severity, dissect.Group, *dissect.Field, string)) {
	b := s.b
	p := &d.place
	*p = Placement{Key: u.Key, Dir: u.Dir, Opcode: op, STag: STag(b), TO: TO(b), Last: Last(b), Data: b[TaggedLen:], Frame: f.Num}
	if op == OpReadResponse {
		d.readResponse(f, s, u, p, add)
	}
	TaggedTable.Call(f, uint64(p.STag), p)
}

// readResponse matches a Read Response segment with its Read Request and
// fills in the source of its data.
func (d *State) readResponse(f *dissect.Frame, s *Segment, u *mpa.ULPDU, p *Placement, add func(dissect.Severity, dissect.Group, *dissect.Field, string)) {
	b := s.b
	r := d.reads[readKey{u.Key, u.Dir, STag(b)}]
	if r == nil {
		add(dissect.Note, dissect.GroupResponse, fSTag, "Read Response without a Read Request in the capture")
		return
	}
	// The oldest request expecting this offset: requests are answered in
	// order, so a later one wins only when the earlier ones' responses
	// were not captured.
	for q := r; q != nil; q = q.next {
		if q.to == TO(b) {
			r = q
			break
		}
	}
	p.Matched, p.ReqFrame, p.SrcSTag, p.SrcTO = true, r.id.frame, r.src, r.srcTO+(TO(b)-r.sinkTO)
	s.reqIn = r.id.frame
	if _, ok := d.learned[r.id]; !ok {
		if len(d.learned) >= maxLearned {
			clear(d.learned) // only links requests to responses in the second pass
		}
		d.learned[r.id] = f.Num
	}
	if TO(b) != r.to {
		add(dissect.Warn, dissect.GroupResponse, fTO, "Read Response TO 0x"+strconv.FormatUint(TO(b), 16)+" does not continue the request (expected 0x"+strconv.FormatUint(r.to, 16)+")")
	}
	n := uint64(len(b) - TaggedLen)
	r.to += n
	if n > r.left {
		add(dissect.Warn, dissect.GroupResponse, nil, "Read Response carries more than the Read Request asked for")
		r.left = 0
	} else {
		r.left -= n
	}
	if Last(b) {
		if r.left != 0 {
			add(dissect.Warn, dissect.GroupResponse, nil, "last Read Response segment leaves "+strconv.FormatUint(r.left, 10)+" requested octets unsent")
		}
		d.readStat.Answered(r.to-r.sinkTO, f.TimeNS-r.at)
		d.removeRead(r)
		d.spareRead(r)
	}
}

// untagged tracks MSN/MO per queue and reassembles Send messages.
func (d *State) untagged(f *dissect.Frame, s *Segment, u *mpa.ULPDU, op uint8, add func(dissect.Severity, dissect.Group, *dissect.Field, string)) {
	b := s.b
	qn, msn, mo := QN(b), MSN(b), MO(b)
	qk := qKey{u.Key, u.Dir, qn}
	mk := msgKey{u.Key, u.Dir, qn, msn}
	m := d.msgs[mk]
	if m == nil {
		if last, ok := d.lastMSN[qk]; ok && msn != last+1 {
			add(dissect.Warn, dissect.GroupSequence, fMSN, "MSN "+strconv.FormatUint(uint64(msn), 10)+" on queue "+
				strconv.FormatUint(uint64(qn), 10)+" after "+strconv.FormatUint(uint64(last), 10)+" (messages missing or reordered)")
		}
		if len(d.lastMSN) >= maxQueues {
			clear(d.lastMSN) // MSN continuity is checked again from the next message of each queue
		}
		d.lastMSN[qk] = msn
		if len(d.msgs) >= maxOpenMessage {
			old := d.msgList.Back()
			add(dissect.Warn, dissect.GroupReassembly, nil, "more than "+strconv.Itoa(maxOpenMessage)+
				" DDP Send messages in progress: dropped the least recently active (MSN "+strconv.FormatUint(uint64(old.key.msn), 10)+
				", "+strconv.Itoa(len(old.data))+" octets)")
			d.unlinkMsg(old)
			d.spareMsg(old)
		}
		m = d.newMessage(mk)
		d.msgs[mk] = m
		d.msgList.Charge(&m.lru, msgCost)
	}
	d.msgList.Touch(&m.lru, m)
	if mo != m.next {
		add(dissect.Warn, dissect.GroupReassembly, fMO, "MO "+strconv.FormatUint(uint64(mo), 10)+" where "+
			strconv.FormatUint(uint64(m.next), 10)+" was expected (segment missing)")
		m.bad = true
	}
	pl := b[UntaggedLen:]
	m.next = mo + uint32(len(pl))
	if isSend(op) && len(m.data)+len(pl) <= maxMessage {
		m.data = append(m.data, pl...)
		d.msgList.Charge(&m.lru, m.lru.Charged()+int64(len(pl)))
	}
	if len(m.frames) < 64 {
		m.frames = append(m.frames, f.Num)
	}
	if !Last(b) {
		return
	}
	d.unlinkMsg(m)
	s.msgLen, s.msgFrags = int(m.next), len(m.frames)
	if isSend(op) && !m.bad {
		d.msg = Message{Key: u.Key, Dir: u.Dir, QN: qn, MSN: msn, Opcode: op, Data: m.data, Frames: m.frames}
		UntaggedTable.Call(f, uint64(qn), &d.msg)
		d.msg.Data, d.msg.Frames = nil, nil // m's, which the next message reuses
	}
	d.spareMsg(m)
}
