package main

import (
	"bytes"
	"os"
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

	io, _, _, _ = iostreams.Test()
	run(io, []string{"synth", "rx", "--corrupt", "truncated-ack", "-w", file})
	io, _, _, errOut = iostreams.Test()
	run(io, []string{"read", file})
	if !strings.Contains(errOut.String(), "findings: 1 error, 0 warnings, 0 notes") {
		t.Errorf("truncated-ack: %s", errOut)
	}

	io, _, out, _ = iostreams.Test()
	run(io, []string{"synth", "--list"})
	for _, want := range []string{"rx ", "--corrupt jumbo-flag", "rds-tcp ", "mpa ", "roce-nfs ", "rdp ", "--markers=false",
		"--loss P --seed S", "--corrupt icrc (or crc)", "--corrupt marker"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list lacks %q:\n%s", want, out)
		}
	}
	for _, c := range [][]string{{"synth", "rx", "--corrupt", "x", "-w", file}, {"synth", "nope"}, {"synth", "rdp"},
		{"synth", "rdp", "--loss", "1", "-w", file}, {"synth", "mpa", "--messages", "-2", "-w", file},
		{"synth", "rx", "--loss", "0.1", "-w", file}, {"synth", "rds-tcp", "--markers=false", "-w", file}} {
		io, _, _, errOut = iostreams.Test()
		if code := run(io, c); code != exitUsage {
			t.Errorf("rdx %v: exit %d (%s)", c, code, errOut)
		}
	}
}

// TestSynthScenarios: each scenario, written by the CLI and read back, has
// no error or warning; its checksum variant has exactly one error; the
// options reach the scenario; the output is byte-for-byte reproducible.
func TestSynthScenarios(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		clean string // "findings: ..." of rdx read
	}{
		{[]string{"rds-tcp"}, "33 frames; findings: 0 errors, 0 warnings, 0 notes"},
		{[]string{"rds-tcp", "--messages", "3", "--size", "10000"}, "findings: 0 errors, 0 warnings, 0 notes"},
		{[]string{"mpa"}, "25 frames; findings: 0 errors, 0 warnings, 0 notes"},
		{[]string{"mpa", "--markers=false", "--crc=false", "--size", "4000"}, "findings: 0 errors, 0 warnings, 0 notes"},
		{[]string{"roce-nfs"}, "18 frames; findings: 0 errors, 0 warnings, 0 notes"},
		// 4 READ Responses lost: 2 PSN gaps seen, 4 re-issued READs and 4
		// READs completed after one (notes); every WRITE still decodes
		{[]string{"roce-nfs", "--loss", "0.3", "--seed", "3", "--messages", "4"}, "43 frames; findings: 0 errors, 2 warnings, 8 notes"},
		{[]string{"rdp"}, "17 frames; findings: 0 errors, 0 warnings, 6 notes"},
		{[]string{"rdp", "--loss", "0.2", "--seed", "3", "--messages", "20"}, "findings: 0 errors, 0 warnings,"},
	} {
		file := filepath.Join(dir, c.args[0]+".pcapng")
		io, _, _, errOut := iostreams.Test()
		if code := run(io, append(append([]string{"synth"}, c.args...), "-w", file)); code != exitOK {
			t.Fatalf("synth %v: exit %d: %s", c.args, code, errOut)
		}
		io, _, out, errOut := iostreams.Test()
		if code := run(io, []string{"read", file}); code != exitOK {
			t.Fatalf("read %v: exit %d: %s", c.args, code, errOut)
		}
		if !strings.Contains(errOut.String(), c.clean) {
			t.Errorf("synth %v: want %q in\n%s%s", c.args, c.clean, out, errOut)
		}
		io, _, _, _ = iostreams.Test()
		run(io, append(append([]string{"synth"}, c.args...), "--corrupt", "crc", "-w", file))
		io, _, _, errOut = iostreams.Test()
		run(io, []string{"read", file})
		if c.args[0] != "mpa" || len(c.args) == 1 { // with --crc=false a bad CRC is not checked
			want := "findings: 1 error, 0 warnings"
			if !strings.Contains(c.clean, "0 warnings") {
				want = "findings: 1 error,"
			}
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("synth %v --corrupt crc: %s", c.args, errOut)
			}
		}
	}
	// Reproducible: two runs write the same octets.
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, f := range []string{a, b} {
		io, _, _, _ := iostreams.Test()
		run(io, []string{"synth", "rdp", "--loss", "0.3", "--seed", "9", "-w", f})
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Error("synth output is not reproducible")
	}
}
