package synth

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/rdx-project/rdx/internal/inet"
)

// ipFrame builds Ethernet/IPv4 around an IP payload, header checksum
// correct. The IPv4 header is at [14:34].
func ipFrame(fromClient bool, proto uint8, id uint16, payload []byte) []byte {
	src, dst, smac, dmac := clientIP, serverIP, clientMAC, serverMAC
	if !fromClient {
		src, dst, smac, dmac = serverIP, clientIP, serverMAC, clientMAC
	}
	b := make([]byte, 0, 14+20+len(payload))
	b = append(b, dmac...)
	b = append(b, smac...)
	b = append(b, 0x08, 0x00)
	ip := make([]byte, 20)
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(payload)))
	binary.BigEndian.PutUint16(ip[4:], id)
	ip[6] = 0x40 // DF
	ip[8], ip[9] = 64, proto
	s4, d4 := src.As4(), dst.As4()
	copy(ip[12:], s4[:])
	copy(ip[16:], d4[:])
	binary.BigEndian.PutUint16(ip[10:], ^inet.Fold(inet.Sum(0, ip)))
	b = append(b, ip...)
	return append(b, payload...)
}

// TCP flag bits.
const (
	tcpFIN = 0x01
	tcpSYN = 0x02
	tcpPSH = 0x08
	tcpACK = 0x10
)

// tcpConn writes one TCP connection, client first, keeping each side's
// next sequence number so every segment's seq and ack are right.
type tcpConn struct {
	cport, sport uint16
	nxt          [2]uint32 // next sequence number to send: [0] client, [1] server
	mss          int
	frames       [][]byte
	out          *sink // when set, frames go here as they are made, not to frames
	pend         [2][]byte
	id           [2]uint16

	// --loss: a data segment is lost on the way and sent again; the capture
	// (taken at the receiver) sees the sender's next segments first, then the
	// retransmission, before anything from the other side.
	loss   float64
	rng    *rand.Rand
	resend [2][][]byte
	Lost   int // segments lost and resent
}

// lossy turns on --loss for this connection.
func (c *tcpConn) lossy(o Options) {
	if o.Loss > 0 {
		c.loss, c.rng = o.Loss, rand.New(rand.NewPCG(uint64(o.Seed), 0x7c9))
	}
}

// flush writes the retransmissions of side me (due before the other side
// speaks, since it acknowledges them).
func (c *tcpConn) flush(me int) {
	for _, f := range c.resend[me] {
		c.put(f)
	}
	c.resend[me] = c.resend[me][:0]
}

// put adds a frame to the capture: to out when the scenario streams.
func (c *tcpConn) put(f []byte) {
	if c.out != nil {
		c.out.frame(f)
		return
	}
	c.frames = append(c.frames, f)
}

func newTCP(cport, sport uint16) *tcpConn {
	// Fixed initial sequence numbers: reproducible, and the client's wraps
	// 2^32 early on, which stream reassembly must handle.
	return &tcpConn{cport: cport, sport: sport, nxt: [2]uint32{0xfffff000, 0x10000000}, mss: 1448}
}

func side(client bool) int {
	if client {
		return 0
	}
	return 1
}

// seg appends one segment and advances the sender's sequence number.
func (c *tcpConn) seg(client bool, flags uint8, payload []byte) {
	me := side(client)
	sp, dp := c.cport, c.sport
	if !client {
		sp, dp = dp, sp
	}
	t := make([]byte, 20, 20+len(payload))
	binary.BigEndian.PutUint16(t[0:], sp)
	binary.BigEndian.PutUint16(t[2:], dp)
	binary.BigEndian.PutUint32(t[4:], c.nxt[me])
	if flags&tcpACK != 0 {
		binary.BigEndian.PutUint32(t[8:], c.nxt[1-me])
	}
	t[12] = 5 << 4
	t[13] = flags
	binary.BigEndian.PutUint16(t[14:], 65535)
	t = append(t, payload...)
	src, dst := clientIP.As4(), serverIP.As4()
	if !client {
		src, dst = dst, src
	}
	s := inet.Sum(inet.Sum(inet.Sum(0, src[:]), dst[:]), t) + 6 + uint32(len(t))
	binary.BigEndian.PutUint16(t[16:], ^inet.Fold(s))
	c.id[me]++
	c.flush(1 - me) // the peer's resends come before this side answers
	fr := ipFrame(client, 6, c.id[me], t)
	if len(payload) > 0 && c.rng != nil && c.rng.Float64() < c.loss {
		c.resend[me] = append(c.resend[me], fr)
		c.Lost++
	} else {
		c.put(fr)
	}
	c.nxt[me] += uint32(len(payload))
	if flags&(tcpSYN|tcpFIN) != 0 {
		c.nxt[me]++
	}
}

func (c *tcpConn) handshake() {
	c.seg(true, tcpSYN, nil)
	c.seg(false, tcpSYN|tcpACK, nil)
	c.seg(true, tcpACK, nil)
}

// send writes data in MSS-sized segments, then the peer's ACK.
func (c *tcpConn) send(client bool, data []byte) {
	for len(data) > 0 {
		n := min(len(data), c.mss)
		c.seg(client, tcpACK|tcpPSH, data[:n])
		data = data[n:]
	}
	c.ack(!client)
}

// write adds data to side client's stream and sends each full MSS of it:
// the segments send makes of all the data written until endWrite, without
// holding all of it.
func (c *tcpConn) write(client bool, data []byte) {
	me := side(client)
	c.pend[me] = append(c.pend[me], data...)
	k := 0
	for len(c.pend[me])-k >= c.mss {
		c.seg(client, tcpACK|tcpPSH, c.pend[me][k:k+c.mss]) // seg copies the payload
		k += c.mss
	}
	c.pend[me] = c.pend[me][:copy(c.pend[me], c.pend[me][k:])]
}

// endWrite sends what write left (less than an MSS), then the peer's ACK.
func (c *tcpConn) endWrite(client bool) {
	me := side(client)
	if len(c.pend[me]) > 0 {
		c.seg(client, tcpACK|tcpPSH, c.pend[me])
	}
	c.pend[me] = c.pend[me][:0]
	c.ack(!client)
}

// sendSegs writes each element as one segment, then the peer's ACK.
func (c *tcpConn) sendSegs(client bool, segs ...[]byte) {
	for _, s := range segs {
		c.seg(client, tcpACK|tcpPSH, s)
	}
	c.ack(!client)
}

func (c *tcpConn) ack(client bool) { c.seg(client, tcpACK, nil) }

// done writes any retransmissions still due; call it before taking frames.
func (c *tcpConn) done() [][]byte {
	c.flush(0)
	c.flush(1)
	return c.frames
}

// close: FIN from the client, FIN-ACK from the server, last ACK.
func (c *tcpConn) close() {
	c.seg(true, tcpFIN|tcpACK, nil)
	c.seg(false, tcpFIN|tcpACK, nil)
	c.seg(true, tcpACK, nil)
}
