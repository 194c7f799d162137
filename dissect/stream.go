package dissect

import (
	"net/netip"
	"strconv"
	"unsafe"

	"github.com/rdx-project/rdx/reassembly/tcp"
)

// StreamDissector is implemented by TCP protocols that read a byte stream
// (RDS, MPA): the engine reassembles each connection (reassembly/tcp) and
// hands them in-order data with exact positions. f is the frame being
// decoded; the bytes may have arrived in earlier frames (c.Frames says which).
// At the end of the input the engine flushes with a frame whose Num is 0:
// nothing added to it is printed, but checks and statistics may count it.
type StreamDissector interface {
	Dissector
	StreamData(f *Frame, c *tcp.Chunk)
	StreamGap(f *Frame, g *tcp.Gap)
	StreamClose(f *Frame, key tcp.FlowKey, reason tcp.CloseReason)
}

// StreamAnomalies is optionally implemented by stream dissectors that want
// overlap/conflict reports themselves (the engine already adds a finding).
type StreamAnomalies interface {
	StreamAnomaly(f *Frame, a *tcp.Anomaly)
}

// streamConsumer binds one TCP connection to the stream dissector chosen for
// it (by port or decode-as at the connection's first segment, else by the
// first heuristic that accepts its first bytes).
type streamConsumer struct {
	e       *Engine
	d       StreamDissector
	decided bool
}

func (c *streamConsumer) Data(ch *tcp.Chunk) {
	if !c.decided {
		c.decided = true
		for _, h := range c.e.tTCP.heurs {
			if sd, ok := h.d.(StreamDissector); ok && h.verify(ch.Bytes) {
				c.d = sd
				break
			}
		}
	}
	if c.d != nil {
		c.d.StreamData(c.e.cur(), ch)
	}
}

func (c *streamConsumer) Gap(g *tcp.Gap) {
	f := c.e.cur()
	switch {
	case f.Num == 0:
	case g.Reason.Limit():
		// The bytes may still come: a reassembly limit made rdx stop waiting.
		f.AddFinding(-1, Warn, GroupReassembly, nil, "tcp", "TCP stream gap: "+strconv.FormatUint(g.Size, 10)+
			" bytes skipped, reassembly limit reached (data resumes at seq "+strconv.FormatUint(uint64(g.ResumeSeq), 10)+", "+g.Reason.String()+")")
	default:
		f.AddFinding(-1, Warn, GroupSequence, nil, "tcp", "TCP stream gap: "+strconv.FormatUint(g.Size, 10)+
			" bytes never captured (data resumes at seq "+strconv.FormatUint(uint64(g.ResumeSeq), 10)+", "+g.Reason.String()+")")
	}
	if c.d != nil {
		c.d.StreamGap(f, g)
	}
}

func (c *streamConsumer) Anomaly(a *tcp.Anomaly) {
	f := c.e.cur()
	if a.Kind == tcp.Conflict && f.Num != 0 {
		f.AddFinding(-1, Warn, GroupSequence, nil, "tcp", "TCP retransmission with different data at seq "+
			strconv.FormatUint(uint64(a.Seq), 10)+" ("+strconv.Itoa(a.Len)+" bytes; first sent in frame "+
			strconv.FormatUint(a.PrevFrame, 10)+")")
	}
	if sa, ok := c.d.(StreamAnomalies); ok && c.d != nil {
		sa.StreamAnomaly(f, a)
	}
}

func (c *streamConsumer) Close(key tcp.FlowKey, reason tcp.CloseReason) {
	if c.d != nil {
		c.d.StreamClose(c.e.cur(), key, reason)
	}
}

// cur is the frame stream callbacks belong to: the one being decoded, or an
// empty frame during the final flush.
func (e *Engine) cur() *Frame {
	if e.inFrame {
		return &e.frame
	}
	e.flushFrame.reset()
	e.frames++
	e.flushFrame.seq = e.frames
	e.budget.Tick(e.frames)
	return &e.flushFrame
}

func (e *Engine) newConsumer(key tcp.FlowKey) tcp.Consumer {
	c := &streamConsumer{e: e}
	if i := pickPort(e.tTCP.dense, key.A.Port(), key.B.Port()); i >= 0 {
		if sd, ok := e.tTCP.ents[i].d.(StreamDissector); ok {
			c.d, c.decided = sd, true
		}
	}
	return c
}

// wantsStream reports whether a TCP segment between these ports goes through
// reassembly: a stream dissector claims a port, or stream heuristics exist.
func (e *Engine) wantsStream(sp, dp uint16) bool {
	if i := pickPort(e.tTCP.dense, sp, dp); i >= 0 {
		return e.tTCP.ents[i].stream
	}
	return e.streamHeur
}

func (e *Engine) assembler() *tcp.Assembler {
	if e.asm == nil {
		e.asm = tcp.NewAssembler(tcp.Config{NewConsumer: e.newConsumer, Budget: e.budget})
	}
	return e.asm
}

// tcpStream feeds one TCP segment of the current frame to reassembly.
func (e *Engine) tcpStream(f *Frame) {
	t := &e.tcp
	src := netip.AddrPortFrom(f.Net.Src, f.Net.SrcPort)
	dst := netip.AddrPortFrom(f.Net.Dst, f.Net.DstPort)
	e.assembler().Add(src, dst, tcp.Segment{Seq: t.Seq, SYN: t.SYN, FIN: t.FIN, RST: t.RST,
		Payload: t.Payload, Frame: f.Num, TimeNS: f.TimeNS, ACK: t.ACK, Ack: t.Ack,
		Lent: e.lend && within(t.Payload, f.Data)})
}

// within reports whether p lies in buf: a payload in the packet's own
// bytes, not in a reassembled IP datagram, whose buffer is reused sooner.
func within(p, buf []byte) bool {
	b, q := uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	return len(p) > 0 && q >= b && q+uintptr(len(p)) <= b+uintptr(len(buf))
}

// LendPackets says whether the packets decoded from now on stay valid and
// unchanged until the caller's next Reclaim (a capture.Prefetch batch does,
// until the next NextBatch): TCP reassembly then keeps references to the
// bytes it delivers instead of copying every one for its retransmission
// checks. Turning it off reclaims.
func (e *Engine) LendPackets(on bool) {
	if !on {
		e.Reclaim()
	}
	e.lend = on
}

// Reclaim must be called, while LendPackets is on, before the memory of any
// packet decoded since the last Reclaim is reused: reassembly copies what
// it still needs of those bytes and forgets them.
func (e *Engine) Reclaim() {
	if e.asm != nil {
		e.asm.Reclaim()
	}
}

// dropAssembler forgets the reassembler (a rewind starts a fresh one) and
// gives its memory back to the budget.
func (e *Engine) dropAssembler() {
	if e.asm != nil {
		e.asm.Close()
		e.asm = nil
	}
}

// Finish flushes reassembly at the end of the input (gaps that never filled
// are reported, streams closed).
func (e *Engine) Finish() {
	if e.asm != nil {
		e.inFrame = false
		defer func() { // nothing is printed at the flush: a dissector bug there must not crash the read
			if r := recover(); r != nil {
				e.strictPanic("flush", 0, r)
			}
		}()
		e.asm.FlushAll()
	}
}
