// Package rdp is a userspace Reliable Data Protocol endpoint (RFC 908,
// version 2 of RFC 1151), after Faber's ACC/ARP implementation ("An
// Implementation of the Reliable Data Protocol for Active Networking"): open
// (passive and active), accept, send, recv, status and close, with sequenced
// or arrival-order delivery, cumulative ACKs plus EACKs, RTT-driven
// retransmission, reliable SYNs, NUL keepalives and RST close semantics.
//
// Segments are built and checked with dissect/rdp (HeaderFields.Encode, Seal,
// Header, Checksum), so the stack and the dissector share one layout. The
// carrier is a Transport: raw IP protocol 27, UDP encapsulation, or MemNet
// for tests.
package rdp

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net/netip"
	"sync"
	"syscall"
	"time"

	rdpwire "github.com/rdx-project/rdx/dissect/rdp"
)

// Errors of Dial, Send, Recv and Accept.
var (
	ErrRefused = errors.New("connection refused")
	ErrTimeout = errors.New("timed out")
	ErrReset   = errors.New("connection reset by peer")
	ErrClosed  = errors.New("connection closed")
	ErrTooBig  = errors.New("message larger than the peer's max segment size")
	ErrBusy    = errors.New("too many connections")
)

// Config sets an endpoint's parameters; zero fields take the defaults below.
type Config struct {
	MaxOutstanding int  // segments the peer may have unacknowledged (my SYN), default 16, cap 256
	MaxSegment     int  // largest data I accept, octets (my SYN), default 1024, cap 8192
	Unsequenced    bool // ask for arrival-order delivery (SDM clear)

	InitialRTO     time.Duration // before the first RTT sample, default 200ms
	MinRTO, MaxRTO time.Duration // default 20ms and 2s
	MaxRetries     int           // per segment, SYN included, default 12
	UserTimeout    time.Duration // no progress for this long fails the connection, default 10s
	Keepalive      time.Duration // idle time before a NUL probe, default 1s; <0 disables
	CloseWait      time.Duration // CLOSE-WAIT timer, default 1s

	// Trace, when set, sees every segment sent and received (after the
	// validity check for received ones, except that a segment failing only
	// its checksum is traced too), with the endpoint lock held.
	Trace func(sent bool, seg []byte, src, dst netip.Addr)
	Seed  uint64 // ISN generator seed; 0: random
}

// Limits that bound memory whatever the peer announces.
const (
	maxWindow  = 256
	maxSegCap  = 8192
	maxEacks   = 64 // per EACK segment (Header Length is one octet: at most 123 fit)
	maxConns   = 64 // connections per endpoint; when full, a SYN evicts the oldest half-open one
	maxBacklog = 8
	fastThresh = 3 // EACKed segments above a hole before it is resent (as TCP's 3 dup ACKs)
)

func (c *Config) defaults() {
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if c.MaxOutstanding <= 0 {
		c.MaxOutstanding = 16
	}
	c.MaxOutstanding = min(c.MaxOutstanding, maxWindow)
	if c.MaxSegment <= 0 {
		c.MaxSegment = 1024
	}
	c.MaxSegment = min(c.MaxSegment, maxSegCap)
	def(&c.InitialRTO, 200*time.Millisecond)
	def(&c.MinRTO, 20*time.Millisecond)
	def(&c.MaxRTO, 2*time.Second)
	def(&c.UserTimeout, 10*time.Second)
	def(&c.Keepalive, time.Second)
	def(&c.CloseWait, time.Second)
	if c.MaxRetries <= 0 {
		c.MaxRetries = 12
	}
}

// EndpointStats counts segments rejected before reaching a connection, and
// half-open connections evicted to make room for new SYNs.
type EndpointStats struct {
	Received, Invalid, BadChecksum, OtherPort, RSTsSent uint64
	Evicted                                             uint64
}

// Endpoint is one local RDP port on a transport: the connections to it and,
// after Listen, the passive open.
type Endpoint struct {
	tr   Transport
	port uint16
	cfg  Config

	mu        sync.Mutex
	cond      *sync.Cond
	conns     map[connKey]*Conn
	listening bool
	backlog   []*Conn
	closed    bool
	rng       *rand.Rand
	stats     EndpointStats
	done      chan struct{}
}

type connKey struct {
	link  netip.AddrPort
	rport uint16
}

// NewEndpoint binds RDP port port on tr and starts reading.
func NewEndpoint(tr Transport, port uint16, cfg Config) *Endpoint {
	cfg.defaults()
	seed := cfg.Seed
	if seed == 0 {
		var b [8]byte
		crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	}
	e := &Endpoint{tr: tr, port: port, cfg: cfg, conns: map[connKey]*Conn{},
		rng: rand.New(rand.NewPCG(seed, uint64(port))), done: make(chan struct{})}
	e.cond = sync.NewCond(&e.mu)
	go e.readLoop()
	return e
}

// Port is the endpoint's RDP port.
func (e *Endpoint) Port() uint16 { return e.port }

// Stats returns the endpoint-level counters.
func (e *Endpoint) Stats() EndpointStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// Listen is the passive open (RFC 908 §3.2.3): SYNs to this port now create
// connections, which Accept returns once OPEN.
func (e *Endpoint) Listen() {
	e.mu.Lock()
	e.listening = true
	e.mu.Unlock()
}

// Accept blocks for the next connection that completed its handshake.
func (e *Endpoint) Accept(ctx context.Context) (*Conn, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	stop := e.wakeOn(ctx)
	defer stop()
	for len(e.backlog) == 0 {
		if e.closed {
			return nil, ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.cond.Wait()
	}
	c := e.backlog[0]
	e.backlog = e.backlog[1:]
	return c, nil
}

// Dial is the active open (RFC 908 §3.2.3): it sends a SYN (reliably, Faber
// §4) to RDP port rport at link and blocks until OPEN, refusal or timeout
// (ctx, or MaxRetries SYNs unanswered).
func (e *Endpoint) Dial(ctx context.Context, link netip.AddrPort, rport uint16) (*Conn, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := connKey{link, rport}
	if old := e.conns[k]; old != nil {
		return nil, errors.New("rdp: connection to that port already exists")
	}
	if len(e.conns) >= maxConns {
		return nil, ErrBusy
	}
	c := e.newConn(k, false)
	c.state = SynSent
	c.sendSyn(time.Now())
	stop := e.wakeOn(ctx)
	defer stop()
	for c.state == SynSent || c.state == SynRcvd {
		if err := ctx.Err(); err != nil {
			c.abort(err)
			return nil, err
		}
		e.cond.Wait()
	}
	if c.state != Open {
		return nil, c.err
	}
	return c, nil
}

// Close ends every connection (each sends its RST) and the transport.
func (e *Endpoint) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	for _, c := range e.conns {
		if c.state == Open || c.state == SynRcvd || c.state == SynSent {
			c.sendCtl(rdpwire.FlagRST, c.nxt, 0, nil)
		}
		c.finish(ErrClosed)
	}
	e.closed = true
	e.cond.Broadcast()
	e.mu.Unlock()
	err := e.tr.Close()
	<-e.done
	return err
}

// wakeOn makes ctx's cancellation wake cond waiters.
func (e *Endpoint) wakeOn(ctx context.Context) func() {
	if ctx.Done() == nil {
		return func() {}
	}
	stop := context.AfterFunc(ctx, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	return func() { stop() }
}

func (e *Endpoint) readLoop() {
	defer close(e.done)
	buf := make([]byte, 65536)
	for {
		n, from, err := e.tr.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				e.refusedByICMP(from)
				continue
			}
			e.mu.Lock()
			closed := e.closed
			for _, c := range e.conns {
				c.finish(err)
			}
			e.closed = true
			e.cond.Broadcast()
			e.mu.Unlock()
			if closed {
				return
			}
			return
		}
		e.mu.Lock()
		if !e.closed {
			e.input(buf[:n], from, time.Now())
		}
		e.mu.Unlock()
	}
}

// refusedByICMP: nothing listens on the peer's UDP port.
func (e *Endpoint) refusedByICMP(from netip.AddrPort) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, c := range e.conns {
		if k.link == from && c.state == SynSent {
			c.err = ErrRefused
			c.finish(ErrRefused)
		}
	}
}

// Validate checks a received segment as the dissector does (spec §7) and
// returns its header view and data: version 2, lengths consistent with the
// datagram, flag combinations RFC 908 §3.4 allows, and the checksum (src,
// dst: pseudo-header addresses, zero for the bare form). ok is false for
// anything else; bad reports a checksum mismatch.
func Validate(seg []byte, src, dst netip.Addr) (h rdpwire.Header, data []byte, ok, bad bool) {
	h = rdpwire.Header(seg)
	if !h.Valid() || h.Version() != 2 || h.HLen() < rdpwire.MinHLen || h.HLenOctets()+h.DataLen() != len(seg) {
		return nil, nil, false, false
	}
	hl := h.HLenOctets()
	fl := h.Flags()
	data = seg[hl:]
	switch {
	case fl&rdpwire.FlagUnused != 0, h.SrcPort() == 0, h.DstPort() == 0:
		return nil, nil, false, false
	case fl&rdpwire.FlagSYN != 0 && (hl != rdpwire.SynHLen*2 || len(data) != 0 || fl&(rdpwire.FlagRST|rdpwire.FlagNUL|rdpwire.FlagEAK) != 0):
		return nil, nil, false, false
	case fl&(rdpwire.FlagRST|rdpwire.FlagNUL) != 0 && len(data) != 0, fl&rdpwire.FlagRST != 0 && fl&rdpwire.FlagNUL != 0:
		return nil, nil, false, false
	case fl&rdpwire.FlagEAK != 0 && (fl&rdpwire.FlagACK == 0 || hl == rdpwire.HeaderLen || (hl-rdpwire.HeaderLen)%4 != 0):
		return nil, nil, false, false
	case fl&(rdpwire.FlagSYN|rdpwire.FlagEAK) == 0 && hl != rdpwire.HeaderLen:
		return nil, nil, false, false
	}
	if rdpwire.Checksum(2, src, dst, seg[:hl], data) != h.Checksum() {
		return nil, nil, false, true
	}
	return h[:hl], data, true, false
}

// input handles one received segment (lock held).
func (e *Endpoint) input(seg []byte, from netip.AddrPort, now time.Time) {
	e.stats.Received++
	local := e.tr.LocalAddr(from)
	var remote netip.Addr
	if local.IsValid() {
		remote = from.Addr()
	}
	h, data, ok, bad := Validate(seg, remote, local)
	if !ok {
		if bad {
			e.stats.BadChecksum++
			// the capture shows what arrived, a corrupted segment too
			if e.cfg.Trace != nil && rdpwire.Header(seg).DstPort() == e.port {
				e.cfg.Trace(false, seg, from.Addr(), local)
			}
		} else {
			e.stats.Invalid++
		}
		return
	}
	if h.DstPort() != e.port {
		e.stats.OtherPort++ // raw IP: another process's port
		return
	}
	k := connKey{from, h.SrcPort()}
	c := e.conns[k]
	if c != nil && c.state == Closed {
		delete(e.conns, k)
		c = nil
	}
	if c != nil && e.cfg.Trace != nil {
		e.cfg.Trace(false, seg, from.Addr(), local)
	}
	if c == nil {
		e.closedInput(h, k, from, now, seg, local)
		return
	}
	c.input(h, data, now)
}

// closedInput is RFC 908 §3.7.2 for CLOSED and LISTEN (spec §6).
func (e *Endpoint) closedInput(h rdpwire.Header, k connKey, from netip.AddrPort, now time.Time, seg []byte, local netip.Addr) {
	fl := h.Flags()
	traced := false
	trace := func() {
		if e.cfg.Trace != nil && !traced {
			traced = true
			e.cfg.Trace(false, seg, from.Addr(), local)
		}
	}
	if fl&rdpwire.FlagRST != 0 {
		return
	}
	if e.listening && fl&rdpwire.FlagSYN != 0 && fl&rdpwire.FlagACK == 0 {
		if len(e.conns) >= maxConns && !e.evictHalfOpen() || len(e.backlog) >= maxBacklog {
			trace()
			e.reply(k, rdpwire.FlagRST|rdpwire.FlagACK, 0, h.Seq())
			return
		}
		trace()
		c := e.newConn(k, true)
		c.peerSyn(h)
		c.state = SynRcvd
		c.sendSyn(now)
		return
	}
	trace()
	if fl&(rdpwire.FlagACK|rdpwire.FlagNUL) != 0 {
		e.reply(k, rdpwire.FlagRST, h.Ack()+1, 0)
	} else {
		e.reply(k, rdpwire.FlagRST|rdpwire.FlagACK, 0, h.Seq())
	}
}

// evictHalfOpen drops the oldest passive connection still in SYN-RCVD, so
// a flood of SYNs (from spoofed sources that never complete the handshake)
// cannot fill the table for the length of the user timeout and lock real
// clients out: a client whose handshake takes less time than the flood
// needs to send maxConns SYNs still gets in, and one that loses resends its
// SYN. Nothing is sent to the evicted peer (most likely spoofed). It reports
// false when every connection is past its handshake.
func (e *Endpoint) evictHalfOpen() bool {
	var old *Conn
	for _, c := range e.conns {
		if c.passive && c.state == SynRcvd && (old == nil || c.start.Before(old.start)) {
			old = c
		}
	}
	if old == nil {
		return false
	}
	old.finish(ErrTimeout)
	e.stats.Evicted++
	return true
}

// reply sends a connectionless control segment.
func (e *Endpoint) reply(k connKey, flags uint8, seq, ack uint32) {
	e.stats.RSTsSent++
	hf := rdpwire.HeaderFields{Flags: flags, Version: 2, SrcPort: e.port, DstPort: k.rport, Seq: seq, Ack: ack}
	e.write(k.link, hf.Encode(nil, nil))
}

// write seals seg (RFC 1151 checksum, pseudo-header when the transport has
// addresses) and sends it.
func (e *Endpoint) write(link netip.AddrPort, seg []byte) {
	local := e.tr.LocalAddr(link)
	var remote netip.Addr
	if local.IsValid() {
		remote = link.Addr()
	}
	rdpwire.Seal(seg, local, remote)
	if e.cfg.Trace != nil {
		e.cfg.Trace(true, seg, local, link.Addr())
	}
	e.tr.WriteTo(seg, link)
}

func (e *Endpoint) newConn(k connKey, passive bool) *Conn {
	c := &Conn{ep: e, key: k, passive: passive, iss: e.rng.Uint32(),
		rcvMax: e.cfg.MaxOutstanding, rcvMSS: e.cfg.MaxSegment, sdm: !e.cfg.Unsequenced,
		rto: e.cfg.InitialRTO, ooo: map[uint32]rxSeg{}, start: time.Now()}
	c.nxt, c.una = c.iss+1, c.iss
	c.lastProgress = c.start
	c.timer = time.AfterFunc(time.Hour, c.onTimer)
	e.conns[k] = c
	return c
}
