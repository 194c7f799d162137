package synth

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
)

// findings decodes pkts through the engine (two passes, as rdx read) and
// lists the second pass's findings.
func findings(t *testing.T, pkts []capture.Packet) []string {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	var out []string
	for pass := 1; pass <= 2; pass++ {
		for i, p := range pkts {
			f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: p.TimeNS, CapLen: p.CapLen, WireLen: p.WireLen, LinkType: p.LinkType, Data: p.Data, Pass: pass})
			if pass == 2 {
				for _, x := range f.Findings {
					out = append(out, fmt.Sprintf("frame %d: %s %s: %s", i+1, x.Sev, x.Proto, x.Msg))
				}
			}
		}
		eng.Finish()
		if pass == 1 {
			eng.Rewind()
		}
	}
	return out
}

func TestRxScenario(t *testing.T) {
	s, err := Find("rx")
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := s.Build("")
	if err != nil {
		t.Fatal(err)
	}
	if got := findings(t, pkts); len(got) != 0 {
		t.Errorf("clean rx scenario has findings:\n%q", got)
	}
	// Frame 2 is the jumbogram: three Rx packets in one datagram.
	eng := dissect.NewEngine(dissect.Options{})
	for i, p := range pkts[:2] {
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: p.TimeNS, CapLen: p.CapLen, WireLen: p.WireLen, LinkType: p.LinkType, Data: p.Data, Pass: 2})
		if i == 1 && len(f.PDUs) < 3 {
			t.Errorf("jumbogram decoded as %d PDUs, want at least 3", len(f.PDUs))
		}
	}
	for _, v := range s.Variants {
		pkts, err := s.Build(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got := findings(t, pkts); !slices.Equal(got, v.Findings) {
			t.Errorf("variant %s: findings\n%q\nwant\n%q", v.Name, got, v.Findings)
		}
	}
	if _, err := s.Build("nonsense"); err == nil {
		t.Error("unknown variant accepted")
	}
	// Reproducible: the same bytes every time.
	a, _ := s.Build("")
	b, _ := s.Build("")
	for i := range a {
		if !bytes.Equal(a[i].Data, b[i].Data) || a[i].TimeNS != b[i].TimeNS {
			t.Fatal("not reproducible")
		}
	}
}

func TestNotAvailable(t *testing.T) {
	for _, s := range Scenarios() {
		if _, err := s.Build(""); (err == nil) != s.Available {
			t.Errorf("%s: available %v, Build error %v", s.Name, s.Available, err)
		}
	}
	if _, err := Find("nope"); err == nil {
		t.Error("Find(nope) succeeded")
	}
}

// TestStreams: rds-tcp and mpa make their frames as they go, so 256 MB of
// messages never has more than a few MB live (rds-tcp held the whole
// capture, 2.7 GB for 1 GB, before), and emit's error stops them at that
// frame.
func TestStreams(t *testing.T) {
	for _, name := range []string{"rds-tcp", "mpa"} {
		s, err := Find(name)
		if err != nil {
			t.Fatal(err)
		}
		var n, octets int64
		var peak uint64
		var ms runtime.MemStats
		_, err = s.Emit(Options{Messages: 4096, Size: 64 << 10}, func(p *capture.Packet) error {
			n++
			octets += int64(len(p.Data))
			if n%20000 == 0 {
				// live memory, not garbage the collector has yet to
				// reach: HeapAlloc between collections swings with GC
				// pacing and with what other test binaries load the host
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if octets < 256<<20 || peak == 0 {
			t.Fatalf("%s: %d frames, %d octets, %d heap samples: the scenario is smaller than asked", name, n, octets, peak)
		}
		t.Logf("%s: %d frames, %d MB, live heap peaked at %.1f MB", name, n, octets>>20, float64(peak)/(1<<20))
		if peak > 8<<20 {
			t.Errorf("%s: heap reached %d MB while writing %d MB: the frames are held, not streamed", name, peak>>20, octets>>20)
		}
		stop, k := errors.New("stop"), 0
		got, err := s.Emit(Options{Messages: 4096, Size: 64 << 10}, func(*capture.Packet) error {
			if k++; k == 100 {
				return stop
			}
			return nil
		})
		if err != stop || got != 100 {
			t.Errorf("%s: emit's error at frame 100: Emit returned %v after %d frames", name, err, got)
		}
	}
}
