package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/testpkt"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// runOut runs rdx with args and returns its standard output, standard
// error and exit code.
func runOut(args []string) (string, string, int) {
	io, _, out, errOut := iostreams.Test()
	code := run(io, args)
	return out.String(), errOut.String(), code
}

// sameWithWorkers runs args with -j 1 and with each of js and fails on any
// difference in output, closing counts or exit code.
func sameWithWorkers(t *testing.T, args []string, js ...string) {
	t.Helper()
	with := func(j string) []string {
		return append([]string{args[0], "-j", j}, args[1:]...)
	}
	want, wantErr, wantCode := runOut(with("1"))
	if len(want) == 0 && wantCode == 0 && !slices.Contains(args, "-q") && args[0] == "read" {
		t.Fatalf("%v printed nothing: a comparison of nothing", args)
	}
	for _, j := range js {
		got, gotErr, gotCode := runOut(with(j))
		if got != want || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("rdx %s -j %s differs from -j 1 (exit %d, want %d):\n%s\nstderr:\n%s",
				args[0], j, gotCode, wantCode, firstDiff(got, want), firstDiff(gotErr, wantErr))
		}
	}
}

// TestGoldenWorkers: every golden case prints the same with -j 2 and -j 3
// as with -j 1 (byte for byte, closing counts included).
func TestGoldenWorkers(t *testing.T) {
	for name, args := range goldenCases(t) {
		t.Run(name, func(t *testing.T) { sameWithWorkers(t, args, "2", "3") })
	}
}

// TestCapturesWorkers: every capture in pcaps/ gives the same summary,
// check report and -z tables with -j 3 as with -j 1.
func TestCapturesWorkers(t *testing.T) {
	var caps []string
	err := filepath.WalkDir("../../pcaps", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcap.gz") || strings.HasSuffix(p, ".cap.gz") || strings.HasSuffix(p, ".pcapng")) {
			caps = append(caps, p)
		}
		return err
	})
	if err != nil || len(caps) < 50 {
		t.Fatalf("captures: %d, %v", len(caps), err)
	}
	for _, c := range caps {
		t.Run(strings.TrimPrefix(c, "../../pcaps/"), func(t *testing.T) {
			sameWithWorkers(t, []string{"read", "--color", "never", c}, "3")
			sameWithWorkers(t, []string{"check", "-T", "json", c}, "3")
			sameWithWorkers(t, []string{"stats", c}, "3")
		})
	}
}

// TestTruncatedWorkers: a capture cut inside a record prints the frames
// before the bad record with -j 2 as with -j 1, and the same error.
func TestTruncatedWorkers(t *testing.T) {
	cut := testpkt.CutCapture(t, "../../pcaps/rx/vos-dump-bulk.pcap", "cut.pcap", 5000)
	for _, args := range [][]string{
		{"read", "--color", "never", cut},
		{"read", "-T", "fields", "-e", "frame.number", "-e", "rx.seq", cut},
		{"read", "-q", cut},
	} {
		sameWithWorkers(t, args, "2")
	}
	out, errOut, code := runOut([]string{"read", "-j", "2", cut})
	if code == 0 || strings.Count(out, "\n") < 5 {
		t.Errorf("-j 2 on a cut capture: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errOut)
	}
	if !bytes.Contains([]byte(errOut), []byte("cut.pcap")) {
		t.Errorf("the error does not name the file: %q", errOut)
	}
}
