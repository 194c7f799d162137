// Command genroce writes a synthetic RoCEv2 capture for benchmarks: NFSv3
// over RPC-over-RDMA on one RC QP pair (client 192.0.2.2 QP 0x12, server
// 192.0.2.1 QP 0x11), alternating GETATTR calls/replies (inline RDMA_MSG
// SENDs) and WRITE calls whose data is a read chunk the server pulls with
// an RDMA READ (request, then First/Middle/Last responses of -mtu octets),
// each SEND acknowledged. Every packet has a correct ICRC; the IPv4 header
// checksum is right and the UDP checksum 0, as RoCEv2 NICs send. It prints
// the number of packets written.
//
// With -flows K, K clients (198.18.0.1 on, the benchmarking range) each run
// that traffic with the server, their packets interleaved round-robin, so a
// flow-sharded reader (rdx read -j N) has flows to spread; -flows 1 (the
// default) writes the single-flow capture above.
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
	flows := flag.Int("flows", 1, "client hosts, each with its own QP pair, packets interleaved round-robin")
	flag.Parse()
	f, err := os.Create(*out)
	if err == nil {
		var k int
		k, err = WriteFlows(f, *n, *mtu, *wsize, *flows)
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

// maxFlows bounds -flows (the clients are numbered in 198.18.0.0/15).
const maxFlows = 1 << 16

type gen struct {
	w     *capture.PcapWriter
	frame []byte
	t     int64
	n     int
	buf   []byte
	rpc   []byte
	data  []byte
	flows []flow
	cur   *flow // the flow whose exchange is being generated
}

// flow is one client's conversation with the server: its own PSNs, XIDs
// and handles, and the packets of its current exchange not yet written.
type flow struct {
	client   [4]byte
	psn      [2]uint32 // next PSN each side sends (0 client, 1 server)
	msn      [2]uint32 // messages each side has received
	xid      uint32
	handle   uint32
	va       uint64
	exchange int
	queue    []spec // the current exchange's packets, queue[head:] still to write
	head     int
}

// spec is a packet to write: it is built when written, as its IPv4 ID
// (and so its ICRC) is the packet's number in the file.
type spec struct {
	from    int
	bth     ib.BTHFields
	ext     []byte
	payload []byte
}

// Write writes at least n packets of one flow to w and returns how many it
// wrote.
func Write(w io.Writer, n, mtu, wsize int) (int, error) { return WriteFlows(w, n, mtu, wsize, 1) }

// WriteFlows writes at least n packets of k flows, interleaved one packet
// at a time, to w and returns how many it wrote; each flow ends with a
// whole exchange.
func WriteFlows(w io.Writer, n, mtu, wsize, k int) (int, error) {
	if mtu < 256 || mtu > 4096 || wsize < 1 || wsize > 1<<20 || k < 1 || k > maxFlows {
		return 0, fmt.Errorf("bad -mtu %d, -wsize %d or -flows %d", mtu, wsize, k)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	pw, err := capture.NewPcapWriter(bw, capture.LinkEthernet, 65535, true)
	if err != nil {
		return 0, err
	}
	g := &gen{w: pw, frame: make([]byte, 0, 9000), t: 1_700_000_000_000_000_000, data: make([]byte, wsize)}
	for i := range g.data {
		g.data[i] = byte(i)
	}
	g.flows = make([]flow, k)
	for i := range g.flows {
		fl := &g.flows[i]
		*fl = flow{client: clientIP, psn: [2]uint32{0x100000, 0x200000}, xid: 0x5e000000, handle: 0x1000, va: 0x7f0000000000}
		if k > 1 {
			fl.client = [4]byte{198, 18 + byte(i>>16), byte((i + 1) >> 8), byte(i + 1)}
			fl.xid += uint32(i) << 12
		}
	}
	for pending := true; pending; {
		pending = false
		for i := range g.flows {
			fl := &g.flows[i]
			if fl.head == len(fl.queue) && g.n < n {
				fl.queue, fl.head = fl.queue[:0], 0
				g.cur = fl
				if fl.exchange%2 == 0 {
					g.getattr()
				} else {
					g.write(mtu)
				}
				fl.exchange++
			}
			if fl.head == len(fl.queue) {
				continue
			}
			if err := g.emit(fl, fl.queue[fl.head]); err != nil {
				return g.n, err
			}
			fl.head++
			pending = true
		}
	}
	return g.n, bw.Flush()
}

// packet queues one RoCEv2 packet from the client (from 0) or the server.
func (g *gen) packet(from int, bth ib.BTHFields, ext, payload []byte) {
	fl := g.cur
	fl.queue = append(fl.queue, spec{from: from, bth: bth, ext: append([]byte(nil), ext...), payload: append([]byte(nil), payload...)})
}

// emit writes the packet s of flow fl.
func (g *gen) emit(fl *flow, s spec) error {
	from, bth, ext, payload := s.from, s.bth, s.ext, s.payload
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
	src, dstIP := fl.client, serverIP
	if from == 1 {
		src, dstIP = serverIP, fl.client
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
func (g *gen) send(from int, payload []byte) {
	psn := g.cur.psn[from]
	g.cur.psn[from] = (psn + 1) & 0xffffff
	g.packet(from, ib.BTHFields{Opcode: 0x04, SE: true, AckReq: true, PSN: psn}, nil, payload)
	to := 1 - from
	g.cur.msn[to]++
	aeth := (&ib.AETHFields{Syndrome: 0x1f, MSN: g.cur.msn[to] & 0xffffff}).Encode(nil)
	g.packet(to, ib.BTHFields{Opcode: 0x11, PSN: psn}, aeth, nil)
}

func (g *gen) u32(v uint32) { g.rpc = binary.BigEndian.AppendUint32(g.rpc, v) }

// call starts an NFSv3 call (AUTH_NONE) in g.rpc.
func (g *gen) call(proc uint32) {
	g.rpc = g.rpc[:0]
	for _, v := range []uint32{g.cur.xid, 0, 2, nfsProg, 3, proc, 0, 0, 0, 0} {
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
	for _, v := range []uint32{g.cur.xid, 1, 0, 0, 0, 0} {
		g.u32(v)
	}
}

// msg sends g.rpc as an RDMA_MSG with read list reads.
func (g *gen) msg(from int, reads []rpcrdma.ReadSegment) {
	h := rpcrdma.Header{XID: g.cur.xid, Vers: 1, Credit: 128, Proc: rpcrdma.MSG, Reads: reads}
	g.buf = h.Encode(g.buf[:0])
	g.buf = append(g.buf, g.rpc...)
	g.send(from, g.buf)
}

func (g *gen) getattr() {
	g.cur.xid++
	g.call(1)
	g.msg(0, nil)
	g.reply()
	g.u32(0) // NFS3_OK
	g.u32(1) // fattr3: NF3REG, then 80 octets
	for i := 0; i < 20; i++ {
		g.u32(0)
	}
	g.msg(1, nil)
}

// write sends a WRITE call whose data is a read chunk, the server's RDMA
// READ of it, and the reply.
func (g *gen) write(mtu int) {
	g.cur.xid++
	g.cur.handle++
	g.cur.va += 1 << 20
	g.call(7)
	g.rpc = binary.BigEndian.AppendUint64(g.rpc, uint64(g.cur.xid)*4096)
	g.u32(uint32(len(g.data))) // count
	g.u32(2)                   // FILE_SYNC
	g.u32(uint32(len(g.data))) // data length; the octets are in the chunk
	pos := uint32(len(g.rpc))
	seg := rpcrdma.ReadSegment{Position: pos, Segment: rpcrdma.Segment{Handle: g.cur.handle, Length: uint32(len(g.data)), Offset: g.cur.va}}
	g.msg(0, []rpcrdma.ReadSegment{seg})
	// The server reads the chunk: READ Request, then the responses (they
	// use the request's PSNs, one per packet).
	npk := (len(g.data) + mtu - 1) / mtu
	psn := g.cur.psn[1]
	g.cur.psn[1] = (psn + uint32(npk)) & 0xffffff
	reth := (&ib.RETHFields{VA: g.cur.va, RKey: g.cur.handle, DMALen: uint32(len(g.data))}).Encode(nil)
	g.packet(1, ib.BTHFields{Opcode: 0x0C, AckReq: true, PSN: psn}, reth, nil)
	g.cur.msn[0]++
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
			ext = (&ib.AETHFields{Syndrome: 0x1f, MSN: g.cur.msn[0] & 0xffffff}).Encode(nil)
		}
		end := min((k+1)*mtu, len(g.data))
		g.packet(0, ib.BTHFields{Opcode: op, PSN: (psn + uint32(k)) & 0xffffff}, ext, g.data[k*mtu:end])
	}
	g.reply()
	g.u32(0)                   // NFS3_OK
	g.u32(0)                   // wcc_data: no pre_op_attr
	g.u32(0)                   // no post_op_attr
	g.u32(uint32(len(g.data))) // count
	g.u32(2)                   // committed FILE_SYNC
	g.u32(0xcafe)              // verifier
	g.u32(0xbeef)
	g.msg(1, nil)
}
