package rx_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// lossyPcap is a Linux AF_RXRPC client and server (service on UDP 7100)
// talking over a link that drops packets: DATA is resent with the same seq
// and a new serial, and the peers exchange VERSION keepalives.
const lossyPcap = "../../pcaps/kernel/lossy_rxrpc.pcap"

type dirKey struct {
	epoch, cid, call uint32
	reply            bool
}

// On a real lossy capture every call direction that completes (its LAST
// packet and all before it seen) is handed to the service exactly once, and
// nothing is reported as an error or as a reply without request.
func TestLossyRxRPC(t *testing.T) {
	if _, err := os.Stat(lossyPcap); err != nil {
		t.Fatal("capture missing (it is committed): " + err.Error())
	}
	delivered := map[dirKey]int{}
	observe(t, func(c *rx.Call) {
		if !c.Abort {
			delivered[dirKey{c.Epoch, c.CID &^ 3, c.CallNumber, c.Reply}]++
		}
	})

	opts := tsharktest.DecodeAs(t, "udp.port==7100,rx")
	eng := dissect.NewEngine(opts)
	lastSeen := map[dirKey]bool{} // directions whose LAST packet is in the capture
	err := testpkt.Each(lossyPcap, func(p dissect.Packet) error {
		n := p.Num
		f := eng.Decode(p)
		for _, fd := range f.Findings {
			if fd.Sev == dissect.Error || fd.Group == dissect.GroupResponse && fd.Sev != dissect.Note {
				t.Errorf("frame %d: %s", n, fd.Msg)
			}
			if fd.Msg == "reply without request (the request is not in the capture)" || strings.HasPrefix(fd.Msg, "VERSION reply of") {
				t.Errorf("frame %d: %s", n, fd.Msg)
			}
		}
		if p.LinkType != capture.LinkEthernet || len(p.Data) < 15 {
			return nil
		}
		off := 14 + int(p.Data[14]&0xf)*4 + 8 // Ethernet, IPv4, UDP
		if len(p.Data) >= off+rx.HeaderLen && p.Data[off+20] == rx.TypeData {
			h := rx.Header(p.Data[off : off+rx.HeaderLen])
			if h.Flags()&rx.FlagLastPacket != 0 {
				lastSeen[dirKey{h.Epoch(), h.CID() &^ 3, h.CallNumber(), h.Flags()&rx.FlagClientInitiated == 0}] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lastSeen) == 0 {
		t.Fatal("no Rx DATA with LAST in the capture: not the lossy AF_RXRPC capture?")
	}
	for k := range lastSeen {
		if delivered[k] != 1 {
			t.Errorf("call %d (reply %v) delivered %d times, want once", k.call, k.reply, delivered[k])
		}
	}
	for k, n := range delivered {
		if !lastSeen[k] {
			t.Errorf("call %d (reply %v) delivered %d times without its LAST packet", k.call, k.reply, n)
		}
	}
	t.Logf("%d call directions, each delivered once", len(lastSeen))
}
