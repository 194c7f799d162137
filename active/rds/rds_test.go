package rds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/rdx-project/rdx/active/impair"
	wire "github.com/rdx-project/rdx/dissect/rds"
)

// sizes crosses every boundary the framing has: empty, inside and at the
// header, at and around RDS_FRAG_SIZE, and the 1 MiB maximum.
var sizes = []int{0, 1, 47, 48, 49, 1400, wire.FragSize - 1, wire.FragSize, wire.FragSize + 1, 60000, 100000, 3*wire.FragSize + 7, wire.MaxMsgLen - 1, wire.MaxMsgLen}

func payload(n, i int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), uint64(i)))
	for j := range b {
		b[j] = byte(r.Uint32())
	}
	return b
}

func listen(t *testing.T, cfg Config) (*Endpoint, netip.AddrPort) {
	t.Helper()
	ep, err := Listen("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	return ep, netip.MustParseAddrPort(ep.Addr().String())
}

type sent struct {
	sport uint16
	data  []byte
}

// exchange sends msgs and checks that the listener delivers each exactly
// once, byte for byte, in order per source port.
func exchange(t *testing.T, c *Conn, ln *Endpoint, msgs []sent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		for _, m := range msgs {
			if err := c.Send(ctx, m.sport, 4000, m.data); err != nil {
				errc <- err
				return
			}
		}
		errc <- c.Close(ctx)
	}()
	want := map[uint16][]sent{}
	for _, m := range msgs {
		want[m.sport] = append(want[m.sport], m)
	}
	for i := range msgs {
		m, err := ln.Recv(ctx)
		if err != nil {
			t.Fatalf("message %d of %d: %v", i+1, len(msgs), err)
		}
		q := want[m.Sport]
		if len(q) == 0 {
			t.Fatalf("unexpected message from port %d seq %d (%d octets)", m.Sport, m.Seq, len(m.Data))
		}
		if !bytes.Equal(m.Data, q[0].data) || m.Dport != 4000 {
			t.Fatalf("port %d seq %d: got %d octets to %d, want %d octets (first difference at %d)", m.Sport, m.Seq, len(m.Data), m.Dport, len(q[0].data), diffAt(m.Data, q[0].data))
		}
		want[m.Sport] = q[1:]
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-ln.recv:
		t.Fatalf("extra message from port %d seq %d", m.Sport, m.Seq)
	case <-time.After(50 * time.Millisecond):
	}
}

func diffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestLoopbackSizes(t *testing.T) {
	ln, addr := listen(t, Config{})
	c, err := Dial(context.Background(), addr, Config{Gen: 0x5eed})
	if err != nil {
		t.Fatal(err)
	}
	if c.Paths() != wire.MaxPaths {
		t.Errorf("paths after the handshake: %d, want %d", c.Paths(), wire.MaxPaths)
	}
	var msgs []sent
	for i, n := range sizes {
		msgs = append(msgs, sent{uint16(4001 + i%3), payload(n, i)})
	}
	exchange(t, c, ln, msgs)
	s, ls := c.Endpoint().Stats(), ln.Stats()
	if s.Pongs != 1 || ls.Pings != 1 || ls.MsgsRcvd != uint64(len(msgs)) || ls.Duplicates != 0 || ls.Gaps != 0 {
		t.Errorf("sender %+v\nlistener %+v", s, ls)
	}
	// every path opened sends its congestion map (rds_connect_path_complete)
	if s.CongSent != wire.MaxPaths || ls.CongRcvd != wire.MaxPaths {
		t.Errorf("congestion maps: sent %d, received %d, want %d each", s.CongSent, ls.CongRcvd, wire.MaxPaths)
	}
}

func TestTooBig(t *testing.T) {
	_, addr := listen(t, Config{})
	c, err := Dial(context.Background(), addr, Config{NPaths: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if err := c.Send(context.Background(), 1, 2, make([]byte, wire.MaxMsgLen+1)); !errors.Is(err, ErrTooBig) {
		t.Fatalf("Send of 1 MiB + 1: %v, want ErrTooBig", err)
	}
}

// TestReconnectRetransmit cuts the sender's path in the middle of a large
// message: the sender dials again, resends what TCP had not acknowledged
// with RDS_FLAG_RETRANSMITTED, and the listener delivers every message once
// (dropping resent ones it already had, as Linux recv.c does).
func TestReconnectRetransmit(t *testing.T) {
	for _, cut := range []int64{200000, 1_500_000} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			ln, addr := listen(t, Config{})
			c, err := Dial(context.Background(), addr, Config{NPaths: 1, CutAt: cut + wire.CongMapLen + 2*wire.HeaderLen})
			if err != nil {
				t.Fatal(err)
			}
			var msgs []sent
			for i := range 40 {
				msgs = append(msgs, sent{4001, payload(20000+i*1000, i)})
			}
			msgs = append(msgs, sent{4001, payload(wire.MaxMsgLen, 99)})
			exchange(t, c, ln, msgs)
			s := c.Endpoint().Stats()
			if s.Reconnects != 1 || s.Retransmits == 0 {
				t.Errorf("reconnects %d retransmits %d, want 1 and some", s.Reconnects, s.Retransmits)
			}
			t.Logf("retransmitted %d, listener dropped %d duplicates", s.Retransmits, ln.Stats().Duplicates)
		})
	}
}

// TestDropIsGap: an impaired drop is a message never written; the listener
// sees a sequence gap and, like Linux, delivers the rest.
func TestDropIsGap(t *testing.T) {
	ln, addr := listen(t, Config{})
	sp, _ := impair.Parse("drop=3")
	c, err := Dial(context.Background(), addr, Config{NPaths: 1, Impair: impair.New(sp)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 5 {
		if err := c.Send(ctx, 7, 8, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var got []byte
	var seqs []uint64
	for range 4 {
		m, err := ln.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, seqs = append(got, m.Data...), append(seqs, m.Seq)
	}
	// the probe had seq 1, so data messages are 2-6 and the third, 4, is gone
	if !bytes.Equal(got, []byte{0, 1, 3, 4}) || fmt.Sprint(seqs) != "[2 3 5 6]" || ln.Stats().Gaps != 1 {
		t.Fatalf("delivered %v seqs %v gaps %d", got, seqs, ln.Stats().Gaps)
	}
}

// TestCongestion: a peer's congestion map holds Send until it clears the port.
func TestCongestion(t *testing.T) {
	lnr, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lnr.Close()
	peerc := make(chan net.Conn, 1)
	go func() {
		c, err := lnr.Accept()
		if err == nil {
			peerc <- c
		}
	}()
	addr := netip.MustParseAddrPort(lnr.Addr().String())
	dialc := make(chan *Conn, 1)
	go func() {
		c, err := Dial(context.Background(), addr, Config{NPaths: 1, Timeout: 5 * time.Second})
		if err != nil {
			t.Error(err)
		}
		dialc <- c
	}()
	pc := <-peerc
	defer pc.Close()
	// read the dialer's map and probe; answer with a map congesting port 9
	// and a pong offering one path
	hdr := make(wire.Header, wire.HeaderLen)
	var probe wire.Header
	for probe == nil {
		if _, err := io.ReadFull(pc, hdr); err != nil {
			t.Fatal(err)
		}
		io.CopyN(io.Discard, pc, int64(hdr.Len()))
		if hdr.IsProbe() {
			probe = append(wire.Header(nil), hdr...)
		}
	}
	if n, gen := probe.Handshake(); n != 1 || gen == 0 {
		t.Errorf("probe NPATHS %d GEN_NUM %d", n, gen)
	}
	m := make([]byte, wire.CongMapLen)
	wire.CongSet(m, 9, true)
	f := wire.HeaderFields{Flags: wire.FlagCongBitmap, Len: wire.CongMapLen}
	pc.Write(append(f.Encode(nil), m...))
	pong := wire.HeaderFields{Seq: 1, Dport: wire.ProbePort, Ext: wire.ProbeExt(1, 77)}
	pc.Write(pong.Encode(nil))
	c := <-dialc
	if c == nil {
		return
	}
	defer c.ep.Close()
	sentc := make(chan error, 1)
	go func() { sentc <- c.Send(context.Background(), 5, 9, []byte("x")) }()
	select {
	case err := <-sentc:
		t.Fatalf("Send to a congested port returned at once (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	wire.CongSet(m, 9, false)
	pc.Write(append(f.Encode(nil), m...))
	if err := <-sentc; err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(pc, hdr); err != nil || hdr.Dport() != 9 || hdr.Len() != 1 {
		t.Fatalf("after the update: %v, header to port %d len %d", err, hdr.Dport(), hdr.Len())
	}
}

// TestBadLength: a header claiming more than 1 MiB ends that connection
// (framing is lost) without taking the endpoint down.
func TestBadLength(t *testing.T) {
	ln, addr := listen(t, Config{Log: os.Stderr})
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := wire.HeaderFields{Seq: 1, Sport: 1, Dport: 2, Len: wire.MaxMsgLen + 1}
	c.Write(f.Encode(nil))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 1<<14)
	var err2 error
	for err2 == nil {
		_, err2 = c.Read(b)
	}
	if !errors.Is(err2, io.EOF) {
		t.Fatalf("connection not closed by the endpoint: %v", err2)
	}
	// and the endpoint still works
	d, err := Dial(context.Background(), addr, Config{NPaths: 1})
	if err != nil {
		t.Fatal(err)
	}
	exchange(t, d, ln, []sent{{3, []byte("after")}})

}

// TestPeerRestart: a new generation number in a peer's probe resets the
// sequence spaces of all its paths (rds_conn_peer_gen_update). Path 1 has
// seen seqs 1-3 from the old incarnation; the new one's seq 1 there, flagged
// RDS_FLAG_RETRANSMITTED, is delivered after the reset (without it, it would
// be dropped as a duplicate); the same message under the old generation is
// dropped.
func TestPeerRestart(t *testing.T) {
	for _, c := range []struct {
		gen2    uint32
		deliver bool
	}{{200, true}, {100, false}} {
		t.Run(fmt.Sprint(c.gen2), func(t *testing.T) {
			ln, addr := listen(t, Config{NPaths: 2})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			dial := func() net.Conn {
				cn, err := net.Dial("tcp", addr.String())
				if err != nil {
					t.Fatal(err)
				}
				return cn
			}
			probe := func(cn net.Conn, gen uint32) {
				f := wire.HeaderFields{Seq: 1, Sport: wire.ProbePort, Ext: wire.ProbeExt(2, gen)}
				cn.Write(f.Encode(nil))
				hdr := make(wire.Header, wire.HeaderLen)
				for !hdr.IsProbePong() { // the pong: the probe was handled
					if _, err := io.ReadFull(cn, hdr); err != nil {
						t.Fatal(err)
					}
					io.CopyN(io.Discard, cn, int64(hdr.Len()))
				}
			}
			data := func(cn net.Conn, seq uint64, flags uint8, p string) {
				f := wire.HeaderFields{Seq: seq, Sport: 5, Dport: 6, Flags: flags, Len: uint32(len(p))}
				cn.Write(append(f.Encode(nil), p...))
			}
			a := dial()
			probe(a, 100)
			b := dial() // path 1
			for i := range uint64(3) {
				data(b, i+1, 0, "old")
			}
			for range 3 {
				if m, err := ln.Recv(ctx); err != nil || m.Path != 1 {
					t.Fatalf("old incarnation: path %d %v", m.Path, err)
				}
			}
			a.Close()
			b.Close()
			// Both closes reach the listener before the new incarnation
			// dials: a path still up would give the new connections other
			// path numbers.
			waitPathsDown(t, ln, netip.MustParseAddr("127.0.0.1"))
			a = dial()
			defer a.Close()
			probe(a, c.gen2)
			b = dial()
			defer b.Close()
			data(b, 1, wire.FlagRetrans, "new")
			data(b, 2, 0, "end")
			want := []string{"new", "end"}
			if !c.deliver {
				want = want[1:]
			}
			var got []string
			for range want {
				m, err := ln.Recv(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(m.Data))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("generation %d: delivered %q, want %q", c.gen2, got, want)
			}
			select {
			case m := <-ln.Messages():
				t.Fatalf("extra message %q", m.Data)
			case <-time.After(100 * time.Millisecond):
			}
		})
	}
}

// waitPathsDown waits until none of peer a's paths is up at ep.
func waitPathsDown(t *testing.T, ep *Endpoint, a netip.Addr) {
	t.Helper()
	up := func() int {
		ep.mu.Lock()
		p := ep.peers[a]
		ep.mu.Unlock()
		if p == nil {
			return 0
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.nUp
	}
	for deadline := time.Now().Add(10 * time.Second); up() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d paths of %v still up after 10 s", up(), a)
		}
	}
}

// TestPeersDownWaitsForCut: a connection that ends inside a message is a
// peer that will dial again (to resend it), not a peer that finished: the
// listener waits for it; after a clean close it does not.
func TestPeersDownWaitsForCut(t *testing.T) {
	ln, addr := listen(t, Config{NPaths: 1})
	gone := ln.PeersDown()
	msg := func(seq uint64, flags uint8, p string) []byte {
		f := wire.HeaderFields{Seq: seq, Sport: 5, Dport: 6, Flags: flags, Len: uint32(len(p))}
		return append(f.Encode(nil), p...)
	}
	// FIN after what we send, then read what the listener sent until it
	// closes: a close with unread data would be a RST, which may discard
	// what the listener has not read yet
	send := func(b []byte) {
		c, err := net.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write(b)
		c.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, c)
	}
	m := msg(1, 0, "hello")
	send(m[:len(m)-2]) // the end of the payload never goes
	select {
	case <-gone:
		t.Fatal("listener gave up on a peer whose connection was cut mid-message")
	case <-time.After(300 * time.Millisecond):
	}
	send(msg(1, wire.FlagRetrans, "hello"))
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("no PeersDown after the peer closed cleanly")
	}
	if m, err := ln.Recv(context.Background()); err != nil || string(m.Data) != "hello" {
		t.Fatalf("delivered %q %v", m.Data, err)
	}
}

// TestCutLeavesNoEnd: a message whose write broke off mid-way has no end in
// the stream. The ack loop may run between the failed write and the path
// going down; with an end at the cut it counted the half-written message
// acknowledged by TCP and never resent it (TestRdsNetns/reconnect lost
// message 3 of 8 so under load).
func TestCutLeavesNoEnd(t *testing.T) {
	a, b := net.Pipe()
	go io.Copy(io.Discard, b)
	ep := &Endpoint{}
	ep.cut.Store(100)
	tp := &path{p: &peer{ep: ep}, conn: a}
	m := &outMsg{}
	if err := tp.write(make([]byte, 300), m); err == nil {
		t.Fatal("a write across the cut returned no error")
	}
	if m.end != 0 || tp.written != 100 {
		t.Errorf("after the cut: message end %d, stream at %d; want 0 and 100", m.end, tp.written)
	}
	// the ack loop's view once TCP acknowledged every octet written
	tp.unacked = []*outMsg{m}
	tp.releaseLocked(tp.written, 0)
	if len(tp.unacked) != 1 {
		t.Error("the half-written message was released as acknowledged")
	}
}
