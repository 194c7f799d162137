package rx

import (
	"net/netip"
	"testing"
	"time"

	wire "github.com/rdx-project/rdx/dissect/rx"
)

// FuzzReceive feeds arbitrary datagrams to a serving endpoint: nothing
// panics, and the tables stay within their limits.
func FuzzReceive(f *testing.F) {
	h := func(typ, flags uint8, seq uint32) []byte {
		hf := wire.HeaderFields{Epoch: 1, CID: 4, CallNumber: 1, Seq: seq, Serial: 1, Type: typ, Flags: flags, ServiceID: echoService}
		return hf.Encode(nil)
	}
	f.Add(append(h(wire.TypeData, wire.FlagClientInitiated|wire.FlagLastPacket, 1), 0, 0, 0, 2))
	jumbo := h(wire.TypeData, wire.FlagClientInitiated|wire.FlagJumbo, 1)
	jumbo = append(jumbo, make([]byte, wire.JumboLen)...)
	jumbo = wire.AppendJumboHeader(jumbo, wire.FlagClientInitiated|wire.FlagLastPacket, 0)
	f.Add(append(jumbo, 1, 2, 3))
	a := wire.AckFields{First: 1, Reason: wire.AckPing, Acks: []byte{1, 0, 1}, Trailer: true, Window: 0, MaxJumbo: 1000}
	f.Add(a.Encode(h(wire.TypeAck, wire.FlagClientInitiated|wire.FlagRequestAck, 0)))
	f.Add(append(h(wire.TypeDebug, wire.FlagClientInitiated, 0), 0, 0, 0, 3, 0, 0, 0, 0))
	f.Add(append(h(wire.TypeVersion, wire.FlagClientInitiated, 0), 0))
	f.Add(append(h(wire.TypeAbort, wire.FlagClientInitiated, 0), 0, 0, 0, 1))
	e, err := Listen("127.0.0.1:0", Config{Handler: echo, Jumbo: true})
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	from := netip.MustParseAddrPort("127.0.0.1:9")
	f.Fuzz(func(t *testing.T, d []byte) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.receive(d, from, time.Now())
		if len(e.conns) > MaxConns || len(e.peers) > MaxPeers {
			t.Fatalf("%d conns, %d peers", len(e.conns), len(e.peers))
		}
		for _, c := range e.conns {
			for _, cl := range c.calls {
				if cl != nil && (len(cl.in.early) > Window || len(cl.in.data) > MaxCallData) {
					t.Fatalf("call holds %d early packets, %d octets", len(cl.in.early), len(cl.in.data))
				}
			}
		}
	})
}

// A client that starts a call and goes silent does not hold the server's
// connection forever: after CallIdle the call is dropped.
func TestServerDropsSilentCall(t *testing.T) {
	srv, err := Listen("127.0.0.1:0", Config{Handler: echo, CallIdle: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := Listen("127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	c, _ := cli.Dial(srv.LocalAddr(), echoService)
	if _, err := c.Start(payload(8), false); err != nil { // never completed
		t.Fatal(err)
	}
	busy := func() int {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		n := 0
		for _, c := range srv.conns {
			if c.busy() {
				n++
			}
		}
		return n
	}
	// Generous deadlines, each its own: what is checked is that the call
	// goes after CallIdle (200 ms), not that a loaded machine is quick.
	deadline := time.Now().Add(10 * time.Second)
	for busy() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if busy() != 1 {
		t.Fatal("the server never saw the call")
	}
	deadline = time.Now().Add(10 * time.Second)
	for busy() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if busy() != 0 {
		t.Fatal("the silent client's call is still active after CallIdle")
	}
}
