package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// The stats, flows, check and -z tables: piped (auto) byte for byte --color
// never's; --color always draws the header row bold and failure cells red
// (check's Failed counts, rx,srt's Aborts above 0), and with the escapes
// taken out the tables are the piped ones.
func TestTableColours(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("COLORTERM", "")
	esc := regexp.MustCompile("\x1b\\[[0-9;]*m")
	for _, verb := range [][]string{{"check"}, {"stats"}, {"flows"}, {"read", "-q", "-z", "rx,srt", "-z", "expert", "-z", "io,stat,0,MAX(frame.len)frame.len"}} {
		file := "../../pcaps/crafted/base_fields.pcap" // failing checksums
		if verb[0] == "read" {
			file = "../../pcaps/rx/pts-abort.pcap" // two calls aborted
		}
		outOf := func(args ...string) string {
			t.Helper()
			io, _, out, _ := iostreams.Test()
			run(io, append(append(append([]string{}, verb...), args...), file))
			return out.String()
		}
		never, auto, always := outOf("--color", "never"), outOf(), outOf("--color", "always")
		if auto != never || strings.Contains(never, "\x1b") {
			t.Errorf("%v: piped output differs from --color never or has escapes:\n%q", verb, auto)
		}
		if esc.ReplaceAllString(always, "") != never {
			t.Errorf("%v: --color always without its escapes is not the plain output:\n%s\n----\n%s", verb, always, never)
		}
		if !regexp.MustCompile("\\| \x1b\\[1m[A-Z][^\x1b]*\x1b\\[m +\\|").MatchString(always) {
			t.Errorf("%v: no bold header cell:\n%q", verb, always)
		}
		switch verb[0] {
		case "check":
			if !strings.Contains(always, "\x1b[1m\x1b[31m18\x1b[m |") { // ip.checksum: 18 failed, its row bold
				t.Errorf("check: Failed count not red:\n%q", always)
			}
		case "read":
			if !regexp.MustCompile("\\| PR NewEntry +\\|.*\\| +\x1b\\[31m1\x1b\\[m \\|").MatchString(always) ||
				!regexp.MustCompile("\\| PR NameToID +\\|[^\x1b]*\n").MatchString(always) {
				t.Errorf("rx,srt: Aborts not red where above 0 only:\n%q", always)
			}
		}
	}
}
