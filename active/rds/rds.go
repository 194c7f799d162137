// Package rds is rdx's userspace RDS over TCP endpoint (wire protocol 3.1 as
// Linux rds_tcp speaks it), built on dissect/rds's header view and encoders.
//
// What it does, as Linux 6.1 does:
//   - one TCP connection per path, at most 8 paths (RDS_MPATH_WORKERS) per
//     address pair; the side that dials opens path 0, sends the handshake
//     probe (RDS port 1 to 0, extension headers NPATHS and GEN_NUM), and after
//     the pong opens paths 1..n-1; the accepting side numbers connections by
//     arrival, the first path not up (rds_tcp_accept_one_path);
//   - every path starts with a congestion map (RDS_FLAG_CONG_BITMAP, 8 KiB, one
//     bit per RDS port); a sender waits while the peer marks its port congested;
//   - per-path sequence numbers (h_sequence from 1); a message is acknowledged
//     when TCP has acknowledged its last octet (rds_tcp_is_acked, here from
//     SIOCOUTQ) or a peer's h_ack covers it; after a reconnect the unacked ones
//     are sent again with RDS_FLAG_RETRANSMITTED and the receiver drops those it
//     already has (seq below its next expected one), as recv.c does;
//   - a changed generation number means the peer restarted: sequence numbers
//     start over (rds_conn_peer_gen_update);
//   - pings (to RDS port 0) are answered with pongs;
//   - messages up to 1 MiB (RDS_MAX_MSG_SIZE): one header, then the payload
//     written in RDS_FRAG_SIZE (4096-octet) pieces, as rds_tcp_xmit sends pages.
//
// Linux rds_tcp leaves h_ack 0; rdx fills it with the highest sequence number
// it received on the same TCP connection (a kernel ignores it on TCP).
package rds

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rdx-project/rdx/active/impair"
	wire "github.com/rdx-project/rdx/dissect/rds"
)

// Limits.
const (
	// MaxPeers bounds the peers a listening endpoint tracks (address pairs,
	// each with up to 8 paths and its sequence state); a connection from one
	// more is refused with a log line.
	MaxPeers = 256
	// MaxQueued bounds the octets a path keeps for retransmission (sent, not
	// yet acknowledged); Send waits while a path is over it.
	MaxQueued = 16 << 20
	// RecvQueue is the messages delivered but not yet taken by Recv; when it
	// is full, the destination port is marked congested to the peer.
	RecvQueue = 64
)

// Errors.
var (
	ErrClosed    = errors.New("rds: endpoint closed")
	ErrTooBig    = fmt.Errorf("rds: message over %d octets (RDS_MAX_MSG_SIZE)", wire.MaxMsgLen)
	ErrCongested = errors.New("rds: destination port congested at the peer")
)

// Config tunes an endpoint.
type Config struct {
	NPaths  int           // paths to advertise and use, 1-8 (0: 8, as Linux)
	Gen     uint32        // generation number in the probe (0: random, not 0)
	Timeout time.Duration // give up a dial, a reconnect, a congested port or unacked data after this (0: 10 s)
	Impair  *impair.Shim  // faults on sent units (a unit = one RDS message written to TCP)
	Log     io.Writer     // events: reconnects, retransmissions, duplicates dropped, congestion (nil: none)

	// CutAt (testing) closes the first path whose TCP stream reaches this
	// many octets, there (in the middle of a message), to force a reconnect.
	CutAt int64
}

func (c *Config) norm() {
	if c.NPaths <= 0 || c.NPaths > wire.MaxPaths {
		c.NPaths = wire.MaxPaths
	}
	for c.Gen == 0 {
		c.Gen = rand.Uint32()
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
}

// Message is one delivered RDS datagram.
type Message struct {
	Peer         netip.Addr
	Sport, Dport uint16
	Path         int
	Seq          uint64
	Data         []byte
}

// Stats counts what an endpoint did.
type Stats struct {
	MsgsSent, MsgsRcvd, BytesSent, BytesRcvd uint64
	Retransmits, Reconnects, Duplicates      uint64 // resent messages; paths dialled again; retransmitted messages dropped on receipt
	Gaps                                     uint64 // sequence numbers skipped by the peer (a drop, as Linux accepts and moves on)
	Pings, Pongs, CongSent, CongRcvd         uint64
}

type stats struct {
	msgsSent, msgsRcvd, bytesSent, bytesRcvd atomic.Uint64
	retransmits, reconnects, duplicates      atomic.Uint64
	gaps, pings, pongs, congSent, congRcvd   atomic.Uint64
}

// Endpoint is one RDS/TCP node: it listens, dials, or both.
type Endpoint struct {
	cfg Config
	ln  net.Listener

	mu     sync.Mutex
	peers  map[netip.Addr]*peer
	closed bool

	recv  chan Message
	done  chan struct{}
	st    stats
	lcong []byte // my congestion map (under mu)
	wg    sync.WaitGroup
	cut   atomic.Int64 // Config.CutAt, taken once
}

type peer struct {
	ep   *Endpoint
	addr netip.Addr
	dial netip.AddrPort // where to dial (zero: the peer dials us)

	amu    sync.Mutex // held while an accepted connection takes a path
	mu     sync.Mutex
	npaths int // 0 until the handshake
	gen    uint32
	fcong  []byte // the peer's congestion map
	congC  chan struct{}
	hs     chan struct{} // closed at the pong
	hsDone bool
	paths  [wire.MaxPaths]*path
	everUp bool
	nUp    int
}

type outMsg struct {
	seq          uint64
	sport, dport uint16
	data         []byte
	end          int64 // TCP stream offset just past the message (0: not written on this connection)
	sentAt       time.Time
	cgen         int  // the connection it was last handed to the shim on
	tried        bool // the shim passed it on (not dropped), written or not
}

type path struct {
	p   *peer
	idx int

	dmu     sync.Mutex // held while dialling
	xmu     sync.Mutex // orders transmissions: a reconnect's resends before new messages
	mu      sync.Mutex // conn, written, unacked, queued, nextTx; held while writing
	conn    net.Conn
	cgen    int // bumps at each connection, so a stale reader's error is ignored
	written int64
	unacked []*outMsg
	queued  int
	nextTx  uint64
	nextRx  uint64 // next sequence expected (kept across reconnects)
	lastRx  uint64 // highest sequence received on this connection, for h_ack
	wasUp   bool   // under xmu: a later connection is a reconnect
	// cutMid: the last connection ended inside a message, so the peer has
	// that message unacknowledged and will dial again to resend it
	cutMid atomic.Bool
	spaceC chan struct{}
}

func newEndpoint(cfg Config) *Endpoint {
	cfg.norm()
	ep := &Endpoint{cfg: cfg, peers: map[netip.Addr]*peer{}, recv: make(chan Message, RecvQueue),
		done: make(chan struct{}), lcong: make([]byte, wire.CongMapLen)}
	ep.cut.Store(cfg.CutAt)
	return ep
}

// Listen accepts RDS/TCP connections on addr (host:port; Linux's is 16385).
func Listen(addr string, cfg Config) (*Endpoint, error) {
	ep := newEndpoint(cfg)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ep.ln = ln
	ep.wg.Add(2)
	go ep.acceptLoop()
	go ep.ackLoop()
	return ep, nil
}

// Addr is the listening address.
func (ep *Endpoint) Addr() net.Addr { return ep.ln.Addr() }

// Conn is a dialled peer.
type Conn struct {
	ep *Endpoint
	p  *peer
}

// Dial connects to the RDS/TCP node at raddr: path 0, the congestion map,
// the handshake probe, then the other paths the pong allows. Linux accepts a
// connection only from an address lower than its own (the higher one is
// reset and Linux dials back instead): dial a kernel from the lower address.
func Dial(ctx context.Context, raddr netip.AddrPort, cfg Config) (*Conn, error) {
	ep := newEndpoint(cfg)
	p := ep.newPeer(raddr.Addr().Unmap())
	p.dial = raddr
	ep.mu.Lock()
	ep.peers[p.addr] = p
	ep.mu.Unlock()
	ep.wg.Add(1)
	go ep.ackLoop()
	c := &Conn{ep: ep, p: p}
	if err := p.connect(ctx, 0); err != nil {
		ep.Close()
		return nil, err
	}
	// the probe, as rds_send_ping: always on path 0
	p.paths[0].sendProbe(wire.ProbePort, 0)
	select {
	case <-p.hs:
	case <-time.After(ep.cfg.Timeout):
		ep.logf("rds: no probe pong from %s within %v: one path", raddr, ep.cfg.Timeout)
		p.mu.Lock()
		p.npaths = 1
		p.mu.Unlock()
	case <-ctx.Done():
		ep.Close()
		return nil, ctx.Err()
	}
	// the dialling side opens the other paths, one at a time so the
	// acceptor numbers them as we do
	for i := 1; i < p.numPaths(); i++ {
		if err := p.connect(ctx, i); err != nil {
			ep.Close()
			return nil, fmt.Errorf("path %d: %w", i, err)
		}
	}
	return c, nil
}

// Paths is the number of paths in use (1 until the handshake ends).
func (c *Conn) Paths() int { return c.p.numPaths() }

// Endpoint is the endpoint behind c (for Recv and Stats).
func (c *Conn) Endpoint() *Endpoint { return c.ep }

func (ep *Endpoint) newPeer(a netip.Addr) *peer {
	p := &peer{ep: ep, addr: a, fcong: make([]byte, wire.CongMapLen), congC: make(chan struct{}), hs: make(chan struct{})}
	for i := range p.paths {
		p.paths[i] = &path{p: p, idx: i, nextTx: 1, spaceC: make(chan struct{}, 1)}
	}
	return p
}

func (p *peer) numPaths() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(p.npaths, 1)
}

func (ep *Endpoint) logf(format string, a ...any) {
	if ep.cfg.Log != nil {
		fmt.Fprintf(ep.cfg.Log, format+"\n", a...)
	}
}

// connect dials path i (again) and starts it: reader, congestion map, then
// the messages still unacknowledged, flagged as retransmissions.
func (p *peer) connect(ctx context.Context, i int) error {
	t := p.paths[i]
	t.dmu.Lock() // one dial per path at a time: Send and Flush may both find it down
	defer t.dmu.Unlock()
	t.mu.Lock()
	up := t.conn != nil
	t.mu.Unlock()
	if up {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.ep.cfg.Timeout)
	defer cancel()
	var d net.Dialer
	back := 50 * time.Millisecond
	for {
		c, err := d.DialContext(ctx, "tcp", p.dial.String())
		if err == nil {
			p.up(t, c)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("rds: connect %s: %w", p.dial, err)
		case <-time.After(back):
		}
		back = min(2*back, time.Second)
	}
}

// up installs c as path t's connection.
func (p *peer) up(t *path, c net.Conn) {
	ep := p.ep
	t.xmu.Lock()
	defer t.xmu.Unlock()
	t.mu.Lock()
	t.conn = c
	t.cgen++
	gen := t.cgen
	t.written, t.lastRx = 0, 0
	resend := slices.Clone(t.unacked)
	t.mu.Unlock()
	// Close sets closed before it takes the paths down: either it sees this
	// connection or this sees closed
	ep.mu.Lock()
	closed := ep.closed
	ep.mu.Unlock()
	if closed {
		t.down(gen, net.ErrClosed)
		return
	}
	if t.wasUp {
		ep.st.reconnects.Add(1)
	}
	t.wasUp = true
	p.mu.Lock()
	p.everUp = true
	p.nUp++
	p.mu.Unlock()
	t.cutMid.Store(false) // after nUp counts this path: PeersDown never sees neither
	ep.wg.Add(1)
	go t.readLoop(c, gen)
	// rds_connect_path_complete queues the congestion map on every path
	t.sendCong()
	for _, m := range resend {
		ep.st.retransmits.Add(1)
		t.transmitLocked(m, wire.FlagRetrans)
	}
	if len(resend) > 0 {
		ep.logf("rds: %s path %d: reconnected, resent %d unacknowledged messages (seq %d-%d)", p.addr, t.idx, len(resend), resend[0].seq, resend[len(resend)-1].seq)
	}
}

// down drops path t's connection gen after err.
func (t *path) down(gen int, err error) {
	t.mu.Lock()
	if gen != t.cgen || t.conn == nil {
		t.mu.Unlock()
		return
	}
	t.conn.Close()
	t.conn = nil
	for _, m := range t.unacked {
		m.end = 0
	}
	t.mu.Unlock()
	p := t.p
	p.mu.Lock()
	p.nUp--
	p.mu.Unlock()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		p.ep.logf("rds: %s path %d down: %v", p.addr, t.idx, err)
	}
}

// write puts b on the wire as Linux would: the header, then the payload in
// RDS_FRAG_SIZE pieces. It records where the message ends in the stream.
func (t *path) write(b []byte, m *outMsg) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.conn
	if m != nil {
		m.tried = true
	}
	if c == nil {
		return net.ErrClosed
	}
	gen := t.cgen
	var err error
	for off := 0; off < len(b) && err == nil; {
		n := min(len(b)-off, wire.FragSize)
		if off == 0 {
			n = min(len(b), wire.HeaderLen)
		}
		if cut := t.p.ep.cut.Load(); cut > 0 && t.written < cut && t.written+int64(n) >= cut && t.p.ep.cut.CompareAndSwap(cut, 0) {
			c.Write(b[off : off+int(cut-t.written)])
			t.written = cut
			err = errors.New("connection cut by the test")
			break
		}
		n, err = c.Write(b[off : off+n])
		off += n
		t.written += int64(n)
	}
	// a message cut short has no end: between this unlock and down, the
	// ack loop could otherwise count it acknowledged by TCP's octets
	if m != nil && err == nil {
		m.end = t.written
	}
	if err != nil {
		t.mu.Unlock()
		t.down(gen, err)
		t.mu.Lock()
	}
	return err
}

// transmit sends m (again) through the impairment shim with its sequence
// number and the given extra flags.
func (t *path) transmit(m *outMsg, flags uint8) {
	t.xmu.Lock()
	defer t.xmu.Unlock()
	t.transmitLocked(m, flags)
}

func (t *path) transmitLocked(m *outMsg, flags uint8) {
	t.mu.Lock()
	f := wire.HeaderFields{Seq: m.seq, Ack: t.lastRx, Len: uint32(len(m.data)), Sport: m.sport, Dport: m.dport, Flags: flags}
	b := f.Encode(make([]byte, 0, wire.HeaderLen+len(m.data)))
	m.sentAt, m.end, m.cgen, m.tried = time.Now(), 0, t.cgen, false
	t.mu.Unlock()
	b = append(b, m.data...)
	t.p.ep.cfg.Impair.Send(b, func(p []byte) error { return t.write(p, m) })
}

// sendCtl writes an unqueued control message (congestion map, probe, pong).
func (t *path) sendCtl(f wire.HeaderFields, data []byte) {
	t.mu.Lock()
	if f.Flags != wire.FlagCongBitmap {
		f.Seq = t.nextTx // probes and pongs are sequenced (rds_send_probe)
		t.nextTx++
	}
	f.Ack, f.Len = t.lastRx, uint32(len(data))
	t.mu.Unlock()
	t.write(append(f.Encode(nil), data...), nil)
}

func (t *path) sendCong() {
	ep := t.p.ep
	ep.mu.Lock()
	m := slices.Clone(ep.lcong)
	ep.mu.Unlock()
	ep.st.congSent.Add(1)
	t.sendCtl(wire.HeaderFields{Flags: wire.FlagCongBitmap}, m)
}

func (t *path) sendProbe(sport, dport uint16) {
	ep := t.p.ep
	t.sendCtl(wire.HeaderFields{Sport: sport, Dport: dport, Ext: wire.ProbeExt(uint16(ep.cfg.NPaths), ep.cfg.Gen)}, nil)
}

// Send queues one message from RDS port sport to dport and writes it on the
// path its source port hashes to (Linux hashes the bound port with a random
// seed; rdx takes sport mod paths, so one socket's messages keep one path and
// their order). It returns once the message is written, not acknowledged.
func (c *Conn) Send(ctx context.Context, sport, dport uint16, data []byte) error {
	ep, p := c.ep, c.p
	if len(data) > wire.MaxMsgLen {
		return ErrTooBig
	}
	if err := p.waitUncongested(ctx, dport); err != nil {
		return err
	}
	t := p.paths[int(sport)%p.numPaths()]
	if err := c.ensureUp(ctx, t); err != nil {
		return err
	}
	// bound what waits for acknowledgement
	deadline := time.Now().Add(ep.cfg.Timeout)
	for {
		t.mu.Lock()
		q := t.queued
		t.mu.Unlock()
		if q+len(data) <= MaxQueued || q == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rds: %s path %d: %d octets unacknowledged for %v", p.addr, t.idx, q, ep.cfg.Timeout)
		}
		select {
		case <-t.spaceC:
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.mu.Lock()
	m := &outMsg{seq: t.nextTx, sport: sport, dport: dport, data: slices.Clone(data)}
	t.nextTx++
	t.unacked = append(t.unacked, m)
	t.queued += len(data)
	t.mu.Unlock()
	ep.st.msgsSent.Add(1)
	ep.st.bytesSent.Add(uint64(len(data)))
	t.transmit(m, 0)
	return nil
}

// ensureUp reconnects a path that went down (the dialling side does, as
// rds_conn_path_connect_if_down), sending its unacked messages again.
func (c *Conn) ensureUp(ctx context.Context, t *path) error {
	t.mu.Lock()
	up := t.conn != nil
	t.mu.Unlock()
	if up {
		return nil
	}
	return c.p.connect(ctx, t.idx)
}

func (p *peer) waitUncongested(ctx context.Context, dport uint16) error {
	deadline := time.After(p.ep.cfg.Timeout)
	logged := false
	for {
		p.mu.Lock()
		cong, ch := wire.CongIsSet(p.fcong, dport), p.congC
		p.mu.Unlock()
		if !cong {
			return nil
		}
		if !logged {
			p.ep.logf("rds: %s marks RDS port %d congested: waiting", p.addr, dport)
			logged = true
		}
		select {
		case <-ch:
		case <-deadline:
			return fmt.Errorf("%w: port %d at %s for %v", ErrCongested, dport, p.addr, p.ep.cfg.Timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Flush waits until every message sent is acknowledged, reconnecting paths
// that went down (and resending) as needed.
func (c *Conn) Flush(ctx context.Context) error {
	ep, p := c.ep, c.p
	c.ep.cfg.Impair.Flush()
	deadline := time.Now().Add(ep.cfg.Timeout)
	for {
		pending := 0
		for i := 0; i < p.numPaths(); i++ {
			t := p.paths[i]
			t.mu.Lock()
			n, up := len(t.unacked), t.conn != nil
			t.mu.Unlock()
			pending += n
			if n > 0 && !up {
				if err := c.ensureUp(ctx, t); err != nil {
					return err
				}
				deadline = time.Now().Add(ep.cfg.Timeout)
			}
		}
		if pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rds: %d messages to %s unacknowledged after %v", pending, p.addr, ep.cfg.Timeout)
		}
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close flushes and closes every path (FIN), then the endpoint.
func (c *Conn) Close(ctx context.Context) error {
	err := c.Flush(ctx)
	c.ep.Close()
	return err
}

// Recv returns the next delivered message.
func (ep *Endpoint) Recv(ctx context.Context) (Message, error) {
	select {
	case m := <-ep.recv:
		return m, nil
	case <-ctx.Done():
		return Message{}, ctx.Err()
	case <-ep.done:
		select {
		case m := <-ep.recv:
			return m, nil
		default:
		}
		return Message{}, ErrClosed
	}
}

// Messages is the queue Recv takes from, for a select.
func (ep *Endpoint) Messages() <-chan Message { return ep.recv }

// PeersDown returns a channel closed when, after some peer connected, no path
// of any peer is up any more (the peers closed their connections). A path
// whose connection ended inside a message counts as up: its peer will dial
// again to resend that message.
func (ep *Endpoint) PeersDown() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			ep.mu.Lock()
			seen, up := false, 0
			for _, p := range ep.peers {
				p.mu.Lock()
				seen = seen || p.everUp
				up += p.nUp
				p.mu.Unlock()
				for _, t := range p.paths {
					if t.cutMid.Load() {
						up++ // coming back
					}
				}
			}
			ep.mu.Unlock()
			if seen && up == 0 {
				return
			}
			select {
			case <-ep.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return ch
}

// peersLocked copies the peer set (ep.mu held) so that paths can be locked
// and written to after ep.mu is released.
func (ep *Endpoint) peersLocked() []*peer {
	peers := make([]*peer, 0, len(ep.peers))
	for _, p := range ep.peers {
		peers = append(peers, p)
	}
	return peers
}

// Close closes the listener and every path.
func (ep *Endpoint) Close() error {
	ep.mu.Lock()
	if ep.closed {
		ep.mu.Unlock()
		return nil
	}
	ep.closed = true
	close(ep.done)
	peers := ep.peersLocked()
	ep.mu.Unlock()
	if ep.ln != nil {
		ep.ln.Close()
	}
	for _, p := range peers {
		for _, t := range p.paths {
			t.mu.Lock()
			g := t.cgen
			t.mu.Unlock()
			t.down(g, net.ErrClosed)
		}
	}
	ep.wg.Wait()
	return nil
}

// Stats returns the counters.
func (ep *Endpoint) Stats() Stats {
	s := &ep.st
	return Stats{MsgsSent: s.msgsSent.Load(), MsgsRcvd: s.msgsRcvd.Load(), BytesSent: s.bytesSent.Load(), BytesRcvd: s.bytesRcvd.Load(),
		Retransmits: s.retransmits.Load(), Reconnects: s.reconnects.Load(), Duplicates: s.duplicates.Load(), Gaps: s.gaps.Load(),
		Pings: s.pings.Load(), Pongs: s.pongs.Load(), CongSent: s.congSent.Load(), CongRcvd: s.congRcvd.Load()}
}

func (ep *Endpoint) acceptLoop() {
	defer ep.wg.Done()
	for {
		c, err := ep.ln.Accept()
		if err != nil {
			return
		}
		ap, _ := netip.ParseAddrPort(c.RemoteAddr().String())
		a := ap.Addr().Unmap()
		ep.mu.Lock()
		p := ep.peers[a]
		if p == nil && len(ep.peers) < MaxPeers && !ep.closed {
			p = ep.newPeer(a)
			ep.peers[a] = p
		}
		ep.mu.Unlock()
		if p == nil {
			ep.logf("rds: refusing %s: %d peers tracked already (MaxPeers)", a, MaxPeers)
			c.Close()
			continue
		}
		ep.wg.Add(1)
		go p.accept(c)
	}
}

// acceptWait is how long an accepted connection waits for a path to be free:
// a peer that dials again after losing a connection may be quicker than the
// end of the old one reaching us.
const acceptWait = 2 * time.Second

// accept gives c the first path not up (rds_tcp_accept_one_path), waiting
// for one while all are up.
func (p *peer) accept(c net.Conn) {
	ep := p.ep
	defer ep.wg.Done()
	deadline := time.Now().Add(acceptWait)
	for {
		p.amu.Lock()
		for _, t := range p.paths[:p.numPaths()] {
			t.mu.Lock()
			free := t.conn == nil
			t.mu.Unlock()
			if free {
				p.up(t, c)
				p.amu.Unlock()
				return
			}
		}
		p.amu.Unlock()
		if time.Now().After(deadline) {
			ep.logf("rds: refusing a connection from %s: all %d paths up", p.addr, p.numPaths())
			c.Close()
			return
		}
		select {
		case <-ep.done:
			c.Close()
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// ackLoop releases messages TCP has acknowledged (rds_tcp_is_acked compares
// with snd_una; here the stream offset written minus SIOCOUTQ).
func (ep *Endpoint) ackLoop() {
	defer ep.wg.Done()
	tk := time.NewTicker(5 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-ep.done:
			return
		case <-tk.C:
		}
		ep.mu.Lock()
		peers := ep.peersLocked()
		ep.mu.Unlock()
		for _, p := range peers {
			for _, t := range p.paths {
				t.mu.Lock()
				if t.conn != nil && len(t.unacked) > 0 {
					if q, ok := outq(t.conn); ok {
						t.releaseLocked(t.written-int64(q), 0)
					}
				}
				t.mu.Unlock()
			}
		}
	}
}

// releaseLocked drops unacked messages that end at or before stream offset
// acked, or whose sequence number is at most seq (a peer's h_ack), or that
// the impairment shim dropped (never written).
func (t *path) releaseLocked(acked int64, seq uint64) {
	n := 0
	for _, m := range t.unacked {
		// the shim dropped it: never written, lost on purpose (a reordered
		// unit is held for at most the shim's hold time)
		dropped := m.end == 0 && !m.tried && m.cgen == t.cgen && t.conn != nil &&
			time.Since(m.sentAt) > impair.DefaultHold+200*time.Millisecond
		gone := (m.end > 0 && m.end <= acked) || (seq != 0 && m.seq <= seq) || dropped
		if gone {
			t.queued -= len(m.data)
			continue
		}
		t.unacked[n] = m
		n++
	}
	if n < len(t.unacked) {
		clear(t.unacked[n:])
		t.unacked = t.unacked[:n]
		select {
		case t.spaceC <- struct{}{}:
		default:
		}
	}
}

// readLoop frames the messages of one connection.
func (t *path) readLoop(c net.Conn, gen int) {
	ep := t.p.ep
	defer ep.wg.Done()
	br := bufio.NewReaderSize(c, 64<<10)
	hdr := make(wire.Header, wire.HeaderLen)
	for {
		if n, err := io.ReadFull(br, hdr); err != nil {
			t.cutMid.Store(n > 0)
			t.down(gen, err)
			return
		}
		// a length over 1 MiB, or a congestion map not 8 KiB, means the
		// framing is lost: nothing after it can be trusted
		if pr := hdr.Check(); pr&(wire.ProbLen|wire.ProbCongLen) != 0 {
			t.down(gen, fmt.Errorf("bad RDS header (h_len %d, h_flags %#x): framing lost", hdr.Len(), hdr.Flags()))
			return
		}
		data := make([]byte, hdr.Len())
		if n, err := io.ReadFull(br, data); err != nil {
			t.cutMid.Store(true)
			t.down(gen, fmt.Errorf("message seq %d cut after %d of %d payload octets: %w", hdr.Seq(), n, hdr.Len(), err))
			return
		}
		if !t.handle(hdr, data) {
			return
		}
	}
}

// handle acts on one received message as rds_recv_incoming and
// rds_tcp_cong_recv do. It returns false when the endpoint is closing.
func (t *path) handle(h wire.Header, data []byte) bool {
	p, ep := t.p, t.p.ep
	if h.Ack() != 0 {
		t.mu.Lock()
		t.releaseLocked(0, h.Ack())
		t.mu.Unlock()
	}
	if h.IsCong() {
		ep.st.congRcvd.Add(1)
		p.mu.Lock()
		copy(p.fcong, data)
		close(p.congC)
		p.congC = make(chan struct{})
		p.mu.Unlock()
		return true
	}
	seq := h.Seq()
	t.mu.Lock()
	if seq < t.nextRx && h.Flags()&wire.FlagRetrans != 0 {
		t.mu.Unlock()
		ep.st.duplicates.Add(1)
		ep.logf("rds: %s path %d: dropped retransmitted seq %d (have up to %d)", p.addr, t.idx, seq, t.nextRx-1)
		return true
	}
	if t.nextRx != 0 && seq > t.nextRx {
		ep.st.gaps.Add(seq - t.nextRx)
		ep.logf("rds: %s path %d: seq %d after %d: %d messages lost (accepted, as Linux does)", p.addr, t.idx, seq, t.nextRx-1, seq-t.nextRx)
	}
	if seq != 0 {
		t.nextRx = seq + 1
		t.lastRx = max(t.lastRx, seq)
	}
	t.mu.Unlock()

	switch {
	case h.Dport() == 0: // a ping
		if h.Sport() == 0 {
			return true // Linux ignores a ping from port 0 (and an ACK-only header)
		}
		ep.st.pings.Add(1)
		if h.IsProbe() {
			// the peer's extensions before the pong (recv.c queues the pong
			// first, but sends it later): a peer answering the pong on
			// another path must find the paths count and a restart's reset
			p.handshake(h)
			t.sendCtl(wire.HeaderFields{Sport: 0, Dport: h.Sport(), Ext: wire.ProbeExt(uint16(ep.cfg.NPaths), ep.cfg.Gen)}, nil)
		} else {
			t.sendCtl(wire.HeaderFields{Sport: 0, Dport: h.Sport()}, nil)
		}
		return true
	case h.IsProbePong():
		ep.st.pongs.Add(1)
		p.handshake(h)
		return true
	case h.Sport() == 0: // a pong to one of our pings
		ep.st.pongs.Add(1)
		return true
	}
	ep.st.msgsRcvd.Add(1)
	ep.st.bytesRcvd.Add(uint64(len(data)))
	m := Message{Peer: p.addr, Sport: h.Sport(), Dport: h.Dport(), Path: t.idx, Seq: seq, Data: data}
	select {
	case ep.recv <- m:
		return true
	default:
	}
	// the reader is over its queue: mark the port congested to the peer
	// until the application catches up (rds_recv_rcvbuf_delta)
	ep.setCong(h.Dport(), true)
	defer ep.setCong(h.Dport(), false)
	select {
	case ep.recv <- m:
		return true
	case <-ep.done:
		return false
	}
}

// handshake takes the peer's NPATHS and generation number from a probe or
// pong (rds_recv_hs_exthdrs, rds_conn_peer_gen_update).
func (p *peer) handshake(h wire.Header) {
	n, gen := h.Handshake()
	p.mu.Lock()
	np := min(int(max(n, 1)), p.ep.cfg.NPaths)
	restarted := gen != 0 && p.gen != 0 && gen != p.gen
	if gen != 0 {
		p.gen = gen
	}
	p.npaths = np
	if !p.hsDone {
		p.hsDone = true
		close(p.hs)
	}
	p.mu.Unlock()
	if restarted {
		// rds_conn_peer_gen_update: both sequence spaces start over and the
		// messages waiting for an ack from the old incarnation are flushed
		flushed := 0
		for _, t := range p.paths {
			t.mu.Lock()
			t.nextRx, t.nextTx = 0, 1
			flushed += len(t.unacked)
			clear(t.unacked)
			t.unacked, t.queued = t.unacked[:0], 0
			t.mu.Unlock()
		}
		p.ep.logf("rds: %s restarted (generation %d): sequence numbers start over, %d unacknowledged messages flushed", p.addr, gen, flushed)
	}
}

// setCong changes my congestion map and sends it on every path up
// (rds_cong_queue_updates).
func (ep *Endpoint) setCong(port uint16, on bool) {
	ep.mu.Lock()
	wire.CongSet(ep.lcong, port, on)
	peers := ep.peersLocked()
	ep.mu.Unlock()
	for _, p := range peers {
		for _, t := range p.paths {
			t.mu.Lock()
			up := t.conn != nil
			t.mu.Unlock()
			if up {
				t.sendCong()
			}
		}
	}
}
