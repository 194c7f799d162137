// Command genrx writes a synthetic Rx capture for benchmarks: N Ethernet/
// IPv4/UDP packets 192.0.2.1:7001 -> 192.0.2.2:7000, each a 28-octet Rx DATA
// header (call i/8+1, seq 1..8, LAST on every 8th) and 64 octets of data;
// each 8-packet call is an FS FetchData request.
//
// -flows K (K > 1) spreads the packets over K client hosts 198.18.0.1,
// 198.18.0.2, ... (RFC 2544's benchmarking range 198.18.0.0/15) sending to
// one server 198.19.255.254, round-robin packet by packet, so a flow-sharded
// reader (rdx read -j N) finds every worker's flows interleaved; each flow
// numbers its calls, seqs and serials as the single flow does. -flows 1 (the
// default) writes the bytes it always wrote.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// maxFlows keeps every client address in 198.18.0.0/15 below the server's.
const maxFlows = 1 << 16

func main() {
	n := flag.Int("n", 1000000, "packets")
	out := flag.String("o", "rx-bench.pcap", "output file")
	nflows := flag.Int("flows", 1, "client hosts the packets are spread over, round-robin (at most 65536)")
	flag.Parse()
	if *nflows < 1 || *nflows > maxFlows {
		fmt.Fprintf(os.Stderr, "genrx: -flows %d: want 1 to %d\n", *nflows, maxFlows)
		os.Exit(2)
	}
	w, err := testpkt.CreatePcap(*out, capture.LinkEthernet)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	eth := make([]byte, 14)
	binary.BigEndian.PutUint16(eth[12:], 0x0800)
	frame := testpkt.UDP4(eth, testpkt.Client, testpkt.Server, 7001, 7000, make([]byte, 28+64))
	ip := frame[14:]
	udp := frame[14+20:]
	if *nflows > 1 {
		copy(ip[16:20], []byte{198, 19, 255, 254})
	}
	h := rx.HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0000, Type: rx.TypeData, ServiceID: 1}
	t0 := int64(1_700_000_000) * 1e9
	for k := 0; k < *n; k++ {
		i := k / *nflows // the packet's index in its flow
		if *nflows > 1 {
			c := 1 + k%*nflows // 198.18.0.1 + c - 1
			copy(ip[12:16], []byte{198, 18 + byte(c>>16), byte(c >> 8), byte(c)})
		}
		h.CallNumber, h.Seq, h.Serial = uint32(i/8+1), uint32(i%8+1), uint32(i+1)
		h.Flags = rx.FlagClientInitiated
		if i%8 == 7 {
			h.Flags |= rx.FlagLastPacket
		}
		h.Encode(udp[8:8])
		// seq 1 starts the call's data with an opcode: FS FetchData (130),
		// whose arguments (fid, offset, length) fill the next 16 octets
		binary.BigEndian.PutUint32(udp[8+28:], 0)
		if h.Seq == 1 {
			binary.BigEndian.PutUint32(udp[8+28:], 130)
		}
		if err := w.Write(frame, t0+int64(k)*1000); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if err := w.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
