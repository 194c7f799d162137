// Command genrxhostile writes Rx captures that try to make rdx hold memory,
// for measuring peak RSS (/usr/bin/time -v rdx read -q FILE):
//
//	-mode jumbo: N calls (default 10000), each a request and a reply
//	  jumbogram of 46 sub-packets (64 KiB) that never send LAST, so every
//	  call direction holds as much as MaxCallData allows;
//	-mode ooo: N calls (default 1000), each 256 request packets of 1100
//	  octets from seq 2 on, seq 1 never sent, so all are held out of order.
//
// Packets are raw IPv4/UDP (link type 228), 192.0.2.1:7001 <-> 192.0.2.2:7000.
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

func main() {
	mode := flag.String("mode", "jumbo", "jumbo or ooo")
	n := flag.Int("n", 0, "calls (default 10000 for jumbo, 1000 for ooo)")
	out := flag.String("o", "rx-hostile.pcap", "output file")
	flag.Parse()
	if err := run(*mode, *n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genrxhostile:", err)
		os.Exit(2)
	}
}

func run(mode string, n int, out string) error {
	w, err := testpkt.CreatePcap(out, capture.LinkIPv4)
	if err != nil {
		return err
	}
	t := int64(1_700_000_000) * 1e9
	frame := make([]byte, 0, 65535)
	write := func(h rx.HeaderFields, body []byte, reply bool) error {
		t += 1000
		frame = udp4(frame[:0], reply, append(h.Encode(nil), body...))
		return w.Write(frame, t)
	}
	h := rx.HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0000, Type: rx.TypeData, ServiceID: 1}
	switch mode {
	case "jumbo":
		if n == 0 {
			n = 10000
		}
		const subs = 46 // 46*1416-4 octets: the largest jumbogram in 65535-octet IPv4
		body := make([]byte, 0, subs*(rx.JumboLen+rx.JumboHdrLen))
		for i := 0; i < subs; i++ {
			body = append(body, make([]byte, rx.JumboLen)...)
			if i < subs-1 {
				body = append(body, rx.FlagJumbo|rx.FlagMorePackets, 0, 0, 0)
			}
		}
		binary.BigEndian.PutUint32(body, 130) // FS FetchData
		for c := 0; c < n; c++ {
			h.CID = 0x8a2b0000 + uint32(c/1000)<<2 // a connection per 1000 calls
			h.CallNumber, h.Seq, h.Serial = uint32(c%1000+1), 1, 1
			h.Flags = rx.FlagClientInitiated | rx.FlagJumbo
			for i := 0; i < subs-1; i++ { // client flags in each jumbo header
				body[(i+1)*(rx.JumboLen+rx.JumboHdrLen)-rx.JumboHdrLen] = rx.FlagJumbo | rx.FlagMorePackets | rx.FlagClientInitiated
			}
			if err := write(h, body, false); err != nil {
				return err
			}
			h.Flags = rx.FlagJumbo
			for i := 0; i < subs-1; i++ {
				body[(i+1)*(rx.JumboLen+rx.JumboHdrLen)-rx.JumboHdrLen] = rx.FlagJumbo | rx.FlagMorePackets
			}
			if err := write(h, body, true); err != nil {
				return err
			}
		}
	case "ooo":
		if n == 0 {
			n = 1000
		}
		body := make([]byte, 1100)
		for c := 0; c < n; c++ {
			h.CID = 0x8a2b0000 + uint32(c/1000)<<2
			h.CallNumber = uint32(c%1000 + 1)
			for s := 2; s <= 257; s++ {
				h.Seq, h.Serial, h.Flags = uint32(s), uint32(s), rx.FlagClientInitiated|rx.FlagMorePackets
				if err := write(h, body, false); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("unknown -mode %q (jumbo or ooo)", mode)
	}
	return w.Close()
}

// udp4 appends payload in IPv4+UDP from client 192.0.2.1:7001 to server
// 192.0.2.2:7000, or back when reply.
func udp4(b []byte, reply bool, payload []byte) []byte {
	if reply {
		return testpkt.UDP4(b, testpkt.Server, testpkt.Client, 7000, 7001, payload)
	}
	return testpkt.UDP4(b, testpkt.Client, testpkt.Server, 7001, 7000, payload)
}
