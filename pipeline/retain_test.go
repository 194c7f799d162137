package pipeline

import (
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/rdx-project/rdx/dissect"
)

// TestEngineNotRetained: once a run's result is let go, nothing keeps its
// engine (and so its reassembly and tracking state) alive. AFS kept a pool
// per engine in a package-level map keyed by the engine's Frame, so every
// engine that decoded an AFS call stayed in memory: rdx read, stats and
// check over many files held one engine per file.
func TestEngineNotRetained(t *testing.T) {
	files, _ := filepath.Glob("../pcaps/*/*.pcap*")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".tsv") || strings.HasSuffix(f, ".gz") && strings.Contains(f, ".tsv") || strings.HasSuffix(f, ".md") {
			continue
		}
		var w weak.Pointer[dissect.Engine]
		func() {
			res, _ := Run(Config{Input: Input{File: f}, Out: io.Discard, Quiet: true, Workers: 1, Stats: []string{"rx,srt"}})
			if res.Engine != nil {
				w = weak.Make(res.Engine)
				n++
			}
		}()
		runtime.GC()
		runtime.GC()
		if w.Value() != nil {
			t.Errorf("%s: the engine is still reachable after the run", f)
		}
	}
	if n < 20 {
		t.Errorf("only %d captures run", n)
	}
}
