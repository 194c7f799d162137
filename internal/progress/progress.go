// Package progress draws one status line on standard error while rdx reads,
// exports, synthesizes or replays a capture: frames, rate, position in the
// file and the time left. It is for a terminal only: New gives nil (and
// every method of a nil Meter or Part does nothing) when standard error is
// not one, so piped and scripted runs print nothing extra.
package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Every is how often the line is redrawn: the work only stores counters
// (atomics, no call into this package per frame); a ticker draws them.
var Every = 200 * time.Millisecond

// clearLine returns to the line's start and erases it.
const clearLine = "\r\x1b[K"

// Meter is one status line.
type Meter struct {
	w      io.Writer
	label  string        // what is being done: "read", "export", ...
	noun   string        // what Items counts: "captures"
	round  string        // what a Part's second opening is: "pass", "loop"
	frames uint64        // Frames' total, when known instead of a size (synth)
	status func() string // Status: the whole line
	start  time.Time
	now    func() time.Time

	mu    sync.Mutex
	parts []*Part
	items int // done, of nItems
	nItem int
	shown bool

	quit, ended chan struct{}
}

// Part is one input a Meter follows (one file; export reads several at
// once). Its counters are written by the reading goroutine and read by the
// Meter's.
type Part struct {
	size   int64         // the file's octets (0: unknown, e.g. standard input)
	pos    atomic.Int64  // octets read in this round
	frames atomic.Uint64 // frames read in this round
	all    atomic.Uint64 // ... in every round (the rate)
	base   uint64        // all at the round's start (the reading goroutine's)
	rounds atomic.Int32  // times Open was called: the pass or loop
	done   atomic.Bool
}

// New returns a meter drawing on w, or nil when isTerminal is false (w is
// not a terminal, or the run is quiet). label names the work.
func New(w io.Writer, isTerminal bool, label string) *Meter {
	if !isTerminal {
		return nil
	}
	return &Meter{w: w, label: label, start: time.Now(), now: time.Now}
}

// Part adds an input of size octets (0 if unknown).
func (m *Meter) Part(size int64) *Part {
	if m == nil {
		return nil
	}
	p := &Part{size: size}
	m.mu.Lock()
	m.parts = append(m.parts, p)
	m.mu.Unlock()
	return p
}

// Rounds names what a Part's later openings are ("pass": rdx read -2,
// "loop": rdx replay --loop), shown from the second on.
func (m *Meter) Rounds(name string) {
	if m != nil {
		m.mu.Lock()
		m.round = name
		m.mu.Unlock()
	}
}

// Frames says the work is total frames (known before, as synth's), so the
// position is in frames, not octets.
func (m *Meter) Frames(total int) {
	if m != nil {
		m.mu.Lock()
		m.frames = uint64(total)
		m.mu.Unlock()
	}
}

// Status makes f the line, for work that is not a file's (an RDP
// transfer): the meter only draws, throttles and erases it.
func (m *Meter) Status(f func() string) {
	if m != nil {
		m.mu.Lock()
		m.status = f
		m.mu.Unlock()
	}
}

// Items counts whole units done of n (export: captures).
func (m *Meter) Items(done, n int, noun string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.items, m.nItem, m.noun = done, n, noun
	m.mu.Unlock()
}

// Start draws the line every Every until Stop.
func (m *Meter) Start() {
	if m == nil || m.quit != nil {
		return
	}
	m.quit, m.ended = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.ended)
		t := time.NewTicker(Every)
		defer t.Stop()
		for {
			select {
			case <-m.quit:
				return
			case <-t.C:
				m.draw()
			}
		}
	}()
}

func (m *Meter) draw() {
	m.mu.Lock()
	defer m.mu.Unlock()
	io.WriteString(m.w, clearLine+m.line(m.now()))
	m.shown = true
}

// Writer returns w (standard error) made to erase the line before each
// write, so other messages (the closing counts, a capture's line) are not
// written over it; the next tick draws it again below them. On a nil
// Meter it is w.
func (m *Meter) Writer(w io.Writer) io.Writer {
	if m == nil {
		return w
	}
	return clearing{m, w}
}

type clearing struct {
	m *Meter
	w io.Writer
}

func (c clearing) Write(b []byte) (int, error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if c.m.shown {
		io.WriteString(c.m.w, clearLine)
		c.m.shown = false
	}
	return c.w.Write(b)
}

// Stop ends the drawing and erases the line: what follows (the closing
// counts) starts on a clean line.
func (m *Meter) Stop() {
	if m == nil {
		return
	}
	if m.quit != nil {
		close(m.quit)
		<-m.ended
		m.quit = nil
	}
	m.mu.Lock()
	if m.shown {
		io.WriteString(m.w, clearLine)
		m.shown = false
	}
	m.mu.Unlock()
}

// Line is the status line at now, e.g.
// "read: 42% of 27.3 MB, 123456 frames, 98104 frames/s, 12.1 MB/s, 3s left".
func (m *Meter) Line(now time.Time) string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.line(now)
}

func (m *Meter) line(now time.Time) string {
	if m.status != nil {
		return m.status()
	}
	var pos, size int64
	var frames, all uint64
	round := int32(0)
	for _, p := range m.parts {
		frames += p.frames.Load()
		all += p.all.Load()
		round = max(round, p.rounds.Load())
		size += p.size
		if p.done.Load() {
			pos += p.size
		} else {
			pos += p.pos.Load()
		}
	}
	el := now.Sub(m.start)
	var b strings.Builder
	b.WriteString(m.label)
	b.WriteByte(':')
	if round > 1 && m.round != "" {
		fmt.Fprintf(&b, " %s %d,", m.round, round)
	}
	// the share done: of the frames when their total is known, else of
	// the octets of the files
	done, of := float64(pos), float64(size)
	if m.frames > 0 {
		done, of = float64(frames), float64(m.frames)
	}
	if of > 0 {
		fmt.Fprintf(&b, " %d%%", int(min(100*done/of, 100)))
		if m.frames == 0 {
			b.WriteString(" of " + Size(size))
		}
		b.WriteByte(',')
	}
	if m.nItem > 0 {
		fmt.Fprintf(&b, " %d of %d %s,", m.items, m.nItem, m.noun)
	}
	b.WriteString(" " + strconv.FormatUint(frames, 10) + " frames")
	if s := el.Seconds(); s > 0 {
		fmt.Fprintf(&b, ", %.0f frames/s", float64(all)/s)
		if pos > 0 && m.frames == 0 {
			fmt.Fprintf(&b, ", %s/s", Size(int64(float64(pos)/s)))
		}
	}
	if of > 0 && done > 0 && done < of {
		left := time.Duration(float64(el) * (of - done) / done)
		b.WriteString(", " + left.Round(time.Second).String() + " left")
	}
	return b.String()
}

// Size writes n octets in kB, MB or GB (powers of 1000, one decimal).
func Size(n int64) string {
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + " GB"
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	case n >= 1e3:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " kB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Open starts a round of reading r (a pass over the file, a loop): the
// position goes back to 0 and counts what is read through the returned
// reader. On a nil Part it returns r.
func (p *Part) Open(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	p.pos.Store(0)
	p.frames.Store(0)
	p.base = p.all.Load()
	p.rounds.Add(1)
	p.done.Store(false)
	return &counter{r, p}
}

// SetFrames says n frames were read in this round.
func (p *Part) SetFrames(n uint64) {
	if p != nil {
		p.frames.Store(n)
		p.all.Store(p.base + n)
	}
}

// Done says the part is finished: its whole size counts as read.
func (p *Part) Done() {
	if p != nil {
		p.done.Store(true)
	}
}

type counter struct {
	r io.Reader
	p *Part
}

func (c *counter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.pos.Add(int64(n))
	return n, err
}
