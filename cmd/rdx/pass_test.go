package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/testpkt"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// cutShort writes the first 5000 octets of a real capture, a file cut in
// the middle of frame 13 (tshark shows 12 frames of it, then an error).
func cutShort(t *testing.T) string {
	return testpkt.CutCapture(t, "../../pcaps/rx/vos-dump-bulk.pcap", "t.pcap", 5000)
}

// TestCutShortEveryVerb: every output mode prints every frame before the
// bad record (stats, flows and check their tables of what was read), then
// the closing counts and the error naming the file and frame; exit 2.
func TestCutShortEveryVerb(t *testing.T) {
	file := cutShort(t)
	for _, c := range []struct {
		args []string
		has  []string // in standard output
	}{
		{[]string{"read", "--color", "never"}, []string{"\n    12 0.008938 127.0.0.1:44407"}},
		{[]string{"read", "-V"}, []string{"Frame 1:", "Frame 12:"}},
		{[]string{"read", "-T", "json"}, []string{`"frame.number": "12"`, "}\n]\n"}},
		{[]string{"read", "-T", "fields", "-e", "frame.number", "-e", "rx.seq"}, []string{"1\t1\n", "12\t0\n"}},
		{[]string{"read", "-T", "fields", "-e", "frame.number", "-e", "afs.repframe"}, []string{"1\t\n", "12\t\n"}},
		{[]string{"read", "-Y", "rx.type == 2", "-T", "fields", "-e", "frame.number"}, []string{"3\n6\n9\n12\n"}},
		{[]string{"read", "-q", "-z", "rx,srt"}, []string{"VOL TransCreate"}},
		{[]string{"check"}, []string{"checks applied to"}},
		{[]string{"check", "-T", "json"}, []string{`"frames": 12`}},
		{[]string{"stats"}, []string{"VOL TransCreate"}},
		{[]string{"flows"}, []string{"127.1.0.1:7005", "127.1.0.1:7003"}},
	} {
		io, _, out, errOut := iostreams.Test()
		code := run(io, append(c.args, file))
		want := "rdx: 12 frames; findings: 0 errors, 0 warnings, 0 notes\nrdx: " + file +
			": frame 13 (offset 3629): truncated record: header says 1482 bytes, only 1355 present\n"
		if code != 2 || errOut.String() != want {
			t.Errorf("%v: exit %d, stderr\n%s\nwant exit 2 and\n%s", c.args, code, errOut, want)
		}
		for _, h := range c.has {
			if !strings.Contains(out.String(), h) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, h, out)
			}
		}
	}
	if io, _, out, _ := iostreams.Test(); run(io, []string{"read", "--color", "never", file}) != 2 || strings.Count(out.String(), "\n") != 12 {
		t.Errorf("summary: %d lines, want 12", strings.Count(out.String(), "\n"))
	}
}

// TestErrorIsOneLine: an input that cannot be read at all is one line on
// standard error and nothing on standard output, for every verb.
func TestErrorIsOneLine(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pcap")
	locked := filepath.Join(dir, "locked.pcap")
	os.WriteFile(locked, []byte("x"), 0o000)
	cases := []struct {
		args []string
		has  string
	}{
		{[]string{"read", missing}, "missing.pcap: no such file"},
		{[]string{"read", "-T", "json", missing}, "missing.pcap: no such file"},
		{[]string{"read", "-T", "fields", "-E", "header=y", "-e", "frame.number", missing}, "missing.pcap: no such file"},
		{[]string{"read", "-w", filepath.Join(dir, "out.pcapng"), missing}, "missing.pcap: no such file"},
		{[]string{"stats", missing}, "missing.pcap: no such file"},
		{[]string{"flows", missing}, "missing.pcap: no such file"},
		{[]string{"check", missing}, "missing.pcap: no such file"},
		{[]string{"read", dir}, "is a directory"},
		{[]string{"stats", dir}, "is a directory"},
		{[]string{"read", "-i", "lo", "-f", "bad(("}, `capture filter "bad(("`},
		{[]string{"check", "-i", "lo", "-f", "bad(("}, `capture filter "bad(("`},
	}
	if os.Geteuid() != 0 { // root reads a file whatever its mode
		cases = append(cases, struct {
			args []string
			has  string
		}{[]string{"read", locked}, "permission denied"})
	}
	for _, c := range cases {
		io, _, out, errOut := iostreams.Test()
		code := run(io, c.args)
		if code != 2 || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), c.has) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing, one line with %q", c.args, code, out, errOut, c.has)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.pcapng")); err == nil {
		t.Error("-w file created for an input that could not be opened")
	}
}

// TestWriteOntoInput: rdx read -w onto the file read (or a link to it) is
// refused and leaves it intact; a good -w leaves no temporary file.
func TestWriteOntoInput(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile("../../pcaps/rx/pts-ops.pcap")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "same.pcap")
	os.WriteFile(in, orig, 0o644)
	os.Symlink(in, filepath.Join(dir, "sym.pcap"))
	os.Link(in, filepath.Join(dir, "hard.pcap"))
	for _, w := range []string{"same.pcap", "sym.pcap", "hard.pcap"} {
		io, _, _, errOut := iostreams.Test()
		code := run(io, []string{"read", "-w", filepath.Join(dir, w), in})
		if code != 2 || !strings.Contains(errOut.String(), "refusing to overwrite") || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("-w %s: exit %d, %q", w, code, errOut)
		}
		if b, _ := os.ReadFile(in); !bytes.Equal(b, orig) {
			t.Fatalf("-w %s destroyed the input", w)
		}
	}
	// standard input redirected from the -w file is the same file
	stdin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	io, _, _, errOut := iostreams.Test()
	io.In = stdin
	if code := run(io, []string{"read", "-w", in, "-"}); code != 2 || !strings.Contains(errOut.String(), "refusing to overwrite the input (standard input)") {
		t.Errorf("-w onto standard input's file: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(in); !bytes.Equal(b, orig) {
		t.Fatal("-w onto standard input's file destroyed it")
	}
	out := filepath.Join(dir, "out.pcapng")
	io, _, _, errOut = iostreams.Test()
	if code := run(io, []string{"read", "-w", out, in}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	io, _, got, _ := iostreams.Test()
	if run(io, []string{"read", "-q", "-z", "conv,udp", out}); !strings.Contains(got.String(), "127.0.0.1:52090") {
		t.Errorf("-w output unreadable:\n%s", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Errorf("files left in %s: %v", dir, ents)
	}
	// a cut-short input still writes the frames before the bad record
	cut := filepath.Join(dir, "cut.pcapng")
	if io, _, _, _ := iostreams.Test(); run(io, []string{"read", "-w", cut, cutShort(t)}) != 2 {
		t.Error("a cut-short input did not fail")
	}
	io, _, got, _ = iostreams.Test()
	if run(io, []string{"read", cut}); strings.Count(got.String(), "\n") != 12 {
		t.Errorf("-w of a cut-short input kept %d frames, want 12", strings.Count(got.String(), "\n"))
	}
}

// TestTwoPassFlag: -2 reads twice even for a summary; it needs a file and
// contradicts --single-pass.
func TestTwoPassFlag(t *testing.T) {
	io, in, _, errOut := iostreams.Test()
	in.Write([]byte("x"))
	if code := run(io, []string{"read", "-2", "-"}); code != 2 || !strings.Contains(errOut.String(), "standard input") {
		t.Errorf("-2 on stdin: exit %d, %q", code, errOut)
	}
	io, _, _, errOut = iostreams.Test()
	if code := run(io, []string{"read", "-2", "--single-pass", "../../pcaps/rx/pts-ops.pcap"}); code != 2 || !strings.Contains(errOut.String(), "--single-pass") {
		t.Errorf("-2 --single-pass: exit %d, %q", code, errOut)
	}
	// -2 shows a call's reply in the summary, as tshark -2 does: only a
	// first pass knows it
	const nfs = "../../pcaps/kernel/nfs3_rdma_roce.pcap"
	summary := func(args ...string) string {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, append(args, "--color", "never", nfs)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.String()
	}
	one, two := summary("read"), summary("read", "-2")
	if strings.Contains(one, "(reply in ") || !strings.Contains(two, "Call XID 0x5d44543d (reply in 6); PORTMAP V2 GETPORT Call") {
		t.Errorf("-2 summary:\n%s", two)
	}
}

// TestCutShortSameAsCleanEnd: a capture cut inside a record prints, in
// every mode, exactly what the same capture ending cleanly before that
// record prints, then the error (exit 2): pcap, pcapng and gzip, RoCE,
// iWARP, RDS/TCP and Rx captures.
func TestCutShortSameAsCleanEnd(t *testing.T) {
	dir := t.TempDir()
	raw := func(name string) []byte {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	type capCase struct {
		name string
		raw  []byte
		cut  func([]byte) []byte // the damaged file from raw
		ext  string
	}
	cutAt30 := func(b []byte) []byte { return b[:len(b)*3/10] }
	var cases []capCase
	for _, c := range []string{"../../pcaps/rx/vos-dump-bulk.pcap", "../../pcaps/kernel/nfs3_rdma_roce.pcap",
		"../../pcaps/iwarp/nfs3_rdma_iwarp.pcap", "../../pcaps/kernel/rds_tcp.pcap", "../../pcaps/ib/rocev1.pcap"} {
		cases = append(cases, capCase{filepath.Base(c), raw(c), cutAt30, ".pcap"})
	}
	afs := raw("../../pcaps/ajbanjara+Wireshark-wiki__afs.cap.gz")
	cases = append(cases, capCase{"afs.cap.gz", afs, func(b []byte) []byte { return cutAt30(gz(b)) }, ".pcap.gz"})
	modes := [][]string{
		{"read", "--color", "never"},
		{"read", "-V"},
		{"read", "-T", "json"},
		{"read", "-T", "fields", "-e", "frame.number", "-e", "ip.src", "-e", "ip.len", "-e", "tcp.ack"},
		{"read", "-T", "fields", "-e", "frame.number", "-e", "afs.repframe", "-e", "rpc.reqframe", "-e", "_ws.expert.message"},
		{"read", "-Y", "udp || tcp", "--color", "never"},
		{"read", "-Y", "rpc.reqframe || afs.repframe", "--color", "never"},
		{"read", "-2", "--color", "never"},
		{"read", "-q", "-z", "conv,udp", "-z", "conv,tcp"},
		{"stats"},
		{"flows"},
		{"check"},
	}
	at := regexp.MustCompile(`: frame (\d+) \(offset (\d+)\): `)
	for _, c := range cases {
		bad := filepath.Join(dir, "bad-"+c.name+c.ext)
		os.WriteFile(bad, c.cut(c.raw), 0o644)
		io, _, _, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", bad}); code != 2 {
			t.Fatalf("%s: exit %d, %s", c.name, code, errOut)
		}
		m := at.FindStringSubmatch(errOut.String())
		if m == nil {
			t.Fatalf("%s: no frame and offset in %q", c.name, errOut)
		}
		off, _ := strconv.Atoi(m[2])
		clean := filepath.Join(dir, "clean-"+c.name+".pcap")
		os.WriteFile(clean, c.raw[:off], 0o644)
		errLine := errOut.String()[strings.LastIndex(strings.TrimSuffix(errOut.String(), "\n"), "\n")+1:]
		for _, mode := range modes {
			io, _, wantOut, wantErr := iostreams.Test()
			if code := run(io, append(mode, clean)); code > 1 {
				t.Fatalf("%s %v: clean end: exit %d: %s", c.name, mode, code, wantErr)
			}
			io, _, gotOut, gotErr := iostreams.Test()
			code := run(io, append(mode, bad))
			if code != 2 || gotErr.String() != wantErr.String()+errLine {
				t.Errorf("%s %v: exit %d, stderr\n%s\nwant exit 2 and\n%s%s", c.name, mode, code, gotErr, wantErr, errLine)
			}
			got := strings.ReplaceAll(gotOut.String(), bad, clean) // check names its file
			if got != wantOut.String() {
				t.Errorf("%s %v: output differs from the clean end's (%d and %d octets)\n%s", c.name, mode, gotOut.Len(), wantOut.Len(),
					firstDiff(got, wantOut.String()))
			}
			if len(mode) == 3 && mode[1] == "--color" { // the summary: a line per frame before the bad one
				if n, _ := strconv.Atoi(m[1]); strings.Count(got, "\n") != n-1 || n < 10 {
					t.Errorf("%s: %d summary lines before bad frame %d", c.name, strings.Count(got, "\n"), n)
				}
			}
		}
	}
}
