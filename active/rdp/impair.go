package rdp

import (
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"
)

// Impaired wraps a transport with a userspace loss and reordering shim on
// the sending side, for testing over real sockets where tc netem is not
// available: LossPct percent of segments are dropped, ReorderPct percent are
// held back Delay..4·Delay so later ones overtake them.
type Impaired struct {
	Transport
	mu         sync.Mutex
	rng        *rand.Rand
	lossPct    float64
	reorderPct float64
	delay      time.Duration
}

// Impair returns tr behind the shim, seeded for repeatability.
func Impair(tr Transport, lossPct, reorderPct float64, delay time.Duration, seed uint64) *Impaired {
	return &Impaired{Transport: tr, rng: rand.New(rand.NewPCG(seed, 27)), lossPct: lossPct, reorderPct: reorderPct, delay: delay}
}

func (t *Impaired) WriteTo(seg []byte, to netip.AddrPort) error {
	t.mu.Lock()
	drop := t.rng.Float64()*100 < t.lossPct
	late := t.rng.Float64()*100 < t.reorderPct
	d := t.delay + time.Duration(t.rng.Int64N(int64(3*t.delay)+1))
	t.mu.Unlock()
	switch {
	case drop:
		return nil
	case late:
		p := append([]byte(nil), seg...)
		time.AfterFunc(d, func() { t.Transport.WriteTo(p, to) })
		return nil
	}
	return t.Transport.WriteTo(seg, to)
}
