package rx

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/active/impair"
	wire "github.com/rdx-project/rdx/dissect/rx"
)

const echoService = 4242

// echo replies with the request; opcode 1 aborts with code 77, opcode 3
// replies with as many octets as its argument says.
func echo(_ uint16, req []byte) ([]byte, uint32) {
	if len(req) >= 4 && binary.BigEndian.Uint32(req) == 1 {
		return nil, 77
	}
	if len(req) >= 8 && binary.BigEndian.Uint32(req) == 3 {
		return payload(int(binary.BigEndian.Uint32(req[4:]))), 0
	}
	return req, 0
}

func pair(t *testing.T, srvImpair, cliImpair string, opts ...func(*Config)) (*Endpoint, *Endpoint) {
	t.Helper()
	shim := func(s string) *impair.Shim {
		if s == "" {
			return nil
		}
		sp, err := impair.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return impair.New(sp)
	}
	scfg := Config{Handler: echo, Services: []uint16{echoService}, Jumbo: true,
		Version: "rdx test", Impair: shim(srvImpair), RTO: 100 * time.Millisecond}
	ccfg := Config{Jumbo: true, Impair: shim(cliImpair), RTO: 100 * time.Millisecond}
	for _, o := range opts {
		o(&scfg)
		o(&ccfg)
	}
	srv, err := Listen("127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := Listen("127.0.0.1:0", ccfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close(); srv.Close() })
	return srv, cli
}

func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/1412)
	}
	if n >= 4 {
		binary.BigEndian.PutUint32(b, 2) // opcode 2: echo
	}
	return b
}

func doCall(t *testing.T, cli *Endpoint, srv *Endpoint, req []byte) []byte {
	t.Helper()
	c, err := cli.Dial(srv.LocalAddr(), echoService)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := c.Call(ctx, req)
	if err != nil {
		t.Fatalf("call of %d octets: %v", len(req), err)
	}
	return rep
}

func TestEchoSizes(t *testing.T) {
	// Retransmission timeouts of 4 s (the most rto allows): with none lost,
	// nothing may be resent, but a loaded machine that runs neither side
	// for 100 ms made a 100 ms RTO fire (31 packets resent, seen under
	// load). A resend that does not wait for the timeout still shows.
	slow := func(c *Config) { c.RTO, c.RTOMin = 4*time.Second, 4*time.Second }
	srv, cli := pair(t, "", "", slow)
	for _, n := range []int{4, 1412, 1413, 3 * 1412, 100000} {
		req := payload(n)
		if rep := doCall(t, cli, srv, req); !bytes.Equal(rep, req) {
			t.Fatalf("%d octets: reply differs (%d octets back)", n, len(rep))
		}
	}
	// the server's ACK trailer allows 4 packets per datagram, so the
	// 100000-octet request went out in jumbograms, and the reply too
	cs, ss := cli.Stats(), srv.Stats()
	if cs.JumbogramsSent == 0 || ss.JumbogramsRead == 0 || ss.JumbogramsSent == 0 || cs.JumbogramsRead == 0 {
		t.Fatalf("no jumbograms: client sent %d read %d, server sent %d read %d",
			cs.JumbogramsSent, cs.JumbogramsRead, ss.JumbogramsSent, ss.JumbogramsRead)
	}
	if cs.DataResent != 0 || ss.DataResent != 0 {
		t.Fatalf("resends without loss: client %d server %d", cs.DataResent, ss.DataResent)
	}
}

func TestNoJumbo(t *testing.T) {
	srv, err := Listen("127.0.0.1:0", Config{Handler: echo})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := Listen("127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	req := payload(20000)
	if rep := doCall(t, cli, srv, req); !bytes.Equal(rep, req) {
		t.Fatal("reply differs")
	}
	if s := cli.Stats(); s.JumbogramsSent != 0 {
		t.Fatalf("jumbograms sent with Jumbo off: %d", s.JumbogramsSent)
	}
}

// Loss and reordering on either side: retransmission completes every call.
func TestEchoImpaired(t *testing.T) {
	for _, tc := range []struct {
		srv, cli string
		req      []byte
	}{
		{"", "drop=1", payload(4)},                // the request's only packet
		{"drop=1", "", payload(4)},                // the reply's only packet
		{"", "drop=3,reorder=5", payload(60000)},  // inside a multi-packet request
		{"drop=2,drop=4", "", fill(60000)},        // inside a multi-packet reply
		{"reorder=3,dup=5", "dup=2", fill(60000)}, // late and twice
		{"drop=10%,seed=3", "drop=10%,reorder=10%,seed=4", payload(60000)},
	} {
		t.Run(tc.srv+"|"+tc.cli, func(t *testing.T) {
			srv, cli := pair(t, tc.srv, tc.cli)
			want := tc.req
			if binary.BigEndian.Uint32(tc.req) == 3 {
				want = payload(int(binary.BigEndian.Uint32(tc.req[4:])))
			}
			if rep := doCall(t, cli, srv, tc.req); !bytes.Equal(rep, want) {
				t.Fatal("reply differs")
			}
			if strings.Contains(tc.srv+tc.cli, "drop") && cli.Stats().DataResent+srv.Stats().DataResent == 0 {
				t.Fatal("a packet was dropped but nothing was resent")
			}
		})
	}
}

func fill(n int) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 3), uint32(n))
}

func TestAbort(t *testing.T) {
	srv, cli := pair(t, "", "")
	c, _ := cli.Dial(srv.LocalAddr(), echoService)
	_, err := c.Call(context.Background(), []byte{0, 0, 0, 1})
	var ae *AbortError
	if !errors.As(err, &ae) || ae.Code != 77 || !ae.Remote {
		t.Fatalf("want the server's abort 77, got %v", err)
	}
	// the channel is free again afterwards
	if rep := doCall(t, cli, srv, payload(8)); len(rep) != 8 {
		t.Fatalf("call after abort: %d octets", len(rep))
	}
}

func TestUnknownService(t *testing.T) {
	srv, cli := pair(t, "", "")
	c, _ := cli.Dial(srv.LocalAddr(), 999)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.Call(ctx, payload(8))
	var ae *AbortError
	if !errors.As(err, &ae) || ae.Code != CodeInvalidOperation {
		t.Fatalf("want RX_INVALID_OPERATION, got %v", err)
	}
}

func TestFourChannels(t *testing.T) {
	srv, cli := pair(t, "", "")
	c, _ := cli.Dial(srv.LocalAddr(), echoService)
	var calls []*Call
	for i := range 4 {
		cl, err := c.Start(payload(4+i), false) // held open: the channel stays busy
		if err != nil {
			t.Fatal(err)
		}
		if cl.Channel() != i || cl.Number() != 1 {
			t.Fatalf("call %d on channel %d number %d", i, cl.Channel(), cl.Number())
		}
		calls = append(calls, cl)
	}
	if _, err := c.Start(payload(4), true); err == nil {
		t.Fatal("a fifth call started on a connection with four busy channels")
	}
	calls[2].Abort(CodeCallDead)
	cl, err := c.Start(payload(4), true)
	if err != nil || cl.Channel() != 2 || cl.Number() != 2 {
		t.Fatalf("after freeing channel 2: %v (channel %v)", err, cl)
	}
}

func TestPing(t *testing.T) {
	srv, cli := pair(t, "", "")
	c, _ := cli.Dial(srv.LocalAddr(), echoService)
	cl, err := c.Start(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 3 {
		rtt, err := cl.Ping(ctx)
		if err != nil || rtt <= 0 || rtt > time.Second {
			t.Fatalf("ping: %v %v", rtt, err)
		}
	}
	cl.Abort(CodeCallDead)
	// Up to 10 s: it comes in a millisecond, but a loaded machine may not
	// run the server for a second.
	for deadline := time.Now().Add(10 * time.Second); srv.Stats().PacketsRead[wire.TypeAbort] == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if s := srv.Stats(); s.PacketsRead[wire.TypeAbort] != 1 || s.PacketsSent[wire.TypeAck] < 3 {
		t.Fatalf("server read %d aborts, sent %d acks", s.PacketsRead[wire.TypeAbort], s.PacketsSent[wire.TypeAck])
	}
}

func TestDebugAndVersion(t *testing.T) {
	srv, cli := pair(t, "", "")
	ctx := context.Background()
	v, err := cli.Version(ctx, srv.LocalAddr())
	if err != nil || v != "rdx test" {
		t.Fatalf("version %q %v", v, err)
	}
	doCall(t, cli, srv, payload(8))
	st, err := cli.Debug(ctx, srv.LocalAddr(), wire.TypeDebug, debugIn(wire.DebugGetStats, 0), 2)
	if err != nil || len(st) != wire.DebugStatsLen || st[14] != 'S' || binary.BigEndian.Uint32(st[8:]) != 1 {
		t.Fatalf("GETSTATS: %v % x", err, st)
	}
	c0, _ := cli.Debug(ctx, srv.LocalAddr(), wire.TypeDebug, debugIn(wire.DebugGetAllConn, 0), 2)
	c1, _ := cli.Debug(ctx, srv.LocalAddr(), wire.TypeDebug, debugIn(wire.DebugGetAllConn, 1), 2)
	if len(c0) != wire.DebugConnLen || binary.BigEndian.Uint32(c0[4:]) == wire.DebugEnd ||
		binary.BigEndian.Uint16(c0[32:]) != cli.LocalAddr().Port() || binary.BigEndian.Uint32(c0[12:]) != 1 {
		t.Fatalf("GETALLCONN 0: % x", c0)
	}
	if binary.BigEndian.Uint32(c1[4:]) != wire.DebugEnd {
		t.Fatalf("GETALLCONN 1 is not the end marker: % x", c1[:8])
	}
	p0, _ := cli.Debug(ctx, srv.LocalAddr(), wire.TypeDebug, debugIn(wire.DebugGetPeer, 0), 2)
	if len(p0) != wire.DebugPeerLen || binary.BigEndian.Uint16(p0[4:]) != cli.LocalAddr().Port() {
		t.Fatalf("GETPEER 0: % x", p0)
	}
	rs, _ := cli.Debug(ctx, srv.LocalAddr(), wire.TypeDebug, debugIn(wire.DebugRxStats, 0), 2)
	if len(rs) != wire.DebugRxStatsLen || binary.BigEndian.Uint32(rs[4*(11+wire.TypeVersion-1):]) != 1 {
		t.Fatalf("RXSTATS: %d octets, VERSION packets read %d", len(rs), binary.BigEndian.Uint32(rs[4*(11+12):]))
	}
	bad, _ := cli.Debug(ctx, srv.LocalAddr(), wire.TypeDebug, debugIn(99, 0), 2)
	if binary.BigEndian.Uint32(bad) != wire.DebugBadType {
		t.Fatalf("unknown type: % x", bad)
	}
}

func debugIn(typ, index uint32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, typ), index)
}

// The connection table is bounded: the MaxConns+1st connection evicts the
// least recently used idle one.
func TestConnLimit(t *testing.T) {
	e, err := Listen("127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	to := netip.MustParseAddrPort("127.0.0.1:9")
	for i := 0; i <= MaxConns; i++ {
		if _, err := e.Dial(to, 1); err != nil {
			t.Fatal(i, err)
		}
	}
	if s := e.Stats(); s.ConnsEvicted != 1 || len(e.conns) != MaxConns {
		t.Fatalf("evicted %d, %d conns", s.ConnsEvicted, len(e.conns))
	}
}

func TestNoReply(t *testing.T) {
	e, _ := Listen("127.0.0.1:0", Config{})
	defer e.Close()
	dead, _ := Listen("127.0.0.1:0", Config{}) // no Handler: DEBUG is not answered
	defer dead.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := e.Version(ctx, dead.LocalAddr()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(fmt.Sprint("want a timeout, got ", err))
	}
}

// A peer's ACK trailer decides jumbograms: OpenAFS without -jumbo says max
// MTU 1444 (one packet fits) even with 4 packets per datagram; one with
// -jumbo says 5692. The fake peer ACKs every datagram and counts the
// datagrams that carry more than one packet.
func TestJumboFollowsPeerMTU(t *testing.T) {
	for _, tc := range []struct {
		maxMTU    uint32
		wantJumbo bool
	}{{1444, false}, {5692, true}} {
		t.Run(strconv.Itoa(int(tc.maxMTU)), func(t *testing.T) {
			peer, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			cli, err := Listen("127.0.0.1:0", Config{Jumbo: true})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			c, _ := cli.Dial(peer.LocalAddr().(*net.UDPAddr).AddrPort(), 1)
			if _, err := c.Start(payload(40*PacketData), true); err != nil {
				t.Fatal(err)
			}
			jumbos, next := 0, uint32(1)
			buf := make([]byte, 65536)
			peer.SetReadDeadline(time.Now().Add(5 * time.Second))
			for next <= 40 {
				n, from, err := peer.ReadFromUDPAddrPort(buf)
				if err != nil {
					t.Fatalf("after seq %d: %v", next-1, err)
				}
				h := wire.Header(buf[:n])
				if h.Type() != wire.TypeData {
					continue
				}
				k := uint32(1)
				if h.Flags()&wire.FlagJumbo != 0 {
					k = uint32(wire.JumboCount(n - wire.HeaderLen))
					jumbos++
					if n > int(tc.maxMTU) {
						t.Fatalf("a %d-octet datagram to a peer whose max MTU is %d", n, tc.maxMTU)
					}
				}
				if h.Seq() == next {
					next += k
				}
				hf := wire.HeaderFields{Epoch: h.Epoch(), CID: h.CID(), CallNumber: h.CallNumber(), Serial: 1, Type: wire.TypeAck}
				a := wire.AckFields{First: next, Serial: h.Serial(), Reason: wire.AckRequested, Trailer: true,
					MaxMTU: tc.maxMTU, IfMTU: 1444, Window: 32, MaxJumbo: 4}
				peer.WriteToUDPAddrPort(a.Encode(hf.Encode(nil)), from)
			}
			if (jumbos > 0) != tc.wantJumbo {
				t.Fatalf("max MTU %d: %d jumbograms", tc.maxMTU, jumbos)
			}
		})
	}
}
