// Command genrds writes a synthetic RDS/TCP capture for benchmarks: one TCP
// connection 192.0.2.1:40000 -> 192.0.2.2:16385 (SYN, SYN-ACK, ACK, data,
// FIN) whose byte stream is a run of RDS messages (a congestion map, then a
// repeating mix of 16 small 64-octet datagrams, 1400, 9000 and 65536
// octets), cut into -mss byte segments: many messages per segment and
// messages across segments. It prints the TCP payload byte count.
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
	conns := flag.Int("conns", 0, "instead: this many connections, each a handshake and one 64-octet message, never closed (for memory measurements)")
	flag.Parse()
	var err error
	if *conns > 0 {
		err = writeConns(*out, *conns)
	} else {
		err = write(*out, *size, *mss)
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

func write(path string, size int64, mss int) error {
	w, err := testpkt.CreatePcap(path, capture.LinkEthernet)
	if err != nil {
		return err
	}
	g := &gen{w: w, frame: make([]byte, hdrs+mss), seq: [2]uint32{1000, 5000}, t: 1_700_000_000 * 1e9,
		cli: [4]byte{192, 0, 2, 1}, sport: 40000}
	const syn, fin, ack, psh = 0x02, 0x01, 0x10, 0x08
	if err := g.packet(0, syn, nil); err != nil {
		return err
	}
	g.packet(1, syn|ack, nil)
	g.packet(0, ack, nil)

	// The stream: messages appended to pend, flushed in mss-sized segments.
	var pend []byte
	var written int64
	seq := uint64(0)
	add := func(h rds.HeaderFields, n int) {
		pend = h.Encode(pend)
		for i := 0; i < n; i++ {
			pend = append(pend, byte(i))
		}
	}
	flush := func(all bool) error {
		for len(pend) >= mss || (all && len(pend) > 0) {
			n := min(mss, len(pend))
			if err := g.packet(0, ack|psh, pend[:n]); err != nil {
				return err
			}
			written += int64(n)
			pend = pend[n:]
		}
		pend = append(pend[:0:0], pend...) // keep the tail, drop the flushed prefix
		return nil
	}
	// A congestion map with port 4001 congested (bit 4001%64 of word 4001/64).
	add(rds.HeaderFields{Flags: rds.FlagCongBitmap, Len: rds.CongMapLen}, 0)
	cm := make([]byte, rds.CongMapLen)
	cm[4001/8] = 1 << (4001 % 8)
	pend = append(pend, cm...)
	sizes := []int{1400, 9000, 65536}
	for written+int64(len(pend)) < size {
		for i := 0; i < 16; i++ {
			seq++
			add(rds.HeaderFields{Seq: seq, Len: 64, Sport: 4000, Dport: 4001}, 64)
		}
		for _, n := range sizes {
			seq++
			add(rds.HeaderFields{Seq: seq, Len: uint32(n), Sport: 4000, Dport: 4001}, n)
		}
		if err := flush(false); err != nil {
			return err
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	g.packet(0, fin|ack, nil)
	g.packet(1, fin|ack, nil)
	g.packet(0, ack, nil)
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Println(written)
	return nil
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
