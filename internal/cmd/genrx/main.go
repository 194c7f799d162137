// Command genrx writes a synthetic Rx capture for benchmarks: N Ethernet/
// IPv4/UDP packets 192.0.2.1:7001 -> 192.0.2.2:7000, each a 28-octet Rx DATA
// header (call i/8+1, seq 1..8, LAST on every 8th) and 64 octets of data;
// each 8-packet call is an FS FetchData request.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"os"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/rx"
)

func main() {
	n := flag.Int("n", 1000000, "packets")
	out := flag.String("o", "rx-bench.pcap", "output file")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := capture.NewPcapWriter(bw, capture.LinkEthernet, 65535, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	frame := make([]byte, 14+20+8+28+64)
	binary.BigEndian.PutUint16(frame[12:], 0x0800)
	ip := frame[14:]
	ip[0], ip[8], ip[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)))
	copy(ip[12:], []byte{192, 0, 2, 1})
	copy(ip[16:], []byte{192, 0, 2, 2})
	udp := ip[20:]
	binary.BigEndian.PutUint16(udp[0:], 7001)
	binary.BigEndian.PutUint16(udp[2:], 7000)
	binary.BigEndian.PutUint16(udp[4:], uint16(len(udp)))
	h := rx.HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0000, Type: rx.TypeData, ServiceID: 1}
	t0 := int64(1_700_000_000) * 1e9
	for i := 0; i < *n; i++ {
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
		p := capture.Packet{Data: frame, TimeNS: t0 + int64(i)*1000, CapLen: len(frame), WireLen: len(frame), LinkType: capture.LinkEthernet}
		if err := w.WritePacket(&p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	f.Close()
}
