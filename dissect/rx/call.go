package rx

import (
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/reassembly/frag"
)

// A connection is (epoch, cid without channel bits), plus the two endpoints
// unless the epoch's high bit says any address is fine.
type connKey struct {
	epoch, cid     uint32
	client, server netip.AddrPort
}

// same is k == *o, without the copy and the generated comparison call:
// epoch and CID, which tell most connections apart, first.
func (k *connKey) same(o *connKey) bool {
	return k.epoch == o.epoch && k.cid == o.cid && k.client == o.client && k.server == o.server
}

// connCacheSize is the number of slots of State.connCache (a power of two),
// in sets of connWays: two connections whose keys hash alike share a set
// instead of pushing each other out of a single slot.
const (
	connCacheBits = 10
	connCacheSize = 1 << connCacheBits // 8 KiB of pointers
	connWays      = 2
)

// is reports whether k is the connection (epoch, cid) from client cl port
// cp to server sv port sp: k.same without building the key, as a packet
// whose connection is cached needs none.
func (k *connKey) is(epoch, cid uint32, cl netip.Addr, cp uint16, sv netip.Addr, sp uint16) bool {
	return k.epoch == epoch && k.cid == cid && k.client.Port() == cp && k.server.Port() == sp &&
		k.client.Addr() == cl && k.server.Addr() == sv
}

// connSet hashes what tells a connection apart in practice (epoch, CID,
// the client's port and the low octets of its address) to the first slot
// of a connCache set.
func connSet(k *connKey) int {
	return connHash(k.epoch, k.cid, low32(k.client.Addr()), k.client.Port())
}

// connHash is connSet of a key's parts, lo being low32 of the client's
// address.
func connHash(epoch, cid, lo uint32, cp uint16) int {
	h := epoch*0x9e3779b1 ^ cid*0x85ebca77 ^ (uint32(cp)|lo<<16)*0xc2b2ae3d
	h ^= lo * 0x27d4eb2f
	return int(h>>(32-connCacheBits)) &^ (connWays - 1)
}

// low32 is the low 32 bits of a (an IPv4 address whole; 0 for none).
// analyze has it inlined for IPv4: As16's last four octets were loaded
// back from the two 8-octet stores that built it on the stack, a failed
// store-to-load forward that stalled the load (the hottest instructions
// of analyze, perf annotate).
func low32(a netip.Addr) uint32 {
	if a.Is4() {
		b := a.As4()
		return binary.BigEndian.Uint32(b[:])
	}
	return low32of16(a)
}

func low32of16(a netip.Addr) uint32 {
	b := a.As16()
	return binary.BigEndian.Uint32(b[12:])
}

type sentRec struct {
	serial uint32
	frame  uint64
	time   int64
}

const sentRing = 128

type conn struct {
	id         uint64 // unique per connection seen, keys its calls
	service    uint16
	serviceSet bool
	sent       [2][sentRing]sentRec // by direction: 0 client->server, 1 server->client
	debugType  uint32
	maxCall    [4]uint32 // highest call number seen per channel
	// lastCall is the entry of the call last seen per channel, so that a
	// DATA packet costs no hash and probe of the table's map. An entry
	// dropped since is not Live, or was reused under another key.
	lastCall [4]*dissect.Entry[callKey, call]
}

// callKey is a call's connection (conn.id), channel and call number in one
// word: the call table's index then hashes and compares a word, which a new
// call costs on every insert.
type callKey uint64

// maxConnID is the largest conn.id, the 30 bits callKey has for it. Ids
// start over after that many connections, and all Rx state with them
// (State.conn): a call of an old connection must not be taken for one of a
// new connection with the same id.
const maxConnID = 1<<30 - 1

func makeCallKey(conn uint64, channel, call uint32) callKey {
	return callKey(conn<<34 | uint64(channel&3)<<32 | uint64(call))
}

// callHash is the call table's hash of a key: the key itself (the table
// mixes it with its seed).
func callHash(k callKey) uint64 { return uint64(k) }

func (k callKey) channel() uint32 { return uint32(k>>32) & 3 }
func (k callKey) call() uint32    { return uint32(k) }

// maxPending bounds the packets of a call direction held ahead of a missing
// one; past it the call's data is counted, not kept.
const maxPending = 256

// callPolicy assembles a call direction from its DATA packets: positions are
// seqs from 1, a resend of a seq already held is a duplicate whatever its
// bytes, and in-order data and data held out of order share MaxCallData.
var callPolicy = frag.Config{Start: 1, MaxPieces: maxPending, MaxBytes: MaxCallData, Dup: frag.DupPosition,
	MaxFrames: 64, MergeFrames: true}

// keepSmall is the largest buffer a dropped call keeps for its next user:
// small calls then reuse memory without allocating, and no dropped call
// holds uncharged megabytes.
const keepSmall = 4 << 10

// dirState is what a call keeps of one direction while it is in the table.
// Its reassembly state (dirWork) is taken from State's pool at the
// direction's first DATA packet and given back once the direction is
// delivered, when what later packets need of it fits here (compact): the
// calls kept after their reply then cost a few cache lines, not a
// kilobyte and a data buffer each.
type dirState struct {
	w       *dirWork // nil before the first DATA and once compacted
	total   int
	maxSeq  uint32
	lastSeq uint32
	done    bool
	// Once compacted (w nil, next != 0): seqs [1, next) were all received
	// and nothing beyond; nfr is the frames they came in; back[s%recentSeqs]
	// is end-frame+1 for seq s <= recentSeqs whose first frame the work's
	// recent still named (0: not named), end being the delivering frame.
	next uint32
	nfr  int32
	end  uint64
	back [recentSeqs]uint16
}

// dirWork is a direction's reassembly state, pooled (State.takeWork).
type dirWork struct {
	asm frag.Assembly // the DATA packets by seq (callPolicy)
	// recent remembers the first frame of the last seqs received, to name
	// the original of a retransmission; whether a seq is new is known from
	// the assembly alone.
	recent  [recentSeqs]seqFrame
	gen     uint32
	charged int    // octets charged to the budget for the work (workOverhead and the assembly's buffers)
	direct  []byte // the single packet's body when it needed no copy
	doff    int
}

func (w *dirWork) reset() {
	// field by field: a composite literal would copy a whole temporary (with
	// write barriers) on every new call
	w.asm.Reset(&callPolicy)
	w.doff, w.charged, w.direct = 0, 0, nil
	w.gen++ // invalidates recent without clearing it
}

// release lets go of a dropped call's data but small buffers.
func (w *dirWork) release() {
	w.asm.Release(keepSmall)
	w.direct = nil
}

// held is what the work occupies, for the budget.
func (w *dirWork) held() int { return workOverhead + w.asm.Bytes() }

// maxFreeWork bounds the work kept for reuse (uncharged, small buffers):
// as many as directions in progress at once in busy captures.
const maxFreeWork = 256

// takeWork gives a direction its reassembly state: the last given back
// first, still in cache.
func (d *State) takeWork() *dirWork {
	var w *dirWork
	if n := len(d.workFree); n > 0 {
		w, d.workFree = d.workFree[n-1], d.workFree[:n-1]
	} else {
		w = new(dirWork)
	}
	w.reset()
	return w
}

// putWork keeps w for reuse; it is released (small buffers only).
func (d *State) putWork(w *dirWork) {
	if len(d.workFree) < maxFreeWork {
		d.workFree = append(d.workFree, w)
	}
}

// releaseWork makes the work given back since the last call reusable: its
// data may back the previous frame's PDUs until then.
func (d *State) releaseWork() {
	for _, w := range d.workLimbo {
		w.release()
		d.putWork(w)
	}
	clear(d.workLimbo)
	d.workLimbo = d.workLimbo[:0]
}

// compact gives back a delivered direction's work when what later packets
// need of it fits in ds: nothing held beyond its end (so a seq is seen
// exactly when it is below next), at most recentSeqs seqs, and their
// frames within 65,534 of the delivering one. Otherwise the work stays
// (ds.back, written on the way, is read only once compacted).
func (d *State) compact(e *dissect.Entry[callKey, call], ds *dirState, end uint64) {
	w := ds.w
	next := w.asm.Next()
	if w.asm.Waiting() != 0 || next > recentSeqs+1 {
		return
	}
	for s, gen := uint32(1), w.gen; s < uint32(next); s++ {
		r, b := &w.recent[s%recentSeqs], uint16(0)
		if r.seq == s && r.gen == gen && r.frame != 0 {
			back := end - r.frame // wraps past the limit when r.frame > end
			if back >= 1<<16-1 {
				return
			}
			b = uint16(back + 1)
		}
		ds.back[s%recentSeqs] = b
	}
	ds.next, ds.nfr, ds.end = uint32(next), int32(w.asm.NFrames()), end
	d.calls.Charge(e, int64(-w.charged))
	ds.w = nil
	d.workLimbo = append(d.workLimbo, w)
}

// seen reports whether seq s was received before, and the frame it first
// came in when still remembered (0 when not).
func (ds *dirState) seen(s uint32) (bool, uint64) {
	w := ds.w
	if w == nil { // compacted, or no data yet (next 0)
		if s >= ds.next {
			return false, 0
		}
		if b := ds.back[s%recentSeqs]; b != 0 { // s <= recentSeqs: next is at most recentSeqs+1
			return true, ds.end - uint64(b) + 1
		}
		return true, 0
	}
	// a seq at Next is new (the commonest case, answered without Seen): the
	// prefix ends before it, and a packet held there would have been merged
	if int64(s) == w.asm.Next() || !w.asm.Seen(int64(s)) {
		return false, 0
	}
	if r := &w.recent[s%recentSeqs]; r.seq == s && r.gen == w.gen && r.frame != 0 {
		return true, r.frame
	}
	return true, 0
}

// nframes is the number of frames the direction's data came in.
func (ds *dirState) nframes() int {
	if ds.w != nil {
		return ds.w.asm.NFrames()
	}
	return int(ds.nfr)
}

// resetDir starts the direction of a new call; work left by the entry's last
// user goes back to the pool.
func (d *State) resetDir(ds *dirState) {
	if ds.w != nil {
		d.putWork(ds.w)
	}
	ds.w, ds.total, ds.maxSeq, ds.lastSeq, ds.done = nil, 0, 0, 0, false
	ds.next, ds.nfr = 0, 0
}

type call struct {
	dir        [2]dirState
	opcode     uint32
	hasOp      bool
	req        flows.Request // the request, once complete (reqSeen); a reply or abort is matched to it
	reqSeen    bool
	serverPort uint16
	clientPort uint16
	// lost: the call's earlier state was dropped (table limit or memory
	// budget), so its data is counted but neither kept nor delivered
	lost       bool
	epoch, cid uint32 // for naming the call when it is dropped
}

// initTables empties the call and connection tables.
func (d *State) initTables() {
	d.calls.Init(maxCalls, callOverhead, droppedCall)
	d.calls.Presize()      // calls stay after their reply: the table fills in long captures
	d.calls.Hash(callHash) // a new call per insert and a drop per insert: no Go map churn
	d.conns.Init(maxConns, connOverhead, droppedConn)
}

func droppedCall(k callKey, c *call) string {
	b := make([]byte, 0, 96)
	b = append(b, "Rx call "...)
	b = strconv.AppendUint(b, uint64(k.call()), 10)
	b = append(b, " of connection epoch 0x"...)
	b = strconv.AppendUint(b, uint64(c.epoch), 16)
	b = append(b, " cid 0x"...)
	b = strconv.AppendUint(b, uint64(c.cid), 16)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(c.dir[0].nframes()+c.dir[1].nframes()), 10)
	b = append(b, " packets)"...)
	return string(b)
}

// Release implements dissect.Releaser: a dropped call lets go of its data.
// Its work stays with it, for State.call to give back when the entry is
// reused.
func (c *call) Release() {
	for i := range c.dir {
		if w := c.dir[i].w; w != nil {
			w.release()
		}
	}
}

// incomplete reports whether the call had data not yet delivered.
func (c *call) incomplete() bool {
	for i := range c.dir {
		if ds := &c.dir[i]; ds.maxSeq != 0 && !ds.done {
			return true
		}
	}
	return false
}

func droppedConn(k connKey, c *conn) string {
	b := make([]byte, 0, 96)
	b = append(b, "Rx connection epoch 0x"...)
	b = strconv.AppendUint(b, uint64(k.epoch), 16)
	b = append(b, " cid 0x"...)
	b = strconv.AppendUint(b, uint64(k.cid), 16)
	if k.client.IsValid() {
		b = append(b, ' ')
		b = k.client.AppendTo(b)
		b = append(b, " -> "...)
		b = k.server.AppendTo(b)
	}
	return string(b)
}

// analyze runs the cross-packet analysis for one (sub-)packet: connection and
// call state, RTT, retransmissions, gaps, reassembly and the service hand-off.
func (d *State) analyze(f *dissect.Frame, p *Packet) {
	h := p.header()
	typ := h.Type()
	if typ == 0 || typ > TypeVersion {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupProtocol, fType, "rx", "unknown packet type "+strconv.Itoa(int(typ)))
		return
	}
	if f.InError() {
		return // quoted in an ICMP error: the header is shown, the call state learns nothing
	}
	fromClient := h.Flags()&FlagClientInitiated != 0
	dir := 1
	if fromClient {
		dir = 0
	}
	// the connection's endpoints, none when its epoch says any address is
	// fine (the key then holds zero AddrPorts)
	epoch, cid := h.Epoch(), h.CID()&^3
	var cl, sv netip.Addr
	var cp, sp uint16
	// the epoch's high bit is AnyAddress, tested on the word already
	// loaded: reading its octet again splits the epoch's load in four
	switch {
	case epoch&(1<<31) != 0:
	case fromClient:
		cl, sv, cp, sp = f.Net.Src, f.Net.Dst, f.Net.SrcPort, f.Net.DstPort
	default:
		cl, sv, cp, sp = f.Net.Dst, f.Net.Src, f.Net.DstPort, f.Net.SrcPort
	}
	// A few connections carry most packets, interleaved: a two-way
	// cache in front of the map saves building and hashing the 72-octet
	// key. A cached entry dropped since is not Live, or was reused under
	// another key.
	var lo uint32 // low32(cl), inlined
	if cl.Is4() {
		b := cl.As4()
		lo = binary.BigEndian.Uint32(b[:])
	} else {
		lo = low32of16(cl)
	}
	set := (*[connWays]*dissect.Entry[connKey, conn])(d.connCache[connHash(epoch, cid, lo, cp):])
	ce := set[0]
	if ce == nil || !ce.Live() || !ce.KeyRef().is(epoch, cid, cl, cp, sv, sp) {
		if ce = set[1]; ce != nil && ce.Live() && ce.KeyRef().is(epoch, cid, cl, cp, sv, sp) {
			d.conns.Touch(ce)
		} else {
			ce = d.conn(f, p, connKey{epoch, cid, netip.AddrPortFrom(cl, cp), netip.AddrPortFrom(sv, sp)})
		}
		set[0], set[1] = ce, set[0] // the most recent first; the other way goes
	} else {
		d.conns.Touch(ce)
	}
	cn := &ce.V
	if fromClient && typ != TypeDebug && typ != TypeVersion {
		if !cn.serviceSet {
			cn.service, cn.serviceSet = h.ServiceID(), true
		} else if cn.service != h.ServiceID() {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, fService, "rx",
				"service ID changed from "+strconv.Itoa(int(cn.service))+" to "+strconv.Itoa(int(h.ServiceID()))+
					" within the connection (servers keep the first)")
		}
	}
	if p.ser != 0 {
		r := &cn.sent[dir][p.ser%sentRing]
		if r.serial != p.ser || r.frame == 0 {
			*r = sentRec{serial: p.ser, frame: f.Num, time: f.TimeNS}
		}
	}
	callNo := h.CallNumber()
	switch typ {
	case TypeData, TypeAck, TypeBusy, TypeAckAll:
		if callNo == 0 && typ != TypeAck {
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fCall, "rx",
				typeSummary[typ]+" packet with call number 0 (only connection-level packets use 0)")
			return
		}
	}
	switch typ {
	case TypeData:
		d.data(f, p, cn, dir)
	case TypeAck:
		d.ack(f, p, cn, dir)
	default:
		d.other(f, p, cn, dir, typ)
	}
}

// other is analyze for the packet types that carry no call data and no
// acknowledgements, out of analyze's DATA path.
func (d *State) other(f *dissect.Frame, p *Packet, cn *conn, dir int, typ uint8) {
	fromClient, callNo := dir == 0, p.header().CallNumber()
	switch typ {
	case TypeAbort:
		if len(p.body) != 4 {
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fAbortCode, "rx",
				"ABORT payload is "+strconv.Itoa(len(p.body))+" octets, not 4")
		}
		if len(p.body) < 4 {
			return
		}
		code := binary.BigEndian.Uint32(p.body)
		msg := "call aborted with code " + strconv.FormatInt(int64(int32(code)), 10)
		if callNo == 0 {
			msg = "connection aborted with code " + strconv.FormatInt(int64(int32(code)), 10)
		}
		if p.abortName != "" {
			msg += " (" + p.abortName + ")"
		}
		f.AddFinding(p.idx, dissect.Note, dissect.GroupResponse, fAbortCode, "rx", msg)
		if callNo != 0 {
			d.abort(f, p, cn, dir, code)
		}
	case TypeBusy, TypeAckAll:
		if len(p.body) > 0 {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, nil, "rx",
				typeSummary[typ]+" packet carries "+strconv.Itoa(len(p.body))+" octets of payload (expected none)")
		}
	case TypeDebug:
		if fromClient && len(p.body) >= 4 {
			cn.debugType = binary.BigEndian.Uint32(p.body)
		} else if !fromClient {
			p.debugType = cn.debugType
		}
	case TypeVersion:
		if !fromClient && len(p.body) != 65 && !keepalive(p.body) {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, fVerString, "rx",
				"VERSION reply of "+strconv.Itoa(len(p.body))+" octets (OpenAFS sends 65)")
		}
	}
}

// conn finds a connection the cache did not hold in the table, or adds it.
func (d *State) conn(f *dissect.Frame, p *Packet, ck connKey) *dissect.Entry[connKey, conn] {
	if ce := d.conns.Get(ck); ce != nil {
		return ce
	}
	if d.connSeq == maxConnID {
		d.restart(f, p)
	}
	ce, old := d.conns.Add(ck)
	if old != nil && !d.connsFull {
		// Churn of idle connections is normal in long captures: said once.
		d.connsFull = true
		f.AddFinding(p.idx, dissect.Note, dissect.GroupReassembly, nil, "rx", "Rx connection table full ("+
			strconv.Itoa(maxConns)+"): the least recently active are forgotten from now on, first "+d.conns.Describe(old))
	}
	d.connSeq++
	ce.V = conn{id: d.connSeq}
	return ce
}

// restart forgets every connection and call, when the connection ids
// start over (maxConnID), with a note on the packet.
func (d *State) restart(f *dissect.Frame, p *Packet) {
	d.initTables()
	d.connCache = [connCacheSize]*dissect.Entry[connKey, conn]{}
	d.connSeq = 0
	f.AddFinding(p.idx, dissect.Note, dissect.GroupReassembly, nil, "rx", "Rx: "+strconv.Itoa(maxConnID)+
		" connections seen: connection and call state starts over")
}

func (d *State) ack(f *dissect.Frame, p *Packet, cn *conn, dir int) {
	a := Ack(p.body)
	if !a.Valid() {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, fAck, "rx",
			"truncated ACK body: "+strconv.Itoa(len(a))+" of at least 18 octets")
		return
	}
	if AckMinLen+a.NAcks() > len(a) {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, fNumAcks, "rx",
			"ack count "+strconv.Itoa(a.NAcks())+" runs beyond the packet ("+strconv.Itoa(len(a)-AckMinLen)+" ack octets present)")
	}
	for i, b := range a.Acks() {
		if b > 1 {
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fAckType, "rx",
				"ack octet "+strconv.Itoa(i)+" is "+strconv.Itoa(int(b))+" (only 0 NACK and 1 ACK are defined)")
			break
		}
	}
	if r := a.Reason(); r == 0 || r > 9 {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupProtocol, fReason, "rx", "unknown ACK reason "+strconv.Itoa(int(r)))
	}
	if rest := len(a) - a.TrailerOffset(); rest > 0 && rest%4 != 0 && rest < 16 {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupMalformed, nil, "rx",
			"ACK trailer has "+strconv.Itoa(rest)+" octets, not a whole number of words")
	}
	if s := a.Serial(); s != 0 {
		r := &cn.sent[1-dir][s%sentRing]
		if r.serial == s && r.frame != 0 && r.frame < f.Num {
			p.rtt, p.rttFrame = f.TimeNS-r.time, r.frame
		}
	}
}

func (d *State) data(f *dissect.Frame, p *Packet, cn *conn, dir int) {
	h := p.header()
	s := p.seq
	if s == 0 {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, fSeq, "rx", "DATA packet with sequence number 0")
		return
	}
	key := makeCallKey(cn.id, h.Channel(), h.CallNumber())
	// the channel's current call, as d.call finds it first, without the call
	e := cn.lastCall[key.channel()]
	if e != nil && e.Live() && *e.KeyRef() == key {
		d.calls.Touch(e)
	} else {
		e = d.call(f, p, cn, key)
	}
	c := &e.V
	if dir == 0 {
		c.clientPort, c.serverPort = f.Net.SrcPort, f.Net.DstPort
	} else {
		c.clientPort, c.serverPort = f.Net.DstPort, f.Net.SrcPort
	}
	ds := &c.dir[dir]
	if c.lost {
		// resynchronise on the next call: nothing of this one is delivered,
		// so neither a resent packet nor the rest of it can be taken twice
		ds.total += len(p.body)
		return
	}
	if dir == 1 && s == 1 && c.dir[0].maxSeq == 0 && !c.reqSeen {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupResponse, nil, "rx", "reply without request (the request is not in the capture)")
	}
	if dir == 1 && c.dir[0].maxSeq != 0 && !c.dir[0].done {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupSequence, nil, "rx",
			"reply started but the request is incomplete (packets missing from the capture)")
		c.dir[0].done = true
	}
	w := ds.w
	if w == nil && ds.next == 0 { // the direction's first DATA
		w = d.takeWork()
		ds.w = w
	}
	// a seq at Next is new (the commonest case, answered without Seen): the
	// prefix ends before it, and a packet held there would have been merged
	if w == nil || int64(s) != w.asm.Next() && w.asm.Seen(int64(s)) {
		if seen, orig := ds.seen(s); seen {
			p.retrans = true
			first := "an earlier frame"
			if orig != 0 {
				p.retransOf = orig
				first = "frame " + strconv.FormatUint(orig, 10)
			}
			f.AddFinding(p.idx, dissect.Note, dissect.GroupSequence, fRetrans, "rx",
				"retransmission of seq "+strconv.FormatUint(uint64(s), 10)+" (first sent in "+first+
					"), new serial "+strconv.FormatUint(uint64(p.ser), 10))
			return
		}
	}
	if w != nil {
		w.recent[s%recentSeqs] = seqFrame{seq: s, gen: w.gen, frame: f.Num}
	} else {
		ds.back[s%recentSeqs] = 0 // compacted: s takes the slot, as in recent
	}
	if ds.lastSeq != 0 && s > ds.lastSeq {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupSequence, fSeq, "rx",
			"seq "+strconv.FormatUint(uint64(s), 10)+" after the last packet (seq "+strconv.FormatUint(uint64(ds.lastSeq), 10)+")")
		return
	}
	if w == nil {
		// not reached: a compacted direction holds every seq to its last,
		// so a seq it has not seen is past the last
		return
	}
	if p.flags&FlagLastPacket != 0 {
		ds.lastSeq = s
	}
	if s > ds.maxSeq+1 {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupSequence, fSeq, "rx",
			"sequence gap: seq "+strconv.FormatUint(uint64(ds.maxSeq)+1, 10)+"-"+strconv.FormatUint(uint64(s)-1, 10)+
				" not seen (yet)")
	}
	if s > ds.maxSeq {
		ds.maxSeq = s
	}
	ds.total += len(p.body)
	w.asm.NoteFrame(f.Num)
	if s == 1 && dir == 0 && len(p.body) >= 4 {
		c.opcode, c.hasOp = binary.BigEndian.Uint32(p.body), true
	}
	if s == 1 && w.asm.Next() == 1 && p.flags&FlagLastPacket != 0 && w.asm.Waiting() == 0 {
		w.direct, w.doff = p.body, p.boff // one-packet direction: no copy
		if p.detached {
			w.doff = -1
		}
		w.asm.Pass(2, f.Num)
	} else if !w.asm.Append(int64(s), int64(s)+1, p.body) {
		// out of order: held until the gap fills, within MaxCallData; a
		// packet past maxPending held ones is counted, not kept (TooMany)
		w.asm.Add(int64(s), int64(s)+1, p.body, false, f.Num)
	}
	if h := w.held(); h != w.charged {
		d.calls.Charge(e, int64(h-w.charged))
		w.charged = h
	}
	if ds.done || ds.lastSeq == 0 || w.asm.Next() <= int64(ds.lastSeq) {
		p.callPart = uint32(len(w.asm.Frames()))
		return
	}
	ds.done = true
	d.deliver(f, p, c, key, dir, false, 0)
	d.compact(e, ds, f.Num)
}

// keepalive reports a VERSION body of a single zero octet: the keepalive
// both Linux AF_RXRPC (rxrpc_send_keepalive) and OpenAFS (the NAT ping)
// send without the client-initiated flag. It is not a reply to anything.
func keepalive(body []byte) bool { return len(body) == 1 && body[0] == 0 }

const recentSeqs = 16

type seqFrame struct {
	seq, gen uint32 // gen: the call the entry belongs to (dirState.gen)
	frame    uint64
}

// call finds or creates a call's state. A channel carries one call at a
// time, so the channel's last call is checked before the map.
func (d *State) call(f *dissect.Frame, p *Packet, cn *conn, key callKey) *dissect.Entry[callKey, call] {
	ch := key.channel()
	slot := &cn.lastCall[ch]
	if e := *slot; e != nil && e.Live() && *e.KeyRef() == key {
		d.calls.Touch(e)
		return e
	}
	var e *dissect.Entry[callKey, call]
	// Call numbers only grow on a channel (draft §2.3): a number above any
	// seen is a new call, no need to look it up.
	newCall := key.call() > cn.maxCall[ch]
	if newCall {
		cn.maxCall[ch] = key.call()
	} else {
		e = d.calls.Get(key)
	}
	if e == nil {
		var old *dissect.Entry[callKey, call]
		e, old = d.calls.Add(key)
		switch {
		case old == nil:
		case old.V.incomplete():
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupReassembly, nil, "rx", "Rx call table full ("+
				strconv.Itoa(maxCalls)+" calls): dropped the least recently active, unfinished "+d.calls.Describe(old))
		case !d.callsFull:
			// Forgetting completed calls is normal in long captures: said once.
			d.callsFull = true
			f.AddFinding(p.idx, dissect.Note, dissect.GroupReassembly, nil, "rx", "Rx call table full ("+
				strconv.Itoa(maxCalls)+" calls): completed calls are forgotten from now on, least recently active first")
		}
		c := &e.V
		d.resetDir(&c.dir[0])
		d.resetDir(&c.dir[1])
		c.hasOp, c.reqSeen, c.req = false, false, flows.Request{}
		c.serverPort, c.clientPort = 0, 0
		h := p.header()
		c.epoch, c.cid = h.Epoch(), h.CID()&^3
		// A call number not above the channel's highest was seen before and
		// its state dropped since: its packets can no longer be put together
		// (and one already delivered must not be delivered again).
		c.lost = !newCall
		if c.lost {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupReassembly, fCall, "rx", "Rx call "+
				strconv.FormatUint(uint64(key.call()), 10)+": its earlier state was dropped (call table limit or --max-mem), "+
				"the rest of the call is not reassembled")
		}
	}
	*slot = e
	return e
}

func (d *State) abort(f *dissect.Frame, p *Packet, cn *conn, dir int, code uint32) {
	h := p.header()
	key := makeCallKey(cn.id, h.Channel(), h.CallNumber())
	c := &d.call(f, p, cn, key).V
	if c.serverPort == 0 {
		if dir == 0 {
			c.clientPort, c.serverPort = f.Net.SrcPort, f.Net.DstPort
		} else {
			c.clientPort, c.serverPort = f.Net.DstPort, f.Net.SrcPort
		}
	}
	d.deliver(f, p, c, key, dir, true, code)
}

// deliver hands a completed direction (or an abort) to the services.
func (d *State) deliver(f *dissect.Frame, p *Packet, c *call, key callKey, dir int, abort bool, code uint32) {
	h := p.header()
	cl := &d.callScratch
	*cl = Call{Frame: f, Epoch: h.Epoch(), CID: h.CID(), CallNumber: h.CallNumber(), ServiceID: h.ServiceID(),
		ServerPort: c.serverPort, ClientPort: c.clientPort, SecIdx: h.SecurityIndex(), Reply: dir == 1,
		Opcode: c.opcode, HasOpcode: c.hasOp, Abort: abort, AbortCode: code, DataOff: -1}
	if !abort { // the direction is complete: it has its work
		ds := &c.dir[dir]
		w := ds.w
		if w.direct != nil {
			cl.Data, cl.DataOff = w.direct, w.doff
		} else {
			cl.Data = w.asm.Data()
		}
		cl.DataLen, cl.Truncated = ds.total, w.asm.Truncated()
		if n := w.asm.NFrames(); n > 1 {
			cl.Frames, cl.NFrames = w.asm.Frames(), n
		}
	}
	if dir == 0 && !abort {
		c.req, c.reqSeen = flows.Request{Frame: f.Num, TimeNS: f.TimeNS}, true
		cl.ReqFrame = f.Num
		if d.pass2 { // only a second pass knows the reply
			if a, ok := d.learned.Recall(f.Num); ok {
				cl.RepFrame, cl.RespTime, cl.HasRespTime = a.Frame, a.RTT, true
			}
		}
	} else if c.reqSeen {
		a := c.req.Answer(f.Num, f.TimeNS)
		cl.ReqFrame, cl.RepFrame = c.req.Frame, a.Frame
		cl.RespTime, cl.HasRespTime = a.RTT, true
		if !d.pass2 {
			d.learned.Learn(c.req.Frame, a)
		}
	}
	Services.Call(f, uint64(cl.ServiceID), cl)
	if f.ProtoStats() {
		d.srt(cl)
	}
	// The call stays in the table after its reply: a retransmitted reply must
	// be recognised as one, not taken for a reply without request. The table's
	// generations bound it.
}
