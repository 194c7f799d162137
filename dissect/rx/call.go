package rx

import (
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// A connection is (epoch, cid without channel bits), plus the two endpoints
// unless the epoch's high bit says any address is fine.
type connKey struct {
	epoch, cid     uint32
	client, server netip.AddrPort
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
}

type callKey struct {
	conn    uint64 // conn.id: a small key hashes faster than the addresses
	channel uint32
	call    uint32
}

type pend struct {
	seq  uint32
	data []byte
}

const maxPending = 256

type dirState struct {
	next    uint32 // every seq below next is in buf (or counted)
	maxSeq  uint32
	lastSeq uint32
	done    bool
	total   int
	buf     []byte
	trunc   bool
	frames  []uint64
	nframes int
	// recent remembers the first frame of the last seqs received, to name
	// the original of a retransmission; whether a seq is new is known from
	// next and pending alone.
	recent  [recentSeqs]seqFrame
	gen     uint32
	pending []pend
	direct  []byte // the single packet's body when it needed no copy
	doff    int
}

func (s *dirState) reset() {
	// field by field: a composite literal would copy a whole temporary (with
	// write barriers) on every new call
	s.next, s.maxSeq, s.lastSeq, s.done, s.total, s.trunc, s.nframes, s.doff = 1, 0, 0, false, 0, false, 0, 0
	s.buf, s.frames, s.pending, s.direct = s.buf[:0], s.frames[:0], s.pending[:0], nil
	s.gen++ // invalidates recent without clearing it
}

type call struct {
	dir        [2]dirState
	opcode     uint32
	hasOp      bool
	reqFrame   uint64
	reqTime    int64
	reqSeen    bool
	serverPort uint16
	clientPort uint16
}

type callTable struct {
	dissect.Table[callKey, call]
}
type connTable struct {
	dissect.Table[connKey, conn]
}

func (t *callTable) init() { t.Init(maxCalls) }
func (t *connTable) init() { t.Init(maxConns) }

// analyze runs the cross-packet analysis for one (sub-)packet: connection and
// call state, RTT, retransmissions, gaps, reassembly and the service hand-off.
func (d *State) analyze(f *dissect.Frame, p *Packet) {
	h := p.hdr
	typ := h.Type()
	if typ == 0 || typ > TypeVersion {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupProtocol, fType, "rx", "unknown packet type "+strconv.Itoa(int(typ)))
		return
	}
	fromClient := h.Flags()&FlagClientInitiated != 0
	dir := 1
	if fromClient {
		dir = 0
	}
	ck := connKey{epoch: h.Epoch(), cid: h.CID() &^ 3}
	if !h.AnyAddress() {
		ck.client, ck.server = endpoints(f, fromClient)
	}
	cn := d.lastConn
	if cn == nil || ck != d.lastConnKey {
		// consecutive packets mostly share a connection: skip the map then
		if cn = d.conns.Get(ck); cn == nil {
			cn = d.conns.Add(ck)
			d.connSeq++
			*cn = conn{id: d.connSeq}
		}
		d.lastConn, d.lastConnKey = cn, ck
	}
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
		if name := ErrorName(code); name != "" {
			msg += " (" + name + ")"
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
		if !fromClient && len(p.body) != 65 {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, fVerString, "rx",
				"VERSION reply of "+strconv.Itoa(len(p.body))+" octets (OpenAFS sends 65)")
		}
	}
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
	h := p.hdr
	s := p.seq
	if s == 0 {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, fSeq, "rx", "DATA packet with sequence number 0")
		return
	}
	key := callKey{conn: cn.id, channel: h.Channel(), call: h.CallNumber()}
	c := d.call(cn, key)
	if dir == 0 {
		c.clientPort, c.serverPort = f.Net.SrcPort, f.Net.DstPort
	} else {
		c.clientPort, c.serverPort = f.Net.DstPort, f.Net.SrcPort
	}
	ds := &c.dir[dir]
	if dir == 1 && s == 1 && c.dir[0].maxSeq == 0 && !c.reqSeen {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupResponse, nil, "rx", "reply without request (the request is not in the capture)")
	}
	if dir == 1 && c.dir[0].maxSeq != 0 && !c.dir[0].done {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupSequence, nil, "rx",
			"reply started but the request is incomplete (packets missing from the capture)")
		c.dir[0].done = true
	}
	if ds.seen(s) {
		p.retrans = true
		first := "an earlier frame"
		if r := &ds.recent[s%recentSeqs]; r.seq == s && r.gen == ds.gen && r.frame != 0 {
			p.retransOf = r.frame
			first = "frame " + strconv.FormatUint(r.frame, 10)
		}
		f.AddFinding(p.idx, dissect.Note, dissect.GroupSequence, fRetrans, "rx",
			"retransmission of seq "+strconv.FormatUint(uint64(s), 10)+" (first sent in "+first+
				"), new serial "+strconv.FormatUint(uint64(p.ser), 10))
		return
	}
	ds.recent[s%recentSeqs] = seqFrame{seq: s, gen: ds.gen, frame: f.Num}
	if ds.lastSeq != 0 && s > ds.lastSeq {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupSequence, fSeq, "rx",
			"seq "+strconv.FormatUint(uint64(s), 10)+" after the last packet (seq "+strconv.FormatUint(uint64(ds.lastSeq), 10)+")")
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
	if len(ds.frames) == 0 || ds.frames[len(ds.frames)-1] != f.Num {
		ds.nframes++
		if len(ds.frames) < 64 {
			ds.frames = append(ds.frames, f.Num)
		}
	}
	if s == 1 && dir == 0 && len(p.body) >= 4 {
		c.opcode, c.hasOp = binary.BigEndian.Uint32(p.body), true
	}
	switch {
	case s == ds.next && s == 1 && p.flags&FlagLastPacket != 0 && len(ds.pending) == 0:
		ds.direct, ds.doff = p.body, p.boff // one-packet direction: no copy
		if p.detached {
			ds.doff = -1
		}
		ds.next = 2
	case s == ds.next:
		ds.keep(p.body)
		ds.next++
		ds.drain()
	case s > ds.next:
		if len(ds.pending) < maxPending {
			ds.pending = append(ds.pending, pend{seq: s, data: append([]byte(nil), p.body...)})
		} else {
			ds.trunc = true
		}
	}
	if ds.done || ds.lastSeq == 0 || ds.next <= ds.lastSeq {
		p.callPart = uint32(len(ds.frames))
		return
	}
	ds.done = true
	d.deliver(f, p, c, key, dir, false, 0)
}

const recentSeqs = 16

type seqFrame struct {
	seq, gen uint32 // gen: the call the entry belongs to (dirState.gen)
	frame    uint64
}

// seen tells whether seq s already arrived: everything below next did, and
// so did anything held out of order.
func (ds *dirState) seen(s uint32) bool {
	if s < ds.next {
		return true
	}
	for i := range ds.pending {
		if ds.pending[i].seq == s {
			return true
		}
	}
	return false
}

func (ds *dirState) keep(b []byte) {
	room := MaxCallData - len(ds.buf)
	if room <= 0 {
		if len(b) > 0 {
			ds.trunc = true
		}
		return
	}
	if len(b) > room {
		b = b[:room]
		ds.trunc = true
	}
	ds.buf = append(ds.buf, b...)
}

func (ds *dirState) drain() {
	for progress := true; progress; {
		progress = false
		for i := 0; i < len(ds.pending); i++ {
			if ds.pending[i].seq == ds.next {
				ds.keep(ds.pending[i].data)
				ds.next++
				ds.pending[i] = ds.pending[len(ds.pending)-1]
				ds.pending = ds.pending[:len(ds.pending)-1]
				progress = true
				break
			}
		}
	}
}

// call finds or creates a call's state. Packets of one call come in bursts,
// so the last call is checked before the map.
func (d *State) call(cn *conn, key callKey) *call {
	if d.lastCall != nil && key == d.lastCallKey {
		return d.lastCall
	}
	var c *call
	// Call numbers only grow on a channel (draft §2.3): a number above any
	// seen is a new call, no need to look it up.
	if key.call > cn.maxCall[key.channel&3] {
		cn.maxCall[key.channel&3] = key.call
	} else {
		c = d.calls.Get(key)
	}
	defer func() { d.lastCall, d.lastCallKey = c, key }()
	if c == nil {
		c = d.calls.Add(key)
		c.dir[0].reset()
		c.dir[1].reset()
		c.hasOp, c.reqSeen, c.reqFrame, c.reqTime = false, false, 0, 0
		c.serverPort, c.clientPort = 0, 0
	}
	return c
}

func (d *State) abort(f *dissect.Frame, p *Packet, cn *conn, dir int, code uint32) {
	key := callKey{conn: cn.id, channel: p.hdr.Channel(), call: p.hdr.CallNumber()}
	c := d.call(cn, key)
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
	h := p.hdr
	cl := &d.callScratch
	*cl = Call{Frame: f, Epoch: h.Epoch(), CID: h.CID(), CallNumber: h.CallNumber(), ServiceID: h.ServiceID(),
		ServerPort: c.serverPort, ClientPort: c.clientPort, SecIdx: h.SecurityIndex(), Reply: dir == 1,
		Opcode: c.opcode, HasOpcode: c.hasOp, Abort: abort, AbortCode: code, DataOff: -1}
	ds := &c.dir[dir]
	if !abort {
		if ds.direct != nil {
			cl.Data, cl.DataOff = ds.direct, ds.doff
		} else {
			cl.Data = ds.buf
		}
		cl.DataLen, cl.Truncated = ds.total, ds.trunc
		if ds.nframes > 1 {
			cl.Frames, cl.NFrames = ds.frames, ds.nframes
		}
	}
	if dir == 0 && !abort {
		c.reqFrame, c.reqTime, c.reqSeen = f.Num, f.TimeNS, true
		cl.ReqFrame = f.Num
		if !d.pass2 {
			// nothing learned yet: only a second pass knows the reply
		} else if m, ok := d.learned[f.Num]; ok {
			cl.RepFrame, cl.RespTime, cl.HasRespTime = m.rep, m.time, true
		}
	} else if c.reqSeen {
		cl.ReqFrame, cl.RepFrame = c.reqFrame, f.Num
		cl.RespTime, cl.HasRespTime = f.TimeNS-c.reqTime, true
		if !d.pass2 && len(d.learned) < maxLearned {
			d.learned[c.reqFrame] = match{rep: f.Num, time: cl.RespTime}
		}
	}
	for _, svc := range services {
		svc(cl)
	}
	d.srt(cl)
	// The call stays in the table after its reply: a retransmitted reply must
	// be recognised as one, not taken for a reply without request. The table's
	// generations bound it.
}

// maxLearned bounds the request->reply table kept between passes (about 40 MB).
const maxLearned = 1 << 20
