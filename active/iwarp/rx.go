package iwarp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
)

// errStop ends the reader after a Terminate went out or came in.
var errStop = errors.New("stop")

// readLoop reads FPDUs until the stream ends or a Terminate is sent or
// received, then drains the stream until the peer's FIN.
func (c *Conn) readLoop() {
	defer c.stop.Do(func() { close(c.done) })
	err := c.readFPDUs()
	if err != errStop {
		c.mu.Lock()
		closing := c.closing
		c.mu.Unlock()
		if err == io.EOF || closing {
			err = io.EOF
		}
		c.fail(err)
	}
	// The stream is over whichever way it ended (RFC 5040 §5.3: an LLP
	// close ends the RDMAP stream): FIN back, then read on (and drop) until
	// the peer's FIN, so a Terminate just sent is not lost to a reset of
	// unread data.
	c.txMu.Lock()
	c.shutdownWrite()
	c.txMu.Unlock()
	if err == errStop || err == io.EOF { // else the stream is broken: nothing to drain for
		c.nc.SetReadDeadline(time.Now().Add(drainTimeout))
		io.Copy(io.Discard, c.br)
	}
}

func (c *Conn) readFPDUs() error {
	for {
		if c.br.Buffered() > 0 { // an FPDU has begun: the rest is due
			c.nc.SetReadDeadline(time.Now().Add(c.cfg.PartialTimeout))
		}
		hd, err := c.br.Peek(6) // a leading marker and ULPDU_Length; every FPDU is at least 8 octets
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("FPDU still incomplete after %v (%d octets)", c.cfg.PartialTimeout, len(hd))
		}
		if err != nil {
			if err == io.EOF && len(hd) == 0 {
				return io.EOF
			}
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		w, _ := mpa.WireLen(hd, c.rxPos, c.p.RxMarkers)
		if cap(c.fp) < w {
			c.fp = make([]byte, w)
		}
		c.fp = c.fp[:w]
		if c.br.Buffered() < w {
			c.nc.SetReadDeadline(time.Now().Add(c.cfg.PartialTimeout))
		}
		if _, err := io.ReadFull(c.br, c.fp); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("FPDU of %d octets still incomplete after %v", w, c.cfg.PartialTimeout)
			}
			return io.ErrUnexpectedEOF
		}
		c.nc.SetReadDeadline(time.Time{})
		var ferr error
		c.ul, ferr = mpa.Unframe(c.ul[:0], c.fp, c.rxPos, c.p.RxMarkers, c.p.CRC)
		c.rxPos += uint32(w)
		c.count(func(s *Stats) { s.FPDUsRcvd++ })
		if ferr != nil {
			code := uint8(ddp.TermCRC)
			var fe *mpa.FrameError
			if errors.As(ferr, &fe) && fe.Marker {
				code = ddp.TermMarker
			}
			return c.terminate(ddp.TermLLP, ddp.TermMPA, code, nil, nil, ferr.Error())
		}
		if err := c.segment(c.ul); err != nil {
			return err
		}
	}
}

// terminate sends a Terminate (queue 2) naming the error and the
// terminated segment's DDP header hdr (and the Read Request's RDMAP header
// rdma), then half-closes.
func (c *Conn) terminate(layer, etype, code uint8, seg, rdma []byte, why string) error {
	te := &TerminateError{Sent: true, Layer: layer, EType: etype, Code: code, Reason: why}
	c.fail(te)
	c.logf("iwarp: %v", te)
	var hdr []byte
	if len(seg) >= 2 && len(seg) >= ddp.HeaderLen(seg) {
		hdr = seg[:ddp.HeaderLen(seg)]
	}
	body := ddp.EncodeTerminate(nil, layer, etype, code, hdr, len(seg), rdma)
	c.untagged(ddp.OpTerminate, 2, body)
	if c.cfg.Impair != nil {
		c.cfg.Impair.Flush()
	}
	c.txMu.Lock()
	c.shutdownWrite()
	c.txMu.Unlock()
	return errStop
}

// segment handles one DDP segment (markers and CRC already checked).
func (c *Conn) segment(b []byte) error {
	if len(b) < 2 || len(b) < ddp.HeaderLen(b) {
		return c.terminate(ddp.TermDDP, 0, 0, nil, nil, "DDP segment of "+strconv.Itoa(len(b))+" octets is shorter than its header")
	}
	tagged, op := ddp.Tagged(b), ddp.Opcode(b)
	if ddp.DV(b) != 1 {
		et, code := uint8(ddp.TermDDPUntagged), uint8(6)
		if tagged {
			et, code = ddp.TermDDPTagged, 4
		}
		return c.terminate(ddp.TermDDP, et, code, b, nil, "DDP version "+strconv.Itoa(int(ddp.DV(b))))
	}
	if ddp.RV(b) != 1 {
		return c.terminate(ddp.TermRDMA, ddp.TermRDMARemoteOp, 5, b, nil, "RDMAP version "+strconv.Itoa(int(ddp.RV(b))))
	}
	if c.rtrWant != RTRNone {
		return c.rtr(b, tagged, op)
	}
	c.allowSend()
	switch {
	case tagged && op == ddp.OpWrite:
		return c.placeWrite(b)
	case tagged && op == ddp.OpReadResponse:
		return c.readResponse(b)
	case !tagged && (op == ddp.OpSend || op == ddp.OpSendSE):
		return c.send(b, op)
	case !tagged && op == ddp.OpReadRequest:
		return c.readRequest(b)
	case !tagged && op == ddp.OpTerminate:
		te := &TerminateError{}
		if t := b[ddp.UntaggedLen:]; len(t) >= 4 {
			te.Layer, te.EType, te.Code = t[0]>>4, t[0]&15, t[1]
		}
		c.fail(te)
		c.logf("iwarp: %v", te)
		return errStop
	}
	return c.terminate(ddp.TermRDMA, ddp.TermRDMARemoteOp, ddp.TermUnexpectOp, b, nil,
		"unexpected RDMAP opcode "+strconv.Itoa(int(op))+" (tagged "+strconv.FormatBool(tagged)+")")
}

// rtr checks the responder's first FPDU in peer-to-peer mode: the RTR
// type chosen in the Reply, zero-length (RFC 6581 §5).
func (c *Conn) rtr(b []byte, tagged bool, op uint8) error {
	want := c.rtrWant
	n := len(b) - ddp.HeaderLen(b)
	var got RTR
	switch {
	case !tagged && op == ddp.OpSend && n == 0 && ddp.QN(b) == 0 && ddp.MSN(b) == 1 && ddp.Last(b):
		got = RTRSend
	case tagged && op == ddp.OpWrite && n == 0 && ddp.Last(b):
		got = RTRWrite
	case !tagged && op == ddp.OpReadRequest && n == ddp.ReadReqLen && ddp.QN(b) == 1 && ddp.MSN(b) == 1 &&
		binary.BigEndian.Uint32(b[ddp.UntaggedLen+12:]) == 0:
		got = RTRRead
	}
	if got != want {
		return c.terminate(ddp.TermLLP, ddp.TermMPA, ddp.TermNoRTR, b, nil, "first FPDU is not the zero-length "+want.String()+" RTR")
	}
	c.rtrWant = RTRNone
	c.logf("iwarp: received the %s RTR", got)
	switch got {
	case RTRSend:
		c.rxMSN[0] = 1
	case RTRRead:
		c.rxMSN[1] = 1
		r := b[ddp.UntaggedLen:]
		c.allowSend()
		return c.tagged(ddp.OpReadResponse, binary.BigEndian.Uint32(r), binary.BigEndian.Uint64(r[4:]), nil)
	}
	c.allowSend()
	return nil
}

// lookup finds the registered buffer stag and checks access and bounds
// for n octets at to: 0 when allowed, else the Terminate error code.
func (c *Conn) lookup(stag uint32, to uint64, n int, a Access) (*MR, uint8, string) {
	c.mu.Lock()
	mr := c.mrs[stag]
	c.mu.Unlock()
	switch {
	case mr == nil:
		return nil, ddp.TermInvalidSTag, "no buffer has STag 0x" + strconv.FormatUint(uint64(stag), 16)
	case mr.access&a == 0:
		return nil, ddp.TermAccess, "STag 0x" + strconv.FormatUint(uint64(stag), 16) + " does not allow this access"
	case to < mr.TO || to-mr.TO > uint64(len(mr.Buf)) || uint64(n) > uint64(len(mr.Buf))-(to-mr.TO):
		return nil, ddp.TermBounds, strconv.Itoa(n) + " octets at TO 0x" + strconv.FormatUint(to, 16) +
			" are outside STag 0x" + strconv.FormatUint(uint64(stag), 16)
	}
	return mr, 0, ""
}

// placeWrite places an RDMA Write segment (RFC 5041 §5.2: DDP tagged
// buffer errors for STag and bounds, RFC 5040 remote protection for access).
func (c *Conn) placeWrite(b []byte) error {
	data := b[ddp.TaggedLen:]
	if len(data) == 0 {
		return nil
	}
	mr, code, why := c.lookup(ddp.STag(b), ddp.TO(b), len(data), RemoteWrite)
	if mr == nil {
		if code == ddp.TermAccess {
			return c.terminate(ddp.TermRDMA, ddp.TermRDMARemoteProt, code, b, nil, "RDMA Write: "+why)
		}
		return c.terminate(ddp.TermDDP, ddp.TermDDPTagged, code, b, nil, "RDMA Write: "+why)
	}
	copy(mr.Buf[ddp.TO(b)-mr.TO:], data)
	if ddp.Last(b) {
		c.count(func(s *Stats) { s.WritesRcvd++ })
	}
	return nil
}

// readResponse places a Read Response segment for the oldest outstanding
// Read (responses come in the order the requests went out).
func (c *Conn) readResponse(b []byte) error {
	c.mu.Lock()
	var op *readOp
	if len(c.reads) > 0 {
		op = c.reads[0]
	}
	c.mu.Unlock()
	if op == nil {
		return c.terminate(ddp.TermRDMA, ddp.TermRDMARemoteOp, ddp.TermUnexpectOp, b, nil, "Read Response with no Read outstanding")
	}
	data := b[ddp.TaggedLen:]
	var sink uint32
	if op.mr != nil {
		sink = op.mr.STag
	}
	switch {
	case ddp.STag(b) != sink:
		return c.terminate(ddp.TermDDP, ddp.TermDDPTagged, ddp.TermInvalidSTag, b, nil,
			"Read Response to STag 0x"+strconv.FormatUint(uint64(ddp.STag(b)), 16)+", the Read named 0x"+strconv.FormatUint(uint64(sink), 16))
	case ddp.TO(b) != op.to || uint64(len(data)) > op.end-op.to:
		return c.terminate(ddp.TermDDP, ddp.TermDDPTagged, ddp.TermBounds, b, nil, "Read Response outside the Read's sink buffer")
	}
	if len(data) > 0 {
		copy(op.mr.Buf[op.to-op.mr.TO:], data)
	}
	op.to += uint64(len(data))
	if !ddp.Last(b) {
		return nil
	}
	if op.to != op.end {
		return c.terminate(ddp.TermDDP, ddp.TermDDPTagged, ddp.TermBounds, b, nil, "last Read Response segment leaves the Read short")
	}
	c.mu.Lock()
	c.reads = c.reads[1:]
	c.mu.Unlock()
	close(op.done)
	<-c.ord
	return nil
}

// untaggedSeq checks QN/MSN/MO of an untagged segment on queue q: a new
// message takes the next MSN at MO 0, a continued one its own MSN at the
// next MO.
func (c *Conn) untaggedSeq(b []byte, q uint32) error {
	qn, msn, mo := ddp.QN(b), ddp.MSN(b), ddp.MO(b)
	switch {
	case qn != q:
		return c.terminate(ddp.TermDDP, ddp.TermDDPUntagged, ddp.TermInvalidQN, b, nil, "queue "+strconv.Itoa(int(qn)))
	case q == 0 && c.msgOpen && msn != c.msgMSN, !(q == 0 && c.msgOpen) && msn != c.rxMSN[q]+1:
		return c.terminate(ddp.TermDDP, ddp.TermDDPUntagged, ddp.TermInvalidMSN, b, nil,
			"MSN "+strconv.FormatUint(uint64(msn), 10)+" on queue "+strconv.Itoa(int(q)))
	case q == 0 && mo != uint32(len(c.msg)), q != 0 && mo != 0:
		return c.terminate(ddp.TermDDP, ddp.TermDDPUntagged, ddp.TermInvalidMO, b, nil, "MO "+strconv.FormatUint(uint64(mo), 10))
	}
	return nil
}

// send gathers a Send message's segments and delivers it when complete.
func (c *Conn) send(b []byte, op uint8) error {
	if err := c.untaggedSeq(b, 0); err != nil {
		return err
	}
	if !c.msgOpen {
		c.msgOpen, c.msgMSN, c.msg = true, ddp.MSN(b), nil
	}
	data := b[ddp.UntaggedLen:]
	if len(c.msg)+len(data) > c.cfg.MaxMessage {
		return c.terminate(ddp.TermDDP, ddp.TermDDPUntagged, ddp.TermTooLong, b, nil,
			"Send longer than "+strconv.Itoa(c.cfg.MaxMessage)+" octets")
	}
	c.msg = append(c.msg, data...)
	if !ddp.Last(b) {
		return nil
	}
	c.msgOpen = false
	c.rxMSN[0] = c.msgMSN
	c.count(func(s *Stats) { s.SendsRcvd++ })
	m := Message{Data: c.msg, SE: op == ddp.OpSendSE}
	if m.Data == nil {
		m.Data = []byte{}
	}
	c.msg = nil
	select {
	case c.recvq <- m: // blocks the reader when the application lags: TCP flow control
		return nil
	case <-c.quit:
		return io.EOF
	}
}

// readRequest answers an RDMA Read Request with Read Responses from the
// named source buffer (RFC 5040 §4.4; remote protection errors for a bad
// source STag).
func (c *Conn) readRequest(b []byte) error {
	if err := c.untaggedSeq(b, 1); err != nil {
		return err
	}
	r := b[ddp.UntaggedLen:]
	if len(r) < ddp.ReadReqLen {
		return c.terminate(ddp.TermRDMA, ddp.TermRDMARemoteOp, ddp.TermUnexpectOp, b, nil, "Read Request shorter than 28 octets")
	}
	c.rxMSN[1] = ddp.MSN(b)
	sink, sinkTO := binary.BigEndian.Uint32(r), binary.BigEndian.Uint64(r[4:])
	n := int(binary.BigEndian.Uint32(r[12:]))
	src, srcTO := binary.BigEndian.Uint32(r[16:]), binary.BigEndian.Uint64(r[20:])
	var data []byte
	if n > 0 {
		mr, code, why := c.lookup(src, srcTO, n, RemoteRead)
		if mr == nil {
			return c.terminate(ddp.TermRDMA, ddp.TermRDMARemoteProt, code, b, r[:ddp.ReadReqLen], "RDMA Read Request: "+why)
		}
		data = mr.Buf[srcTO-mr.TO:][:n]
	}
	c.count(func(s *Stats) { s.ReadsServed++ })
	return c.tagged(ddp.OpReadResponse, sink, sinkTO, data)
}
