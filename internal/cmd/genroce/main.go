// Command genroce writes a synthetic RoCEv2 capture for benchmarks: NFSv3
// over RPC-over-RDMA on one RC QP pair (client 192.0.2.2 QP 0x12, server
// 192.0.2.1 QP 0x11), alternating GETATTR calls/replies (inline RDMA_MSG
// SENDs) and WRITE calls whose data is a read chunk the server pulls with
// an RDMA READ (request, then First/Middle/Last responses of -mtu octets),
// each SEND acknowledged. Every packet has a correct ICRC; the IPv4 header
// checksum is right and the UDP checksum 0, as RoCEv2 NICs send. It prints
// the number of packets written.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
)

func main() {
	n := flag.Int("n", 1000000, "packets to write (rounded up to a whole exchange)")
	mtu := flag.Int("mtu", 1024, "path MTU: payload octets per RDMA READ response packet")
	wsize := flag.Int("wsize", 4096, "octets of each NFS WRITE (moved by RDMA READ)")
	out := flag.String("o", "roce-bench.pcap", "output file")
	flag.Parse()
	f, err := os.Create(*out)
	if err == nil {
		var k int
		k, err = Write(f, *n, *mtu, *wsize)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			fmt.Println(k)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genroce:", err)
		os.Exit(2)
	}
}

const (
	clientQP = 0x12
	serverQP = 0x11
	nfsProg  = 100003
	hdrs     = 14 + 20 + 8 // Ethernet, IPv4, UDP
)

var (
	clientIP = [4]byte{192, 0, 2, 2}
	serverIP = [4]byte{192, 0, 2, 1}
)

type gen struct {
	w      *capture.PcapWriter
	frame  []byte
	t      int64
	n      int
	psn    [2]uint32 // next PSN each side sends (0 client, 1 server)
	msn    [2]uint32 // messages each side has received
	xid    uint32
	handle uint32
	va     uint64
	buf    []byte
	rpc    []byte
	data   []byte
}

// Write writes at least n packets to w and returns how many it wrote.
func Write(w io.Writer, n, mtu, wsize int) (int, error) {
	if mtu < 256 || mtu > 4096 || wsize < 1 || wsize > 1<<20 {
		return 0, fmt.Errorf("bad -mtu %d or -wsize %d", mtu, wsize)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	pw, err := capture.NewPcapWriter(bw, capture.LinkEthernet, 65535, true)
	if err != nil {
		return 0, err
	}
	g := &gen{w: pw, frame: make([]byte, 0, 9000), t: 1_700_000_000_000_000_000, psn: [2]uint32{0x100000, 0x200000},
		xid: 0x5e000000, handle: 0x1000, va: 0x7f0000000000, data: make([]byte, wsize)}
	for i := range g.data {
		g.data[i] = byte(i)
	}
	for i := 0; g.n < n; i++ {
		if i%2 == 0 {
			err = g.getattr()
		} else {
			err = g.write(mtu)
		}
		if err != nil {
			return g.n, err
		}
	}
	return g.n, bw.Flush()
}

// packet writes one RoCEv2 packet from the client (from 0) or the server.
func (g *gen) packet(from int, bth ib.BTHFields, ext, payload []byte) error {
	dst := uint32(serverQP)
	if from == 1 {
		dst = clientQP
	}
	bth.DestQP, bth.PKey = dst, 0xffff
	bth.PadCnt = uint8(-len(payload) & 3)
	f := g.frame[:hdrs]
	f = bth.Encode(f)
	f = append(f, ext...)
	f = append(f, payload...)
	for i := 0; i < int(bth.PadCnt); i++ {
		f = append(f, 0)
	}
	ibLen := len(f) - hdrs
	f = append(f, 0, 0, 0, 0)
	src, dstIP := clientIP, serverIP
	if from == 1 {
		src, dstIP = serverIP, clientIP
	}
	copy(f[0:], []byte{0x52, 0x54, 0, 0, 0, byte(2 - from), 0x52, 0x54, 0, 0, 0, byte(1 + from), 0x08, 0x00})
	ip := f[14:34]
	copy(ip, []byte{0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0})
	binary.BigEndian.PutUint16(ip[2:], uint16(20+8+ibLen+4))
	binary.BigEndian.PutUint16(ip[4:], uint16(g.n))
	copy(ip[12:], src[:])
	copy(ip[16:], dstIP[:])
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip))
	udp := f[34:42]
	binary.BigEndian.PutUint16(udp[0:], 0xc000|uint16(dst))
	binary.BigEndian.PutUint16(udp[2:], ib.RoCEv2Port)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+ibLen+4))
	udp[6], udp[7] = 0, 0
	crc, ok := ib.ICRCRoCEv2(ip, udp, f[hdrs:hdrs+ibLen])
	if !ok {
		return fmt.Errorf("ICRC of a short packet")
	}
	binary.LittleEndian.PutUint32(f[hdrs+ibLen:], crc)
	g.frame = f[:0]
	g.t += 700
	g.n++
	p := capture.Packet{Data: f, TimeNS: g.t, CapLen: len(f), WireLen: len(f), LinkType: capture.LinkEthernet}
	return g.w.WritePacket(&p)
}

func ipChecksum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		if i != 10 {
			s += uint32(h[i])<<8 | uint32(h[i+1])
		}
	}
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// send sends one SEND Only from side from, and the receiver's ACK.
func (g *gen) send(from int, payload []byte) error {
	psn := g.psn[from]
	g.psn[from] = (psn + 1) & 0xffffff
	if err := g.packet(from, ib.BTHFields{Opcode: 0x04, SE: true, AckReq: true, PSN: psn}, nil, payload); err != nil {
		return err
	}
	to := 1 - from
	g.msn[to]++
	aeth := (&ib.AETHFields{Syndrome: 0x1f, MSN: g.msn[to] & 0xffffff}).Encode(nil)
	return g.packet(to, ib.BTHFields{Opcode: 0x11, PSN: psn}, aeth, nil)
}

func (g *gen) u32(v uint32) { g.rpc = binary.BigEndian.AppendUint32(g.rpc, v) }

// call starts an NFSv3 call (AUTH_NONE) in g.rpc.
func (g *gen) call(proc uint32) {
	g.rpc = g.rpc[:0]
	for _, v := range []uint32{g.xid, 0, 2, nfsProg, 3, proc, 0, 0, 0, 0} {
		g.u32(v)
	}
	g.u32(32) // nfs_fh3
	for i := 0; i < 8; i++ {
		g.u32(0xf00d0000 + uint32(i))
	}
}

// reply starts an accepted, successful reply in g.rpc.
func (g *gen) reply() {
	g.rpc = g.rpc[:0]
	for _, v := range []uint32{g.xid, 1, 0, 0, 0, 0} {
		g.u32(v)
	}
}

// msg sends g.rpc as an RDMA_MSG with read list reads.
func (g *gen) msg(from int, reads []rpcrdma.ReadSegment) error {
	h := rpcrdma.Header{XID: g.xid, Vers: 1, Credit: 128, Proc: rpcrdma.MSG, Reads: reads}
	g.buf = h.Encode(g.buf[:0])
	g.buf = append(g.buf, g.rpc...)
	return g.send(from, g.buf)
}

func (g *gen) getattr() error {
	g.xid++
	g.call(1)
	if err := g.msg(0, nil); err != nil {
		return err
	}
	g.reply()
	g.u32(0) // NFS3_OK
	g.u32(1) // fattr3: NF3REG, then 80 octets
	for i := 0; i < 20; i++ {
		g.u32(0)
	}
	return g.msg(1, nil)
}

// write sends a WRITE call whose data is a read chunk, the server's RDMA
// READ of it, and the reply.
func (g *gen) write(mtu int) error {
	g.xid++
	g.handle++
	g.va += 1 << 20
	g.call(7)
	g.rpc = binary.BigEndian.AppendUint64(g.rpc, uint64(g.xid)*4096)
	g.u32(uint32(len(g.data))) // count
	g.u32(2)                   // FILE_SYNC
	g.u32(uint32(len(g.data))) // data length; the octets are in the chunk
	pos := uint32(len(g.rpc))
	seg := rpcrdma.ReadSegment{Position: pos, Segment: rpcrdma.Segment{Handle: g.handle, Length: uint32(len(g.data)), Offset: g.va}}
	if err := g.msg(0, []rpcrdma.ReadSegment{seg}); err != nil {
		return err
	}
	// The server reads the chunk: READ Request, then the responses (they
	// use the request's PSNs, one per packet).
	npk := (len(g.data) + mtu - 1) / mtu
	psn := g.psn[1]
	g.psn[1] = (psn + uint32(npk)) & 0xffffff
	reth := (&ib.RETHFields{VA: g.va, RKey: g.handle, DMALen: uint32(len(g.data))}).Encode(nil)
	if err := g.packet(1, ib.BTHFields{Opcode: 0x0C, AckReq: true, PSN: psn}, reth, nil); err != nil {
		return err
	}
	g.msn[0]++
	for k := 0; k < npk; k++ {
		op := uint8(0x0E) // Middle
		switch {
		case npk == 1:
			op = 0x10
		case k == 0:
			op = 0x0D
		case k == npk-1:
			op = 0x0F
		}
		var ext []byte
		if op != 0x0E {
			ext = (&ib.AETHFields{Syndrome: 0x1f, MSN: g.msn[0] & 0xffffff}).Encode(nil)
		}
		end := min((k+1)*mtu, len(g.data))
		if err := g.packet(0, ib.BTHFields{Opcode: op, PSN: (psn + uint32(k)) & 0xffffff}, ext, g.data[k*mtu:end]); err != nil {
			return err
		}
	}
	g.reply()
	g.u32(0)                   // NFS3_OK
	g.u32(0)                   // wcc_data: no pre_op_attr
	g.u32(0)                   // no post_op_attr
	g.u32(uint32(len(g.data))) // count
	g.u32(2)                   // committed FILE_SYNC
	g.u32(0xcafe)              // verifier
	g.u32(0xbeef)
	return g.msg(1, nil)
}
