package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

func TestSynthRx(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rx.pcapng")
	io, _, _, errOut := iostreams.Test()
	if code := run(io, []string{"synth", "rx", "-w", file}); code != exitOK {
		t.Fatalf("synth: exit %d: %s", code, errOut)
	}
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", file}); code != exitOK {
		t.Fatalf("read: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "5 frames; findings: 0 errors, 0 warnings, 0 notes") || !strings.Contains(out.String(), "jumbogram") {
		t.Errorf("read of synth rx:\n%s%s", out, errOut)
	}

	io, _, _, errOut = iostreams.Test()
	run(io, []string{"synth", "rx", "--corrupt", "truncated-ack", "-w", file})
	io, _, _, errOut = iostreams.Test()
	run(io, []string{"read", file})
	if !strings.Contains(errOut.String(), "findings: 1 errors, 0 warnings, 0 notes") {
		t.Errorf("truncated-ack: %s", errOut)
	}

	io, _, out, _ = iostreams.Test()
	run(io, []string{"synth", "--list"})
	for _, want := range []string{"rx ", "--corrupt jumbo-flag", "rdp", "not yet available"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list lacks %q:\n%s", want, out)
		}
	}
	for _, c := range [][]string{{"synth", "rdp", "-w", file}, {"synth", "rx", "--corrupt", "x", "-w", file}, {"synth", "nope"}} {
		io, _, _, errOut = iostreams.Test()
		if code := run(io, c); code != exitUsage {
			t.Errorf("rdx %v: exit %d (%s)", c, code, errOut)
		}
	}
}
