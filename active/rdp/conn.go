package rdp

import (
	"context"
	"io"
	"slices"
	"time"

	rdpwire "github.com/rdx-project/rdx/dissect/rdp"
)

// State is a connection state (RFC 908 §3.2, spec §5).
type State uint8

const (
	Closed State = iota
	Listen
	SynSent
	SynRcvd
	Open
	CloseWait
)

func (s State) String() string {
	return [...]string{"CLOSED", "LISTEN", "SYN-SENT", "SYN-RCVD", "OPEN", "CLOSE-WAIT"}[s]
}

// Status is Faber's RDPStatus (§3.1): enough to know when closing loses
// nothing and how big a message may be.
type Status struct {
	State    State
	Unacked  int // segments sent, not yet acknowledged
	Queued   int // segments received, not yet read
	RecvMax  int // largest message the peer may send me
	SendMax  int // largest message I may send (the peer's max segment)
	SendWin  int // the peer's max outstanding segments
	Sequence bool
	SRTT     time.Duration
	RTO      time.Duration
}

// Stats counts what the connection did. Retransmits covers every resent
// sequence-consuming segment (SYN, SYN-ACK, data, NUL), as the dissector
// counts them; EACKsSent and EACKsRcvd count list entries.
type Stats struct {
	SegsSent, SegsRcvd     uint64
	DataSent, DataRcvd     uint64 // data segments, first transmissions / accepted
	BytesSent, BytesRcvd   uint64
	Retransmits            uint64
	FastRetransmits        uint64 // of Retransmits, triggered by EACK gaps
	Timeouts               uint64 // retransmission timer expiries
	AcksSent               uint64
	EACKsSent, EACKsRcvd   uint64
	OutOfOrder, Duplicates uint64
	NULsSent, NULsRcvd     uint64
	Dropped                uint64 // accepted by Validate but not by the state machine
	RTTSamples             uint64
}

type txSeg struct {
	seq      uint32
	flags    uint8 // 0 (data) or FlagNUL
	data     []byte
	first    time.Time
	sent     time.Time
	deadline time.Time
	retx     int
	eacked   bool
}

type rxSeg struct {
	data      []byte
	nul       bool
	delivered bool
}

// Conn is one RDP connection (Faber's RDPConnection).
type Conn struct {
	ep      *Endpoint
	key     connKey
	passive bool
	state   State
	err     error // why the connection ended
	reset   bool  // the peer sent RST

	// Send side (RFC 908 §3.2.4). una is the highest sequence number
	// acknowledged cumulatively (the ISS until the SYN is acked): RFC 1151's
	// correction of SND.UNA, stated once here.
	iss, nxt, una uint32
	sndMax        int // peer's max outstanding
	sndMSS        int // peer's max segment
	out           []*txSeg
	syn           txSeg // our SYN or SYN-ACK while unacknowledged

	// Receive side.
	irs, cur uint32
	rcvMax   int
	rcvMSS   int
	sdm      bool
	ooo      map[uint32]rxSeg // accepted beyond cur
	q        [][]byte

	// Timers (Faber §3.1: retransmit, CLOSE-WAIT, keepalive).
	srtt, rttvar, rto time.Duration
	backoff           uint
	start             time.Time
	lastSend          time.Time
	lastProgress      time.Time
	closeWaitAt       time.Time
	timer             *time.Timer
	stats             Stats
}

func seqLT(a, b uint32) bool { return int32(a-b) < 0 }
func seqLE(a, b uint32) bool { return int32(a-b) <= 0 }

// Status returns the connection's status.
func (c *Conn) Status() Status {
	e := c.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	return Status{State: c.state, Unacked: int(c.nxt - c.una - 1), Queued: len(c.q), RecvMax: c.rcvMSS,
		SendMax: c.sndMSS, SendWin: c.sndMax, Sequence: c.sdm, SRTT: c.srtt, RTO: c.curRTO()}
}

// Stats returns the connection's counters.
func (c *Conn) Stats() Stats {
	c.ep.mu.Lock()
	defer c.ep.mu.Unlock()
	return c.stats
}

// Err is why the connection ended (nil while open or after a local Close).
func (c *Conn) Err() error {
	c.ep.mu.Lock()
	defer c.ep.mu.Unlock()
	return c.err
}

// Send queues one message as one segment and transmits it as soon as the
// peer's window allows (it blocks until then).
func (c *Conn) Send(ctx context.Context, p []byte) error {
	e := c.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(p) > c.sndMSS && c.state == Open {
		return ErrTooBig
	}
	stop := e.wakeOn(ctx)
	defer stop()
	// Flow control (spec §4): never beyond una + the peer's max outstanding,
	// whatever was EACKed.
	for c.state == Open && int(c.nxt-c.una) > c.sndMax {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.cond.Wait()
	}
	if c.state != Open {
		return c.deadErr()
	}
	c.queue(0, p, time.Now())
	return nil
}

// WaitAcked blocks until everything sent is acknowledged (what an
// application must check before Close, Faber §2) or the connection ends.
func (c *Conn) WaitAcked(ctx context.Context) error {
	e := c.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	stop := e.wakeOn(ctx)
	defer stop()
	for c.state == Open && c.nxt-c.una > 1 {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.cond.Wait()
	}
	if c.nxt-c.una > 1 || c.state != Open && c.err != nil {
		return c.deadErr()
	}
	return nil
}

// Recv returns the next delivered message; io.EOF once the peer closed and
// the queue is drained.
func (c *Conn) Recv(ctx context.Context) ([]byte, error) {
	e := c.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	stop := e.wakeOn(ctx)
	defer stop()
	for len(c.q) == 0 {
		if c.state != Open {
			if c.reset || c.err == nil {
				return nil, io.EOF
			}
			return nil, c.err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.cond.Wait()
	}
	p := c.q[0]
	c.q[0] = nil
	c.q = c.q[1:]
	return p, nil
}

// Close is RDP's close (RFC 908 §3.2.5, Faber §2): send RST and enter
// CLOSE-WAIT; unacknowledged data is abandoned, not delivered.
func (c *Conn) Close() error {
	e := c.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	switch c.state {
	case Open, SynRcvd, SynSent:
		c.sendCtl(rdpwire.FlagRST, c.nxt, 0, nil)
		c.enterCloseWait(time.Now())
	}
	return nil
}

// WaitClosed blocks until the CLOSE-WAIT timer has run out (so a new
// connection on the same ports cannot catch this one's segments).
func (c *Conn) WaitClosed(ctx context.Context) {
	e := c.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	stop := e.wakeOn(ctx)
	defer stop()
	for c.state != Closed && ctx.Err() == nil {
		e.cond.Wait()
	}
}

func (c *Conn) deadErr() error {
	if c.err != nil {
		return c.err
	}
	if c.reset {
		return ErrReset
	}
	return ErrClosed
}

func (c *Conn) curRTO() time.Duration {
	r := c.rto << c.backoff
	if r > c.ep.cfg.MaxRTO || r <= 0 {
		r = c.ep.cfg.MaxRTO
	}
	return r
}

// --- output ---

func (c *Conn) seal(b []byte) {
	c.stats.SegsSent++
	c.lastSend = time.Now()
	c.ep.write(c.key.link, b)
}

// sendCtl sends a control segment (RST, ACK, ...) that is not retransmitted.
func (c *Conn) sendCtl(flags uint8, seq, ack uint32, eacks []uint32) {
	hf := rdpwire.HeaderFields{Flags: flags, Version: 2, SrcPort: c.ep.port, DstPort: c.key.rport, Seq: seq, Ack: ack, Eacks: eacks}
	c.seal(hf.Encode(nil, nil))
}

// sendSyn sends (or resends) our SYN: plain in SYN-SENT, with ACK in SYN-RCVD.
func (c *Conn) sendSyn(now time.Time) {
	hf := rdpwire.HeaderFields{Flags: rdpwire.FlagSYN, Version: 2, SrcPort: c.ep.port, DstPort: c.key.rport, Seq: c.iss,
		MaxOutstanding: uint16(c.rcvMax), MaxSegment: uint16(c.rcvMSS), SDM: c.sdm}
	if c.state == SynRcvd {
		hf.Flags |= rdpwire.FlagACK
		hf.Ack = c.cur
	}
	if c.syn.first.IsZero() {
		c.syn.first = now
	} else {
		c.syn.retx++
		c.stats.Retransmits++
	}
	c.syn.sent = now
	c.syn.deadline = now.Add(c.curRTO())
	c.seal(hf.Encode(nil, nil))
	c.arm()
}

// sendAck acknowledges RCV.CUR and lists what arrived beyond it (EACK).
func (c *Conn) sendAck() {
	c.stats.AcksSent++
	fl := uint8(rdpwire.FlagACK)
	var eacks []uint32
	if len(c.ooo) > 0 {
		eacks = c.eackList()
		fl |= rdpwire.FlagEAK
		c.stats.EACKsSent += uint64(len(eacks))
	}
	c.sendCtl(fl, c.nxt, c.cur, eacks)
}

func (c *Conn) eackList() []uint32 {
	l := make([]uint32, 0, len(c.ooo))
	for s := range c.ooo {
		l = append(l, s)
	}
	slices.SortFunc(l, func(a, b uint32) int { return int(int32(a - b)) })
	return l[:min(len(l), maxEacks)]
}

// queue assigns the next sequence number to a data or NUL segment and sends it.
func (c *Conn) queue(flags uint8, p []byte, now time.Time) {
	s := &txSeg{seq: c.nxt, flags: flags, data: append([]byte(nil), p...), first: now}
	c.nxt++
	c.out = append(c.out, s)
	if flags == 0 {
		c.stats.DataSent++
		c.stats.BytesSent += uint64(len(p))
	} else {
		c.stats.NULsSent++
	}
	c.transmit(s, now)
	c.arm()
}

func (c *Conn) transmit(s *txSeg, now time.Time) {
	fl := rdpwire.FlagACK | s.flags
	hf := rdpwire.HeaderFields{Flags: fl, Version: 2, SrcPort: c.ep.port, DstPort: c.key.rport, Seq: s.seq, Ack: c.cur}
	s.sent = now
	s.deadline = now.Add(c.curRTO())
	c.seal(hf.Encode(nil, s.data))
}

func (c *Conn) retransmit(s *txSeg, now time.Time) {
	s.retx++
	c.stats.Retransmits++
	c.transmit(s, now)
}

// --- input ---

// peerSyn records the peer's SYN (RFC 908 §3.7.2 LISTEN, SYN-SENT step 3).
// The connection is sequenced when either side asks for it (the stricter
// guarantee wins; RFC 908 leaves disagreement open).
func (c *Conn) peerSyn(h rdpwire.Header) {
	c.irs, c.cur = h.Seq(), h.Seq()
	c.sndMax = min(max(int(h.MaxOutstanding()), 1), maxWindow)
	c.sndMSS = max(int(h.MaxSegment()), 1)
	c.sdm = c.sdm || h.SDM()
}

func (c *Conn) input(h rdpwire.Header, data []byte, now time.Time) {
	c.stats.SegsRcvd++
	fl := h.Flags()
	switch c.state {
	case SynSent:
		if fl&rdpwire.FlagACK != 0 && fl&rdpwire.FlagRST == 0 && h.Ack() != c.iss {
			c.sendCtl(rdpwire.FlagRST, h.Ack()+1, 0, nil)
			return
		}
		if fl&rdpwire.FlagRST != 0 {
			// Only a RST that acknowledges our SYN refuses it (a blind RST
			// cannot guess the ISS).
			if fl&rdpwire.FlagACK != 0 && h.Ack() == c.iss {
				c.finish(ErrRefused)
			}
			return
		}
		if fl&rdpwire.FlagSYN == 0 {
			c.stats.Dropped++
			return
		}
		c.peerSyn(h)
		if fl&rdpwire.FlagACK != 0 {
			c.synAcked(now)
			c.sendAck()
			return
		}
		// Simultaneous open: answer with SYN-ACK, same ISS.
		c.state = SynRcvd
		c.sendSyn(now)
		return
	case CloseWait:
		if fl&rdpwire.FlagRST != 0 {
			c.finish(nil)
			return
		}
		// Faber §3.1/§4: keep answering with RST so a lost RST is repaired
		// by the peer's next segment (its keepalive).
		if !c.reset {
			c.sendCtl(rdpwire.FlagRST, c.nxt, 0, nil)
		}
		return
	case Closed, Listen:
		return
	}
	// SYN-RCVD and OPEN.
	if fl&rdpwire.FlagSYN != 0 {
		if h.Seq() == c.irs {
			// Faber §4: the peer repeats its SYN because our SYN-ACK (or the
			// ACK of its SYN-ACK) was lost; answer again, do not reset.
			if c.state == SynRcvd {
				c.sendSyn(now)
			} else {
				c.sendAck()
			}
			return
		}
		c.sendCtl(rdpwire.FlagRST, c.nxt, 0, nil)
		c.finish(ErrReset)
		return
	}
	seq := h.Seq()
	if !seqLT(c.cur, seq) || !seqLE(seq, c.cur+uint32(2*c.rcvMax)) {
		// Outside the acceptance window (RFC 908 §3.7.2 step 1). Data at or
		// below RCV.CUR is a duplicate whose ACK was lost: re-ACK.
		c.stats.Duplicates++
		if fl&rdpwire.FlagRST == 0 {
			c.sendAck()
		}
		return
	}
	if fl&rdpwire.FlagRST != 0 {
		c.reset = true
		if c.state == SynRcvd {
			c.finish(ErrRefused)
			return
		}
		c.enterCloseWait(now)
		return
	}
	if c.state == SynRcvd {
		if fl&rdpwire.FlagEAK != 0 || (fl&rdpwire.FlagACK != 0 && h.Ack() != c.iss) {
			c.sendCtl(rdpwire.FlagRST, h.Ack()+1, 0, nil)
			c.stats.Dropped++
			return
		}
		if fl&rdpwire.FlagACK == 0 {
			c.stats.Dropped++
			return
		}
		c.synAcked(now)
		if c.passive {
			c.ep.backlog = append(c.ep.backlog, c)
		}
	}
	if fl&rdpwire.FlagACK != 0 {
		c.ack(h.Ack(), now)
	}
	if fl&rdpwire.FlagEAK != 0 {
		c.eack(h, now)
	}
	if len(data) == 0 && fl&rdpwire.FlagNUL == 0 {
		return
	}
	if len(data) > c.rcvMSS {
		c.stats.Dropped++ // RFC 908 would reset; dropping is kinder to a buggy peer
		return
	}
	c.receive(seq, data, fl&rdpwire.FlagNUL != 0)
}

// synAcked: our SYN is acknowledged, the connection is OPEN.
func (c *Conn) synAcked(now time.Time) {
	if c.syn.retx == 0 {
		c.sample(now.Sub(c.syn.sent))
	}
	c.syn = txSeg{}
	c.state = Open
	c.lastProgress = now
	c.arm()
	c.ep.cond.Broadcast()
}

// ack processes a cumulative ACK (OPEN step 5).
func (c *Conn) ack(a uint32, now time.Time) {
	if !seqLT(c.una, a) || !seqLT(a, c.nxt) {
		return
	}
	c.una = a
	n := 0
	for n < len(c.out) && seqLE(c.out[n].seq, a) {
		s := c.out[n]
		if s.retx == 0 && !s.eacked && (n == len(c.out)-1 || !seqLE(c.out[n+1].seq, a)) {
			// Karn: sample only never-resent segments; the newest acked
			// one measures the round trip.
			c.sample(now.Sub(s.sent))
		}
		c.out[n] = nil
		n++
	}
	c.out = c.out[n:]
	c.progress(now)
}

// eack releases the listed segments (OPEN step 6) and resends holes that
// fastThresh later segments have passed (Faber §2: deduced from EACK gaps).
func (c *Conn) eack(h rdpwire.Header, now time.Time) {
	n := h.EackCount()
	c.stats.EACKsRcvd += uint64(n)
	got := false
	for i := range n {
		e := h.Eack(i)
		if !seqLT(c.una, e) || !seqLT(e, c.nxt) {
			continue
		}
		j, ok := slices.BinarySearchFunc(c.out, e, func(s *txSeg, e uint32) int { return int(int32(s.seq - e)) })
		if ok && !c.out[j].eacked {
			s := c.out[j]
			s.eacked, got = true, true
			if s.retx == 0 {
				c.sample(now.Sub(s.sent))
			}
		}
	}
	if !got {
		return
	}
	c.progress(now)
	above := 0
	for i := len(c.out) - 1; i >= 0; i-- {
		s := c.out[i]
		if s.eacked {
			above++
			continue
		}
		// Once per round trip, so reordering does not cause a storm.
		if above >= fastThresh && now.Sub(s.sent) >= c.srtt {
			c.stats.FastRetransmits++
			c.retransmit(s, now)
		}
	}
	c.arm()
}

func (c *Conn) progress(now time.Time) {
	c.lastProgress = now
	c.backoff = 0
	c.arm()
	c.ep.cond.Broadcast()
}

// sample updates the smoothed RTT (RFC 6298 constants; RFC 908 leaves the
// timer to the implementation, Faber §2 estimates the RTT).
func (c *Conn) sample(r time.Duration) {
	c.stats.RTTSamples++
	if c.srtt == 0 {
		c.srtt, c.rttvar = r, r/2
	} else {
		d := c.srtt - r
		if d < 0 {
			d = -d
		}
		c.rttvar = (3*c.rttvar + d) / 4
		c.srtt = (7*c.srtt + r) / 8
	}
	c.rto = min(max(c.srtt+4*c.rttvar, c.ep.cfg.MinRTO), c.ep.cfg.MaxRTO)
}

// receive accepts an in-window data or NUL segment (steps 3 and 7).
func (c *Conn) receive(seq uint32, data []byte, nul bool) {
	// Flow control by refusal: a reader that does not read makes us drop,
	// unacknowledged, until it catches up; memory stays bounded.
	if !nul && len(c.q) >= c.qcap() {
		c.stats.Dropped++
		return
	}
	if nul {
		c.stats.NULsRcvd++
	}
	if seq == c.cur+1 {
		c.accept(data, nul, false)
		c.cur = seq
		for {
			r, ok := c.ooo[c.cur+1]
			if !ok {
				break
			}
			delete(c.ooo, c.cur+1)
			c.cur++
			if !r.nul && !r.delivered {
				c.deliver(r.data)
			}
		}
	} else if _, dup := c.ooo[seq]; dup {
		c.stats.Duplicates++
	} else {
		c.stats.OutOfOrder++
		r := rxSeg{nul: nul}
		if c.sdm || nul {
			r.data = append([]byte(nil), data...)
		} else {
			c.accept(data, nul, true)
			r.delivered = true
		}
		if !nul && c.sdm {
			c.stats.DataRcvd++
			c.stats.BytesRcvd += uint64(len(data))
		}
		c.ooo[seq] = r
	}
	c.sendAck()
}

// qcap bounds the delivered-but-unread queue: 4 MB of maximum-size
// messages, at least four windows.
func (c *Conn) qcap() int { return max(4*c.rcvMax, (4<<20)/c.rcvMSS) }

func (c *Conn) accept(data []byte, nul, _ bool) {
	if nul {
		return
	}
	c.stats.DataRcvd++
	c.stats.BytesRcvd += uint64(len(data))
	c.deliver(append([]byte(nil), data...))
}

func (c *Conn) deliver(p []byte) {
	c.q = append(c.q, p)
	c.ep.cond.Broadcast()
}

// --- timers ---

// arm sets the connection's single timer to its earliest deadline.
func (c *Conn) arm() {
	var next time.Time
	at := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	switch c.state {
	case SynSent, SynRcvd:
		at(c.syn.deadline)
	case Open:
		for _, s := range c.out {
			if !s.eacked {
				at(s.deadline)
			}
		}
		if len(c.out) == 0 && c.ep.cfg.Keepalive > 0 {
			at(c.lastSend.Add(c.ep.cfg.Keepalive))
		}
	case CloseWait:
		at(c.closeWaitAt)
	default:
		c.timer.Stop()
		return
	}
	if next.IsZero() {
		c.timer.Stop()
		return
	}
	c.timer.Reset(max(time.Until(next), 0))
}

func (c *Conn) onTimer() {
	e := c.ep
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	now := time.Now()
	switch c.state {
	case SynSent, SynRcvd:
		if now.Before(c.syn.deadline) {
			break
		}
		if c.syn.retx >= e.cfg.MaxRetries || now.Sub(c.start) >= e.cfg.UserTimeout {
			c.finish(ErrTimeout)
			return
		}
		c.stats.Timeouts++
		c.backoff = min(c.backoff+1, 6)
		c.sendSyn(now)
	case Open:
		fired := false
		for _, s := range c.out {
			if s.eacked || now.Before(s.deadline) {
				continue
			}
			if s.retx >= e.cfg.MaxRetries || now.Sub(c.lastProgress) >= e.cfg.UserTimeout {
				c.sendCtl(rdpwire.FlagRST, c.nxt, 0, nil)
				c.finish(ErrTimeout)
				return
			}
			if !fired {
				// Bounded exponential backoff, once per expiry round.
				fired = true
				c.stats.Timeouts++
				c.backoff = min(c.backoff+1, 6)
			}
			c.retransmit(s, now)
		}
		if len(c.out) == 0 && e.cfg.Keepalive > 0 && !now.Before(c.lastSend.Add(e.cfg.Keepalive)) {
			// NUL keepalive (RFC 908 §3.5, Faber §4): consumes a sequence
			// number, so a dead peer shows up as a retransmission timeout.
			c.queue(rdpwire.FlagNUL, nil, now)
		}
	case CloseWait:
		if !now.Before(c.closeWaitAt) {
			c.finish(c.err)
			return
		}
	}
	c.arm()
}

func (c *Conn) enterCloseWait(now time.Time) {
	c.state = CloseWait
	c.closeWaitAt = now.Add(c.ep.cfg.CloseWait)
	c.out, c.ooo = nil, map[uint32]rxSeg{} // RDP close: undelivered data is abandoned
	c.arm()
	c.ep.cond.Broadcast()
}

// finish moves to CLOSED and frees the record.
func (c *Conn) finish(err error) {
	if c.err == nil {
		c.err = err
	}
	c.state = Closed
	c.out, c.ooo = nil, nil
	c.timer.Stop()
	if c.ep.conns[c.key] == c {
		delete(c.ep.conns, c.key)
	}
	c.ep.cond.Broadcast()
}

// abort ends a connection that its opener gave up on.
func (c *Conn) abort(err error) {
	if c.state == SynSent || c.state == SynRcvd || c.state == Open {
		c.sendCtl(rdpwire.FlagRST, c.nxt, 0, nil)
	}
	c.finish(err)
}
