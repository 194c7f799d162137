// Package rx is a userspace Rx endpoint (the AFS RPC transport over UDP),
// rxnull security only: client and server calls on the four channels of a
// connection, DATA with sequence and serial numbers, ACKs with the ack-octet
// window and the MTU/window trailer, retransmission on timeout and on NACK,
// jumbograms on send and receive, ACK pings (PING/PING_RESPONSE), ABORT, and
// the connection-less DEBUG and VERSION packets rxdebug uses. The wire
// formats are dissect/rx's (header view and encoders), so what rdx sends is
// what its dissector reads.
//
// Every table is bounded (MaxConns, MaxPeers, MaxCallData, Window); an
// endpoint that hits a limit evicts the least recently used idle entry or
// aborts the call, and counts it in Stats.
package rx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rdx-project/rdx/active/impair"
	wire "github.com/rdx-project/rdx/dissect/rx"
)

// Limits. Each bounds a table that grows with what peers send.
const (
	// MaxConns is how many connections (client and server) an endpoint
	// keeps; a new one evicts the least recently used connection without
	// an active call, or is refused (BUSY for a server connection).
	MaxConns = 1024
	// MaxPeers bounds the per-peer statistics DEBUG GETPEER reports; the
	// least recently used peer is forgotten.
	MaxPeers = 256
	// MaxCallData bounds one direction of a call (request or reply); a
	// larger one is aborted with RX_PROTOCOL_ERROR.
	MaxCallData = 4 << 20
	// Window is the receive window (packets beyond the last one delivered)
	// and the most packets in flight, whatever the peer advertises.
	Window = 32
	// MaxJumbo is the most packets sent in one jumbogram, and what the ACK
	// trailer advertises as received.
	MaxJumbo = 4
	// PacketData is the data octets of each packet rdx sends: a
	// jumbogram's sub-packet size, so any run of full packets can be joined.
	PacketData = wire.JumboLen
	// MaxDatagram is the largest datagram rdx accepts, which its ACK
	// trailer advertises as max MTU (word 0): MaxJumbo packets in a
	// jumbogram, 5692 octets as OpenAFS says.
	MaxDatagram = wire.HeaderLen + MaxJumbo*wire.JumboLen + (MaxJumbo-1)*wire.JumboHdrLen
	// NatMTU is the trailer's interface MTU (word 1): the Rx datagram of a
	// 1500-octet Ethernet frame, as OpenAFS advertises.
	NatMTU = 1444
)

// Abort codes from rx.h and rxgen.
const (
	CodeCallDead         = 0xFFFFFFFF // RX_CALL_DEAD (-1)
	CodeInvalidOperation = 0xFFFFFFFE // RX_INVALID_OPERATION (-2)
	CodeCallTimeout      = 0xFFFFFFFD // RX_CALL_TIMEOUT (-3)
	CodeProtocolError    = 0xFFFFFFFB // RX_PROTOCOL_ERROR (-5)
	CodeRxgenOpcode      = 0xFFFFFE39 // RXGEN_OPCODE (-455)
)

// AbortError is a call ended by an ABORT (sent or received).
type AbortError struct {
	Code   uint32
	Remote bool // the peer sent it
}

func (e *AbortError) Error() string {
	who := "local"
	if e.Remote {
		who = "peer"
	}
	return fmt.Sprintf("rx: call aborted by %s, code %d", who, int32(e.Code))
}

// Handler serves one call: the request's octets (opcode first), the reply's
// octets or an abort code (non-zero).
type Handler func(service uint16, req []byte) (reply []byte, abort uint32)

// Config sets up an Endpoint.
type Config struct {
	// Handler serves incoming calls; nil makes a client-only endpoint that
	// aborts incoming calls with RX_INVALID_OPERATION.
	Handler Handler
	// Services lists the service IDs the handler serves (nil: any).
	Services []uint16
	// Version is the VERSION reply (at most 64 octets); "" answers with
	// "rdx". DEBUG and VERSION are answered whenever Handler is set.
	Version string
	// Jumbo allows sending jumbograms to a peer whose ACK trailer allows
	// more than one packet per datagram.
	Jumbo bool
	// Impair sees every datagram sent (nil: none).
	Impair *impair.Shim
	// Trace sees every datagram sent (after Impair: what went on the wire)
	// and received, with the addresses, for a pcap.
	Trace func(sent bool, dgram []byte, local, remote netip.AddrPort)
	// RTO is the first retransmission timeout (default 300ms); it adapts
	// to the measured round trip time, within [RTOMin, 4s].
	RTO    time.Duration
	RTOMin time.Duration // default 50ms
	// CallIdle ends a call whose peer has been silent this long (default
	// 30s; a waiting client pings every 2s, so a live server is never idle).
	CallIdle time.Duration
	// Log gets one line per retransmission, ABORT and eviction, if set.
	Log io.Writer
}

// Stats counts what the endpoint did (DEBUG RXSTATS reports them).
type Stats struct {
	PacketsRead, PacketsSent [14]uint32 // by packet type
	DataSent, DataResent     uint32
	DataPushed               uint32 // resent early because of a NACK
	DataRead, DupRead        uint32
	AcksSent, PingsSent      uint32
	AbortsSent, BusySent     uint32
	CallsExecuted            uint32
	JumbogramsSent           uint32
	JumbogramsRead           uint32
	ConnsEvicted, PeersEvict uint32
	BadPackets               uint32
}

// Endpoint is one UDP socket speaking Rx.
type Endpoint struct {
	uc    *net.UDPConn
	cfg   Config
	epoch uint32
	local netip.AddrPort

	mu       sync.Mutex
	conns    map[connKey]*conn
	peers    map[netip.AddrPort]*peer
	nextCID  uint32
	dbg      map[uint32]chan []byte // pending DEBUG/VERSION requests by call number
	dbgCall  uint32
	stats    Stats
	closed   bool
	done     chan struct{}
	wg       sync.WaitGroup
	services map[uint16]bool
}

type connKey struct {
	peer   netip.AddrPort
	epoch  uint32
	cid    uint32 // channel bits cleared
	server bool   // the peer initiated it
}

type peer struct {
	addr          netip.AddrPort
	rtt, rttVar   time.Duration // smoothed round trip time and its deviation
	nSent, resent uint32
	bytesSent     uint64
	bytesRead     uint64
	ifMTU, maxMTU uint32 // from the peer's ACK trailer
	window        uint32
	maxJumbo      uint32
	used          time.Time
}

type conn struct {
	key     connKey
	service uint16
	serial  uint32
	callNum [4]uint32
	calls   [4]*call
	peer    *peer
	used    time.Time
	err     uint32 // connection aborted
}

// Listen opens an endpoint on laddr ("127.0.0.1:0", ":7000").
func Listen(laddr string, cfg Config) (*Endpoint, error) {
	ua, err := net.ResolveUDPAddr("udp4", laddr)
	if err != nil {
		return nil, err
	}
	uc, err := net.ListenUDP("udp4", ua)
	if err != nil {
		return nil, err
	}
	uc.SetReadBuffer(4 << 20)
	if cfg.RTO <= 0 {
		cfg.RTO = 300 * time.Millisecond
	}
	if cfg.RTOMin <= 0 {
		cfg.RTOMin = 50 * time.Millisecond
	}
	if cfg.CallIdle <= 0 {
		cfg.CallIdle = 30 * time.Second
	}
	e := &Endpoint{uc: uc, cfg: cfg, conns: map[connKey]*conn{}, peers: map[netip.AddrPort]*peer{},
		dbg: map[uint32]chan []byte{}, done: make(chan struct{})}
	// The epoch is the start time, as OpenAFS does; the high bit stays
	// clear (connections are bound to the peer's address). The CID starts
	// at a random multiple of 4 so restarts do not collide.
	e.epoch = uint32(time.Now().Unix()) &^ 0x80000000
	e.nextCID = rand.Uint32() &^ 0x80000003
	e.dbgCall = 100
	e.local = uc.LocalAddr().(*net.UDPAddr).AddrPort()
	if len(cfg.Services) > 0 {
		e.services = map[uint16]bool{}
		for _, s := range cfg.Services {
			e.services[s] = true
		}
	}
	e.wg.Add(2)
	go e.readLoop()
	go e.timerLoop()
	return e, nil
}

// LocalAddr is the socket's address.
func (e *Endpoint) LocalAddr() netip.AddrPort { return e.local }

// Stats returns a copy of the counters.
func (e *Endpoint) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// Close stops the endpoint; calls in progress fail.
func (e *Endpoint) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	for _, c := range e.conns {
		for _, cl := range c.calls {
			if cl != nil {
				cl.finish(&AbortError{Code: CodeCallDead})
			}
		}
	}
	e.mu.Unlock()
	close(e.done)
	e.cfg.Impair.Flush()
	err := e.uc.Close()
	e.wg.Wait()
	return err
}

func (e *Endpoint) logf(format string, args ...any) {
	if e.cfg.Log != nil {
		fmt.Fprintf(e.cfg.Log, "rx: "+format+"\n", args...)
	}
}

// send puts one datagram on the wire through the impairment shim; e.mu is
// held (the shim copies what it holds back).
func (e *Endpoint) send(d []byte, to netip.AddrPort) {
	if len(d) >= wire.HeaderLen {
		if t := d[20]; int(t) < len(e.stats.PacketsSent) {
			e.stats.PacketsSent[t]++
		}
	}
	if p := e.peers[to]; p != nil {
		p.nSent++
		p.bytesSent += uint64(len(d))
	}
	e.cfg.Impair.Send(d, func(b []byte) error {
		if e.cfg.Trace != nil {
			e.cfg.Trace(true, b, e.local, to)
		}
		_, err := e.uc.WriteToUDPAddrPort(b, to)
		return err
	})
}

func (e *Endpoint) readLoop() {
	defer e.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := e.uc.ReadFromUDPAddrPort(buf)
		if err != nil {
			select {
			case <-e.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // ICMP errors on an unconnected socket: ignore
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		d := buf[:n]
		if e.cfg.Trace != nil {
			e.cfg.Trace(false, d, e.local, from)
		}
		e.mu.Lock()
		e.receive(d, from, time.Now())
		e.mu.Unlock()
	}
}

func (e *Endpoint) timerLoop() {
	defer e.wg.Done()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-e.done:
			return
		case now := <-t.C:
			e.mu.Lock()
			for _, c := range e.conns {
				for _, cl := range c.calls {
					if cl != nil {
						cl.tick(now)
					}
				}
			}
			e.mu.Unlock()
		}
	}
}

// peerFor returns the peer entry for a, evicting the least recently used
// beyond MaxPeers (a linear scan over at most MaxPeers entries).
func (e *Endpoint) peerFor(a netip.AddrPort, now time.Time) *peer {
	if p := e.peers[a]; p != nil {
		p.used = now
		return p
	}
	if len(e.peers) >= MaxPeers {
		var old *peer
		for _, p := range e.peers {
			if old == nil || p.used.Before(old.used) {
				old = p
			}
		}
		delete(e.peers, old.addr)
		e.stats.PeersEvict++
		e.logf("peer table full (%d): forgot %v", MaxPeers, old.addr)
	}
	p := &peer{addr: a, used: now, window: Window, maxJumbo: 1}
	e.peers[a] = p
	return p
}

// addConn inserts c, evicting the least recently used idle connection when
// the table is full; false when every connection has an active call.
func (e *Endpoint) addConn(c *conn) bool {
	if len(e.conns) >= MaxConns {
		var old *conn
		for _, x := range e.conns {
			if x.busy() {
				continue
			}
			if old == nil || x.used.Before(old.used) {
				old = x
			}
		}
		if old == nil {
			return false
		}
		delete(e.conns, old.key)
		e.stats.ConnsEvicted++
		e.logf("connection table full (%d): evicted %v cid %#x", MaxConns, old.key.peer, old.key.cid)
	}
	e.conns[c.key] = c
	return true
}

func (c *conn) busy() bool {
	for _, cl := range c.calls {
		if cl != nil && !cl.finished() {
			return true
		}
	}
	return false
}

// header fills the common header fields of a packet on call cl.
func (c *conn) header(e *Endpoint, ch int, callNum uint32, typ, flags uint8) wire.HeaderFields {
	c.serial++
	if !c.key.server {
		flags |= wire.FlagClientInitiated
	}
	return wire.HeaderFields{Epoch: c.key.epoch, CID: c.key.cid | uint32(ch), CallNumber: callNum,
		Serial: c.serial, Type: typ, Flags: flags, ServiceID: c.service}
}

// receive handles one datagram; e.mu is held.
func (e *Endpoint) receive(d []byte, from netip.AddrPort, now time.Time) {
	h := wire.Header(d)
	if !h.Valid() {
		e.stats.BadPackets++
		return
	}
	typ := h.Type()
	if int(typ) < len(e.stats.PacketsRead) {
		e.stats.PacketsRead[typ]++
	}
	if p := e.peers[from]; p != nil {
		p.bytesRead += uint64(len(d))
	}
	ci := h.Flags()&wire.FlagClientInitiated != 0
	switch typ {
	case wire.TypeDebug, wire.TypeVersion:
		if ci {
			if e.cfg.Handler != nil {
				e.answerDebug(d, from)
			}
		} else if ch, ok := e.dbg[h.CallNumber()]; ok {
			delete(e.dbg, h.CallNumber())
			ch <- append([]byte(nil), d[wire.HeaderLen:]...)
		}
		return
	}
	key := connKey{peer: from, epoch: h.Epoch(), cid: h.CID() &^ 3, server: ci}
	c := e.conns[key]
	if c == nil {
		if !ci || typ != wire.TypeData {
			return // not ours, or a stray packet for a call we forgot
		}
		if e.cfg.Handler == nil || (e.services != nil && !e.services[h.ServiceID()]) {
			// as OpenAFS: a connection-less abort for an unknown service
			e.sendRawAbort(h, from, CodeInvalidOperation)
			return
		}
		if h.SecurityIndex() != 0 {
			e.sendRawAbort(h, from, CodeInvalidOperation) // rxnull only
			return
		}
		c = &conn{key: key, service: h.ServiceID(), peer: e.peerFor(from, now)}
		if !e.addConn(c) {
			e.stats.BusySent++
			hf := wire.HeaderFields{Epoch: h.Epoch(), CID: h.CID(), CallNumber: h.CallNumber(), Serial: 1,
				Type: wire.TypeBusy, ServiceID: h.ServiceID()}
			e.send(hf.Encode(nil), from)
			return
		}
	}
	c.used = now
	c.peer.used = now
	if c.err != 0 {
		if typ != wire.TypeAbort {
			e.sendConnAbort(c, c.err)
		}
		return
	}
	if h.CallNumber() == 0 {
		if typ == wire.TypeAbort && len(d) >= wire.HeaderLen+4 {
			code := binary.BigEndian.Uint32(d[wire.HeaderLen:])
			c.err = code
			for _, cl := range c.calls {
				if cl != nil {
					cl.finish(&AbortError{Code: code, Remote: true})
				}
			}
		}
		return
	}
	ch := int(h.Channel())
	cl := c.calls[ch]
	if c.key.server {
		switch {
		case h.CallNumber() < c.callNum[ch]:
			return // an old call's straggler
		case h.CallNumber() > c.callNum[ch]:
			if typ != wire.TypeData {
				return
			}
			// a new call on the channel implicitly acknowledges the last
			c.callNum[ch] = h.CallNumber()
			cl = newCall(e, c, ch, h.CallNumber())
			c.calls[ch] = cl
			cl.serving = true
		}
	} else if cl == nil || h.CallNumber() != cl.num {
		return
	}
	if cl == nil {
		return
	}
	cl.heard = now
	switch typ {
	case wire.TypeData:
		cl.receiveData(d, now)
	case wire.TypeAck:
		if h.Flags()&wire.FlagRequestAck != 0 || (len(d) > wire.HeaderLen+16 && d[wire.HeaderLen+16] == wire.AckPing) {
			if cl.err == nil {
				cl.sendAck(wire.AckPingResponse, h.Serial(), now)
			} else {
				cl.sendAbort()
			}
		}
		cl.receiveAck(h, wire.Ack(d[wire.HeaderLen:]), now)
	case wire.TypeAbort:
		code := uint32(CodeCallDead)
		if len(d) >= wire.HeaderLen+4 {
			code = binary.BigEndian.Uint32(d[wire.HeaderLen:])
		}
		e.logf("%v call %d: ABORT %d from the peer", from, cl.num, int32(code))
		cl.finish(&AbortError{Code: code, Remote: true})
	case wire.TypeBusy:
		// the channel is busy at the server: the retransmission timer
		// tries again
	case wire.TypeAckAll:
		for _, p := range cl.out {
			p.acked = true
		}
		cl.hardAcked = uint32(len(cl.out))
	}
}

// sendRawAbort answers a packet with a connection-less ABORT (call 0,
// service 0), as OpenAFS does for an unknown service.
func (e *Endpoint) sendRawAbort(h wire.Header, to netip.AddrPort, code uint32) {
	e.stats.AbortsSent++
	hf := wire.HeaderFields{Epoch: h.Epoch(), CID: h.CID(), Serial: 1, Type: wire.TypeAbort}
	b := hf.Encode(nil)
	e.send(binary.BigEndian.AppendUint32(b, code), to)
}

func (e *Endpoint) sendConnAbort(c *conn, code uint32) {
	e.stats.AbortsSent++
	hf := c.header(e, 0, 0, wire.TypeAbort, 0)
	b := hf.Encode(nil)
	e.send(binary.BigEndian.AppendUint32(b, code), c.key.peer)
}

// Dial returns a new client connection to addr for service (rxnull).
// Connections are cheap: nothing is sent until the first call.
func (e *Endpoint) Dial(addr netip.AddrPort, service uint16) (*Conn, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, net.ErrClosed
	}
	cid := e.nextCID
	e.nextCID = (e.nextCID + 4) &^ 0x80000003
	c := &conn{key: connKey{peer: addr, epoch: e.epoch, cid: cid}, service: service,
		peer: e.peerFor(addr, time.Now()), used: time.Now()}
	if !e.addConn(c) {
		return nil, errors.New("rx: connection table full (every connection has an active call)")
	}
	return &Conn{e: e, c: c}, nil
}

// Conn is a client connection: up to four calls at once, one per channel.
type Conn struct {
	e *Endpoint
	c *conn
}

// Addr is the server's address.
func (c *Conn) Addr() netip.AddrPort { return c.c.key.peer }

// Epoch and CID identify the connection on the wire.
func (c *Conn) Epoch() uint32 { return c.c.key.epoch }
func (c *Conn) CID() uint32   { return c.c.key.cid }

// Call makes one call: sends req (opcode first), returns the reply.
func (c *Conn) Call(ctx context.Context, req []byte) ([]byte, error) {
	cl, err := c.Start(req, true)
	if err != nil {
		return nil, err
	}
	return cl.Wait(ctx)
}

// Start begins a call on a free channel. last false leaves the request
// open (no LAST_PACKET): the server waits for more, which is how rdx rx ping
// holds a call to ping on.
func (c *Conn) Start(req []byte, last bool) (*Call, error) {
	if len(req) > MaxCallData {
		return nil, fmt.Errorf("rx: request of %d octets exceeds MaxCallData (%d)", len(req), MaxCallData)
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, net.ErrClosed
	}
	ch := -1
	for i, cl := range c.c.calls {
		if cl == nil || cl.finished() {
			ch = i
			break
		}
	}
	if ch < 0 {
		return nil, errors.New("rx: all four channels of the connection are busy")
	}
	c.c.callNum[ch]++
	cl := newCall(e, c.c, ch, c.c.callNum[ch])
	c.c.calls[ch] = cl
	c.c.used = time.Now()
	cl.queue(req, last)
	cl.pump(time.Now())
	return &Call{cl: cl}, nil
}

// Call is a client call in progress.
type Call struct{ cl *call }

// Number and Channel identify the call on the wire.
func (c *Call) Number() uint32 { return c.cl.num }
func (c *Call) Channel() int   { return c.cl.ch }

// Wait returns the reply once complete, the abort, or ctx's error (then
// the call is aborted with RX_CALL_TIMEOUT).
func (c *Call) Wait(ctx context.Context) ([]byte, error) {
	select {
	case <-c.cl.done:
	case <-ctx.Done():
		c.Abort(CodeCallTimeout)
		return nil, fmt.Errorf("rx: call %d: %w", c.cl.num, ctx.Err())
	}
	e := c.cl.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.cl.err != nil {
		return nil, c.cl.err
	}
	return c.cl.in.data, nil
}

// Abort ends the call with an ABORT carrying code.
func (c *Call) Abort(code uint32) {
	e := c.cl.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.cl.finished() {
		return
	}
	c.cl.err = &AbortError{Code: code}
	c.cl.sendAbort()
	c.cl.finish(c.cl.err)
}

// Ping sends an ACK ping (reason PING, REQUEST_ACK) on the call and returns
// the time until the PING_RESPONSE.
func (c *Call) Ping(ctx context.Context) (time.Duration, error) {
	e := c.cl.e
	e.mu.Lock()
	ch := make(chan time.Time, 1)
	c.cl.pingWait = ch
	start := time.Now()
	c.cl.pingSerial = c.cl.sendAck(wire.AckPing, 0, start)
	e.stats.PingsSent++
	e.mu.Unlock()
	select {
	case t := <-ch:
		return t.Sub(start), nil
	case <-c.cl.done:
		e.mu.Lock()
		defer e.mu.Unlock()
		return 0, c.cl.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// ErrNoReply is a DEBUG or VERSION request that got no answer.
var ErrNoReply = errors.New("rx: no reply")

// Debug sends a connection-less DEBUG (typ 8) or VERSION (13) packet with
// body to addr, retrying after 1, 2, 4 s as rxdebug does (tries attempts at
// most), and returns the reply's body.
func (e *Endpoint) Debug(ctx context.Context, addr netip.AddrPort, typ uint8, body []byte, tries int) ([]byte, error) {
	e.mu.Lock()
	e.dbgCall++
	num := e.dbgCall
	ch := make(chan []byte, 1)
	e.dbg[num] = ch
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.dbg, num)
		e.mu.Unlock()
	}()
	wait := time.Second
	for i := 0; i < tries; i++ {
		hf := wire.HeaderFields{Epoch: e.epoch, CallNumber: num, Type: typ,
			Flags: wire.FlagClientInitiated | wire.FlagLastPacket}
		e.mu.Lock()
		e.send(append(hf.Encode(nil), body...), addr)
		e.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case b := <-ch:
			t.Stop()
			return b, nil
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
	return nil, ErrNoReply
}

// Version asks addr for its version string (VERSION packet, as rxdebug
// -version).
func (e *Endpoint) Version(ctx context.Context, addr netip.AddrPort) (string, error) {
	b, err := e.Debug(ctx, addr, wire.TypeVersion, []byte{0}, 3)
	if err != nil {
		return "", err
	}
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	return string(b), nil
}
