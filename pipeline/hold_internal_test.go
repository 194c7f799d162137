package pipeline

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// writeLog records each Write.
type writeLog struct{ got []string }

func (w *writeLog) Write(p []byte) (int, error) { w.got = append(w.got, string(p)); return len(p), nil }

// Reading a file on one worker, the printer holds lines and writes them
// in batches of at least outHold octets (whole lines, nothing lost or
// reordered); -l, standard input and a caller's sinks still get a Write
// per frame.
func TestPrinterHold(t *testing.T) {
	const file = "../pcaps/rx/afsio-fetch.pcap" // 808 frames, ~108 KB of summary lines
	runLog := func(cfg Config) (*writeLog, string) {
		t.Helper()
		w := &writeLog{}
		cfg.Out, cfg.Workers = w, 1
		if _, err := Run(cfg); err != nil {
			t.Fatal(err)
		}
		return w, strings.Join(w.got, "")
	}
	held, all := runLog(Config{Input: Input{File: file}})
	lines := strings.Count(all, "\n")
	if lines != 808 {
		t.Fatalf("%d lines, want 808", lines)
	}
	if len(held.got) < 2 || len(held.got) > len(all)/outHold+1 {
		t.Fatalf("%d writes of %d octets, want batches of outHold (%d)", len(held.got), len(all), outHold)
	}
	for i, s := range held.got {
		if !strings.HasSuffix(s, "\n") || i < len(held.got)-1 && len(s) < outHold {
			t.Fatalf("write %d: %d octets, want whole lines, at least %d but in the last", i, len(s), outHold)
		}
	}

	perLine := func(name string, w *writeLog, got string) {
		t.Helper()
		if got != all {
			t.Fatalf("%s: output differs from the held run's", name)
		}
		if len(w.got) != lines {
			t.Fatalf("%s: %d writes, want one per frame (%d)", name, len(w.got), lines)
		}
	}
	w, got := runLog(Config{Input: Input{File: file}, Print: Print{LineFlush: true}})
	perLine("-l", w, got)

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	w, got = runLog(Config{Input: Input{File: "-", Stdin: bytes.NewReader(data)}})
	perLine("stdin", w, got)
}

// TestPrinterColsAligned: the printer's SummaryCache starts a cache line
// (render.NewSummaryCache), so each address slot it holds is one line:
// embedded in the printer, 48 octets into a line, each slot's text lay on
// the line after its keys.
func TestPrinterColsAligned(t *testing.T) {
	pr, err := newPrinter(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if p := uintptr(unsafe.Pointer(pr.cols)); p%64 != 0 {
		t.Fatalf("printer's SummaryCache at %#x: not on a 64-octet line", p)
	}
}
