package impair

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// collect runs units 1..n through a shim built from spec and returns what
// was sent, in order, each unit named by its first octet.
func collect(t *testing.T, spec string, n int) ([]byte, *Shim) {
	t.Helper()
	sp, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := New(sp)
	var mu sync.Mutex
	var got []byte
	send := func(p []byte) error {
		mu.Lock()
		got = append(got, p[0])
		mu.Unlock()
		return nil
	}
	for i := 1; i <= n; i++ {
		if err := s.Send([]byte{byte(i), 0, 0, 0}, send); err != nil {
			t.Fatal(err)
		}
	}
	s.Flush()
	mu.Lock()
	defer mu.Unlock()
	return append([]byte(nil), got...), s
}

func TestExactFaults(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []byte
	}{
		{"", []byte{1, 2, 3, 4, 5}},
		{"drop=3", []byte{1, 2, 4, 5}},
		{"drop=1,drop=5", []byte{2, 3, 4}},
		{"dup=2", []byte{1, 2, 2, 3, 4, 5}},
		{"reorder=2", []byte{1, 3, 2, 4, 5}},
		{"reorder=2,reorder=3", []byte{1, 3, 2, 4, 5}},
		{"reorder=5", []byte{1, 2, 3, 4, 5}}, // nothing follows: sent when Flush
		{"reorder=2,drop=3", []byte{1, 2, 4, 5}},
	} {
		got, _ := collect(t, c.spec, 5)
		if !bytes.Equal(got, c.want) {
			t.Errorf("%q: sent %v, want %v", c.spec, got, c.want)
		}
	}
}

func TestCorruptOneOctet(t *testing.T) {
	sp, _ := Parse("corrupt=2@3")
	s := New(sp)
	var out [][]byte
	for i := 1; i <= 3; i++ {
		unit := []byte{byte(i), 1, 2, 3, 4}
		s.Send(unit, func(p []byte) error { out = append(out, append([]byte(nil), p...)); return nil })
		if unit[3] != 3 {
			t.Fatal("Send changed the caller's buffer")
		}
	}
	if out[1][3] != 3^0xff || !bytes.Equal(out[0], []byte{1, 1, 2, 3, 4}) || !bytes.Equal(out[2], []byte{3, 1, 2, 3, 4}) {
		t.Fatalf("sent %v; want only unit 2 octet 3 flipped", out)
	}
	ev, _ := s.Events()
	if len(ev) != 1 || ev[0] != (Event{Unit: 2, Kind: Corrupt, Len: 5, Offset: 3}) {
		t.Fatalf("events %v", ev)
	}
	if !strings.Contains(ev[0].String(), "unit 2 (5 bytes): corrupted octet 3") {
		t.Fatalf("event text %q", ev[0])
	}
}

func TestPercentIsSeeded(t *testing.T) {
	a, sa := collect(t, "drop=30%,seed=9", 200)
	b, _ := collect(t, "drop=30%,seed=9", 200)
	c, _ := collect(t, "drop=30%,seed=10", 200)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different faults")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds, same faults")
	}
	ev, _ := sa.Events()
	if len(a)+len(ev) != 200 || len(ev) < 30 || len(ev) > 90 {
		t.Fatalf("sent %d, dropped %d of 200 at 30%%", len(a), len(ev))
	}
}

func TestDelayAndHold(t *testing.T) {
	sp, _ := Parse("delay=20ms,reorder=1,hold=30ms")
	s := New(sp)
	done := make(chan time.Time, 1)
	start := time.Now()
	s.Send([]byte{1}, func([]byte) error { done <- time.Now(); return nil })
	select {
	case at := <-done:
		if d := at.Sub(start); d < 45*time.Millisecond {
			t.Fatalf("held unit sent after %v, want hold 30ms + delay 20ms", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a held unit with nothing after it was never sent")
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"drop", "drop=0", "drop=x", "drop=0%", "drop=101%", "flip=3", "delay=-1s", "delay=5", "seed=-1", "corrupt=3@x", "corrupt=3@-2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if sp, err := Parse(" drop=3 , dup=5% ,seed=4"); err != nil || len(sp.Rules) != 2 || sp.Seed != 4 || sp.Rules[1].Pct != 5 {
		t.Fatalf("%+v %v", sp, err)
	}
}

func TestLogAndBound(t *testing.T) {
	var log bytes.Buffer
	sp, _ := Parse("drop=100%")
	s := New(sp)
	s.Log = &log
	for i := 0; i < MaxEvents+10; i++ {
		s.Send([]byte{1}, func([]byte) error { t.Fatal("sent a dropped unit"); return nil })
	}
	ev, more := s.Events()
	if len(ev) != MaxEvents || more != 10 || s.Sent() != MaxEvents+10 {
		t.Fatalf("kept %d events, %d more, sent %d", len(ev), more, s.Sent())
	}
	if got := strings.Count(log.String(), "\n"); got != MaxEvents+10 {
		t.Fatalf("logged %d lines", got)
	}
}

func TestNilShim(t *testing.T) {
	var s *Shim
	n := 0
	s.Send([]byte{1}, func([]byte) error { n++; return nil })
	s.Flush()
	if n != 1 || s.Sent() != 0 {
		t.Fatal("nil shim must pass units through")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("drop=3,corrupt=2@1,reorder=5%,delay=1ms,seed=3")
	f.Fuzz(func(t *testing.T, spec string) {
		sp, err := Parse(spec)
		if err != nil {
			return
		}
		sp.Delay, sp.Hold = 0, 0
		s := New(sp)
		for i := 0; i < 20; i++ {
			s.Send(bytes.Repeat([]byte{byte(i)}, i), func(p []byte) error {
				if len(p) != i && len(p) != 0 {
					return fmt.Errorf("length changed")
				}
				return nil
			})
		}
		s.Flush()
	})
}
