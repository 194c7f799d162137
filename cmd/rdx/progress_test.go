package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/internal/progress"
)

// The status line of read, synth and replay: on a terminal (standard
// error one, the frames going elsewhere) it is drawn and erased, and the
// rest of standard error is what a piped run prints; piped, with -q, or
// with the frames printing to that terminal there is none, and standard
// output never has it.
func TestProgressLine(t *testing.T) {
	old := progress.Every
	progress.Every = time.Millisecond
	defer func() { progress.Every = old }()
	big := "../../pcaps/kernel/nfs3_rdma_roce.pcap" // 4043 frames, 3.5 MB
	synthOut := filepath.Join(t.TempDir(), "s.pcapng")
	// runTTY runs args with the terminals given and returns stdout, stderr.
	runTTY := func(outTTY, errTTY bool, args ...string) (string, string) {
		t.Helper()
		io, _, out, errOut := iostreams.Test()
		io.SetTTY(outTTY, errTTY)
		if code := run(io, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.String(), errOut.String()
	}
	// replay's times and rates differ from run to run
	times := regexp.MustCompile(`[0-9]+\.[0-9]+ s \([0-9]+ packets/s, [0-9.]+ Mbit/s\)|(?m)^ *[0-9]+ +[0-9]+\.[0-9]+`)
	for _, c := range []struct {
		label string
		args  []string
		line  string // the line's form
	}{
		{"read", []string{"read", "-2", big}, `read: (pass 2, )?[0-9]+% of 3\.5 MB, [0-9]+ frames, [0-9]+ frames/s(, [0-9.]+ [kMG]?B/s)?(, [0-9hms.]+ left)?`},
		{"read many", []string{"read", "-2", "-j", "2", big, "../../pcaps/rx/pts-ops.pcap", big}, `read: (pass 2, )?[0-9]+% of 7\.[0-9] MB, [0-3] of 3 captures, [0-9]+ frames, [0-9]+ frames/s(, [0-9.]+ [kMG]?B/s)?(, [0-9hms.]+ left)?`},
		{"synth", []string{"synth", "rdp", "--messages", "20000", "-w", synthOut}, `synth: ([0-9]+%, )?[0-9]+ frames, [0-9]+ frames/s(, [0-9hms.]+ left)?`},
		{"replay", []string{"replay", "--dry-run", "--pps", "2000", "../../pcaps/rx/pts-ops.pcap"}, `replay: [0-9]+% of [0-9.]+ kB, [0-9]+ frames, [0-9]+ frames/s(, [0-9.]+ [kMG]?B/s)?(, [0-9hms.]+ left)?`},
	} {
		t.Run(c.label, func(t *testing.T) {
			out0, err0 := runTTY(false, false, c.args...)
			out0, err0 = times.ReplaceAllString(out0, "#"), times.ReplaceAllString(err0, "#")
			if strings.Contains(err0, "\r") {
				t.Errorf("piped: a status line: %q", err0)
			}
			out, errOut := runTTY(false, true, c.args...)
			out = times.ReplaceAllString(out, "#")
			status := regexp.MustCompile("\r\x1b\\[K(" + c.line + ")?")
			if !regexp.MustCompile("\r\x1b\\[K" + c.line).MatchString(errOut) {
				t.Errorf("no status line on a terminal: %q", errOut)
			}
			if got := times.ReplaceAllString(status.ReplaceAllString(errOut, ""), "#"); got != err0 {
				t.Errorf("terminal's stderr beyond its status lines\n%q\npiped\n%q", got, err0)
			}
			if out != out0 || strings.Contains(out, "\x1b") {
				t.Errorf("stdout differs on a terminal stderr")
			}
		})
	}
	// -q, and frames printing to the terminal: nothing.
	if _, errOut := runTTY(false, true, "read", "-q", big); strings.Contains(errOut, "\r") {
		t.Errorf("-q: a status line: %q", errOut)
	}
	if _, errOut := runTTY(false, true, "read", "-q", big, big); strings.Contains(errOut, "\r") {
		t.Errorf("-q over two files: a status line: %q", errOut)
	}
	if _, errOut := runTTY(true, true, "read", big, big); strings.Contains(errOut, "\r") {
		t.Errorf("frames of two files on the terminal: a status line: %q", errOut)
	}
	if _, errOut := runTTY(true, true, "read", big); strings.Contains(errOut, "\r") {
		t.Errorf("frames on the terminal: a status line: %q", errOut)
	}
	// -w FILE prints no frames: the line even with a terminal for stdout.
	if _, errOut := runTTY(true, true, "read", "-w", filepath.Join(t.TempDir(), "w.pcapng"), big); !strings.Contains(errOut, "\r\x1b[Kread: ") {
		t.Errorf("-w FILE: no status line: %q", errOut)
	}
}
