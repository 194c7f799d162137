package progress

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The line's fields: position in the file (% of its size), frames, rate
// in frames and octets, time left at that rate; the pass from the second
// on; a frame total (synth) instead of a size; whole items (export).
func TestLine(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := New(io.Discard, true, "read")
	m.start = t0
	m.Rounds("pass")
	p := m.Part(2_000_000)
	if _, err := io.Copy(io.Discard, p.Open(strings.NewReader(strings.Repeat("x", 500_000)))); err != nil {
		t.Fatal(err)
	}
	p.SetFrames(1000)
	if got, want := m.Line(t0.Add(2*time.Second)), "read: 25% of 2.0 MB, 1000 frames, 500 frames/s, 250.0 kB/s, 6s left"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// the second pass: position and frames from 0 again, the rate of both
	io.Copy(io.Discard, p.Open(strings.NewReader(strings.Repeat("x", 1_000_000))))
	p.SetFrames(2000)
	if got, want := m.Line(t0.Add(4*time.Second)), "read: pass 2, 50% of 2.0 MB, 2000 frames, 750 frames/s, 250.0 kB/s, 4s left"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	// synth: a known number of frames, no file
	s := New(io.Discard, true, "synth")
	s.start = t0
	s.Frames(400)
	s.Part(0).SetFrames(100)
	if got, want := s.Line(t0.Add(time.Second)), "synth: 25%, 100 frames, 100 frames/s, 3s left"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	// export: two files, one done (all its size counts), captures done
	e := New(io.Discard, true, "export")
	e.start = t0
	a, b := e.Part(3000), e.Part(1000)
	a.Open(nil)
	a.SetFrames(30)
	a.Done()
	io.Copy(io.Discard, b.Open(strings.NewReader(strings.Repeat("x", 500))))
	b.SetFrames(5)
	e.Items(1, 2, "captures")
	if got, want := e.Line(t0.Add(7*time.Second)), "export: 87% of 4.0 kB, 1 of 2 captures, 35 frames, 5 frames/s, 500 B/s, 1s left"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	// standard input: no size, so no share and no time left
	in := New(io.Discard, true, "read")
	in.start = t0
	in.Part(0).SetFrames(10)
	if got, want := in.Line(t0.Add(time.Second)), "read: 10 frames, 10 frames/s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Status replaces the line (rdx rdp's transfer state).
func TestStatus(t *testing.T) {
	m := New(io.Discard, true, "rdp")
	m.Status(func() string { return "sent 3 KiB, ESTABLISHED" })
	if got := m.Line(time.Now()); got != "sent 3 KiB, ESTABLISHED" {
		t.Errorf("got %q", got)
	}
}

// Not a terminal: no meter, and every call on it does nothing.
func TestNotTerminal(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, false, "read")
	if m != nil {
		t.Fatal("a meter off a terminal")
	}
	m.Rounds("pass")
	m.Frames(3)
	m.Items(1, 2, "x")
	p := m.Part(100)
	r := strings.NewReader("abc")
	if p.Open(r) != r {
		t.Error("a nil part wraps the reader")
	}
	p.SetFrames(1)
	p.Done()
	m.Start()
	if w := m.Writer(&buf); w != io.Writer(&buf) {
		t.Error("a nil meter wraps the writer")
	}
	m.Stop()
	if m.Line(time.Now()) != "" || buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
	}
}

// lockedBuffer is a terminal the ticker and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// On a terminal the line is redrawn in place ("\r", erase), erased before
// a message written through Writer, drawn again after it, and erased at
// Stop, which leaves the cursor on a clean line.
func TestDraw(t *testing.T) {
	old := Every
	Every = time.Millisecond
	defer func() { Every = old }()
	var term lockedBuffer
	m := New(&term, true, "replay")
	m.Part(0).SetFrames(7)
	m.Start()
	waitFor(t, &term, 2)
	w := m.Writer(&term)
	io.WriteString(w, "rdx: a message\n")
	waitFor(t, &term, 4)
	m.Stop()
	out := term.String()
	line := regexp.QuoteMeta(clearLine) + `replay: 7 frames, [0-9]+ frames/s`
	if !regexp.MustCompile(`^(` + line + `)+` + regexp.QuoteMeta(clearLine) + "rdx: a message\n(" + line + ")+" + regexp.QuoteMeta(clearLine) + `$`).MatchString(out) {
		t.Errorf("terminal got %q", out)
	}
	n := len(term.String())
	m.Stop()
	if len(term.String()) != n {
		t.Error("a second Stop wrote")
	}
}

// waitFor waits until the line was drawn n times in all.
func waitFor(t *testing.T, term *lockedBuffer, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); strings.Count(term.String(), "replay:") < n; {
		if time.Now().After(deadline) {
			t.Fatalf("drawn %d times in 5 s: %q", strings.Count(term.String(), "replay:"), term.String())
		}
		time.Sleep(time.Millisecond)
	}
}
