package rx

import (
	"encoding/binary"
	"time"

	wire "github.com/rdx-project/rdx/dissect/rx"
)

// outPkt is one DATA packet of the transmit queue.
type outPkt struct {
	seq    uint32
	flags  uint8 // LAST_PACKET or MORE_PACKETS
	data   []byte
	sent   time.Time // last (re)transmission; zero: not sent yet
	serial uint32    // serial of the last transmission
	nsent  int
	acked  bool // soft-acked by an ACK octet (or hard-acked)
}

// inData is the receive side of a call: packets are delivered in sequence
// into data; those that arrive early wait in early (at most Window).
type inData struct {
	data    []byte
	rnext   uint32 // next sequence number to deliver (from 1)
	last    uint32 // sequence number of the LAST_PACKET, 0 unknown
	early   map[uint32][]byte
	prevSeq uint32 // highest seq seen, for the ACK's previousPacket
	unacked int    // packets received since the last ACK sent
	done    bool
}

// call is one call on one channel, client or server side.
type call struct {
	e       *Endpoint
	c       *conn
	ch      int
	num     uint32
	serving bool // we are the server: in is the request, out the reply

	out       []*outPkt
	hardAcked uint32 // every seq ≤ hardAcked is acknowledged
	cwind     uint32 // congestion window: slow start from initCwind, halved on a loss
	sendDone  bool   // the last packet is queued
	in        inData
	err       error
	abortCode uint32 // what we aborted with (sent again on a retransmission)
	done      chan struct{}
	closed    bool
	heard     time.Time // last packet from the peer
	started   bool      // server: handler running or done

	pingWait   chan time.Time
	pingSerial uint32
	lastPing   time.Time
}

func newCall(e *Endpoint, c *conn, ch int, num uint32) *call {
	return &call{e: e, c: c, ch: ch, num: num, in: inData{rnext: 1}, done: make(chan struct{}), heard: time.Now(), cwind: initCwind}
}

// initCwind is the packets a call sends before its first ACK: a few, so
// the peer's ACK trailer (window, jumbograms) is known before the window
// opens, as OpenAFS's slow start does.
const initCwind = 4

func (cl *call) finished() bool { return cl.closed }

// finish ends the call once; err nil is success.
func (cl *call) finish(err error) {
	if cl.closed {
		return
	}
	cl.closed = true
	if cl.err == nil {
		cl.err = err
	}
	close(cl.done)
}

// queue cuts b into packets of PacketData octets (a jumbogram's sub-packets
// must be exactly that long but the last). last false leaves the stream
// open (no LAST_PACKET on the final packet).
func (cl *call) queue(b []byte, last bool) {
	seq := uint32(len(cl.out))
	for {
		n := min(len(b), PacketData)
		seq++
		p := &outPkt{seq: seq, data: b[:n:n]}
		b = b[n:]
		if len(b) == 0 {
			if last {
				p.flags = wire.FlagLastPacket
				cl.sendDone = true
			}
			cl.out = append(cl.out, p)
			return
		}
		p.flags = wire.FlagMorePackets
		cl.out = append(cl.out, p)
	}
}

// rto is the retransmission timeout from the peer's smoothed RTT.
func (cl *call) rto() time.Duration {
	p := cl.c.peer
	if p.rtt == 0 {
		return cl.e.cfg.RTO
	}
	return min(max(p.rtt+4*p.rttVar, cl.e.cfg.RTOMin), 4*time.Second)
}

// pump sends what the window allows: unsent packets, then those whose
// timer ran out (resent with a new serial and REQUEST_ACK).
func (cl *call) pump(now time.Time) {
	if cl.err != nil {
		return
	}
	win := min(cl.c.peer.window, Window, cl.cwind)
	if win == 0 {
		win = 1
	}
	limit := cl.hardAcked + win
	rto := cl.rto()
	var batch []*outPkt
	flush := func() {
		if len(batch) > 0 {
			cl.transmit(batch, now)
			batch = batch[:0]
		}
	}
	jumbo := uint32(1)
	if cl.e.cfg.Jumbo {
		jumbo = min(cl.c.peer.maxJumbo, MaxJumbo, jumboFit(cl.c.peer.maxMTU))
	}
	for i := int(cl.hardAcked); i < len(cl.out) && cl.out[i].seq <= limit; i++ {
		p := cl.out[i]
		if p.acked {
			flush()
			continue
		}
		resend := !p.sent.IsZero() && now.Sub(p.sent) >= rto<<min(p.nsent-1, 4)
		if !p.sent.IsZero() && !resend {
			flush()
			continue
		}
		if resend {
			cl.cwind = max(1, cl.cwind/2)
			cl.e.stats.DataResent++
			cl.c.peer.resent++
			cl.e.logf("%v call %d: resend seq %d (timeout %v)", cl.c.key.peer, cl.num, p.seq, rto)
			flush()
			cl.transmit([]*outPkt{p}, now)
			continue
		}
		// a jumbogram joins consecutive full packets; the last may be short
		batch = append(batch, p)
		if uint32(len(batch)) >= jumbo || len(p.data) < PacketData {
			flush()
		}
	}
	flush()
}

// jumboFit is how many packets fit a datagram of at most maxMTU octets
// (the peer's ACK trailer word 0; 0 unknown: no limit). OpenAFS peers
// without jumbograms say 1444, which fits one.
func jumboFit(maxMTU uint32) uint32 {
	if maxMTU == 0 {
		return MaxJumbo
	}
	if maxMTU < wire.HeaderLen+wire.JumboLen {
		return 1
	}
	return max(1, (maxMTU-wire.HeaderLen+wire.JumboHdrLen)/(wire.JumboLen+wire.JumboHdrLen))
}

// transmit sends pkts in one datagram (a jumbogram when more than one).
func (cl *call) transmit(pkts []*outPkt, now time.Time) {
	e := cl.e
	retrans := pkts[0].nsent > 0
	var d []byte
	for k, p := range pkts {
		flags := p.flags
		// ask for an ACK at the end of each burst, on the last packet and
		// on a retransmission, so the sender learns quickly what arrived
		// (a one-packet message needs none: the reply or the next call
		// acknowledges it, as with OpenAFS)
		if k == len(pkts)-1 && (retrans || p.seq%8 == 0 || (int(p.seq) == len(cl.out) && len(cl.out) > 1)) {
			flags |= wire.FlagRequestAck
		}
		if k < len(pkts)-1 {
			flags |= wire.FlagJumbo
		}
		if k == 0 {
			hf := cl.c.header(e, cl.ch, cl.num, wire.TypeData, flags)
			hf.Seq = p.seq
			d = hf.Encode(d)
			p.serial = hf.Serial
		} else {
			cl.c.serial++ // each sub-packet has its own serial, counting up
			p.serial = cl.c.serial
			if !cl.c.key.server {
				flags |= wire.FlagClientInitiated
			}
			d = wire.AppendJumboHeader(d, flags, 0)
		}
		d = append(d, p.data...)
		p.sent = now
		p.nsent++
		if p.nsent == 1 {
			e.stats.DataSent++
		}
	}
	if len(pkts) > 1 {
		e.stats.JumbogramsSent++
	}
	e.send(d, cl.c.key.peer)
}

// tick runs the retransmission timer and the keepalive ping.
func (cl *call) tick(now time.Time) {
	if cl.closed {
		return
	}
	if len(cl.out) > 0 && cl.err == nil {
		cl.pump(now)
	}
	// a client whose request is acknowledged pings a silent server now and
	// then, so a dead one is noticed and a live one keeps the call
	if !cl.serving && cl.sendDone && cl.hardAcked == uint32(len(cl.out)) && !cl.in.done &&
		now.Sub(cl.heard) > 2*time.Second && now.Sub(cl.lastPing) > 2*time.Second {
		cl.lastPing = now
		cl.sendAck(wire.AckPing, 0, now)
		cl.e.stats.PingsSent++
	}
	idle := cl.e.cfg.CallIdle
	if !cl.serving && now.Sub(cl.heard) > idle {
		cl.finish(&AbortError{Code: CodeCallTimeout})
	}
	// a server call whose reply is fully acknowledged is over; one whose
	// client went silent (mid-request, or never acknowledging the reply)
	// is dropped, so silent clients cannot hold every connection busy
	if cl.serving && now.Sub(cl.heard) > idle && !(cl.started && !cl.sendDone) {
		if !cl.sendDone {
			cl.e.logf("%v call %d: client silent for %v, call dropped", cl.c.key.peer, cl.num, idle)
			cl.finish(&AbortError{Code: CodeCallTimeout})
			return
		}
		cl.finish(nil)
	}
	if cl.serving && cl.started && cl.sendDone && cl.hardAcked == uint32(len(cl.out)) {
		cl.finish(nil)
	}
}

// sendAck sends an ACK describing the receive side; it returns its serial.
func (cl *call) sendAck(reason uint8, serial uint32, now time.Time) uint32 {
	e := cl.e
	in := &cl.in
	var acks []byte
	if in.prevSeq >= in.rnext {
		n := min(in.prevSeq-in.rnext+1, Window)
		acks = make([]byte, n)
		for i := range acks {
			if _, ok := in.early[in.rnext+uint32(i)]; ok {
				acks[i] = wire.AckTypeAck
			}
		}
	}
	flags := uint8(0)
	if reason == wire.AckPing {
		flags = wire.FlagRequestAck
	}
	hf := cl.c.header(e, cl.ch, cl.num, wire.TypeAck, flags)
	a := wire.AckFields{BufferSpace: Window, First: in.rnext, Prev: in.prevSeq, Serial: serial, Reason: reason, Acks: acks,
		Trailer: true, MaxMTU: MaxDatagram, IfMTU: NatMTU, Window: Window, MaxJumbo: MaxJumbo}
	e.send(a.Encode(hf.Encode(nil)), cl.c.key.peer)
	e.stats.AcksSent++
	in.unacked = 0
	return hf.Serial
}

func (cl *call) sendAbort() {
	code := uint32(CodeCallDead)
	if ae, ok := cl.err.(*AbortError); ok {
		code = ae.Code
	}
	cl.e.stats.AbortsSent++
	hf := cl.c.header(cl.e, cl.ch, cl.num, wire.TypeAbort, 0)
	cl.e.send(binary.BigEndian.AppendUint32(hf.Encode(nil), code), cl.c.key.peer)
}

// receiveData takes one DATA datagram (maybe a jumbogram).
func (cl *call) receiveData(d []byte, now time.Time) {
	h := wire.Header(d)
	if !cl.serving && len(cl.out) > 0 {
		// the first reply packet acknowledges the whole request
		for _, p := range cl.out {
			p.acked = true
		}
		cl.hardAcked = uint32(len(cl.out))
	}
	if cl.err != nil {
		if cl.serving && cl.abortCode != 0 {
			cl.sendAbort() // the client missed our ABORT
		}
		return
	}
	body := d[wire.HeaderLen:]
	seq, serial, flags := h.Seq(), h.Serial(), h.Flags()
	n := 1
	if flags&wire.FlagJumbo != 0 {
		n = wire.JumboCount(len(body))
		cl.e.stats.JumbogramsRead++
	}
	reason := uint8(0)
	if flags&wire.FlagRequestAck != 0 {
		reason = wire.AckRequested
	}
	cur := flags // sub-packet k's flags: the Rx header's, then each jumbo header's
	for k := 0; k < n; k++ {
		part, next := body, uint8(0)
		if k < n-1 {
			part, next = body[:wire.JumboLen], body[wire.JumboLen]
			body = body[wire.JumboLen+wire.JumboHdrLen:]
		}
		if r := cl.deliver(seq+uint32(k), cur, part); r != 0 && (reason == 0 || r == wire.AckExceedsWindow) {
			reason = r
		}
		if cur&wire.FlagRequestAck != 0 {
			reason = wire.AckRequested
		}
		cur = next
	}
	in := &cl.in
	if in.last != 0 && in.rnext > in.last && !in.done {
		in.done = true
		if cl.serving {
			cl.serve()
		} else {
			// acknowledge the reply so the server can let go of it
			cl.sendAck(wire.AckDelay, serial, now)
			cl.finish(nil)
			return
		}
	}
	if reason == 0 && in.unacked >= 2 && !in.done {
		reason = wire.AckDelay
	}
	if reason != 0 {
		cl.sendAck(reason, serial, now)
	}
}

// deliver stores one packet; it returns an ACK reason when the packet calls
// for an immediate ACK (duplicate, out of sequence, beyond the window).
func (cl *call) deliver(seq uint32, flags uint8, b []byte) uint8 {
	in := &cl.in
	e := cl.e
	if seq == 0 {
		e.stats.BadPackets++
		return 0
	}
	if seq < in.rnext {
		e.stats.DupRead++
		return wire.AckDuplicate
	}
	if seq >= in.rnext+Window {
		return wire.AckExceedsWindow
	}
	if _, dup := in.early[seq]; dup {
		e.stats.DupRead++
		return wire.AckDuplicate
	}
	e.stats.DataRead++
	in.unacked++
	if seq > in.prevSeq {
		in.prevSeq = seq
	}
	if flags&wire.FlagLastPacket != 0 {
		in.last = seq
	}
	if len(in.data)+len(b) > MaxCallData {
		cl.err = &AbortError{Code: CodeProtocolError}
		cl.abortCode = CodeProtocolError
		cl.sendAbort()
		cl.finish(cl.err)
		return 0
	}
	if seq != in.rnext {
		if in.early == nil {
			in.early = map[uint32][]byte{}
		}
		in.early[seq] = append([]byte(nil), b...)
		return wire.AckOutOfSequence
	}
	in.data = append(in.data, b...)
	in.rnext++
	for {
		p, ok := in.early[in.rnext]
		if !ok {
			break
		}
		delete(in.early, in.rnext)
		in.data = append(in.data, p...)
		in.rnext++
	}
	return 0
}

// serve runs the handler on a complete request (off the endpoint lock) and
// queues the reply or the abort.
func (cl *call) serve() {
	cl.started = true
	e := cl.e
	req := cl.in.data
	svc := cl.c.service
	go func() {
		reply, abort := e.cfg.Handler(svc, req)
		if len(reply) > MaxCallData {
			reply, abort = nil, CodeProtocolError
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		e.stats.CallsExecuted++
		if cl.closed || e.closed {
			return
		}
		if abort != 0 {
			cl.abortCode = abort
			cl.err = &AbortError{Code: abort}
			cl.sendAbort()
			cl.sendDone = true
			// keep the call until the client moves on, to repeat the abort
			return
		}
		cl.queue(reply, true)
		cl.pump(time.Now())
	}()
}

// receiveAck applies an ACK to the transmit queue.
func (cl *call) receiveAck(h wire.Header, a wire.Ack, now time.Time) {
	if !a.Valid() {
		cl.e.stats.BadPackets++
		return
	}
	p := cl.c.peer
	if a.TrailerWords() >= 4 {
		p.maxMTU, p.ifMTU = a.TrailerWord(0), a.TrailerWord(1)
		if w := a.TrailerWord(2); w > 0 {
			p.window = w
		}
		if j := a.TrailerWord(3); j > 0 {
			p.maxJumbo = j
		}
	}
	if a.Reason() == wire.AckPingResponse && cl.pingWait != nil {
		select {
		case cl.pingWait <- now:
		default:
		}
		cl.pingWait = nil
	}
	// RTT from the packet the ACK names (its serial), first transmissions
	// only; it is in the window, so the search is bounded by Window
	if s := a.Serial(); s != 0 {
		lo := int(cl.hardAcked)
		for _, o := range cl.out[lo:min(len(cl.out), lo+Window)] {
			if o.serial == s && o.nsent == 1 && !o.sent.IsZero() {
				cl.sampleRTT(now.Sub(o.sent))
				break
			}
		}
	}
	first := a.FirstPacket()
	for i := cl.hardAcked; i+1 < first && int(i) < len(cl.out); i++ {
		cl.out[i].acked = true
	}
	if first > 0 && first-1 > cl.hardAcked {
		h := min(first-1, uint32(len(cl.out)))
		cl.cwind = min(cl.cwind+h-cl.hardAcked, Window) // slow start: one more per packet acknowledged
		cl.hardAcked = h
	}
	// soft acks; a NACK below an acknowledged packet means it was lost:
	// resend it now rather than at the timeout
	acks := a.Acks()
	pushed := false
	highest := -1
	for i, v := range acks {
		if v == wire.AckTypeAck {
			highest = i
		}
	}
	for i, v := range acks {
		idx := int(first) + i - 1
		if idx < 0 || idx >= len(cl.out) {
			continue
		}
		o := cl.out[idx]
		if v == wire.AckTypeAck {
			o.acked = true
		} else if i < highest && o.acked {
			o.acked = false // reneged: the receiver dropped it
		} else if i < highest && !o.sent.IsZero() && now.Sub(o.sent) > cl.rtoFast() {
			if !pushed {
				cl.cwind = max(1, cl.cwind/2) // one loss event per ACK
				pushed = true
			}
			cl.e.stats.DataPushed++
			cl.e.stats.DataResent++
			cl.c.peer.resent++
			cl.e.logf("%v call %d: resend seq %d (NACK)", cl.c.key.peer, cl.num, o.seq)
			cl.transmit([]*outPkt{o}, now)
		}
	}
	cl.pump(now)
}

// rtoFast is how long a NACKed packet must have been out before an ACK's
// NACK makes us resend it (so one loss does not cause a resend per ACK).
func (cl *call) rtoFast() time.Duration {
	if r := cl.c.peer.rtt; r > 0 {
		return r
	}
	return 10 * time.Millisecond
}

func (cl *call) sampleRTT(r time.Duration) {
	p := cl.c.peer
	if p.rtt == 0 {
		p.rtt, p.rttVar = r, r/2
		return
	}
	d := p.rtt - r
	if d < 0 {
		d = -d
	}
	p.rttVar = (3*p.rttVar + d) / 4
	p.rtt = (7*p.rtt + r) / 8
}
