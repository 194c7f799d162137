// Package impair is the fault shim every active stack sends through, so a
// user can reproduce a peer's reaction to exactly one bad packet: drop,
// duplicate, reorder or corrupt one octet of the Nth unit sent (a datagram,
// a segment or a message, as the stack defines it), or a percentage of them,
// and delay every unit. Decisions come from a seeded generator and are logged,
// so the capture of a run shows each fault where the log says it was put.
package impair

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is one fault.
type Kind uint8

const (
	Drop Kind = iota + 1
	Dup
	Reorder
	Corrupt
)

var kindNames = map[string]Kind{"drop": Drop, "dup": Dup, "duplicate": Dup, "reorder": Reorder, "corrupt": Corrupt}

func (k Kind) String() string {
	switch k {
	case Drop:
		return "drop"
	case Dup:
		return "dup"
	case Reorder:
		return "reorder"
	case Corrupt:
		return "corrupt"
	}
	return "none"
}

// Rule applies Kind to unit Nth (1-based) or, when Nth is 0, to Pct percent
// of units. Offset is the octet Corrupt flips (-1: one chosen by the seed).
type Rule struct {
	Kind   Kind
	Nth    uint64
	Pct    float64
	Offset int
}

// Spec is a parsed --impair value.
type Spec struct {
	Rules []Rule
	Delay time.Duration // added to every unit
	Hold  time.Duration // longest a reordered unit waits for a later one to overtake it
	Seed  uint64
}

// Usage is the --impair syntax, for flag help.
const Usage = "faults on sent units: drop=N|P%, dup=N|P%, reorder=N|P%, corrupt=N[@OFF]|P%, delay=DUR, hold=DUR, seed=S (comma-separated; N is the Nth unit sent, from 1)"

// DefaultHold bounds how long a reordered unit waits when nothing follows it.
const DefaultHold = 50 * time.Millisecond

// Parse reads "drop=3,corrupt=5@20,reorder=10%,delay=2ms,seed=7". The empty
// string is no impairment.
func Parse(s string) (Spec, error) {
	sp := Spec{Hold: DefaultHold, Seed: 1}
	if strings.TrimSpace(s) == "" {
		return sp, nil
	}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || v == "" {
			return sp, fmt.Errorf("impair %q: want NAME=VALUE", item)
		}
		switch k {
		case "delay", "hold":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return sp, fmt.Errorf("impair %s=%s: want a duration such as 5ms", k, v)
			}
			if k == "delay" {
				sp.Delay = d
			} else {
				sp.Hold = d
			}
			continue
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return sp, fmt.Errorf("impair seed=%s: want an unsigned integer", v)
			}
			sp.Seed = n
			continue
		}
		kind, ok := kindNames[k]
		if !ok {
			return sp, fmt.Errorf("impair %q: unknown fault %q (drop, dup, reorder, corrupt, delay, hold, seed)", item, k)
		}
		r := Rule{Kind: kind, Offset: -1}
		if kind == Corrupt {
			if n, off, ok := strings.Cut(v, "@"); ok {
				o, err := strconv.Atoi(off)
				if err != nil || o < 0 {
					return sp, fmt.Errorf("impair %s: want corrupt=N@OFFSET with OFFSET ≥ 0", item)
				}
				r.Offset, v = o, n
			}
		}
		if p, ok := strings.CutSuffix(v, "%"); ok {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil || f <= 0 || f > 100 {
				return sp, fmt.Errorf("impair %s: want a percentage in (0,100]", item)
			}
			r.Pct = f
		} else {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n == 0 {
				return sp, fmt.Errorf("impair %s: want the unit number (from 1) or a percentage such as 5%%", item)
			}
			r.Nth = n
		}
		sp.Rules = append(sp.Rules, r)
	}
	return sp, nil
}

// Active reports whether the spec changes anything.
func (s Spec) Active() bool { return len(s.Rules) > 0 || s.Delay > 0 }

// Event records one fault put on one unit.
type Event struct {
	Unit   uint64
	Kind   Kind
	Len    int
	Offset int // the flipped octet, for Corrupt
}

func (e Event) String() string {
	if e.Kind == Corrupt {
		return fmt.Sprintf("impair: unit %d (%d bytes): corrupted octet %d", e.Unit, e.Len, e.Offset)
	}
	return fmt.Sprintf("impair: unit %d (%d bytes): %s", e.Unit, e.Len, e.Kind)
}

// MaxEvents bounds the event log; later events are counted, not kept.
const MaxEvents = 4096

// Shim applies a Spec to the units a stack sends. It is safe for concurrent
// use; units are numbered in the order Send is called.
type Shim struct {
	spec Spec
	Log  io.Writer // each event as it happens, if set (users: stderr)

	mu      sync.Mutex
	rng     *rand.Rand
	n       uint64
	events  []Event
	dropped uint64 // events not kept
	held    []byte
	heldFn  func([]byte) error
	timer   *time.Timer
}

// New returns a shim for spec; a nil *Shim sends everything unchanged.
func New(spec Spec) *Shim {
	return &Shim{spec: spec, rng: rand.New(rand.NewPCG(spec.Seed, 0x1badfa17))}
}

// Send passes one unit to send, impaired. send may be called later (delay,
// reorder) from another goroutine, with a copy of unit; the caller may reuse
// unit when Send returns.
func (s *Shim) Send(unit []byte, send func([]byte) error) error {
	if s == nil || !s.spec.Active() {
		return send(unit)
	}
	s.mu.Lock()
	s.n++
	var drop, dup, reorder bool
	corrupt := -2
	for _, r := range s.spec.Rules {
		hit := r.Nth == s.n
		if r.Nth == 0 {
			hit = s.rng.Float64()*100 < r.Pct
		}
		if !hit {
			continue
		}
		switch r.Kind {
		case Drop:
			drop = true
		case Dup:
			dup = true
		case Reorder:
			reorder = true
		case Corrupt:
			if len(unit) > 0 {
				corrupt = r.Offset
				if corrupt < 0 || corrupt >= len(unit) {
					corrupt = s.rng.IntN(len(unit))
				}
			}
		}
	}
	n := s.n
	switch {
	case drop:
		s.record(Event{Unit: n, Kind: Drop, Len: len(unit)})
	default:
		if corrupt >= 0 {
			s.record(Event{Unit: n, Kind: Corrupt, Len: len(unit), Offset: corrupt})
		}
		if dup {
			s.record(Event{Unit: n, Kind: Dup, Len: len(unit)})
		}
		if reorder {
			s.record(Event{Unit: n, Kind: Reorder, Len: len(unit)})
		}
	}
	// a unit held back goes out right after this one, which overtakes it
	prev, prevFn := s.takeHeld()
	if drop {
		s.mu.Unlock()
		return s.out(prev, prevFn)
	}
	p := unit
	if corrupt >= 0 || reorder || s.spec.Delay > 0 {
		p = append([]byte(nil), unit...)
		if corrupt >= 0 {
			p[corrupt] ^= 0xff
		}
	}
	// a second reorder while one is held overtakes it instead of waiting
	if reorder && prev == nil {
		s.held, s.heldFn = p, send
		s.timer = time.AfterFunc(s.spec.Hold, s.flush)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	if err := s.out(p, send); err != nil {
		return err
	}
	if dup {
		if err := s.out(p, send); err != nil {
			return err
		}
	}
	return s.out(prev, prevFn)
}

// out sends p after the spec's delay (synchronously: a stack's sender
// goroutine is what a delayed link slows down).
func (s *Shim) out(p []byte, send func([]byte) error) error {
	if p == nil {
		return nil
	}
	if s.spec.Delay > 0 {
		time.Sleep(s.spec.Delay)
	}
	return send(p)
}

// takeHeld returns the held unit, if any, and clears it; s.mu is held.
func (s *Shim) takeHeld() ([]byte, func([]byte) error) {
	if s.held == nil {
		return nil, nil
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	p, fn := s.held, s.heldFn
	s.held, s.heldFn = nil, nil
	return p, fn
}

func (s *Shim) flush() {
	s.mu.Lock()
	p, fn := s.takeHeld()
	s.mu.Unlock()
	s.out(p, fn)
}

// Flush sends a held unit now (a stack closing its connection calls it).
func (s *Shim) Flush() {
	if s != nil {
		s.flush()
	}
}

func (s *Shim) record(e Event) {
	if len(s.events) < MaxEvents {
		s.events = append(s.events, e)
	} else {
		s.dropped++
	}
	if s.Log != nil {
		fmt.Fprintln(s.Log, e)
	}
}

// Events returns the faults put so far and how many more were not kept.
func (s *Shim) Events() ([]Event, uint64) {
	if s == nil {
		return nil, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...), s.dropped
}

// Sent is the number of units offered to Send.
func (s *Shim) Sent() uint64 {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}
