package rdp

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	rdpwire "github.com/rdx-project/rdx/dissect/rdp"
)

// sink is a transport that never delivers and remembers the last segment sent.
type sink struct {
	mu   sync.Mutex
	last []byte
	n    int
	sent chan struct{}
	done chan struct{}
	once sync.Once
}

func (s *sink) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-s.done
	return 0, netip.AddrPort{}, errMemClosed
}
func (s *sink) WriteTo(seg []byte, _ netip.AddrPort) error {
	s.mu.Lock()
	s.last, s.n = append(s.last[:0], seg...), s.n+1
	s.mu.Unlock()
	select {
	case s.sent <- struct{}{}:
	default:
	}
	return nil
}
func (s *sink) LocalAddr(netip.AddrPort) netip.Addr { return linkB.Addr() }
func (s *sink) Close() error                        { s.once.Do(func() { close(s.done) }); return nil }

// established returns an endpoint with one OPEN connection to linkA:portL,
// whose timers are far away, and the peer's ISS.
func established(t testing.TB) (*Endpoint, *Conn, uint32) {
	tr := &sink{done: make(chan struct{}), sent: make(chan struct{}, 1)}
	ep := NewEndpoint(tr, portD, Config{MaxOutstanding: 8, MaxSegment: 512, InitialRTO: time.Hour, MinRTO: time.Hour,
		MaxRTO: time.Hour, Keepalive: -1, UserTimeout: time.Hour, Seed: 3})
	res := make(chan *Conn)
	go func() {
		c, _ := ep.Dial(context.Background(), linkA, portL)
		res <- c
	}()
	<-tr.sent
	tr.mu.Lock()
	syn := append([]byte(nil), tr.last...)
	tr.mu.Unlock()
	const peerISS = 1000
	sa := rdpwire.HeaderFields{Flags: rdpwire.FlagSYN | rdpwire.FlagACK, Version: 2, SrcPort: portL, DstPort: portD,
		Seq: peerISS, Ack: rdpwire.Header(syn).Seq(), MaxOutstanding: 8, MaxSegment: 512}
	ep.mu.Lock()
	ep.input(seal(sa.Encode(nil, nil)), linkA, time.Now())
	ep.mu.Unlock()
	c := <-res
	if c == nil {
		t.Fatal("handshake failed")
	}
	return ep, c, peerISS
}

func seal(seg []byte) []byte { rdpwire.Seal(seg, linkA.Addr(), linkB.Addr()); return seg }

// FuzzStackInput feeds arbitrary segments to an OPEN connection, each both
// as is and with its ports fixed and checksum resealed (so the state machine,
// not only Validate, sees it). The stack must not panic and its queues stay
// within the bounds its SYN announced.
func FuzzStackInput(f *testing.F) {
	ack := func(fl uint8, seq, a uint32, eacks []uint32, d []byte) []byte {
		hf := rdpwire.HeaderFields{Flags: fl, Version: 2, SrcPort: portL, DstPort: portD, Seq: seq, Ack: a, Eacks: eacks}
		return hf.Encode(nil, d)
	}
	f.Add(ack(rdpwire.FlagACK, 1001, 0, nil, []byte("data")))
	f.Add(ack(rdpwire.FlagACK|rdpwire.FlagEAK, 1005, 0, []uint32{1, 2, 3}, []byte("x")))
	f.Add(ack(rdpwire.FlagNUL|rdpwire.FlagACK, 1003, 0, nil, nil))
	f.Add(ack(rdpwire.FlagRST, 1001, 0, nil, nil))
	f.Add(ack(rdpwire.FlagSYN, 1000, 0, nil, nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		ep, c, _ := established(t)
		defer ep.Close()
		// Several segments per input: a length octet, then the segment.
		for len(in) > 0 {
			n := min(int(in[0]), len(in)-1)
			seg := append([]byte(nil), in[1:1+n]...)
			in = in[1+n:]
			ep.mu.Lock()
			ep.input(append([]byte(nil), seg...), linkA, time.Now())
			if h := rdpwire.Header(seg); h.Valid() && h.Version() == 2 {
				seg[2], seg[3], seg[4], seg[5] = portL>>8, portL&0xff, portD>>8, portD&0xff
				ep.input(seal(seg), linkA, time.Now())
			}
			ooo, q, out := len(c.ooo), len(c.q), len(c.out)
			ep.mu.Unlock()
			if ooo > 2*c.rcvMax || q > c.qcap()+2*c.rcvMax || out > maxWindow {
				t.Fatalf("unbounded: ooo %d q %d out %d", ooo, q, out)
			}
		}
	})
}
