package iwarp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
)

// Limits on what a peer can make this side hold.
const (
	recvQueue    = 16              // completed Send messages not yet taken by Recv (each at most MaxMessage); the reader waits beyond it, which is TCP flow control
	drainTimeout = 2 * time.Second // how long a closing side reads on for the peer's FIN
)

// Conn is one iWARP connection (an RDMAP stream) in full operation.
type Conn struct {
	nc  net.Conn
	br  *bufio.Reader
	cfg Config
	p   Params

	// sending side
	txMu    sync.Mutex
	txPos   uint32    // FPDU stream position: where markers go
	msn     [3]uint32 // last MSN sent per queue: 0 Send, 1 Read Request, 2 Terminate
	txBuf   []byte
	fpBuf   []byte
	mulpdu  int
	canSend chan struct{} // closed once this side may send FPDUs
	sendOK  sync.Once

	mu      sync.Mutex
	mrs     map[uint32]*MR
	nmr     uint32
	reads   []*readOp // Read Requests in the order issued
	ord     chan struct{}
	err     error
	stats   Stats
	closing bool

	recvq chan Message
	done  chan struct{} // closed when the reader stops
	stop  sync.Once
	quit  chan struct{} // closed by Close: the reader stops waiting on recvq
	quitO sync.Once

	// receiving side, owned by the reader
	rxPos   uint32
	rxMSN   [3]uint32 // last MSN whose message completed, per queue
	msg     []byte
	msgMSN  uint32
	msgOpen bool
	rtrWant RTR // responder: the RTR expected first (peer-to-peer mode)
	fp, ul  []byte
}

// Stats counts what went over the connection.
type Stats struct {
	FPDUsSent, FPDUsRcvd uint64
	Sends, SendsRcvd     uint64
	Writes, WritesRcvd   uint64
	Reads, ReadsServed   uint64
}

// Message is one Send received.
type Message struct {
	Data []byte
	SE   bool // solicited event
}

// Access is what the peer may do to a registered buffer.
type Access uint8

const (
	RemoteRead Access = 1 << iota
	RemoteWrite
)

// MR is a buffer registered for tagged access: the peer names it by STag
// and addresses its octets by TO (TO is the first octet).
type MR struct {
	STag   uint32
	TO     uint64
	Buf    []byte
	access Access
}

// TerminateError ends a connection with an RDMAP Terminate, sent or
// received.
type TerminateError struct {
	Sent               bool
	Layer, EType, Code uint8
	Reason             string // what this side found (sent)
}

func (e *TerminateError) Error() string {
	what := ddp.TermText([]byte{e.Layer<<4 | e.EType&15, e.Code})
	if e.Sent {
		return "sent Terminate (" + what + "): " + e.Reason
	}
	return "peer sent Terminate (" + what + ")"
}

// Client runs the initiator's MPA exchange on nc and, in peer-to-peer mode,
// sends the RTR.
func Client(nc net.Conn, cfg Config) (*Conn, error) {
	rev := cfg.rev()
	if rev < 1 || rev > 2 {
		return nil, fmt.Errorf("MPA revision %d: want 1 or 2", rev)
	}
	enh := rev >= 2
	var ci, co uint16
	if enh && cfg.P2P != 0 {
		ci, co = cfg.P2P.bits()
		ci |= mpa.IRDPeerToPeer
	}
	req, err := cfg.buildStartup(false, rev, cfg.CRC, enh, false, ci, co, depth(cfg.ORD))
	if err != nil {
		return nil, err
	}
	if _, err := nc.Write(req); err != nil {
		return nil, fmt.Errorf("sending the MPA Request: %w", err)
	}
	br := bufio.NewReaderSize(nc, 1<<16)
	rep, err := readStartup(br, true)
	if err != nil {
		return nil, err
	}
	pd := rep.Private()
	if rep.Flags()&mpa.FlagR != 0 {
		if enhanced(rep) {
			pd = pd[4:]
		}
		return nil, &RejectError{Private: append([]byte(nil), pd...)}
	}
	if rep.Rev() == 0 || rep.Rev() > rev {
		return nil, fmt.Errorf("%w: Reply revision %d to a revision-%d Request", ErrStartup, rep.Rev(), rev)
	}
	p := Params{Rev: rep.Rev(), CRC: cfg.CRC || rep.Flags()&mpa.FlagC != 0, TxMarkers: rep.Flags()&mpa.FlagM != 0,
		RxMarkers: cfg.Markers, ORD: depth(cfg.ORD)}
	if cfg.CRCStrict && p.CRC != cfg.CRC {
		return nil, fmt.Errorf("%w: the responder wants CRCs and this side refuses them (strict)", ErrStartup)
	}
	if enh && enhanced(rep) {
		ird, ord, cI, cO := mpa.IRDORD(pd)
		p.Enhanced, p.PeerIRD, p.PeerORD, p.ORD = true, ird, ord, min(p.ORD, ird)
		pd = pd[4:]
		if cI&mpa.IRDPeerToPeer != 0 {
			r := rtrOf(cI, cO)
			if cfg.P2P == 0 || r&cfg.P2P != r || r != RTRSend && r != RTRWrite && r != RTRRead {
				return nil, fmt.Errorf("%w: the responder chose RTR %s, this side offered %s", ErrStartup, r, cfg.P2P)
			}
			p.RTR = r
		}
	}
	p.PeerPrivate = append([]byte(nil), pd...)
	c := newConn(nc, br, cfg, p)
	c.allowSend() // the initiator speaks first
	go c.readLoop()
	if err := c.sendRTR(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Server runs the responder's MPA exchange on nc: it reads the Request and
// answers with a Reply (a reject when cfg.Reject or when the Request cannot
// be met, returning a *RejectError naming why).
func Server(nc net.Conn, cfg Config) (*Conn, error) {
	br := bufio.NewReaderSize(nc, 1<<16)
	req, err := readStartup(br, false)
	if err != nil {
		return nil, err
	}
	rev := min(req.Rev(), cfg.rev())
	enh := rev >= 2 && enhanced(req)
	p := Params{Rev: rev, CRC: cfg.CRC || req.Flags()&mpa.FlagC != 0, TxMarkers: req.Flags()&mpa.FlagM != 0,
		RxMarkers: cfg.Markers, ORD: depth(cfg.ORD), Enhanced: enh}
	why := ""
	switch {
	case cfg.Reject:
		why = "refused (--reject)"
	case req.Rev() == 0:
		why, rev = "MPA revision 0 (draft) is not spoken", 1
	case cfg.CRCStrict && p.CRC != cfg.CRC:
		why = "the initiator wants CRCs and this side refuses them (strict)"
	}
	pd := req.Private()
	var ci, co uint16
	if enh {
		ird, ord, cI, cO := mpa.IRDORD(pd)
		p.PeerIRD, p.PeerORD, p.ORD = ird, ord, min(p.ORD, ird)
		pd = pd[4:]
		if cI&mpa.IRDPeerToPeer != 0 && cfg.P2P != 0 {
			offered := rtrOf(cI, cO) & cfg.P2P
			for _, r := range []RTR{RTRWrite, RTRRead, RTRSend} {
				if offered&r != 0 {
					p.RTR = r
					break
				}
			}
			if p.RTR == 0 && why == "" {
				why = "no RTR type in common (offered " + rtrOf(cI, cO).String() + ", accepted " + cfg.P2P.String() + ")"
			}
			ci, co = p.RTR.bits()
			ci |= mpa.IRDPeerToPeer
		}
	}
	p.PeerPrivate = append([]byte(nil), pd...)
	rc := cfg
	if why != "" && !cfg.Reject {
		rc.Private = []byte(why)
	}
	rep, err := rc.buildStartup(true, rev, p.CRC, enh, why != "", ci, co, p.ORD)
	if err != nil {
		return nil, err
	}
	if _, err := nc.Write(rep); err != nil {
		return nil, fmt.Errorf("sending the MPA Reply: %w", err)
	}
	if why != "" {
		return nil, &RejectError{Private: []byte(why)}
	}
	c := newConn(nc, br, cfg, p)
	c.rtrWant = p.RTR
	go c.readLoop()
	return c, nil
}

func newConn(nc net.Conn, br *bufio.Reader, cfg Config, p Params) *Conn {
	c := &Conn{nc: nc, br: br, cfg: cfg, p: p, mrs: map[uint32]*MR{}, canSend: make(chan struct{}),
		recvq: make(chan Message, recvQueue), done: make(chan struct{}), quit: make(chan struct{}), ord: make(chan struct{}, max(p.ORD, 1))}
	c.mulpdu = cfg.MULPDU
	if c.mulpdu <= 0 {
		c.mulpdu = mpa.MULPDU(emss(nc), p.TxMarkers)
	}
	c.mulpdu = max(c.mulpdu, 128)
	if cfg.MaxMessage <= 0 {
		c.cfg.MaxMessage = DefaultMaxMessage
	}
	if cfg.PartialTimeout <= 0 {
		c.cfg.PartialTimeout = DefaultPartialTimeout
	}
	c.logf("iwarp: %s, MULPDU %d", p, c.mulpdu)
	return c
}

// emss is the connection's TCP MSS (1460 when the socket cannot say).
func emss(nc net.Conn) int {
	mss := 1460
	if sc, ok := nc.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) {
				if v, err := syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG); err == nil && v > 0 {
					mss = v
				}
			})
		}
	}
	return mss
}

func (c *Conn) logf(format string, a ...any) {
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, format+"\n", a...)
	}
}

// Params returns what the MPA exchange settled.
func (c *Conn) Params() Params { return c.p }

// MULPDU is the largest DDP segment this side sends.
func (c *Conn) MULPDU() int { return c.mulpdu }

// Stats returns the counters so far.
func (c *Conn) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Err is why the connection ended (nil while it runs, io.EOF after the
// peer closed cleanly, a *TerminateError after a Terminate).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

func (c *Conn) count(f func(*Stats)) {
	c.mu.Lock()
	f(&c.stats)
	c.mu.Unlock()
}

// Register makes buf reachable by the peer with the returned STag.
func (c *Conn) Register(buf []byte, a Access) *MR {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nmr++
	mr := &MR{STag: c.nmr<<8 | 0x5a, TO: uint64(c.nmr) << 40, Buf: buf, access: a}
	c.mrs[mr.STag] = mr
	return mr
}

// Deregister makes mr unreachable.
func (c *Conn) Deregister(mr *MR) {
	c.mu.Lock()
	delete(c.mrs, mr.STag)
	c.mu.Unlock()
}

// ended is the error a call on a finished connection returns.
func (c *Conn) ended() error {
	if err := c.Err(); err != nil {
		return err
	}
	return net.ErrClosed
}

func (c *Conn) allowSend() { c.sendOK.Do(func() { close(c.canSend) }) }

// waitSend blocks the responder until the initiator's first FPDU arrived
// (RFC 5044 §7.1.2; in peer-to-peer mode, its RTR).
func (c *Conn) waitSend() error {
	select {
	case <-c.canSend:
		return nil
	case <-c.done:
		return c.ended()
	}
}

// writeFPDU frames one ULPDU and writes it (through the impairment shim);
// c.txMu is held.
func (c *Conn) writeFPDU(ulpdu []byte) error {
	c.fpBuf = mpa.EncodeFPDU(c.fpBuf[:0], ulpdu, c.txPos, c.p.TxMarkers, c.p.CRC)
	c.txPos += uint32(len(c.fpBuf))
	c.count(func(s *Stats) { s.FPDUsSent++ })
	write := func(b []byte) error { _, err := c.nc.Write(b); return err }
	if c.cfg.Impair != nil {
		return c.cfg.Impair.Send(c.fpBuf, write)
	}
	return write(c.fpBuf)
}

// untagged sends data as one message on queue qn, cut to the MULPDU.
func (c *Conn) untagged(op uint8, qn uint32, data []byte) error {
	c.txMu.Lock()
	defer c.txMu.Unlock()
	c.msn[qn]++
	max := c.mulpdu - ddp.UntaggedLen
	for mo := 0; ; {
		n := min(max, len(data)-mo)
		last := mo+n == len(data)
		c.txBuf = ddp.EncodeUntagged(c.txBuf[:0], last, op, 0, qn, c.msn[qn], uint32(mo), data[mo:mo+n])
		if err := c.writeFPDU(c.txBuf); err != nil {
			return err
		}
		if mo += n; last {
			return nil
		}
	}
}

// tagged sends data to stag at to, cut to the MULPDU.
func (c *Conn) tagged(op uint8, stag uint32, to uint64, data []byte) error {
	c.txMu.Lock()
	defer c.txMu.Unlock()
	max := c.mulpdu - ddp.TaggedLen
	for off := 0; ; {
		n := min(max, len(data)-off)
		last := off+n == len(data)
		c.txBuf = ddp.EncodeTagged(c.txBuf[:0], last, op, stag, to+uint64(off), data[off:off+n])
		if err := c.writeFPDU(c.txBuf); err != nil {
			return err
		}
		if off += n; last {
			return nil
		}
	}
}

// Send sends b as one RDMAP Send (Send with Solicited Event when se).
func (c *Conn) Send(b []byte, se bool) error {
	if err := c.waitSend(); err != nil {
		return err
	}
	op := uint8(ddp.OpSend)
	if se {
		op = ddp.OpSendSE
	}
	c.count(func(s *Stats) { s.Sends++ })
	return c.untagged(op, 0, b)
}

// Recv returns the next Send received; io.EOF when the peer closed.
func (c *Conn) Recv(ctx context.Context) (Message, error) {
	select {
	case m := <-c.recvq:
		return m, nil
	default:
	}
	select {
	case m := <-c.recvq:
		return m, nil
	case <-c.done:
		select {
		case m := <-c.recvq:
			return m, nil
		default:
		}
		return Message{}, c.ended()
	case <-ctx.Done():
		return Message{}, ctx.Err()
	}
}

// Write places b in the peer's buffer stag at to (RDMA Write).
func (c *Conn) Write(stag uint32, to uint64, b []byte) error {
	if err := c.waitSend(); err != nil {
		return err
	}
	c.count(func(s *Stats) { s.Writes++ })
	return c.tagged(ddp.OpWrite, stag, to, b)
}

// readOp is one outstanding RDMA Read.
type readOp struct {
	mr   *MR
	to   uint64 // sink TO the next Read Response segment carries
	end  uint64
	done chan struct{}
}

// Read reads n octets of the peer's buffer stag at to into mr at offset
// off (RDMA Read) and waits for them. At most the negotiated ORD Reads are
// outstanding; more wait.
func (c *Conn) Read(ctx context.Context, mr *MR, off, n int, stag uint32, to uint64) error {
	if off < 0 || n < 0 || off+n > len(mr.Buf) {
		return fmt.Errorf("RDMA Read of %d octets at offset %d: outside the %d-octet local buffer", n, off, len(mr.Buf))
	}
	if c.p.ORD == 0 {
		return errors.New("RDMA Read: the peer's IRD is 0")
	}
	if err := c.waitSend(); err != nil {
		return err
	}
	select {
	case c.ord <- struct{}{}:
	case <-c.done:
		return c.ended()
	case <-ctx.Done():
		return ctx.Err()
	}
	op, err := c.issueRead(mr, mr.TO+uint64(off), uint32(n), stag, to)
	if err != nil {
		return err
	}
	select {
	case <-op.done:
		return nil
	case <-c.done:
		select {
		case <-op.done:
			return nil
		default:
		}
		return c.ended()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// issueRead queues op and sends its Read Request (queue 1).
func (c *Conn) issueRead(mr *MR, sinkTO uint64, n uint32, stag uint32, to uint64) (*readOp, error) {
	op := &readOp{mr: mr, to: sinkTO, end: sinkTO + uint64(n), done: make(chan struct{})}
	var sink uint32
	if mr != nil {
		sink = mr.STag
	}
	c.mu.Lock()
	c.reads = append(c.reads, op)
	c.stats.Reads++
	c.mu.Unlock()
	return op, c.untagged(ddp.OpReadRequest, 1, ddp.EncodeReadRequest(nil, sink, sinkTO, n, stag, to))
}

// sendRTR sends the initiator's peer-to-peer RTR (RFC 6581 §5): a
// zero-length Send, RDMA Write (STag 0) or RDMA Read (STag 0, answered by a
// zero-length Read Response).
func (c *Conn) sendRTR() error {
	switch c.p.RTR {
	case RTRSend:
		return c.untagged(ddp.OpSend, 0, nil)
	case RTRWrite:
		return c.tagged(ddp.OpWrite, 0, 0, nil)
	case RTRRead:
		c.ord <- struct{}{}
		_, err := c.issueRead(nil, 0, 0, 0, 0)
		return err
	}
	return nil
}

// Close ends the connection: FIN after everything sent, then the peer's
// FIN (or drainTimeout).
func (c *Conn) Close() error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	if c.cfg.Impair != nil {
		c.cfg.Impair.Flush()
	}
	c.txMu.Lock()
	c.shutdownWrite()
	c.txMu.Unlock()
	select {
	case <-c.done:
	case <-time.After(drainTimeout):
	}
	c.quitO.Do(func() { close(c.quit) })
	c.nc.Close()
	<-c.done
	return nil
}

func (c *Conn) shutdownWrite() {
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.nc.Close()
}
