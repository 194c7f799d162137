package rpcrdma

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"slices"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/internal/smallmap"
	"github.com/rdx-project/rdx/reassembly/budget"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// Name is the registration name (and Wireshark's protocol abbreviation).
const Name = "rpcordma"

// Bounds on chunk state. Buffers grow as data arrives: a length a peer
// announces is never allocated before the data is there. All of it is
// charged to the engine's memory budget as "rpcordma".
const (
	maxPending  = 256      // calls waiting for read chunk data; beyond it the oldest is dropped
	maxStore    = 32 << 20 // RDMA WRITE data kept for write/reply chunks; beyond it the oldest is dropped
	maxExtents  = 4096     // RDMA WRITEs kept, and handles advertised; beyond it the oldest WRITE is dropped, or every handle forgotten
	maxChunk    = 16 << 20 // a call whose read chunks add up to more than this is not rebuilt
	maxSpans    = 64       // disjoint pieces a read segment may arrive in
	pendingCost = 704      // budget estimate per pending call (struct and its slot in pending's spill table: TestCosts), on top of its octets
	extentCost  = 96       // per RDMA WRITE kept, on top of its octets
)

func init() {
	dissect.RegisterDissector(&dissect.Registration{
		Name: Name,
		New: func(e *dissect.Engine) dissect.Dissector {
			d := &State{eng: e, advertised: map[advKey]bool{}}
			d.pending.SetHash(pendKey.hash)
			d.calls.prev, d.calls.next = &d.calls, &d.calls
			d.acct = e.Budget().Register(Name, d)
			return d
		},
	})
	// InfiniBand and RoCE: by heuristic, or forced on a QP by -d.
	dissect.AddHeuristic(ib.DestQP.Name(), Name, func(d dissect.Dissector, f *dissect.Frame, m *ib.Message) bool {
		if m.Piece {
			return d.(*State).readPiece(f, m.Msg)
		}
		return d.(*State).IBMessage(f, m.Packet, m.Msg)
	})
	dissect.AddHandler(ib.DestQP.Name(), Name, nil, func(d dissect.Dissector, f *dissect.Frame, m *ib.Message) bool {
		if m.Piece {
			d.(*State).readPiece(f, m.Msg)
			return true
		}
		d.(*State).IBMessageForced(f, m.Packet, m.Msg)
		return true
	})
	// iWARP: every Send message and every placed segment (chunks), whatever
	// the queue or STag; DDPSend checks the header itself.
	dissect.AddHeuristic(ddp.UntaggedTable.Name(), Name, func(d dissect.Dissector, f *dissect.Frame, m *ddp.Message) bool {
		return d.(*State).DDPSend(f, m)
	})
	dissect.AddHeuristic(ddp.TaggedTable.Name(), Name, func(d dissect.Dissector, f *dissect.Frame, p *ddp.Placement) bool {
		d.(*State).DDPPlacement(f, p)
		return true
	})
}

// State is the per-engine RPC-over-RDMA state.
type State struct {
	eng     *dissect.Engine
	rec     oncrpc.Record // the rpcordma.message context
	pool    dissect.Pool[Hdr]
	reas    dissect.Pool[Reasm]
	scope   dissect.FrameScope              // for retired
	pending smallmap.Map[pendKey, *pending] // by connection, responder's QP and read segment handle; a few at a time: no hashing
	last    *pending                        // the call last looked up, and its key: its READ's packets come in a run
	lastKey pendKey
	// calls by pendSlot of their key, looked up before pending: the READs
	// of many clients interleave, and last then misses every packet
	pendCache [1 << pendCacheBits]pendEntry
	// interleaved: a lookup missed last while it held another call (the
	// READs of calls interleave); until then pendCache is left unused, so
	// that one connection's calls, read one after another, never hash
	interleaved bool
	// the message being read goes from src to dst, to QP qp over
	// InfiniBand/RoCE (over iWARP, the addresses carry TCP ports and qp is 0)
	src, dst   netip.AddrPort
	qp         uint32
	advertised map[advKey]bool // handles of write/reply chunks offered by requesters
	extents    []extent        // RDMA WRITE data into advertised handles, oldest first
	stored     int
	calls      pending // sentinel of the pending calls, oldest first
	ncalls     int
	acct       *budget.Account
	// Calls whose read chunks are complete are kept until the frame is
	// done (their frame lists back the Reasm PDU), then reused: a read chunk
	// costs no allocation once the pool is warm.
	retired, free []*pending
	copied        int64     // read chunk octets copied into rebuilt messages (tests count copies with it)
	one           [1]uint64 // the frame of a single DDP segment
	oneSize       [1]int
	probe         Header // for brokenCounts
}

// conn names an RPC-over-RDMA connection the same way from both sides: its
// requester (which sends calls, and the RDMA READ responses that carry
// their read chunks) and its responder (which sends replies, and the RDMA
// WRITEs that fill write and reply chunks), with their TCP ports over
// iWARP (0 over InfiniBand/RoCE). A handle (R_Key or STag) means something
// only on its requester's adapter: two clients, or two connections, may
// offer the same one, so every table of handles is keyed by connection.
type conn struct{ req, resp netip.AddrPort }

// fromIB and fromTCP note where the message being read comes from and goes.
func (d *State) fromIB(m *ibasm.Message) {
	d.src, d.dst, d.qp = netip.AddrPortFrom(m.Src, 0), netip.AddrPortFrom(m.Dst, 0), m.QP
}

func (d *State) fromTCP(k tcp.FlowKey, dir tcp.Dir) { d.src, d.dst, d.qp = k.Src(dir), k.Dst(dir), 0 }

// byRequester and byResponder are the connection of the message being
// read, sent by the requester (a call, READ responses) or the responder (a
// reply, RDMA WRITEs).
func (d *State) byRequester() conn { return conn{d.src, d.dst} }
func (d *State) byResponder() conn { return conn{d.dst, d.src} }

// pendKey keys a call waiting for its read chunks. Over InfiniBand, the
// call and the READ responses both go to the responder's QP, which tells
// apart two QP pairs between the same hosts.
type pendKey struct {
	conn
	qp     uint32
	handle uint32
}

// hash is pending's hash of a key (smallmap.Map.SetHash): with many calls
// pending (64 clients) they spill by it, not into a Go map hashing the
// whole key; a few are compared without hashing.
func (k pendKey) hash() uint64 {
	return ibasm.KeyHash(k.req.Addr(), k.resp.Addr(), k.qp^k.handle*0x9e3779b1^uint32(k.req.Port())<<16^uint32(k.resp.Port()), false)
}

// advKey keys a handle a requester advertised for a write or reply chunk.
// No QP: the call names only the responder's, the RDMA WRITEs only the
// requester's (the WRITEs kept, extents, are told apart by the latter).
type advKey struct {
	conn
	handle uint32
}

// lookup finds the pending call of handle of the message being read (READ
// responses, from the requester).
func (d *State) lookup(handle uint32) *pending {
	// the call of the last lookup, compared field by field without
	// building the key: every packet of a READ asks again
	if l := &d.lastKey; d.last != nil && l.handle == handle && l.qp == d.qp && l.req == d.src && l.resp == d.dst {
		return d.last
	}
	if d.last != nil {
		d.interleaved = true
	}
	if !d.interleaved {
		k := pendKey{d.byRequester(), d.qp, handle}
		p, _ := d.pending.Get(k)
		if p != nil {
			d.last, d.lastKey = p, k
		}
		return p
	}
	c := &d.pendCache[pendSlot(d.src, d.dst, d.qp, handle)]
	if l := &c.k; c.p != nil && l.handle == handle && l.qp == d.qp && l.req == d.src && l.resp == d.dst {
		d.last, d.lastKey = c.p, c.k
		return c.p
	}
	k := pendKey{d.byRequester(), d.qp, handle}
	p, _ := d.pending.Get(k)
	if p != nil {
		d.last, d.lastKey = p, k
		c.k, c.p = k, p
	}
	return p
}

// pendCacheBits sizes the direct-mapped cache of pending calls in front of
// pending: 512 entries (40 KiB, fixed), enough for the READs of a few
// hundred clients in progress at once. pending stays the source of truth;
// an entry holds a call only while pending maps its key to it (unlinkCall
// and Rewind empty it).
const pendCacheBits = 9

type pendEntry struct {
	k pendKey
	p *pending
}

func pendSlot(req, resp netip.AddrPort, qp, handle uint32) uint32 {
	return uint32(ibasm.KeyHash(req.Addr(), resp.Addr(), qp^handle*0x9e3779b1, false) >> (64 - pendCacheBits))
}

type pending struct {
	conn   conn
	qp     uint32 // the responder's (0 over iWARP)
	xid    uint32
	inline []byte
	reads  []ReadSegment
	// The RPC message is rebuilt in msg: each read segment's data is
	// copied once, as it arrives, straight to its final place (base[i]
	// on), and the inline octets and XDR pads around the chunks are put
	// in when the call is complete. msg grows only as far as data has
	// arrived.
	base   []int
	size   int // length of the rebuilt message
	msg    []byte
	filled []int    // octets of each segment covered (a response placed twice counts once)
	spans  [][]span // the pieces of each segment covered, in order
	// staged: the pieces of each segment written into msg, which an
	// InfiniBand READ covers only once its message is complete (a READ
	// dropped half way covers nothing, as when it was stored whole)
	staged     [][]span
	frames     []uint64
	sizes      []int
	done       bool
	stamp      uint64
	charged    int64
	prev, next *pending // oldest first
}

// layout computes where each read segment's data goes in the rebuilt
// message: the inline octets with each chunk (plus its XDR pad) inserted
// at its position. With fill, it copies the inline octets and pads into
// p.msg, which must hold p.size octets.
func (p *pending) layout(fill bool) {
	at, in, inserted := 0, 0, 0
	put := func(b []byte) {
		if fill {
			copy(p.msg[at:], b)
		}
		at += len(b)
	}
	for i := 0; i < len(p.reads); {
		pos := int(p.reads[i].Position)
		cut := min(max(pos-inserted, in), len(p.inline))
		put(p.inline[in:cut])
		in = cut
		n := 0
		for ; i < len(p.reads) && int(p.reads[i].Position) == pos; i++ {
			p.base[i] = at + n
			n += int(p.reads[i].Length)
		}
		at += n
		if pos != 0 || in < len(p.inline) {
			for ; n%4 != 0; n++ {
				if fill {
					p.msg[at] = 0
				}
				at++
			}
		}
		inserted += n
	}
	put(p.inline[in:])
	p.size = at
}

// span is a piece [lo, hi) of a read segment that responses covered.
type span struct{ lo, hi int }

// cover adds [lo, hi) to spans and returns the spans and how many octets
// were not covered before; ok is false when the segment is in more than
// maxSpans pieces.
func cover(spans []span, lo, hi int) ([]span, int, bool) {
	// most often [lo, hi) starts in or right after the last span (the
	// responses of a READ come in order): it only extends that span
	if n := len(spans); n > 0 && spans[n-1].lo <= lo && lo <= spans[n-1].hi && lo <= hi {
		l := &spans[n-1]
		added := max(0, hi-l.hi)
		l.hi = max(l.hi, hi)
		return spans, added, true
	}
	i := 0
	for i < len(spans) && spans[i].hi < lo {
		i++
	}
	j := i
	added := hi - lo
	for j < len(spans) && spans[j].lo <= hi {
		// overlapping or adjacent: merge, not counting what it had
		added -= max(0, min(hi, spans[j].hi)-max(lo, spans[j].lo))
		lo, hi = min(lo, spans[j].lo), max(hi, spans[j].hi)
		j++
	}
	if i == j && len(spans) >= maxSpans {
		return spans, 0, false
	}
	if i == j {
		spans = append(spans, span{})
		copy(spans[i+1:], spans[i:])
	} else {
		spans = append(spans[:i+1], spans[j:]...)
	}
	spans[i] = span{lo, hi}
	return spans, added, true
}

// extent is an RDMA WRITE kept for the reply that will claim it: into
// handle of conn's requester, over InfiniBand to its QP qp, which the
// reply goes to as well.
type extent struct {
	conn   conn
	qp     uint32
	handle uint32
	va     uint64
	data   []byte
	frames []uint64
	stamp  uint64
	used   bool // claimed by the reply being gathered
}

// Dissect implements dissect.Dissector; RPC-over-RDMA arrives only through
// the InfiniBand dissector (IBMessage).
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {}

// Rewind implements dissect.Rewinder.
func (d *State) Rewind() {
	for d.calls.next != &d.calls {
		d.dropCall(d.calls.next)
	}
	d.pending.Clear()
	d.last = nil
	clear(d.pendCache[:])
	d.interleaved = false
	clear(d.advertised)
	d.extents, d.stored = d.extents[:0], 0
	d.pool.Reset()
	d.reas.Reset()
	d.scope.Reset()
	d.acct.Reset()
}

// Messages is the table of what RPC-over-RDMA carries: ONC RPC messages
// (oncrpc registers its heuristic by this table's name).
var Messages = dissect.NewDissectorTable[*oncrpc.Record]("rpcordma.message", "RPC-over-RDMA payload (RPC messages)", 0)

// rpcMessage hands an RPC message on, in d.rec so the call does not allocate.
func (d *State) rpcMessage(f *dissect.Frame, msg []byte, off int, ctx oncrpc.Context) {
	d.rec = oncrpc.Record{Data: msg, Off: off, Ctx: ctx}
	Messages.Call(f, 0, &d.rec)
}

// begin notes the frame: when it is a new one, the calls completed in the
// previous frame are free again.
func (d *State) begin(f *dissect.Frame) {
	if !d.scope.Enter(f) {
		return
	}
	for _, p := range d.retired {
		d.release(p)
	}
	clear(d.retired)
	d.retired = d.retired[:0]
}

func (d *State) newHdr(f *dissect.Frame) *Hdr {
	d.begin(f)
	h, _ := d.pool.Get(f)
	return h
}

// newReasm hands out the PDU of a message rebuilt from chunks.
func (d *State) newReasm(f *dissect.Frame) *Reasm {
	r, _ := d.reas.Get(f)
	return r
}

// IBMessage reads an assembled InfiniBand message (infiniband.destqp).
func (d *State) IBMessage(f *dissect.Frame, p *ib.Packet, m *ibasm.Message) bool {
	d.fromIB(m)
	switch m.Kind {
	case ibasm.KindSend:
		return d.send(f, p, m)
	case ibasm.KindWrite:
		if d.advertised[advKey{d.byResponder(), m.RKey}] && !m.Truncated() {
			d.store(f, m.RKey, m.VA, m.Data, m.Frames)
		}
	case ibasm.KindRead:
		if m.PlacedLen > 0 || len(m.Data) == 0 {
			return d.read(f, m.RKey, m.VA, nil, m.PlacedLen, m.Len, m.Frames, m.Sizes) // placed piece by piece
		}
		return d.read(f, m.RKey, m.VA, m.Data, len(m.Data), m.Len, m.Frames, m.Sizes)
	}
	return false
}

// DDPPlacement takes an iWARP tagged segment. RDMA Writes into a handle a
// requester advertised are kept for the write list or reply chunk that will
// announce them, as RDMA WRITEs are over InfiniBand (the STag is the
// segment's handle, the TO its offset). A Read Response fetches a read
// chunk: it is placed by the source STag/TO of its Read Request, which are
// the chunk's handle and offset (the sink STag only names the responder's
// own buffer).
func (d *State) DDPPlacement(f *dissect.Frame, p *ddp.Placement) bool {
	d.fromTCP(p.Key, p.Dir)
	switch p.Opcode {
	case ddp.OpWrite:
		if d.advertised[advKey{d.byResponder(), p.STag}] {
			d.one[0] = p.Frame
			d.store(f, p.STag, p.TO, p.Data, d.one[:])
		}
	case ddp.OpReadResponse:
		if p.Matched {
			d.one[0], d.oneSize[0] = p.Frame, len(p.Data)
			return d.read(f, p.SrcSTag, p.SrcTO, p.Data, len(p.Data), len(p.Data), d.one[:], d.oneSize[:])
		}
	}
	return false
}

// Heuristic reports whether b starts with an RPC-over-RDMA v1 header that
// verifies: version 1, a known procedure, lists that parse, and for RDMA_MSG
// an RPC call or reply after them.
func Heuristic(b []byte) bool {
	var h Header
	_, ok := heuristic(b, &h)
	return ok
}

// heuristic is Heuristic parsing into h, whose lists are reused (the
// dissector keeps one: a header with read chunks then costs no allocation).
// It returns the header's length too.
func heuristic(b []byte, h *Header) (int, bool) {
	n, err := Parse(b, h)
	if err != nil || n < 16 {
		return 0, false
	}
	switch h.Proc {
	case MSG, MSGP:
		return n, rpcShape(b[n:])
	case NOMSG:
		return n, len(h.Reads) > 0 || len(h.Writes) > 0 || h.HasReply
	}
	return n, true
}

// rpcShape: an RPC message header (call with version 2, or reply with a
// valid reply_stat).
func rpcShape(b []byte) bool {
	if len(b) < 12 {
		return false
	}
	switch binary.BigEndian.Uint32(b[4:]) {
	case oncrpc.Call:
		return binary.BigEndian.Uint32(b[8:]) == 2
	case oncrpc.Reply:
		return binary.BigEndian.Uint32(b[8:]) <= 1
	}
	return false
}

func (d *State) send(f *dissect.Frame, p *ib.Packet, m *ibasm.Message) bool {
	if m.Truncated() {
		return false
	}
	off := -1
	if len(m.Frames) == 1 {
		off = p.PayloadOffset()
	}
	return d.message(f, m.Data, off, m.Frames, false)
}

// IBMessageForced is the infiniband.destqp handler (-d infiniband.destqp==N,rpcordma):
// SENDs on that QP are RPC-over-RDMA whatever the heuristic says, and one
// that does not parse is reported as such; other messages go the usual way.
func (d *State) IBMessageForced(f *dissect.Frame, p *ib.Packet, m *ibasm.Message) {
	if m.Kind != ibasm.KindSend {
		d.IBMessage(f, p, m)
		return
	}
	d.fromIB(m)
	if m.Truncated() {
		f.AddFinding(-1, dissect.Warn, dissect.GroupUndecoded, nil, Name, "decode-as rpcordma: message truncated by the capture")
		return
	}
	off := -1
	if len(m.Frames) == 1 {
		off = p.PayloadOffset()
	}
	d.message(f, m.Data, off, m.Frames, true)
}

// DDPSend takes an iWARP Send message (RFC 8166 runs over any RDMA
// transport); its chunks come through DDPPlacement.
func (d *State) DDPSend(f *dissect.Frame, m *ddp.Message) bool {
	d.fromTCP(m.Key, m.Dir)
	return d.message(f, m.Data, -1, m.Frames, false)
}

// message decodes one RPC-over-RDMA message: data at offset off in the
// frame, or assembled from frames (off -1).
func (d *State) message(f *dissect.Frame, data []byte, off int, frames []uint64, forced bool) bool {
	n := 0
	h := d.newHdr(f)
	if !forced {
		// the heuristic parses into the pooled Hdr's own header, whose
		// lists are reused: swapping in a header parsed elsewhere copied
		// three of them (about 200 instructions a message)
		var ok bool
		if n, ok = heuristic(data, &h.hdr); !ok {
			d.pool.Unget()
			return d.brokenCounts(f, data)
		}
	}
	h.reset(d, data, off)
	if off < 0 {
		h.data = f.Keep(data) // assembled from several packets: not in this frame
	}
	var err error
	if forced {
		n, err = Parse(h.data, &h.hdr)
	}
	if err != nil {
		if forced {
			f.AddFinding(-1, dissect.Error, dissect.GroupMalformed, nil, Name, "decode-as rpcordma: not an RPC-over-RDMA v1 header: "+err.Error())
			return true
		}
		return false
	}
	h.n = n
	h.idx = f.AddPDU(h)
	hd := &h.hdr
	ok := true
	warn := func(sev dissect.Severity, g dissect.Group, fl *dissect.Field, msg string) {
		f.AddFinding(h.idx, sev, g, fl, "rpcordma", msg)
		ok = false
	}
	payload := h.data[n:]
	isReply := len(payload) >= 8 && binary.BigEndian.Uint32(payload[4:]) == oncrpc.Reply
	switch hd.Proc {
	case MSGP:
		warn(dissect.Warn, dissect.GroupProtocol, fProc, "RDMA_MSGP is RFC 5666 only: RFC 8166 senders must not send it")
	case DONE:
		warn(dissect.Warn, dissect.GroupProtocol, fProc, "RDMA_DONE is RFC 5666 only: RFC 8166 peers must not send it")
	case ERROR:
		msg := "RDMA_ERROR " + errNames[uint64(hd.ErrCode)]
		if hd.ErrCode == ErrVers {
			msg += ": peer supports versions " + strconv.Itoa(int(hd.Low)) + " to " + strconv.Itoa(int(hd.High))
		}
		warn(dissect.Warn, dissect.GroupProtocol, fErrCode, msg)
		isReply = true
	}
	if hd.Credit == 0 && (isReply || hd.Proc == NOMSG && hd.HasReply && len(hd.Reads) == 0 && isReplyNOMSG(hd)) {
		warn(dissect.Warn, dissect.GroupProtocol, fCredit, "credit grant of 0 in a reply: the requester can send nothing more")
	}
	for i, r := range hd.Reads {
		if r.Position%4 != 0 {
			warn(dissect.Error, dissect.GroupMalformed, fPosition, "read chunk position "+strconv.Itoa(int(r.Position))+" is not a multiple of 4")
			break
		}
		if hd.Proc == MSG && int(r.Position) > len(payload)+insertedBefore(hd, i) {
			warn(dissect.Error, dissect.GroupMalformed, fPosition, "read chunk position "+strconv.Itoa(int(r.Position))+
				" is beyond the "+strconv.Itoa(len(payload))+" octets of the RPC message")
			break
		}
	}
	if isReply && len(hd.Reads) > 0 {
		warn(dissect.Warn, dissect.GroupProtocol, fReads, "reply with a non-empty read list")
	}
	if (hd.Proc == MSG || hd.Proc == MSGP) && len(payload) >= 4 {
		if x := binary.BigEndian.Uint32(payload); x != hd.XID {
			warn(dissect.Error, dissect.GroupMalformed, fXID, "XID mismatch: header 0x"+hex32(hd.XID)+", RPC message 0x"+hex32(x))
		}
	}
	f.Checked(checkHeader, h.idx, ok)

	// remember chunks offered by the requester for data that comes by RDMA WRITE
	if !isReply {
		for _, w := range hd.Writes {
			for _, s := range w {
				d.advertise(f, h.idx, s.Handle)
			}
		}
		for _, s := range hd.Reply {
			d.advertise(f, h.idx, s.Handle)
		}
	}
	if !Messages.Has(f) {
		return true
	}
	switch {
	case hd.Proc == MSG && len(hd.Reads) > 0, hd.Proc == NOMSG && len(hd.Reads) > 0:
		// the call completes when its read chunks have been read
		d.expect(f, h, payload, frames)
	case hd.Proc == MSG && isReply && len(hd.Writes) > 0:
		ddp, frames, got := d.gather(f, hd.Writes)
		h.ddpFrames, h.ddpLen, h.hasDDP = frames, got, true
		want := 0
		for _, w := range hd.Writes {
			for _, s := range w {
				want += int(s.Length)
			}
		}
		if got != want {
			f.AddFinding(h.idx, dissect.Warn, dissect.GroupReassembly, fLength, "rpcordma", "write list announces "+
				strconv.Itoa(want)+" octets but RDMA WRITEs to its segments carried "+strconv.Itoa(got))
		}
		d.rpcMessage(f, payload, h.payOff(), oncrpc.Context{Transport: "rdma", DDP: ddp})
	case hd.Proc == MSG || hd.Proc == MSGP:
		d.rpcMessage(f, payload, h.payOff(), oncrpc.Context{Transport: "rdma"})
	case hd.Proc == NOMSG && hd.HasReply:
		// long reply: the RPC reply was written into the reply chunk
		ddp, frames, got := d.gather(f, [][]Segment{hd.Reply})
		if got == 0 {
			break
		}
		msg := ddp[0] // one chunk: gather put it in one piece of the frame's arena
		r := d.newReasm(f)
		*r = Reasm{frames: frames, sizes: r.sizes[:0], data: msg}
		for _, b := range ddp {
			r.sizes = append(r.sizes, len(b))
		}
		r.idx = f.AddPDU(r)
		d.rpcMessage(f, msg, -1, oncrpc.Context{Transport: "rdma", Frames: frames})
	}
	return true
}

// brokenCounts reports a message whose header is RPC-over-RDMA v1 (version
// 1, RDMA_MSG, RDMA_NOMSG or RDMA_MSGP, a read list that parses) but whose
// chunk lists count more segments than the header holds: a malformed
// finding, not silence. The rest is not decoded.
func (d *State) brokenCounts(f *dissect.Frame, data []byte) bool {
	if len(data) < MinHeader || binary.BigEndian.Uint32(data[4:]) != 1 || binary.BigEndian.Uint32(data[12:]) > MSGP {
		return false
	}
	_, err := Parse(data, &d.probe)
	if !errors.Is(err, ErrCount) {
		return false
	}
	f.AddFinding(-1, dissect.Error, dissect.GroupMalformed, fXID, Name, "RPC-over-RDMA header of XID 0x"+
		hex32(binary.BigEndian.Uint32(data))+": "+err.Error()+": not decoded")
	return true
}

// isReplyNOMSG: a NOMSG carrying only a reply chunk is a responder's long reply.
func isReplyNOMSG(h *Header) bool { return len(h.Writes) == 0 }

func insertedBefore(h *Header, i int) int {
	n := 0
	for j := 0; j < i; j++ {
		if h.Reads[j].Position != h.Reads[i].Position {
			n += int(h.Reads[j].Length)
		}
	}
	return n
}

// advertise notes handle h offered by the requester of the message being
// read (a call) for RDMA WRITEs.
func (d *State) advertise(f *dissect.Frame, idx int, h uint32) {
	k := advKey{d.byRequester(), h}
	if d.advertised[k] {
		return
	}
	if len(d.advertised) >= maxExtents {
		f.AddFinding(idx, dissect.Warn, dissect.GroupReassembly, nil, Name, "more than "+strconv.Itoa(maxExtents)+
			" handles offered for write and reply chunks: forgot them all (RDMA WRITEs into them are not kept)")
		clear(d.advertised)
	}
	d.advertised[k] = true
}

// store keeps RDMA WRITE data placed at handle/va for the reply that will
// announce it.
func (d *State) store(f *dissect.Frame, handle uint32, va uint64, data []byte, frames []uint64) {
	if len(data) > maxStore {
		return
	}
	dropped := 0
	for len(d.extents) > 0 && (d.stored+len(data) > maxStore || len(d.extents) >= maxExtents) {
		d.dropExtent()
		dropped++
	}
	if dropped > 0 {
		f.AddFinding(-1, dissect.Warn, dissect.GroupReassembly, nil, Name, "RDMA WRITE data not yet claimed by a reply over "+
			strconv.Itoa(maxStore>>20)+" MiB or "+strconv.Itoa(maxExtents)+" writes: dropped the "+strconv.Itoa(dropped)+" oldest")
	}
	d.extents = append(d.extents, extent{conn: d.byResponder(), qp: d.qp, handle: handle, va: va, data: append([]byte(nil), data...),
		frames: append([]uint64(nil), frames...), stamp: d.acct.Now()})
	d.stored += len(data)
	d.acct.Charge(int64(extentCost + len(data) + 8*len(frames)))
}

func (d *State) dropExtent() {
	e := &d.extents[0]
	d.stored -= len(e.data)
	d.acct.Charge(-int64(extentCost + len(e.data) + 8*len(e.frames)))
	d.extents[0] = extent{}
	d.extents = d.extents[1:]
}

// gather collects the data written into the segments of chunks, up to each
// segment's length, and the frames that carried it, from the RDMA WRITEs
// on the connection (and QP) of the reply being read. The data is copied
// into the frame's arena, sized by what was written, not by what the
// segments announce; the slices are valid until the frame is done.
func (d *State) gather(f *dissect.Frame, chunks [][]Segment) (ddp [][]byte, frames []uint64, total int) {
	size := 0
	c, qp := d.byResponder(), d.qp
	d.segments(c, qp, chunks, func(_ int, b []byte, _ []uint64) { size += len(b) })
	buf := f.Alloc(size)
	ddp = make([][]byte, 0, len(chunks)) // kept by the PDUs of this frame
	for i := range chunks {
		start := len(buf)
		d.segments(c, qp, chunks[i:i+1], func(_ int, b []byte, fr []uint64) {
			buf = append(buf, b...)
			frames = appendFrames(frames, fr)
		})
		ddp = append(ddp, buf[start:len(buf):len(buf)])
		total += len(buf) - start
	}
	// The reply claimed what it gathered: forget it, so the next replies
	// scan only what is still unclaimed.
	n := 0
	for i := range d.extents {
		e := &d.extents[i]
		if e.used {
			d.stored -= len(e.data)
			d.acct.Charge(-int64(extentCost + len(e.data) + 8*len(e.frames)))
			continue
		}
		d.extents[n] = *e
		n++
	}
	clear(d.extents[n:])
	d.extents = d.extents[:n]
	return ddp, frames, total
}

// segments calls fn with each piece of RDMA WRITE data that continues a
// segment of chunks, in order: the extents written on connection c (and
// to QP qp) into the segment's handle, from its offset on, one after the
// other.
func (d *State) segments(c conn, qp uint32, chunks [][]Segment, fn func(chunk int, b []byte, frames []uint64)) {
	for k, w := range chunks {
		for _, s := range w {
			at := uint64(0) // octets of the segment filled so far
			for i := range d.extents {
				e := &d.extents[i]
				if e.handle != s.Handle || e.va < s.Offset || e.va-s.Offset >= uint64(s.Length) || e.qp != qp || e.conn != c {
					continue
				}
				if e.va-s.Offset != at {
					continue // keep it simple: extents must follow each other (a copy written twice is skipped)
				}
				n := min(uint64(len(e.data)), uint64(s.Length)-at)
				fn(k, e.data[:n], e.frames)
				e.used = true
				at += n
			}
		}
	}
}

func appendFrames(dst, src []uint64) []uint64 {
	for _, n := range src {
		if len(dst) == 0 || dst[len(dst)-1] != n {
			dst = append(dst, n)
		}
	}
	return dst
}

// expect records a call whose read chunks are still to be read.
func (d *State) expect(f *dissect.Frame, h *Hdr, payload []byte, frames []uint64) {
	hd := &h.hdr
	total := 0
	for _, r := range hd.Reads {
		total += int(r.Length)
	}
	if total > maxChunk {
		return
	}
	if d.ncalls >= maxPending {
		old := d.calls.next
		f.AddFinding(h.idx, dissect.Warn, dissect.GroupReassembly, nil, Name, "more than "+strconv.Itoa(maxPending)+
			" calls wait for read chunks: dropped the oldest, XID 0x"+hex32(old.xid))
		d.dropCall(old)
	}
	var p *pending
	if n := len(d.free); n > 0 {
		p, d.free = d.free[n-1], d.free[:n-1]
	} else {
		p = new(pending)
	}
	p.xid, p.done, p.stamp, p.conn, p.qp = hd.XID, false, d.acct.Now(), d.byRequester(), d.qp
	p.inline = append(p.inline[:0], payload...)
	p.reads = append(p.reads[:0], hd.Reads...)
	p.frames = append(p.frames[:0], frames...)
	p.sizes = append(p.sizes[:0], len(payload))
	if cap(p.spans) < len(p.reads) {
		p.spans = make([][]span, len(p.reads))
		p.staged = make([][]span, len(p.reads))
	}
	p.spans, p.staged = p.spans[:len(p.reads)], p.staged[:len(p.reads)]
	p.filled = append(p.filled[:0], make([]int, len(p.reads))...) // no allocation: make is folded into append
	p.base = append(p.base[:0], make([]int, len(p.reads))...)
	p.layout(false)
	p.msg = p.msg[:0] // grows as responses place data (reused: no allocation once warm)
	for i, r := range p.reads {
		p.spans[i] = p.spans[i][:0]
		p.staged[i] = p.staged[i][:0]
		k := pendKey{p.conn, p.qp, r.Handle}
		if old, _ := d.pending.Get(k); old != nil && old != p {
			d.dropCall(old) // the handle was offered again: the old call will not be read
		}
		d.pending.Set(k, p)
	}
	p.charged = int64(pendingCost + len(p.inline))
	d.acct.Charge(p.charged)
	p.prev, p.next = d.calls.prev, &d.calls
	d.calls.prev.next = p
	d.calls.prev = p
	d.ncalls++
}

// unlinkCall takes p out of the pending calls and uncharges it.
func (d *State) unlinkCall(p *pending) {
	if d.last == p {
		d.last = nil
	}
	for _, r := range p.reads {
		if d.interleaved { // else nothing is cached
			if c := &d.pendCache[pendSlot(p.conn.req, p.conn.resp, p.qp, r.Handle)]; c.p == p {
				*c = pendEntry{}
			}
		}
		k := pendKey{p.conn, p.qp, r.Handle}
		if q, _ := d.pending.Get(k); q == p {
			d.pending.Delete(k)
		}
	}
	p.prev.next, p.next.prev = p.next, p.prev
	p.prev, p.next = nil, nil
	d.ncalls--
	d.acct.Charge(-p.charged)
	p.charged = 0
}

// dropCall forgets a call whose chunks will not be read.
func (d *State) dropCall(p *pending) {
	d.unlinkCall(p)
	d.release(p)
}

// keepCap is the most message buffer a reused call keeps: a large one goes
// to the garbage collector, so what the budget dropped is really released.
const keepCap = 256 << 10

// release puts p on the free list.
func (d *State) release(p *pending) {
	if cap(p.msg) > keepCap {
		p.msg = nil
	}
	d.free = append(d.free, p)
}

// Oldest implements budget.Table: the oldest pending call or kept RDMA WRITE.
func (d *State) Oldest() (uint64, bool) {
	c := d.calls.next
	switch {
	case c == &d.calls && len(d.extents) == 0:
		return 0, false
	case c == &d.calls:
		return d.extents[0].stamp, true
	case len(d.extents) == 0 || c.stamp <= d.extents[0].stamp:
		return c.stamp, true
	}
	return d.extents[0].stamp, true
}

// DropOldest implements budget.Table.
func (d *State) DropOldest() string {
	c := d.calls.next
	if c != &d.calls && (len(d.extents) == 0 || c.stamp <= d.extents[0].stamp) {
		n := c.charged
		d.dropCall(c)
		return "RPC-over-RDMA call XID 0x" + hex32(c.xid) + " waiting for its read chunks (" + strconv.FormatInt(n, 10) + " octets)"
	}
	if len(d.extents) > 0 {
		e := &d.extents[0]
		what := "RDMA WRITE of " + strconv.Itoa(len(e.data)) + " octets to handle 0x" + hex32(e.handle) + " not yet claimed by a reply"
		d.dropExtent()
		return what
	}
	return "nothing"
}

// segment finds the read segment that handle and va fall in, and the
// offset of va in it.
func (p *pending) segment(handle uint32, va uint64) (i, at int, ok bool) {
	for i, r := range p.reads {
		if r.Handle == handle && va >= r.Offset && va-r.Offset < uint64(r.Length) {
			return i, int(va - r.Offset), true
		}
	}
	return 0, 0, false
}

// place copies data, read from segment i at offset at (clipped to the
// segment), to its place in the rebuilt message: the one copy read chunk
// data costs. It notes the octets as written (staged) and reports false
// when the segment is in more than maxSpans pieces.
func (d *State) place(p *pending, i, at int, data []byte) bool {
	end := min(at+len(data), int(p.reads[i].Length))
	if end <= at {
		return true
	}
	staged, _, ok := cover(p.staged[i], at, end)
	if !ok {
		return false
	}
	p.staged[i] = staged
	lo, hi := p.base[i]+at, p.base[i]+end
	if grow := hi - len(p.msg); grow > 0 {
		// grows with what arrived; octets not yet written are never read
		// (the call completes only when every segment is covered)
		p.msg = slices.Grow(p.msg, grow)[:hi]
		p.charged += int64(grow)
		d.acct.Charge(int64(grow))
	}
	d.copied += int64(copy(p.msg[lo:hi], data))
	return true
}

// staged reports whether [lo, hi) of segment i was written.
func (p *pending) written(i, lo, hi int) bool {
	if hi <= lo {
		return true
	}
	for _, s := range p.staged[i] {
		if s.lo <= lo && hi <= s.hi {
			return true
		}
	}
	return false
}

// readPiece places one packet's payload of an RDMA READ response still in
// progress (ib.Message.Piece): it counts once the READ is complete (read).
func (d *State) readPiece(f *dissect.Frame, m *ibasm.Message) bool {
	d.fromIB(m)
	p := d.lookup(m.RKey)
	if p == nil || p.done {
		return false
	}
	i, at, ok := p.segment(m.RKey, m.VA)
	if !ok {
		return false
	}
	if !d.place(p, i, at+m.PieceOff, m.Piece) {
		d.tooManyPieces(f, p, i)
	}
	return true
}

func (d *State) tooManyPieces(f *dissect.Frame, p *pending, i int) {
	f.AddFinding(-1, dissect.Warn, dissect.GroupReassembly, fLength, "rpcordma", "read segment 0x"+hex32(p.reads[i].Handle)+
		" arrives in more than "+strconv.Itoa(maxSpans)+" pieces: not rebuilt")
	d.dropCall(p)
}

// read covers what was read from handle at va (an RDMA READ response, or
// an iWARP Read Response segment; n octets were read, placed of them are
// in the message) in the read chunk it fetches, and when the call is
// complete decodes it here. data, when not nil, holds the placed octets,
// which are placed first; otherwise they were placed piece by piece
// (readPiece).
func (d *State) read(f *dissect.Frame, handle uint32, va uint64, data []byte, placed, n int, frames []uint64, sizes []int) bool {
	p := d.lookup(handle)
	if p == nil || p.done {
		return false
	}
	i, at, ok := p.segment(handle, va)
	if !ok {
		return false
	}
	r := p.reads[i]
	if data != nil && !d.place(p, i, at, data) {
		d.tooManyPieces(f, p, i)
		return true
	}
	end := min(at+placed, int(r.Length))
	if !p.written(i, at, end) {
		return false // placed into a call that is gone (the handle was offered again)
	}
	spans, added, ok := cover(p.spans[i], at, end)
	if !ok {
		d.tooManyPieces(f, p, i)
		return true
	}
	p.spans[i] = spans
	p.filled[i] += added // a response placed again (a retransmission) counts once
	if n > int(r.Length)-at {
		f.AddFinding(-1, dissect.Warn, dissect.GroupReassembly, fLength, "rpcordma", "RDMA READ of "+strconv.Itoa(n)+
			" octets overruns read segment 0x"+hex32(r.Handle)+" ("+strconv.Itoa(int(r.Length))+" octets at offset "+strconv.Itoa(at)+")")
	}
	if len(p.frames) < ibasm.MaxFrames {
		p.frames = append(p.frames, frames...)
		p.sizes = append(p.sizes, sizes...)
	}
	for i, r := range p.reads {
		if p.filled[i] < int(r.Length) {
			return true
		}
	}
	p.done = true
	d.unlinkCall(p)
	d.begin(f)
	d.retired = append(d.retired, p)
	// The chunk data is in place: put the inline octets and pads around it.
	if grow := p.size - len(p.msg); grow > 0 {
		p.msg = slices.Grow(p.msg, grow)
	}
	p.msg = p.msg[:p.size]
	p.layout(true)
	msg := p.msg // the call stays retired until the frame is done
	r2 := d.newReasm(f)
	// sizes copied: the Reasm reuses its own storage, which must not be a
	// call's that goes back to the free list
	*r2 = Reasm{frames: p.frames, sizes: append(r2.sizes[:0], p.sizes...), data: msg}
	r2.idx = f.AddPDU(r2)
	if Messages.Has(f) {
		d.rpcMessage(f, msg, -1, oncrpc.Context{Transport: "rdma", Frames: p.frames})
	}
	return true
}

func hex32(v uint32) string { return strconv.FormatUint(uint64(v)|1<<32, 16)[1:] }
