package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// A bad --colors file is a usage error (exit 2) naming the file and line,
// for every verb (the flag is the root's), before any capture is read.
func TestColorsFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.colors")
	if err := os.WriteFile(bad, []byte("# mine\nerror = red\nwarn = yellow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"read", "--colors", bad, "../../pcaps/rx/bos-queries.pcap"},
		{"check", "--colors", bad, "../../pcaps/rx/bos-queries.pcap"},
		{"--colors", bad, "read", "../../pcaps/rx/bos-queries.pcap"},
	} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, args); code != exitUsage || !strings.Contains(errOut.String(), bad+":3: unknown key \"warn\"") || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, %d octets out", args, code, errOut, out.Len())
		}
	}
	io, _, _, errOut := iostreams.Test()
	if code := run(io, []string{"read", "--colors", filepath.Join(dir, "none"), "../../pcaps/rx/bos-queries.pcap"}); code != exitUsage ||
		!strings.Contains(errOut.String(), "--colors: open "+filepath.Join(dir, "none")) {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}

// Piped output (auto, not a terminal) is byte for byte --color never's,
// which the goldens hold, even with a theme; --color always styles it in
// the profile the environment names (COLORTERM=truecolor: 24-bit).
func TestColorEndToEnd(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("COLORTERM", "truecolor")
	theme := filepath.Join(t.TempDir(), "t.colors")
	if err := os.WriteFile(theme, []byte("proto.tcp = #ff0000\nnote = #00ff00 underline\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := "../../pcaps/iwarp/wiki_iwarp_connect__C00_M00_reject.pcap" // frame 6 has a note
	outOf := func(args ...string) string {
		t.Helper()
		io, _, out, errOut := iostreams.Test()
		if code := run(io, append(args, file)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.String()
	}
	never := outOf("read", "--color", "never")
	if got := outOf("read", "--colors", theme); got != never {
		t.Errorf("piped auto output differs from --color never:\n%q\n%q", got, never)
	}
	if strings.Contains(never, "\x1b") {
		t.Error("--color never wrote an escape")
	}
	got := outOf("read", "--color", "always", "--colors", theme)
	for _, want := range []string{"\x1b[38;2;255;0;0mTCP       \x1b[m", "\x1b[1mMPA       \x1b[m", "\x1b[4;38;2;0;255;0;4mMPA Reply"} {
		if !strings.Contains(got, want) {
			t.Errorf("--color always lacks %q:\n%q", want, got)
		}
	}
	t.Setenv("COLORTERM", "") // 256 colours from TERM
	if got := outOf("read", "--color", "always", "--colors", theme); !strings.Contains(got, "\x1b[38;5;196mTCP       \x1b[m") {
		t.Errorf("ANSI256: %q", got)
	}
}

// rdx check's table shows failing checks in bold, passing ones plain.
func TestCheckFailingBold(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	if code := run(io, []string{"check", "--color", "always", "../../pcaps/crafted/base_fields.pcap"}); code != exitFindings {
		t.Fatalf("exit %d", code)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		switch {
		case strings.Contains(l, "ip.checksum"):
			if !strings.Contains(l, "| \x1b[1mip.checksum\x1b[m ") {
				t.Errorf("failing check not bold: %q", l)
			}
		case strings.Contains(l, "icmp.checksum"):
			if strings.Contains(l, "\x1b") {
				t.Errorf("passing check styled: %q", l)
			}
		}
	}
}
