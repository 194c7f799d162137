package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// stopGrace is how long a verb has, after SIGINT or SIGTERM, to notice the
// stop (Ack) before the process exits anyway: with the time the exit takes
// on a busy machine, within a second. Once it has noticed, printing its
// tables takes what it takes.
const stopGrace = 500 * time.Millisecond

// interrupt turns the first SIGINT or SIGTERM into a clean stop of the
// running verb, as tshark ends a capture on ^C: the verb sees Stopped or
// Done, its stop functions run (a live capture's Stop, a context's cancel),
// and it prints what it has and exits as it would at the end of its input.
// A verb stuck where it cannot look (a read of a silent pipe, a frame that
// takes long to decode) is ended after stopGrace with what output is
// already written flushed, exit status 128+signal. A second signal kills at
// once, as usual.
type interrupt struct {
	stopped  atomic.Bool
	done     chan struct{}
	sig      chan os.Signal
	mu       sync.Mutex
	onStop   []func()
	flush    []func() // run by the watchdog: flush what is written
	released bool
	acked    bool
	errOut   io.Writer
}

// notifyInterrupt starts watching for SIGINT and SIGTERM; release it when
// the verb returns.
func notifyInterrupt(errOut io.Writer) *interrupt {
	in := &interrupt{done: make(chan struct{}), sig: make(chan os.Signal, 1), errOut: errOut}
	signal.Notify(in.sig, syscall.SIGINT, syscall.SIGTERM)
	go in.wait()
	return in
}

func (in *interrupt) wait() {
	s, ok := <-in.sig
	if !ok {
		return
	}
	signal.Stop(in.sig) // a second signal kills as usual
	in.mu.Lock()
	if in.released {
		in.mu.Unlock()
		return
	}
	in.stopped.Store(true)
	close(in.done)
	fns := in.onStop
	in.mu.Unlock()
	for _, f := range fns {
		f()
	}
	time.AfterFunc(stopGrace, func() {
		in.mu.Lock()
		defer in.mu.Unlock()
		if in.released || in.acked {
			return
		}
		for _, f := range in.flush {
			f()
		}
		fmt.Fprintf(in.errOut, "rdx: %v: did not stop within %v; exiting with what was printed\n", s, stopGrace)
		code := 128 + int(syscall.SIGINT)
		if s == syscall.SIGTERM {
			code = 128 + int(syscall.SIGTERM)
		}
		os.Exit(code)
	})
}

// Stopped reports whether a signal asked the verb to stop (cheap: one
// atomic load, for per-frame loops).
func (in *interrupt) Stopped() bool { return in != nil && in.stopped.Load() }

// StopFlag is the flag Stopped loads (pipeline.StopFlagger): the decode
// loop loads it without a call.
func (in *interrupt) StopFlag() *atomic.Bool {
	if in == nil {
		return nil
	}
	return &in.stopped
}

// Done is closed on the signal.
func (in *interrupt) Done() <-chan struct{} {
	if in == nil {
		return nil
	}
	return in.done
}

// OnStop runs f on the signal (at once if it came already).
func (in *interrupt) OnStop(f func()) {
	in.mu.Lock()
	in.onStop = append(in.onStop, f)
	in.mu.Unlock()
	if in.Stopped() {
		f()
	}
}

// OnGiveUp runs f before the process exits because the verb did not stop
// in time (flush output written so far; f must be safe from any goroutine).
func (in *interrupt) OnGiveUp(f func()) {
	in.mu.Lock()
	in.flush = append(in.flush, f)
	in.mu.Unlock()
}

// Ack tells the watchdog the verb has stopped reading and is finishing (its
// tables and counts): it will not be cut short.
func (in *interrupt) Ack() {
	if in == nil {
		return
	}
	in.mu.Lock()
	in.acked = true
	in.mu.Unlock()
}

// Release ends the watch: the verb is returning by itself.
func (in *interrupt) Release() {
	if in == nil {
		return
	}
	in.mu.Lock()
	already := in.released
	in.released = true
	in.mu.Unlock()
	if !already {
		signal.Stop(in.sig)
		close(in.sig)
	}
}

// flushAfter bounds how long written output may wait in the buffer.
const flushAfter = 50 * time.Millisecond

// timedOut is a verb's buffered output that a background ticker flushes
// whenever something has waited there flushAfter: a frame that takes long to
// decode, or a source that goes quiet, never holds back lines already
// written. Writes take a mutex (no allocation); Close stops the ticker and
// flushes.
type timedOut struct {
	mu   sync.Mutex
	w    *bufio.Writer
	err  error
	stop chan struct{}
	done chan struct{}
}

func newTimedOut(w io.Writer, size int) *timedOut {
	t := &timedOut{w: bufio.NewWriterSize(w, size), stop: make(chan struct{}), done: make(chan struct{})}
	go t.tick()
	return t
}

func (t *timedOut) tick() {
	defer close(t.done)
	tk := time.NewTicker(flushAfter)
	defer tk.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tk.C:
			t.Flush()
		}
	}
}

func (t *timedOut) Write(p []byte) (int, error) {
	t.mu.Lock()
	n, err := t.w.Write(p)
	t.mu.Unlock()
	return n, err
}

func (t *timedOut) WriteString(s string) (int, error) {
	t.mu.Lock()
	n, err := t.w.WriteString(s)
	t.mu.Unlock()
	return n, err
}

// Flush writes what is buffered; safe from any goroutine.
func (t *timedOut) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w.Buffered() == 0 {
		return t.err
	}
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	return t.err
}

// Close stops the ticker and flushes.
func (t *timedOut) Close() error {
	select {
	case <-t.stop:
	default:
		close(t.stop)
		<-t.done
	}
	return t.Flush()
}
