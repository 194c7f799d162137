package rdp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rdx-project/rdx/dissect"
	rdpwire "github.com/rdx-project/rdx/dissect/rdp"
)

// Documentation addresses (RFC 5737) for the in-memory nodes.
var (
	linkA = netip.MustParseAddrPort("198.51.100.1:0") // listener
	linkB = netip.MustParseAddrPort("198.51.100.2:0") // dialer
)

const portL, portD = 4000, 4001

// recorder keeps every traced segment as a raw IPv4 frame, for the dissector.
type recorder struct {
	mu     sync.Mutex
	frames [][]byte
	times  []int64
}

func (r *recorder) trace(sent bool, seg []byte, src, dst netip.Addr) {
	r.mu.Lock()
	r.frames = append(r.frames, IPv4Frame(nil, src, dst, seg))
	r.times = append(r.times, time.Now().UnixNano())
	r.mu.Unlock()
}

// dissectStats runs rdx's dissector over the recorded frames and returns the
// single connection it tracked.
func (r *recorder) dissectStats(t *testing.T) rdpwire.ConnSummary {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	for i, f := range r.frames {
		eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: r.times[i], LinkType: dissect.LinkTypeIPv4, Data: f})
	}
	conns := eng.Instance("rdp").(*rdpwire.State).Connections(nil)
	if len(conns) != 1 {
		t.Fatalf("dissector tracked %d connections, want 1", len(conns))
	}
	return conns[0]
}

type pair struct {
	net      *MemNet
	l, d     *Endpoint
	lc, dc   *Conn
	lrec     *recorder
	drec     *recorder
	accepted chan *Conn
}

// newPair attaches a listener and a dialer and opens a connection.
func newPair(t *testing.T, n *MemNet, lcfg, dcfg Config) *pair {
	t.Helper()
	p := &pair{net: n, lrec: &recorder{}, drec: &recorder{}, accepted: make(chan *Conn, 1)}
	lcfg.Trace, dcfg.Trace = p.lrec.trace, p.drec.trace
	lcfg.Seed, dcfg.Seed = 1, 2
	p.l = NewEndpoint(n.Attach(linkA), portL, lcfg)
	p.l.Listen()
	p.d = NewEndpoint(n.Attach(linkB), portD, dcfg)
	t.Cleanup(func() { p.l.Close(); p.d.Close() })
	go func() {
		c, err := p.l.Accept(context.Background())
		if err == nil {
			p.accepted <- c
		}
		close(p.accepted)
	}()
	var err error
	p.dc, err = p.d.Dial(context.Background(), linkA, portL)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	p.lc = <-p.accepted
	if p.lc == nil {
		t.Fatal("accept failed")
	}
	return p
}

func msgs(n, size int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, 1+r.IntN(size))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out[i] = b
	}
	return out
}

// transfer sends ms from the dialer and reads them at the listener until the
// dialer's close reaches it.
func (p *pair) transfer(t *testing.T, ms [][]byte) [][]byte {
	t.Helper()
	var got [][]byte
	done := make(chan error, 1)
	go func() {
		for {
			b, err := p.lc.Recv(context.Background())
			if err != nil {
				if err != io.EOF {
					done <- err
				}
				close(done)
				return
			}
			got = append(got, b)
		}
	}()
	for _, m := range ms {
		if err := p.dc.Send(context.Background(), m); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	if err := p.dc.WaitAcked(context.Background()); err != nil {
		t.Fatalf("wait acked: %v", err)
	}
	p.dc.Close()
	if err := <-done; err != nil {
		t.Fatalf("recv: %v", err)
	}
	return got
}

func TestHandshakeSequenced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPair(t, NewMemNet(1), Config{}, Config{})
		st := p.dc.Status()
		if st.State != Open || !st.Sequence || st.SendMax != 1024 || st.SendWin != 16 {
			t.Fatalf("dialer status %+v", st)
		}
		ms := msgs(200, 1024, 1)
		got := p.transfer(t, ms)
		if !slices.EqualFunc(got, ms, bytes.Equal) {
			t.Fatalf("got %d messages, want the %d sent, in order", len(got), len(ms))
		}
		if s := p.dc.Stats(); s.Retransmits != 0 || s.DataSent != 200 {
			t.Errorf("lossless: %+v", s)
		}
		// CLOSE-WAIT then CLOSED on both sides (RFC 908 §3.2.5).
		p.dc.WaitClosed(context.Background())
		p.lc.WaitClosed(context.Background())
		if p.dc.Status().State != Closed || p.lc.Status().State != Closed {
			t.Fatal("not closed after CLOSE-WAIT")
		}
	})
}

func TestUnsequencedReorder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(2)
		n.ReorderPct = 30
		p := newPair(t, n, Config{Unsequenced: true}, Config{Unsequenced: true})
		if p.dc.Status().Sequence {
			t.Fatal("SDM set although both asked for arrival order")
		}
		ms := msgs(300, 200, 2)
		got := p.transfer(t, ms)
		if slices.EqualFunc(got, ms, bytes.Equal) {
			t.Error("arrival order equals send order despite 30% reordering")
		}
		key := func(b [][]byte) []string {
			s := make([]string, len(b))
			for i := range b {
				s[i] = string(b[i])
			}
			slices.Sort(s)
			return s
		}
		if !slices.Equal(key(got), key(ms)) {
			t.Fatalf("unsequenced: got %d messages, want the same set of %d", len(got), len(ms))
		}
		if p.lc.Stats().OutOfOrder == 0 || p.lc.Stats().EACKsSent == 0 {
			t.Errorf("no out-of-order arrivals or EACKs: %+v", p.lc.Stats())
		}
	})
}

func TestSequencedOneSideAsks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPair(t, NewMemNet(3), Config{}, Config{Unsequenced: true})
		if !p.dc.Status().Sequence || !p.lc.Status().Sequence {
			t.Fatal("either side asking for SDM must make the connection sequenced")
		}
	})
}

func TestWindowLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(4)
		var mu sync.Mutex
		blockAcks := true
		n.Drop = func(seg []byte, from, to netip.AddrPort) bool {
			mu.Lock()
			defer mu.Unlock()
			h := rdpwire.Header(seg)
			return blockAcks && from == linkA && h.Flags()&rdpwire.FlagSYN == 0
		}
		p := newPair(t, n, Config{MaxOutstanding: 4, Keepalive: -1}, Config{Keepalive: -1})
		sent := make(chan int, 10)
		go func() {
			for i := range 10 {
				if p.dc.Send(context.Background(), []byte{byte(i)}) != nil {
					return
				}
				sent <- i
			}
		}()
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		if st := p.dc.Status(); st.Unacked != 4 || len(sent) != 4 {
			t.Fatalf("with max outstanding 4 and no ACKs: unacked %d, sends done %d", st.Unacked, len(sent))
		}
		mu.Lock()
		blockAcks = false
		mu.Unlock()
		for range 10 {
			if _, err := p.lc.Recv(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.dc.WaitAcked(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// dropOnce drops the first segment that match accepts.
func dropOnce(match func(h rdpwire.Header, from netip.AddrPort) bool) func([]byte, netip.AddrPort, netip.AddrPort) bool {
	var mu sync.Mutex
	done := false
	return func(seg []byte, from, to netip.AddrPort) bool {
		mu.Lock()
		defer mu.Unlock()
		if !done && match(rdpwire.Header(seg), from) {
			done = true
			return true
		}
		return false
	}
}

func TestEACKAndFastRetransmit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(5)
		var first uint32
		n.Drop = dropOnce(func(h rdpwire.Header, from netip.AddrPort) bool {
			return from == linkB && h.DataLen() > 0 && h.Seq() == first
		})
		p := newPair(t, n, Config{}, Config{InitialRTO: time.Second, MinRTO: time.Second})
		first = p.dc.nxt
		ms := msgs(12, 100, 5)
		got := p.transfer(t, ms)
		if !slices.EqualFunc(got, ms, bytes.Equal) {
			t.Fatal("data not delivered in order")
		}
		ds, ls := p.dc.Stats(), p.lc.Stats()
		t.Logf("dialer %+v\nlistener %+v", ds, ls)
		if ls.EACKsSent == 0 || ds.EACKsRcvd == 0 {
			t.Fatal("no EACKs for the segments after the hole")
		}
		// Only the hole is resent, before the 1 s timer: EACKed segments are not.
		if ds.Retransmits != 1 || ds.FastRetransmits != 1 || ds.Timeouts != 0 {
			t.Fatalf("want exactly one fast retransmission, got %d (fast %d, timeouts %d)", ds.Retransmits, ds.FastRetransmits, ds.Timeouts)
		}
		d := p.drec.dissectStats(t)
		if d.Stats[0].Retransmits != ds.Retransmits {
			t.Errorf("dissector counts %d retransmissions, stack %d", d.Stats[0].Retransmits, ds.Retransmits)
		}
	})
}

func TestRetransmitOnTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(6)
		n.Drop = dropOnce(func(h rdpwire.Header, from netip.AddrPort) bool { return from == linkB && h.DataLen() > 0 })
		p := newPair(t, n, Config{}, Config{})
		start := time.Now()
		got := p.transfer(t, [][]byte{[]byte("only")})
		if len(got) != 1 || string(got[0]) != "only" {
			t.Fatalf("got %q", got)
		}
		ds := p.dc.Stats()
		if ds.Retransmits != 1 || ds.Timeouts != 1 {
			t.Fatalf("retransmits %d timeouts %d, want 1 and 1", ds.Retransmits, ds.Timeouts)
		}
		// The RTO follows the measured RTT (2 ms here), not the 200 ms initial.
		if el := time.Since(start); el > 100*time.Millisecond {
			t.Errorf("recovery took %v: RTO not driven by the RTT estimate", el)
		}
	})
}

func TestLostSynAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(7)
		n.Drop = dropOnce(func(h rdpwire.Header, from netip.AddrPort) bool {
			return from == linkA && h.Flags()&rdpwire.FlagSYN != 0
		})
		p := newPair(t, n, Config{}, Config{})
		if p.dc.Stats().Retransmits+p.lc.Stats().Retransmits == 0 {
			t.Fatal("handshake finished without resending SYN or SYN-ACK")
		}
		got := p.transfer(t, [][]byte{[]byte("x")})
		if len(got) != 1 {
			t.Fatal("no data after recovered handshake")
		}
	})
}

// The ACK of the SYN-ACK is lost and the dialer sends nothing: SYN-RCVD
// resends its SYN-ACK, the open dialer re-ACKs instead of resetting.
func TestLostAckOfSynAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(8)
		n.Drop = dropOnce(func(h rdpwire.Header, from netip.AddrPort) bool {
			return from == linkB && h.Flags() == rdpwire.FlagACK
		})
		p := newPair(t, n, Config{}, Config{})
		if p.lc.Stats().Retransmits == 0 {
			t.Fatal("SYN-ACK not resent")
		}
		if p.dc.Status().State != Open {
			t.Fatalf("dialer %v", p.dc.Status().State)
		}
	})
}

func TestRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(9)
		l := NewEndpoint(n.Attach(linkA), portL, Config{}) // bound, not listening
		d := NewEndpoint(n.Attach(linkB), portD, Config{})
		defer l.Close()
		defer d.Close()
		_, err := d.Dial(context.Background(), linkA, portL)
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("got %v, want refused", err)
		}
	})
}

func TestSilentPeerTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(10)
		d := NewEndpoint(n.Attach(linkB), portD, Config{UserTimeout: 3 * time.Second})
		defer d.Close()
		start := time.Now()
		_, err := d.Dial(context.Background(), linkA, portL)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want timeout", err)
		}
		if el := time.Since(start); el < 3*time.Second || el > 6*time.Second {
			t.Errorf("gave up after %v, want about the 3 s user timeout", el)
		}
		if s := d.Stats(); s.RSTsSent != 0 {
			t.Error(s)
		}
	})
}

func TestResetBySender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPair(t, NewMemNet(11), Config{}, Config{})
		p.lc.Close() // the receiver goes away
		time.Sleep(10 * time.Millisecond)
		if err := p.dc.Send(context.Background(), []byte("late")); !errors.Is(err, ErrReset) {
			t.Fatalf("send after peer RST: %v", err)
		}
		if _, err := p.dc.Recv(context.Background()); err != io.EOF {
			t.Fatalf("recv after peer RST: %v", err)
		}
		if p.dc.Status().State != CloseWait {
			t.Fatalf("state %v, want CLOSE-WAIT", p.dc.Status().State)
		}
	})
}

// RDP close semantics (Faber §2): data unacknowledged at close is abandoned.
func TestCloseAbandonsUnacked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(12)
		n.Drop = func(seg []byte, from, to netip.AddrPort) bool {
			return from == linkB && rdpwire.Header(seg).DataLen() > 0
		}
		p := newPair(t, n, Config{}, Config{})
		p.dc.Send(context.Background(), []byte("lost"))
		p.dc.Close()
		if st := p.dc.Status(); st.Unacked != 1 || st.State != CloseWait {
			t.Fatalf("status after close %+v", st)
		}
		if _, err := p.lc.Recv(context.Background()); err != io.EOF {
			t.Fatalf("listener got %v, want EOF and no data", err)
		}
		before := p.dc.Stats().Retransmits
		time.Sleep(2 * time.Second)
		if p.dc.Stats().Retransmits != before {
			t.Error("data resent after close")
		}
	})
}

// A lost RST is repaired by the survivor's keepalive: the closed side
// answers it with a new RST (Faber §3.1).
func TestLostRSTKeepalive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(13)
		n.Drop = dropOnce(func(h rdpwire.Header, from netip.AddrPort) bool {
			return from == linkB && h.Flags()&rdpwire.FlagRST != 0
		})
		p := newPair(t, n, Config{Keepalive: 300 * time.Millisecond}, Config{CloseWait: 2 * time.Second})
		p.transfer(t, [][]byte{[]byte("a")})
		if p.lc.Stats().NULsSent == 0 {
			t.Fatal("listener learned of the close without a keepalive")
		}
	})
}

func TestKeepaliveAndDeadPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(14)
		var mu sync.Mutex
		dead := false
		n.Drop = func([]byte, netip.AddrPort, netip.AddrPort) bool { mu.Lock(); defer mu.Unlock(); return dead }
		p := newPair(t, n, Config{Keepalive: time.Second}, Config{Keepalive: time.Second, UserTimeout: 5 * time.Second})
		time.Sleep(5500 * time.Millisecond)
		ds, ls := p.dc.Stats(), p.lc.Stats()
		// Each side's ACK of the other's NUL restarts its own idle timer, so
		// the probes alternate: about one per second in all.
		if ds.NULsSent+ls.NULsSent < 4 || ls.NULsRcvd != ds.NULsSent || p.dc.Status().State != Open || ds.Retransmits != 0 {
			t.Fatalf("idle 5.5 s with 1 s keepalive: NULs %d+%d, state %v", ds.NULsSent, ls.NULsSent, p.dc.Status().State)
		}
		mu.Lock()
		dead = true
		mu.Unlock()
		start := time.Now()
		if _, err := p.dc.Recv(context.Background()); !errors.Is(err, ErrTimeout) {
			t.Fatalf("dead peer: %v, want timeout", err)
		}
		if el := time.Since(start); el > 8*time.Second {
			t.Errorf("dead peer noticed after %v", el)
		}
	})
}

// TestLossyTransfer sends several MB over 5% loss and 25% reordering: the
// file arrives intact, EACKs and retransmissions happen, and the dissector
// counts the same retransmissions and EACKs as the stacks.
func TestLossyTransfer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(15)
		n.LossPct, n.ReorderPct = 5, 25
		p := newPair(t, n, Config{}, Config{})
		const size = 4 << 20
		file := make([]byte, size)
		r := rand.New(rand.NewPCG(15, 15))
		for i := range file {
			file[i] = byte(r.Uint32())
		}
		var ms [][]byte
		for b := file; len(b) > 0; b = b[min(len(b), 1024):] {
			ms = append(ms, b[:min(len(b), 1024)])
		}
		start := time.Now()
		got := bytes.Join(p.transfer(t, ms), nil)
		if !bytes.Equal(got, file) {
			t.Fatalf("file differs: %d of %d octets", len(got), size)
		}
		ds, ls := p.dc.Stats(), p.lc.Stats()
		t.Logf("%d MB in %v virtual; net sent %d lost %d\nsender   %+v\nreceiver %+v", size>>20, time.Since(start), n.Sent, n.Lost, ds, ls)
		if ds.Retransmits == 0 || ls.EACKsSent == 0 || ds.EACKsRcvd == 0 || ds.FastRetransmits == 0 {
			t.Fatal("no retransmissions or EACKs under 5% loss")
		}
		if ds.DataSent != uint64(len(ms)) || ls.DataRcvd != uint64(len(ms)) || ls.BytesRcvd != size {
			t.Errorf("data segments: sent %d, received %d, want %d", ds.DataSent, ls.DataRcvd, len(ms))
		}
		if ds.EACKsRcvd > ls.EACKsSent || ds.SegsRcvd > ls.SegsSent || ls.SegsRcvd > ds.SegsSent {
			t.Error("received more than the peer sent")
		}
		// Each side's own capture holds all it sent.
		dd, dl := p.drec.dissectStats(t), p.lrec.dissectStats(t)
		t.Logf("dissector: sender retransmits %d (stack %d), receiver EACK entries %d (stack %d)",
			dd.Stats[0].Retransmits, ds.Retransmits, dl.Stats[1].EACKs, ls.EACKsSent)
		if dd.Stats[0].Retransmits != ds.Retransmits || dl.Stats[1].EACKs != ls.EACKsSent {
			t.Error("dissector and stack counters differ")
		}
		if dd.Stats[0].Segments != ds.SegsSent || dl.Stats[1].Segments != ls.SegsSent {
			t.Errorf("segments: dissector %d/%d, stack %d/%d", dd.Stats[0].Segments, dl.Stats[1].Segments, ds.SegsSent, ls.SegsSent)
		}
	})
}

func TestValidateRejects(t *testing.T) {
	a, b := netip.MustParseAddr("198.51.100.1"), netip.MustParseAddr("198.51.100.2")
	mk := func(hf rdpwire.HeaderFields, d []byte) []byte {
		hf.Version = 2
		s := hf.Encode(nil, d)
		rdpwire.Seal(s, a, b)
		return s
	}
	good := mk(rdpwire.HeaderFields{Flags: rdpwire.FlagACK, SrcPort: 1, DstPort: 2, Seq: 5, Ack: 4}, []byte("hi"))
	if _, _, ok, _ := Validate(good, a, b); !ok {
		t.Fatal("good segment rejected")
	}
	bad := slices.Clone(good)
	bad[len(bad)-1] ^= 1
	for name, seg := range map[string][]byte{
		"short":     good[:17],
		"checksum":  bad,
		"syn data":  mk(rdpwire.HeaderFields{Flags: rdpwire.FlagSYN, SrcPort: 1, DstPort: 2}, []byte("x")),
		"rst data":  mk(rdpwire.HeaderFields{Flags: rdpwire.FlagRST, SrcPort: 1, DstPort: 2}, []byte("x")),
		"eak noack": mk(rdpwire.HeaderFields{Flags: rdpwire.FlagEAK, SrcPort: 1, DstPort: 2, Eacks: []uint32{1}}, nil),
		"dlen":      mk(rdpwire.HeaderFields{Flags: rdpwire.FlagACK, SrcPort: 1, DstPort: 2, DataLen: 9, SetDataLen: true}, []byte("x")),
		"hlen":      mk(rdpwire.HeaderFields{Flags: rdpwire.FlagACK, SrcPort: 1, DstPort: 2, HLen: 200}, nil),
		"port0":     mk(rdpwire.HeaderFields{Flags: rdpwire.FlagACK, SrcPort: 0, DstPort: 2}, nil),
	} {
		if _, _, ok, _ := Validate(seg, a, b); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	v1 := rdpwire.HeaderFields{Flags: rdpwire.FlagACK, Version: 1, SrcPort: 1, DstPort: 2}
	s := v1.Encode(nil, nil)
	rdpwire.Seal(s, a, b)
	if _, _, ok, _ := Validate(s, a, b); ok {
		t.Error("version 1 accepted by a version 2 stack")
	}
}

// TestSynFloodEviction: 10,000 SYNs from distinct ports of a spoofed
// source, 10 a millisecond, fill the connection table with half-open
// connections; meanwhile a real client connects and moves 256 KiB, under
// 100 blind RSTs and 2,000 spoofed segments with its own addresses and
// ports. Before, the table (64) stayed full for the user timeout and the
// client was refused (RST); now each SYN evicts the oldest half-open
// connection and the client gets in at once.
func TestSynFloodEviction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNet(16)
		l := NewEndpoint(n.Attach(linkA), portL, Config{Seed: 1})
		l.Listen()
		defer l.Close()
		// The flooder's replies go nowhere: it is not attached.
		flooder := &MemTransport{net: n, addr: netip.MustParseAddrPort("198.51.100.66:0"), done: make(chan struct{})}
		const flood = 10000
		flooded := make(chan struct{})
		go func() {
			defer close(flooded)
			for i := range flood {
				syn := rdpwire.HeaderFields{Flags: rdpwire.FlagSYN, Version: 2, SrcPort: uint16(1024 + i), DstPort: portL,
					Seq: uint32(i) * 7919, MaxOutstanding: 16, MaxSegment: 1024, SDM: true}
				seg := syn.Encode(nil, nil)
				rdpwire.Seal(seg, flooder.addr.Addr(), linkA.Addr())
				flooder.WriteTo(seg, linkA)
				if i%10 == 9 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		time.Sleep(100 * time.Millisecond) // 1,000 SYNs: the table is full by now

		d := NewEndpoint(n.Attach(linkB), portD, Config{Seed: 2})
		defer d.Close()
		accepted := make(chan *Conn, 1)
		go func() {
			c, _ := l.Accept(context.Background())
			accepted <- c
		}()
		start := time.Now()
		dc, err := d.Dial(context.Background(), linkA, portL)
		if err != nil {
			t.Fatalf("dial during the flood: %v (listener %+v)", err, l.Stats())
		}
		dialed := time.Since(start)
		refused := l.Stats().RSTsSent
		lc := <-accepted
		if lc == nil {
			t.Fatal("accept failed")
		}
		// Blind RSTs and spoofed segments claiming the client's addresses
		// and ports, with sequence numbers that cannot be guessed (those
		// arriving after the close are answered with RSTs).
		spoofer := &MemTransport{net: n, addr: linkB, done: make(chan struct{})}
		go func() {
			r := rand.New(rand.NewPCG(16, 16))
			for i := range 2100 {
				hf := rdpwire.HeaderFields{Flags: rdpwire.FlagACK, Version: 2, SrcPort: portD, DstPort: portL, Seq: r.Uint32(), Ack: r.Uint32()}
				var data []byte
				if i < 100 {
					hf.Flags = rdpwire.FlagRST
				} else {
					data = []byte("spoofed")
				}
				seg := hf.Encode(nil, data)
				rdpwire.Seal(seg, linkB.Addr(), linkA.Addr())
				spoofer.WriteTo(seg, linkA)
				if i%100 == 99 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		p := &pair{net: n, l: l, d: d, lc: lc, dc: dc}
		ms := msgs(256, 1024, 16)
		got := p.transfer(t, ms)
		took := time.Since(start)
		if !slices.EqualFunc(got, ms, bytes.Equal) {
			t.Fatalf("transfer during the flood: got %d messages, want the %d sent, intact", len(got), len(ms))
		}
		<-flooded
		time.Sleep(10 * time.Millisecond) // the last SYNs in flight
		st := l.Stats()
		t.Logf("dial %v, dial+transfer of %d KiB %v (virtual); listener %+v", dialed, 256, took, st)
		if dup := lc.Stats().Duplicates; dup < 2000 {
			t.Errorf("only %d of the 2,100 spoofed segments reached the open connection", dup)
		}
		if dialed > 50*time.Millisecond || took > 2*time.Second {
			t.Errorf("dial took %v, dial and transfer %v during the flood", dialed, took)
		}
		if st.Evicted < flood-maxConns || refused != 0 {
			t.Errorf("evicted %d half-open connections (want at least %d), %d SYNs refused (want 0)", st.Evicted, flood-maxConns, refused)
		}
	})
}
