package replay

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/rdx-project/rdx/capture"
)

// Options choose timing and rewriting. At most one of TopSpeed, PPS and
// Mbps is set; otherwise the recorded gaps are divided by Speed (1 if 0).
type Options struct {
	TopSpeed bool
	Speed    float64
	PPS      float64
	Mbps     float64
	Loop     int // times to send the file; 0 means 1
	Rewrites []Rewrite
	// Limit stops after sending that many packets (tcpreplay -L); 0: no limit.
	Limit uint64
	// StatsEvery calls Progress with the counts so far that often while
	// sending (tcpreplay --stats); 0: never.
	StatsEvery time.Duration
	Progress   func(Stats)
}

// Sender puts a frame on the wire.
type Sender interface {
	// Send returns an error wrapping ErrTooBig for a frame over the
	// interface's MTU: Run skips that frame and goes on.
	Send(frame []byte) error
}

// ErrTooBig is a frame the interface will not take (EMSGSIZE).
var ErrTooBig = errors.New("frame larger than the interface MTU")

// Stats is what was sent, and what was not.
type Stats struct {
	Packets, Bytes uint64
	Skipped        [NumReasons]uint64 // frames not sent, by reason
	Elapsed        time.Duration
}

// SkippedTotal is the number of frames not sent.
func (s Stats) SkippedTotal() uint64 {
	var n uint64
	for _, c := range s.Skipped {
		n += c
	}
	return n
}

// PPS is the achieved packet rate.
func (s Stats) PPS() float64 { return float64(s.Packets) / max(s.Elapsed.Seconds(), 1e-9) }

// Mbps is the achieved rate in megabits per second (frame bytes, no
// preamble or gap).
func (s Stats) Mbps() float64 { return float64(s.Bytes) * 8 / 1e6 / max(s.Elapsed.Seconds(), 1e-9) }

// Run sends every frame of the capture open returns (called once per loop)
// through send. each, if not nil, sees every frame: after rewriting with
// its time offset from the start of the run, or with the reason it was
// skipped (then frame is as recorded). n is the frame's number in the file.
// A frame the rewriter cannot fix, or that is not Ethernet, is skipped and
// counted, never sent half-rewritten. stop, if not nil, ends the run early
// when closed, also in the wait before a frame.
func Run(open func() (capture.Source, error), send Sender, o Options, each func(n uint64, at time.Duration, frame []byte, why Reason), stop <-chan struct{}) (Stats, error) {
	var st Stats
	if o.Speed <= 0 {
		o.Speed = 1
	}
	loops := max(o.Loop, 1)
	start := time.Now()
	lastStats := start
	var bits float64 // sent so far, for --mbps
	var buf []byte
	skip := func(n uint64, why Reason, frame []byte) {
		st.Skipped[why]++
		if each != nil {
			each(n, time.Since(start), frame, why)
		}
	}
	for loop := 0; loop < loops; loop++ {
		src, err := open()
		if err != nil {
			return st, err
		}
		loopStart := time.Now()
		var first int64
		var pkt capture.Packet
		for i := 0; ; i++ {
			select {
			case <-stop:
				src.Close()
				st.Elapsed = time.Since(start)
				return st, nil
			default:
			}
			err := src.Next(&pkt)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				src.Close()
				return st, err
			}
			n := uint64(i + 1)
			if i == 0 {
				first = pkt.TimeNS
			}
			var why Reason
			if buf, why = prepare(buf, &pkt, o.Rewrites); why != OK {
				skip(n, why, pkt.Data)
				continue
			}
			// Absolute schedule from the start, so sleep overshoot does not
			// accumulate.
			var due time.Time
			switch {
			case o.TopSpeed:
			case o.PPS > 0:
				due = start.Add(time.Duration(float64(st.Packets) / o.PPS * 1e9))
			case o.Mbps > 0:
				due = start.Add(time.Duration(bits / (o.Mbps * 1e6) * 1e9))
			default:
				due = loopStart.Add(time.Duration(float64(pkt.TimeNS-first) / o.Speed))
			}
			if !waitUntil(due, stop) {
				src.Close()
				st.Elapsed = time.Since(start)
				return st, nil
			}
			if err := send.Send(buf); errors.Is(err, ErrTooBig) {
				// As tcpreplay: count the frame as failed, send the rest.
				skip(n, TooBig, pkt.Data)
				continue
			} else if err != nil {
				src.Close()
				st.Elapsed = time.Since(start)
				return st, fmt.Errorf("sending frame %d: %w", n, err)
			}
			st.Packets++
			st.Bytes += uint64(len(buf))
			bits += float64(len(buf)) * 8
			if each != nil {
				each(n, time.Since(start), buf, OK)
			}
			if o.StatsEvery > 0 && o.Progress != nil {
				if now := time.Now(); now.Sub(lastStats) >= o.StatsEvery {
					lastStats = now
					st.Elapsed = now.Sub(start)
					o.Progress(st)
				}
			}
			if o.Limit > 0 && st.Packets >= o.Limit {
				src.Close()
				st.Elapsed = time.Since(start)
				return st, nil
			}
		}
		src.Close()
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// prepare copies pkt's frame into buf and rewrites it, or says why it
// cannot be sent.
func prepare(buf []byte, pkt *capture.Packet, rws []Rewrite) ([]byte, Reason) {
	if pkt.LinkType != capture.LinkEthernet {
		return buf, NotEthernet
	}
	buf = append(buf[:0], pkt.Data...)
	if len(buf) < 14 {
		return buf, ShortFrame
	}
	_, why := Apply(rws, buf)
	return buf, why
}

// waitUntil sleeps through long gaps and spins through the last stretch,
// where the scheduler's wake-up latency would make timing coarse. It
// returns false when stop closes first (a slow --pps or a long recorded gap
// must not hold off a signal).
func waitUntil(t time.Time, stop <-chan struct{}) bool {
	if t.IsZero() {
		return true
	}
	for {
		d := time.Until(t)
		switch {
		case d <= 0:
			return true
		case d > 2*time.Millisecond:
			tm := time.NewTimer(d - time.Millisecond)
			select {
			case <-stop:
				tm.Stop()
				return false
			case <-tm.C:
			}
		default:
			runtime.Gosched()
		}
	}
}

// DryRun is a Sender that sends nothing.
type DryRun struct{}

// Send does nothing.
func (DryRun) Send([]byte) error { return nil }
