package pipeline_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/active/synth"
	"github.com/rdx-project/rdx/pipeline"
)

// synthCapture writes rdx synth's scenario with n messages as a pcap.
func synthCapture(tb testing.TB, scenario string, n int) (string, int) {
	s, err := synth.Find(scenario)
	if err != nil {
		tb.Fatal(err)
	}
	pkts, err := s.BuildWith(synth.Options{Messages: n})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), fmt.Sprintf("%s-%d.pcap", scenario, n))
	writePcap(tb, path, pkts, 1)
	return path, len(pkts)
}

// BenchmarkRun runs the library on synthesized RoCEv2 NFS traffic (ICRC
// checked on every packet) in the modes rdx read, read -q, check and stats
// use, and reports time and allocations per frame (the run's set-up
// included, spread over the frames).
func BenchmarkRun(b *testing.B) {
	for _, sc := range []string{"roce-nfs"} {
		path, n := synthCapture(b, sc, 5000)
		frames := float64(n)
		var stats []string
		for _, n := range pipeline.StatNames() {
			if !strings.HasPrefix(n, "conv,") {
				stats = append(stats, n)
			}
		}
		for _, m := range []struct {
			name string
			cfg  pipeline.Config
		}{
			{"summary", pipeline.Config{}},
			{"quiet", pipeline.Config{Quiet: true}},
			{"check", pipeline.Config{Quiet: true, Check: &pipeline.CheckReport{}}},
			{"stats", pipeline.Config{Quiet: true, Stats: stats}},
		} {
			b.Run(sc+"/"+m.name, func(b *testing.B) {
				runPerFrame(b, m.cfg, path, frames)
			})
		}
	}
}

// runPerFrame runs cfg over the capture at path b.N times and reports
// ns/frame and allocs/frame over its frames.
func runPerFrame(b *testing.B, cfg pipeline.Config, path string, frames float64) {
	cfg.Input, cfg.Out = pipeline.Input{File: path}, discard{}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	b.ResetTimer()
	for range b.N {
		if _, err := pipeline.Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/frames/float64(b.N), "ns/frame")
	b.ReportMetric(float64(ms.Mallocs-before)/frames/float64(b.N), "allocs/frame")
}

// BenchmarkWorkers runs 64 interleaved Rx flows (as genrx -flows 64) with
// -j 1 and -j 2, summary and -q: ns/frame is wall time, so -j 2 shows the
// scaling only on an otherwise idle machine.
func BenchmarkWorkers(b *testing.B) {
	pkts := interleavedFlows(64, 400)
	path := filepath.Join(b.TempDir(), "flows.pcap")
	writePcap(b, path, pkts, 1)
	frames := float64(len(pkts))
	for _, mode := range []string{"summary", "quiet"} {
		for _, j := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/j%d", mode, j), func(b *testing.B) {
				cfg := pipeline.Config{Input: pipeline.Input{File: path}, Out: discard{}, Quiet: mode == "quiet", Workers: j}
				for range b.N {
					if _, err := pipeline.Run(cfg); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/frames/float64(b.N), "ns/frame")
			})
		}
	}
}
