// Command genrds writes a synthetic RDS/TCP capture for benchmarks: one TCP
// connection 192.0.2.1:40000 -> 192.0.2.2:16385 (SYN, SYN-ACK, ACK, data,
// FIN) whose byte stream is a run of RDS messages (a congestion map, then a
// repeating mix of 16 small 64-octet datagrams, 1400, 9000 and 65536
// octets), cut into -mss byte segments: many messages per segment and
// messages across segments. It prints the TCP payload byte count.
//
// With -flows K, K clients (198.18.0.1 on, the benchmarking range) each
// open such a connection to the server and carry about 1/K of the bytes,
// their segments interleaved round-robin, so a flow-sharded reader (rdx
// read -j N) has flows to spread; -flows 1 (the default) writes the
// single-connection capture above.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/rds"
	"github.com/rdx-project/rdx/internal/testpkt"
)

func main() {
	size := flag.Int64("bytes", 1<<30, "TCP payload bytes to write (rounded up to a whole message)")
	mss := flag.Int("mss", 1448, "TCP segment payload size")
	out := flag.String("o", "rds-bench.pcap", "output file")
	flows := flag.Int("flows", 1, "client hosts, each with one connection, segments interleaved round-robin")
	conns := flag.Int("conns", 0, "instead: this many connections, each a handshake and one 64-octet message, never closed (for memory measurements)")
	flag.Parse()
	var err error
	if *conns > 0 {
		err = writeConns(*out, *conns)
	} else {
		err = write(*out, *size, *mss, *flows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

type gen struct {
	w     *testpkt.PcapFile
	frame []byte
	seq   [2]uint32
	t     int64
	cli   [4]byte // client address and port
	sport uint16
}

const (
	ethLen = 14
	ipLen  = 20
	tcpLen = 20
	hdrs   = ethLen + ipLen + tcpLen
)

// packet writes one segment from the client (dir 0) or the server (dir 1).
func (g *gen) packet(dir int, flags uint8, payload []byte) error {
	f := g.frame[:hdrs+len(payload)]
	copy(f[hdrs:], payload)
	binary.BigEndian.PutUint16(f[12:], 0x0800)
	ip := f[ethLen:]
	ip[0], ip[8], ip[9] = 0x45, 64, 6
	binary.BigEndian.PutUint16(ip[2:], uint16(ipLen+tcpLen+len(payload)))
	a, b := g.cli[:], []byte{192, 0, 2, 2}
	sp, dp := g.sport, uint16(rds.Port)
	if dir == 1 {
		a, b, sp, dp = b, a, dp, sp
	}
	copy(ip[12:], a)
	copy(ip[16:], b)
	tcp := ip[ipLen:]
	binary.BigEndian.PutUint16(tcp[0:], sp)
	binary.BigEndian.PutUint16(tcp[2:], dp)
	binary.BigEndian.PutUint32(tcp[4:], g.seq[dir])
	binary.BigEndian.PutUint32(tcp[8:], g.seq[dir^1])
	tcp[12] = 5 << 4
	tcp[13] = flags
	binary.BigEndian.PutUint16(tcp[14:], 65535)
	g.seq[dir] += uint32(len(payload))
	if flags&0x03 != 0 { // SYN and FIN take a sequence number
		g.seq[dir]++
	}
	g.t += 1000
	return g.w.Write(f, g.t)
}

// maxFlows bounds -flows (the clients are numbered in 198.18.0.0/15).
const maxFlows = 1 << 16

// conn is one connection's progress: the packets it has written (a stage
// of the handshake, the data, the close) and its byte stream.
type conn struct {
	cli     [4]byte
	seq     [2]uint32
	stage   int
	pend    []byte // stream octets not yet written
	target  int64  // stream octets to write, rounded up to a whole batch
	written int64
	made    int64 // stream octets generated
	msgSeq  uint64
}

// batch appends one repeating mix of messages to c's stream: 16 small
// datagrams, then 1400, 9000 and 65536 octets.
func (c *conn) batch() {
	add := func(h rds.HeaderFields, n int) {
		c.pend = h.Encode(c.pend)
		for i := 0; i < n; i++ {
			c.pend = append(c.pend, byte(i))
		}
	}
	before := len(c.pend)
	for i := 0; i < 16; i++ {
		c.msgSeq++
		add(rds.HeaderFields{Seq: c.msgSeq, Len: 64, Sport: 4000, Dport: 4001}, 64)
	}
	for _, n := range []int{1400, 9000, 65536} {
		c.msgSeq++
		add(rds.HeaderFields{Seq: c.msgSeq, Len: uint32(n), Sport: 4000, Dport: 4001}, n)
	}
	c.made += int64(len(c.pend) - before)
}

func write(path string, size int64, mss, flows int) error {
	if flows < 1 || flows > maxFlows || mss < 1 {
		return fmt.Errorf("bad -flows %d or -mss %d", flows, mss)
	}
	w, err := testpkt.CreatePcap(path, capture.LinkEthernet)
	if err != nil {
		return err
	}
	g := &gen{w: w, frame: make([]byte, hdrs+mss), t: 1_700_000_000 * 1e9, sport: 40000}
	conns := make([]conn, flows)
	for i := range conns {
		c := &conns[i]
		c.cli, c.seq, c.target = [4]byte{192, 0, 2, 1}, [2]uint32{1000, 5000}, size/int64(flows)
		if flows > 1 {
			c.cli = [4]byte{198, 18 + byte(i>>16), byte((i + 1) >> 8), byte(i + 1)}
		}
		// A congestion map with port 4001 congested (bit 4001%64 of word 4001/64).
		c.pend = (&rds.HeaderFields{Flags: rds.FlagCongBitmap, Len: rds.CongMapLen}).Encode(nil)
		cm := make([]byte, rds.CongMapLen)
		cm[4001/8] = 1 << (4001 % 8)
		c.pend = append(c.pend, cm...)
		c.made = int64(len(c.pend))
	}
	var written int64
	for busy := true; busy; {
		busy = false
		for i := range conns {
			c := &conns[i]
			n, err := g.next(c, mss)
			if err != nil {
				return err
			}
			written += n
			busy = busy || c.stage < 6
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Println(written)
	return nil
}

// next writes c's next packet (none once it is closed) and returns the
// stream octets it carried: the handshake, segments of mss octets of the
// stream (the last one shorter), the close.
func (g *gen) next(c *conn, mss int) (int64, error) {
	const syn, fin, ack, psh = 0x02, 0x01, 0x10, 0x08
	g.cli, g.seq = c.cli, c.seq
	defer func() { c.seq = g.seq }()
	var err error
	switch c.stage {
	case 0:
		err = g.packet(0, syn, nil)
	case 1:
		err = g.packet(1, syn|ack, nil)
	case 2:
		err = g.packet(0, ack, nil)
	case 3:
		for len(c.pend) < mss && c.made < c.target {
			c.batch()
		}
		if len(c.pend) == 0 {
			err = g.packet(0, fin|ack, nil)
			break
		}
		n := min(mss, len(c.pend))
		err = g.packet(0, ack|psh, c.pend[:n])
		c.pend = c.pend[n:]
		c.written += int64(n)
		return int64(n), err
	case 4:
		err = g.packet(1, fin|ack, nil)
	case 5:
		err = g.packet(0, ack, nil)
	default:
		return 0, nil
	}
	c.stage++
	return 0, err
}

// writeConns writes n connections from 192.0.2.10+ (60000 ports each), each
// a handshake and one RDS message, never closed.
func writeConns(path string, n int) error {
	w, err := testpkt.CreatePcap(path, capture.LinkEthernet)
	if err != nil {
		return err
	}
	g := &gen{w: w, frame: make([]byte, hdrs+rds.HeaderLen+64), t: 1_700_000_000 * 1e9}
	const syn, ack, psh = 0x02, 0x10, 0x08
	m := rds.HeaderFields{Seq: 1, Len: 64, Sport: 4000, Dport: 4001}
	msg := append(m.Encode(nil), make([]byte, 64)...)
	for i := 0; i < n; i++ {
		g.cli, g.sport = [4]byte{192, 0, 2, byte(10 + i/60000)}, uint16(1024+i%60000)
		g.seq = [2]uint32{1000, 5000}
		g.packet(0, syn, nil)
		g.packet(1, syn|ack, nil)
		g.packet(0, ack, nil)
		if err := g.packet(0, ack|psh, msg); err != nil {
			return err
		}
	}
	return w.Close()
}
