package iwarp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/active/impair"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
)

// pair connects a client with cfg c to a server with cfg s over loopback
// TCP and returns both ends (or the errors of each side's MPA exchange).
func pair(t testing.TB, c, s Config) (*Conn, *Conn, error, error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type res struct {
		c   *Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			ch <- res{nil, err}
			return
		}
		sc, err := Server(nc, s)
		if err != nil {
			nc.Close()
		}
		ch <- res{sc, err}
	}()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	cc, cerr := Client(nc, c)
	if cerr != nil {
		nc.Close()
	}
	r := <-ch
	return cc, r.c, cerr, r.err
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7) + byte(i>>8)
	}
	return b
}

// exercise runs Sends both ways (several DDP segments each), an RDMA Write
// and an RDMA Read each way, and checks every octet.
func exercise(t *testing.T, cc, sc *Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const n = 1500 // several MULPDU-sized segments, crossing marker positions
	msg := pattern(n, 1)
	// The initiator speaks first (the responder may only send after it).
	if err := cc.Send(msg, false); err != nil {
		t.Fatal(err)
	}
	if err := cc.Send(pattern(0, 0), true); err != nil {
		t.Fatal(err)
	}
	m, err := sc.Recv(ctx)
	if err != nil || !bytes.Equal(m.Data, msg) || m.SE {
		t.Fatalf("server Recv: %v (%d octets, SE %v)", err, len(m.Data), m.SE)
	}
	if m, err = sc.Recv(ctx); err != nil || len(m.Data) != 0 || !m.SE {
		t.Fatalf("server Recv of the empty Send with SE: %v %d %v", err, len(m.Data), m.SE)
	}
	for i, ends := range [][2]*Conn{{cc, sc}, {sc, cc}} {
		a, b := ends[0], ends[1]
		sink := b.Register(make([]byte, n+100), RemoteWrite)
		src := b.Register(pattern(n, byte(50+i)), RemoteRead)
		want := pattern(n, byte(90+i))
		if err := a.Write(sink.STag, sink.TO+100, want); err != nil {
			t.Fatal(err)
		}
		local := a.Register(make([]byte, n), 0)
		if err := a.Read(ctx, local, 0, n, src.STag, src.TO); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(local.Buf, src.Buf) {
			t.Fatalf("side %d: RDMA Read data differs", i)
		}
		// The Write went before the Read Request on the same stream, and
		// the peer handles segments in order: it is placed by now.
		if !bytes.Equal(sink.Buf[100:], want) {
			t.Fatalf("side %d: RDMA Write data differs", i)
		}
	}
	if err := sc.Send(msg[:700], false); err != nil {
		t.Fatal(err)
	}
	if m, err := cc.Recv(ctx); err != nil || !bytes.Equal(m.Data, msg[:700]) {
		t.Fatalf("client Recv: %v", err)
	}
}

// TestNegotiationMatrix: every combination of revision, CRC asked by
// either side, markers asked by either side and peer-to-peer RTR type
// settles as RFC 5044/6581 say and carries Sends, Writes and Reads intact.
func TestNegotiationMatrix(t *testing.T) {
	for _, rev := range []uint8{1, 2} {
		rtrs := []RTR{RTRNone}
		if rev == 2 {
			rtrs = append(rtrs, RTRSend, RTRWrite, RTRRead)
		}
		for combo := range 16 {
			cCRC, sCRC, cM, sM := combo&1 != 0, combo&2 != 0, combo&4 != 0, combo&8 != 0
			for _, rtr := range rtrs {
				name := fmt.Sprintf("rev%d/crc%v-%v/markers%v-%v/rtr-%s", rev, cCRC, sCRC, cM, sM, rtr)
				t.Run(name, func(t *testing.T) {
					cfgC := Config{Rev: rev, CRC: cCRC, Markers: cM, P2P: rtr, MULPDU: 300, IRD: 4, ORD: 3}
					cfgS := Config{Rev: rev, CRC: sCRC, Markers: sM, P2P: RTRAny, MULPDU: 256, IRD: 2, ORD: 8}
					cc, sc, cerr, serr := pair(t, cfgC, cfgS)
					if cerr != nil || serr != nil {
						t.Fatalf("client %v, server %v", cerr, serr)
					}
					defer sc.Close()
					defer cc.Close()
					cp, sp := cc.Params(), sc.Params()
					if cp.Rev != rev || sp.Rev != rev || cp.CRC != (cCRC || sCRC) || sp.CRC != cp.CRC {
						t.Errorf("rev/CRC: client %v, server %v", cp, sp)
					}
					// markers go where the receiver asked for them
					if cp.TxMarkers != sM || cp.RxMarkers != cM || sp.TxMarkers != cM || sp.RxMarkers != sM {
						t.Errorf("markers: client %v, server %v", cp, sp)
					}
					if rev == 2 && (!cp.Enhanced || cp.PeerIRD != 2 || cp.ORD != 2 || sp.PeerIRD != 4 || sp.ORD != 4) {
						t.Errorf("IRD/ORD: client %v (ORD %d), server %v (ORD %d)", cp, cp.ORD, sp, sp.ORD)
					}
					if cp.RTR != rtr || sp.RTR != rtr {
						t.Errorf("RTR: client %s, server %s, want %s", cp.RTR, sp.RTR, rtr)
					}
					exercise(t, cc, sc)
				})
			}
		}
	}
}

// TestRevisionDowngrade: a revision-2 initiator and a revision-1
// responder settle on revision 1 without the IRD/ORD word.
func TestRevisionDowngrade(t *testing.T) {
	cc, sc, cerr, serr := pair(t, Config{Rev: 2, P2P: RTRWrite, Private: []byte("hi")}, Config{Rev: 1, Private: []byte("there")})
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	defer sc.Close()
	defer cc.Close()
	if p := cc.Params(); p.Rev != 1 || p.Enhanced || p.RTR != RTRNone || string(p.PeerPrivate) != "there" {
		t.Errorf("client: %+v", p)
	}
	// The responder read the Request's private data without the IRD/ORD
	// word only when it spoke revision 2: at revision 1 it is all private.
	if p := sc.Params(); p.Rev != 1 || len(p.PeerPrivate) != 6 || string(p.PeerPrivate[4:]) != "hi" {
		t.Errorf("server: %+v", p)
	}
	exercise(t, cc, sc)
}

func TestReject(t *testing.T) {
	_, _, cerr, serr := pair(t, Config{}, Config{Reject: true, Private: []byte("go away")})
	var re *RejectError
	if !errors.As(cerr, &re) || string(re.Private) != "go away" {
		t.Errorf("client: %v", cerr)
	}
	if !errors.As(serr, &re) {
		t.Errorf("server: %v", serr)
	}
	// CRC strictness refuses on either side.
	_, _, cerr, _ = pair(t, Config{CRC: true}, Config{CRCStrict: true})
	if !errors.As(cerr, &re) || !bytes.Contains(re.Private, []byte("CRC")) {
		t.Errorf("strict responder: %v", cerr)
	}
	_, _, cerr, _ = pair(t, Config{CRCStrict: true}, Config{CRC: true})
	if !errors.Is(cerr, ErrStartup) {
		t.Errorf("strict initiator: %v", cerr)
	}
	// Peer-to-peer with no RTR type in common.
	_, _, cerr, _ = pair(t, Config{P2P: RTRRead}, Config{P2P: RTRWrite})
	if !errors.As(cerr, &re) || !bytes.Contains(re.Private, []byte("RTR")) {
		t.Errorf("no common RTR: %v", cerr)
	}
}

// waitTerminate waits for both ends to finish and returns their errors.
func waitTerminate(t *testing.T, a, b *Conn) (error, error) {
	t.Helper()
	for _, c := range []*Conn{a, b} {
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("connection did not end")
		}
	}
	return a.Err(), b.Err()
}

func termOf(err error) *TerminateError {
	var te *TerminateError
	if errors.As(err, &te) {
		return te
	}
	return nil
}

// TestCorruptFPDUTerminates: an octet flipped by the impairment shim in
// the client's second FPDU makes the server's CRC check fail; the server
// sends a Terminate (LLP, MPA CRC error) and the client reports it.
func TestCorruptFPDUTerminates(t *testing.T) {
	spec, err := impair.Parse("corrupt=2@22") // FPDU octet 22: the Send payload
	if err != nil {
		t.Fatal(err)
	}
	shim := impair.New(spec)
	cc, sc, cerr, serr := pair(t, Config{CRC: true, Impair: shim}, Config{CRC: true})
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	defer sc.Close()
	defer cc.Close()
	ctx := context.Background()
	if err := cc.Send([]byte("first, intact"), false); err != nil {
		t.Fatal(err)
	}
	if m, err := sc.Recv(ctx); err != nil || string(m.Data) != "first, intact" {
		t.Fatal(m, err)
	}
	cc.Send([]byte("second, corrupted on the way"), false)
	ce, se := waitTerminate(t, cc, sc)
	if te := termOf(se); te == nil || !te.Sent || te.Layer != ddp.TermLLP || te.Code != ddp.TermCRC {
		t.Errorf("server: %v", se)
	}
	if te := termOf(ce); te == nil || te.Sent || te.Layer != ddp.TermLLP || te.Code != ddp.TermCRC {
		t.Errorf("client: %v", ce)
	}
	if ev, _ := shim.Events(); len(ev) != 1 || ev[0].Unit != 2 || ev[0].Kind != impair.Corrupt {
		t.Errorf("impair events %v", ev)
	}
	// Without CRCs the same flip goes unnoticed by MPA.
	shim = impair.New(spec)
	cc2, sc2, _, _ := pair(t, Config{Impair: shim}, Config{})
	defer sc2.Close()
	defer cc2.Close()
	cc2.Send([]byte("first, intact"), false)
	cc2.Send([]byte("second, corrupted on the way"), false)
	sc2.Recv(ctx)
	if m, err := sc2.Recv(ctx); err != nil || string(m.Data) == "second, corrupted on the way" {
		t.Errorf("CRC off: %q %v", m.Data, err)
	}
}

// rawClient negotiates with a Server over a plain socket, so a test can
// write FPDUs the stack itself would never send.
func rawClient(t *testing.T, s Config, flags uint8) (net.Conn, *Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ch := make(chan *Conn, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			ch <- nil
			return
		}
		sc, _ := Server(nc, s)
		ch <- sc
	}()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc.Write(mpa.EncodeStartup(nil, false, flags, 1, nil))
	rep := make([]byte, mpa.StartupLen)
	if _, err := nc.Read(rep); err != nil {
		t.Fatal(err)
	}
	sc := <-ch
	if sc == nil {
		t.Fatal("server failed")
	}
	t.Cleanup(func() { nc.Close(); sc.Close() })
	return nc, sc
}

// readTerminate reads FPDUs (no markers, CRC on) from nc until a Terminate
// and returns its control word.
func readTerminate(t *testing.T, nc net.Conn, markers bool) []byte {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var buf []byte
	tmp := make([]byte, 4096)
	var rel uint32
	for {
		if w, ok := mpa.WireLen(buf, rel, markers); ok && len(buf) >= w {
			u, err := mpa.Unframe(nil, buf[:w], rel, markers, true)
			if err != nil {
				t.Fatal(err)
			}
			buf, rel = buf[w:], rel+uint32(w)
			if !ddp.Tagged(u) && ddp.Opcode(u) == ddp.OpTerminate {
				if ddp.QN(u) != 2 || ddp.MSN(u) != 1 {
					t.Errorf("Terminate on queue %d MSN %d", ddp.QN(u), ddp.MSN(u))
				}
				return u[ddp.UntaggedLen:]
			}
			continue
		}
		n, err := nc.Read(tmp)
		if err != nil {
			t.Fatalf("no Terminate: %v", err)
		}
		buf = append(buf, tmp[:n]...)
	}
}

// TestTerminateErrors: segments naming an unknown STag, a buffer's
// outside, a bad marker and a bad MSN each get the Terminate RFC 5040/5041/
// 5044 assign, carrying the terminated DDP header.
func TestTerminateErrors(t *testing.T) {
	cases := []struct {
		name  string
		flags uint8 // Request flags
		seg   func(sc *Conn) []byte
		want  [3]uint8 // layer, etype, code
		rdmap bool     // the Read Request's RDMAP header comes back
	}{
		{"write unknown STag", mpa.FlagC, func(*Conn) []byte { return ddp.EncodeTagged(nil, true, ddp.OpWrite, 0x777, 0, []byte("x")) },
			[3]uint8{ddp.TermDDP, ddp.TermDDPTagged, ddp.TermInvalidSTag}, false},
		{"write out of bounds", mpa.FlagC, func(sc *Conn) []byte {
			mr := sc.Register(make([]byte, 8), RemoteWrite)
			return ddp.EncodeTagged(nil, true, ddp.OpWrite, mr.STag, mr.TO+4, []byte("too long"))
		}, [3]uint8{ddp.TermDDP, ddp.TermDDPTagged, ddp.TermBounds}, false},
		{"write without access", mpa.FlagC, func(sc *Conn) []byte {
			mr := sc.Register(make([]byte, 8), RemoteRead)
			return ddp.EncodeTagged(nil, true, ddp.OpWrite, mr.STag, mr.TO, []byte("x"))
		}, [3]uint8{ddp.TermRDMA, ddp.TermRDMARemoteProt, ddp.TermAccess}, false},
		{"read unknown STag", mpa.FlagC, func(*Conn) []byte {
			return ddp.EncodeUntagged(nil, true, ddp.OpReadRequest, 0, 1, 1, 0, ddp.EncodeReadRequest(nil, 1, 0, 10, 0x999, 0))
		}, [3]uint8{ddp.TermRDMA, ddp.TermRDMARemoteProt, ddp.TermInvalidSTag}, true},
		{"send bad MSN", mpa.FlagC, func(*Conn) []byte { return ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, 5, 0, []byte("x")) },
			[3]uint8{ddp.TermDDP, ddp.TermDDPUntagged, ddp.TermInvalidMSN}, false},
		{"bad CRC", mpa.FlagC, nil, [3]uint8{ddp.TermLLP, ddp.TermMPA, ddp.TermCRC}, false},
		{"bad marker", mpa.FlagC | mpa.FlagM, nil, [3]uint8{ddp.TermLLP, ddp.TermMPA, ddp.TermMarker}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nc, sc := rawClient(t, Config{Markers: c.flags&mpa.FlagM != 0}, c.flags)
			var fp []byte
			switch c.name {
			case "bad CRC":
				fp = mpa.EncodeFPDU(nil, ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, 1, 0, []byte("x")), 0, false, true)
				fp[len(fp)-1] ^= 1
			case "bad marker":
				// an FPDU crossing the marker at 512 with its FPDUPTR moved
				fp = mpa.EncodeFPDU(nil, ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, 1, 0, make([]byte, 600)), 0, true, true)
				fp[512+3] += 4
				binaryLE(fp[len(fp)-4:], mpa.CRC(fp[:len(fp)-4]))
			default:
				fp = mpa.EncodeFPDU(nil, c.seg(sc), 0, false, true)
			}
			nc.Write(fp)
			term := readTerminate(t, nc, c.flags&mpa.FlagM != 0)
			if got := [3]uint8{term[0] >> 4, term[0] & 15, term[1]}; got != c.want {
				t.Errorf("Terminate %v (%s), want %v", got, ddp.TermText(term), c.want)
			}
			if c.want[0] != ddp.TermLLP && term[2]&(ddp.HdrctM|ddp.HdrctD) != ddp.HdrctM|ddp.HdrctD {
				t.Errorf("hdrct %#x: the DDP header should come back", term[2])
			}
			if c.rdmap != (term[2]&ddp.HdrctR != 0) {
				t.Errorf("hdrct %#x: RDMAP header", term[2])
			}
			nc.Close() // the server drains until this FIN
			<-sc.Done()
			if te := termOf(sc.Err()); te == nil || !te.Sent {
				t.Errorf("server error %v", sc.Err())
			}
		})
	}
}

func binaryLE(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// TestNoRTR: in peer-to-peer mode the responder terminates when the first
// FPDU is not the agreed RTR (LLP error 7, RFC 6581).
func TestNoRTR(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ch := make(chan *Conn, 1)
	go func() {
		nc, _ := l.Accept()
		sc, _ := Server(nc, Config{P2P: RTRWrite, CRC: true})
		ch <- sc
	}()
	nc, _ := net.Dial("tcp", l.Addr().String())
	defer nc.Close()
	pd := mpa.EncodeIRDORD(nil, 1, 1, mpa.IRDPeerToPeer, mpa.ORDWriteRTR)
	nc.Write(mpa.EncodeStartup(nil, false, mpa.FlagC|mpa.FlagEnhanced, 2, pd))
	rep := make([]byte, mpa.StartupLen+4)
	nc.Read(rep)
	if _, _, ci, co := mpa.IRDORD(rep[mpa.StartupLen:]); ci != mpa.IRDPeerToPeer || co != mpa.ORDWriteRTR {
		t.Fatalf("Reply IRD/ORD %x", rep[mpa.StartupLen:])
	}
	sc := <-ch
	defer sc.Close()
	nc.Write(mpa.EncodeFPDU(nil, ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, 1, 0, []byte("hello")), 0, false, true))
	term := readTerminate(t, nc, false)
	nc.Close()
	if term[0] != ddp.TermLLP<<4 || term[1] != ddp.TermNoRTR {
		t.Errorf("Terminate %x (%s)", term[:4], ddp.TermText(term))
	}
}

// TestRping runs rping's client against rping's server over the stack,
// validating every ping and counting them.
func TestRping(t *testing.T) {
	cc, sc, cerr, serr := pair(t, Config{CRC: true, MULPDU: 200}, Config{})
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var sout bytes.Buffer
	done := make(chan error, 1)
	var served int
	go func() {
		var err error
		served, err = RpingServer(ctx, sc, RpingOptions{Size: 1000, Verbose: true, Out: &sout})
		sc.Close()
		done <- err
	}()
	var cout bytes.Buffer
	n, err := RpingClient(ctx, cc, RpingOptions{Count: 60, Size: 1000, Validate: true, Verbose: true, Out: &cout})
	cc.Close()
	if err != nil || n != 60 {
		t.Fatalf("client: %d pings, %v", n, err)
	}
	if err := <-done; err != nil || served != 60 {
		t.Fatalf("server: %d pings, %v", served, err)
	}
	lines := bytes.Split(bytes.TrimSpace(cout.Bytes()), []byte("\n"))
	// ping 59 starts at 'A'+59%58 = 'B'
	if len(lines) != 60 || !bytes.HasPrefix(lines[59], []byte("ping data: rdma-ping-59: BCD")) {
		t.Errorf("client output: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	if !bytes.HasPrefix(sout.Bytes(), []byte("server ping data: rdma-ping-0: ABCDEFG")) {
		t.Errorf("server output %.60q", sout.String())
	}
}

func TestRpingFill(t *testing.T) {
	b := make([]byte, 64)
	RpingFill(b, 57)
	// 'A'+57 = 'z', then back to 'A'
	if want := "rdma-ping-57: zABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnop\x00"; string(b) != want {
		t.Errorf("%q", b)
	}
}

// TestDropFPDU: an FPDU dropped by the shim is a hole in the RDMAP stream;
// the next Send arrives with an MSN one too far and the responder
// terminates (DDP untagged, invalid MSN) instead of delivering it.
func TestDropFPDU(t *testing.T) {
	spec, _ := impair.Parse("drop=2")
	cc, sc, cerr, serr := pair(t, Config{Impair: impair.New(spec)}, Config{})
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	defer sc.Close()
	defer cc.Close()
	for _, m := range []string{"one", "two (dropped)", "three"} {
		cc.Send([]byte(m), false)
	}
	if m, err := sc.Recv(context.Background()); err != nil || string(m.Data) != "one" {
		t.Fatalf("%q %v", m.Data, err)
	}
	_, se := waitTerminate(t, cc, sc)
	if te := termOf(se); te == nil || te.Layer != ddp.TermDDP || te.EType != ddp.TermDDPUntagged || te.Code != ddp.TermInvalidMSN {
		t.Errorf("server: %v", se)
	}
}

// FuzzServerStream feeds arbitrary octets after a valid MPA exchange (CRC
// and markers on, so both checks run): the responder must end, by a
// Terminate or the stream's end, without panicking or hanging.
func FuzzServerStream(f *testing.F) {
	send := mpa.EncodeFPDU(nil, ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, 1, 0, []byte("hello")), 0, true, true)
	f.Add(send)
	f.Add(append(append([]byte(nil), send...), mpa.EncodeFPDU(nil, ddp.EncodeTagged(nil, true, ddp.OpWrite, 0x15a, 1<<40, []byte("x")), uint32(len(send)), true, true)...))
	f.Add(mpa.EncodeFPDU(nil, ddp.EncodeUntagged(nil, true, ddp.OpReadRequest, 0, 1, 1, 0, ddp.EncodeReadRequest(nil, 1, 0, 4, 0x15a, 1<<40)), 0, true, true))
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := net.Pipe()
		go io.Copy(io.Discard, a)
		done := make(chan *Conn, 1)
		go func() {
			c, err := Server(b, Config{CRC: true, Markers: true, MaxMessage: 4096})
			if err != nil {
				b.Close()
			}
			done <- c
		}()
		var req []byte
		req = mpa.EncodeStartup(req, false, mpa.FlagC|mpa.FlagM, 1, nil)
		w := make(chan struct{})
		go func() {
			a.Write(req)
			a.Write(data)
			a.Close()
			close(w)
		}()
		c := <-done
		if c == nil {
			return
		}
		c.Register(make([]byte, 64), RemoteRead|RemoteWrite)
		go func() {
			for {
				if _, err := c.Recv(context.Background()); err != nil {
					return
				}
			}
		}()
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("server did not end")
		}
		c.Close()
		<-w
	})
}

// TestPartialFPDU: an FPDU whose ULPDU_Length promises more than ever
// comes (a damaged length, CRC on, markers off) ends the connection after
// PartialTimeout instead of waiting forever.
func TestPartialFPDU(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ch := make(chan *Conn, 1)
	go func() {
		nc, _ := l.Accept()
		sc, _ := Server(nc, Config{CRC: true, PartialTimeout: 200 * time.Millisecond})
		ch <- sc
	}()
	nc, _ := net.Dial("tcp", l.Addr().String())
	defer nc.Close()
	nc.Write(mpa.EncodeStartup(nil, false, mpa.FlagC, 1, nil))
	nc.Read(make([]byte, mpa.StartupLen))
	sc := <-ch
	defer sc.Close()
	nc.Write([]byte{0x03, 0xe8, 1, 2, 3, 4, 5, 6, 7, 8}) // ULPDU_Length 1000, then 8 octets
	select {
	case <-sc.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the responder still waits for the rest of the FPDU")
	}
	nc.Close() // the responder drains until this FIN
	if err := sc.Err(); err == nil || !strings.Contains(err.Error(), "incomplete after 200ms") {
		t.Errorf("error %v", err)
	}
}
