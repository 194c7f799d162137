package rdp

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"
)

// MemNet is an in-memory network for tests: deterministic given its seed
// (and run inside testing/synctest, whose fake clock makes timers instant).
// Its shim drops LossPct percent of segments and delays ReorderPct percent
// by an extra Delay..4·Delay, so they overtake later ones.
type MemNet struct {
	mu         sync.Mutex
	rng        *rand.Rand
	nodes      map[netip.AddrPort]*MemTransport
	last       map[[2]netip.AddrPort]time.Time
	LossPct    float64
	ReorderPct float64
	Delay      time.Duration // one-way base delay
	// Drop, when set, is asked first about every segment (targeted loss).
	Drop func(seg []byte, from, to netip.AddrPort) bool
	// Sent and Lost count segments offered and dropped by the shim.
	Sent, Lost uint64
}

// NewMemNet returns a lossless network with a 1 ms one-way delay.
func NewMemNet(seed uint64) *MemNet {
	return &MemNet{rng: rand.New(rand.NewPCG(seed, 0x5244502d)), nodes: map[netip.AddrPort]*MemTransport{}, last: map[[2]netip.AddrPort]time.Time{},
		Delay: time.Millisecond}
}

// Attach creates the transport of the node at addr. Raw-IP style nodes use
// port 0 in addr.
func (n *MemNet) Attach(addr netip.AddrPort) *MemTransport {
	t := &MemTransport{net: n, addr: addr, in: make(chan memPkt, 4096), done: make(chan struct{})}
	n.mu.Lock()
	n.nodes[addr] = t
	n.mu.Unlock()
	return t
}

type memPkt struct {
	b    []byte
	from netip.AddrPort
}

// MemTransport is one node of a MemNet.
type MemTransport struct {
	net       *MemNet
	addr      netip.AddrPort
	in        chan memPkt
	done      chan struct{}
	closeOnce sync.Once
}

var errMemClosed = errors.New("rdp: memory transport closed")

func (t *MemTransport) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	select {
	case p := <-t.in:
		return copy(b, p.b), p.from, nil
	case <-t.done:
		return 0, netip.AddrPort{}, errMemClosed
	}
}

func (t *MemTransport) WriteTo(seg []byte, to netip.AddrPort) error {
	n := t.net
	n.mu.Lock()
	n.Sent++
	dst := n.nodes[to]
	drop := dst == nil || (n.Drop != nil && n.Drop(seg, t.addr, to)) || n.rng.Float64()*100 < n.LossPct
	d := n.Delay
	if n.rng.Float64()*100 < n.ReorderPct {
		d += n.Delay + time.Duration(n.rng.Int64N(int64(3*n.Delay)+1))
	} else {
		// A link is FIFO: segments not picked for reordering leave 1 µs
		// apart, so timers firing at one instant cannot swap them.
		at := time.Now().Add(d)
		if k := [2]netip.AddrPort{t.addr, to}; !at.After(n.last[k]) {
			at = n.last[k].Add(time.Microsecond)
			d = time.Until(at)
			n.last[k] = at
		} else {
			n.last[k] = at
		}
	}
	if drop {
		n.Lost++
	}
	n.mu.Unlock()
	if drop {
		return nil
	}
	p := memPkt{append([]byte(nil), seg...), t.addr}
	time.AfterFunc(d, func() {
		select {
		case dst.in <- p:
		case <-dst.done:
		default: // queue full: lost, as on a real link
		}
	})
	return nil
}

func (t *MemTransport) LocalAddr(netip.AddrPort) netip.Addr { return t.addr.Addr() }

func (t *MemTransport) Close() error {
	t.closeOnce.Do(func() { close(t.done) })
	return nil
}
