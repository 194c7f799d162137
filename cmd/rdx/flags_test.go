package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// writes records each Write separately.
type writes struct{ got []string }

func (w *writes) Write(p []byte) (int, error) { w.got = append(w.got, string(p)); return len(p), nil }

// -l writes each frame out as it is printed (one frame per write, -j
// notwithstanding); without it the frames reach the terminal in one write.
func TestLineFlush(t *testing.T) {
	for _, lflag := range []bool{true, false} {
		io, _, _, errOut := iostreams.Test()
		w := &writes{}
		io.Out = w
		args := []string{"read", "-j", "2", "-c", "5", "../../pcaps/rx/bos-queries.pcap"}
		if lflag {
			args = append(args, "-l")
		}
		if code := run(io, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if lflag {
			if len(w.got) != 5 {
				t.Fatalf("-l: %d writes, want one per frame (5): %q", len(w.got), w.got)
			}
			for _, s := range w.got {
				if strings.Count(s, "\n") != 1 {
					t.Fatalf("-l: a write of %q, want one summary line", s)
				}
			}
		} else if len(w.got) != 1 {
			t.Fatalf("without -l: %d writes, want 1", len(w.got))
		}
	}
}

// -n and -N are accepted as tshark's (rdx resolves no names); -N checks its
// letters; -v and --version print the version.
func TestResolveAndVersionFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"read", "-n", "-c", "1", "../../pcaps/rx/bos-queries.pcap"}, 0, "127.0.0.1:44744"},
		{[]string{"read", "-N", "mnNtdv", "-c", "1", "../../pcaps/rx/bos-queries.pcap"}, 0, "127.0.0.1:44744"},
		{[]string{"read", "-N", "x", "-c", "1", "../../pcaps/rx/bos-queries.pcap"}, 2, ""},
		{[]string{"-v"}, 0, "rdx "},
		{[]string{"--version"}, 0, "rdx "},
	} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, tc.args); code != tc.code {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.code, errOut)
		}
		if !strings.Contains(out.String(), tc.out) {
			t.Errorf("%v: output %q lacks %q", tc.args, out, tc.out)
		}
	}
}

// The exit statuses are said in rdx --help, and a bad field is the same
// usage error (2) as a bad flag.
func TestExitStatusHelp(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	if code := run(io, []string{"--help"}); code != 0 {
		t.Fatalf("rdx --help: exit %d", code)
	}
	for _, want := range []string{"Exit status", "1  check found", "2  a usage error", "128+N"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("rdx --help lacks %q:\n%s", want, out)
		}
	}
	io, _, _, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-T", "fields", "-e", "no.such.field", "../../pcaps/rx/bos-queries.pcap"}); code != exitUsage || !strings.Contains(errOut.String(), "no.such.field") {
		t.Errorf("bad -e field: exit %d, %q; want %d naming the field", code, errOut, exitUsage)
	}
}

// Flags rdx used to ignore are refused with exit 2 and a message naming
// them; their good values still work.
func TestRejectIgnoredFlags(t *testing.T) {
	bos := "../../pcaps/rx/bos-queries.pcap"
	for _, tc := range []struct {
		args []string
		msg  string // "" for a run that must succeed
	}{
		{[]string{"-f", "udp", bos}, "-f \"udp\": a capture filter is for -i"},
		{[]string{"-c", "0", bos}, "-c 0: the packet count is zero"},
		{[]string{"-c", "-1", bos}, "-c -1: the packet count is negative"},
		{[]string{"-V", "-T", "fields", "-e", "frame.number", bos}, "-V prints the protocol tree and -T fields"},
		{[]string{"--color", "blue", bos}, "--color blue: want auto, always or never"},
		{[]string{"-T", "fields", "-e", "ip.addr", "-E", "header=maybe", bos}, "-E header=maybe: want y or n"},
		{[]string{"-T", "fields", "-e", "ip.addr", "-E", "occurrence=2", bos}, "-E occurrence=2: want f (first), l (last) or a (all)"},
		{[]string{"-T", "fields", "-e", "ip.addr", "-E", "quote=x", bos}, "-E quote=x: want d, s or n"},
		{[]string{"-o", "nosuch.pref=1", bos}, "-o nosuch.pref=1: unknown preference \"nosuch.pref\""},
		{[]string{"-o", "mpa.crc=2", bos}, "-o mpa.crc=2: mpa.crc takes 1, 0, true, false, on, off, not \"2\""},
		{[]string{"-t", "x", bos}, "-t x: want a, ad, adoy, d, dd, e, r, u, ud or udoy"},
		{[]string{"-u", "m", bos}, "-u m: want s or hms"},
		{[]string{"-O", "rx,nosuch", bos}, "-O nosuch: not a protocol"},
		{[]string{"-s", "100", bos}, "-s 100: the snapshot length is for -i"},
		{[]string{"-F", "pcap", bos}, "-F pcap: says the format of a -w file, and there is no -w"},
		{[]string{"-F", "erf", "-w", "/dev/null", bos}, "-F erf: want pcapng, pcap or nsecpcap"},
		{[]string{"-c", "1", "--color", "never", "-o", "mpa.crc=on", bos}, ""},
		{[]string{"-c", "1", "-T", "fields", "-e", "ip.addr", "-E", "header=n", "-E", "occurrence=l", bos}, ""},
	} {
		io, _, _, errOut := iostreams.Test()
		code := run(io, append([]string{"read"}, tc.args...))
		switch {
		case tc.msg == "" && code != 0:
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		case tc.msg != "" && (code != 2 || !strings.Contains(errOut.String(), tc.msg)):
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.args, code, errOut, tc.msg)
		}
	}
}

// rdx read -o help lists every registered preference with its values.
func TestPrefHelp(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-o", "help"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range []string{"mpa.crc\t1|0|true|false|on|off\t", "mpa.markers\t"} {
		if !strings.Contains(out.String(), p) {
			t.Errorf("-o help lacks %q:\n%s", p, out)
		}
	}
}

// -F pcap and nsecpcap write a pcap file (microsecond or nanosecond magic)
// that reads back as the input: the same summary lines with -t e, so the
// timestamps are kept to the format's precision.
func TestWriteFormatPcap(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		in, format string
		magic      []byte
	}{
		{"../../pcaps/rx/bos-queries.pcap", "pcap", []byte{0xd4, 0xc3, 0xb2, 0xa1}},
		{"../../pcaps/rdp/clean.pcap", "nsecpcap", []byte{0x4d, 0x3c, 0xb2, 0xa1}},
	} {
		out := filepath.Join(dir, tc.format+".pcap")
		summary := func(file string) string {
			io, _, o, errOut := iostreams.Test()
			if code := run(io, []string{"read", "-t", "e", "--color", "never", file}); code != 0 {
				t.Fatalf("%s: exit %d: %s", file, code, errOut)
			}
			return o.String()
		}
		io, _, _, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", "-F", tc.format, "-w", out, tc.in}); code != 0 {
			t.Fatalf("-F %s: exit %d: %s", tc.format, code, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil || len(b) < 24 || !bytes.Equal(b[:4], tc.magic) {
			t.Fatalf("-F %s: file starts % x (%v), want magic % x", tc.format, b[:min(len(b), 4)], err, tc.magic)
		}
		if got, want := summary(out), summary(tc.in); got != want {
			t.Errorf("-F %s: the written file reads differently\n%s", tc.format, firstDiff(got, want))
		}
	}
}

// -D lists the interfaces as tshark does ("N. name", loopback marked).
func TestListInterfaces(t *testing.T) {
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) == 0 {
		t.Skipf("no interfaces to list: %v", err)
	}
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-D"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(ifs) {
		t.Fatalf("%d lines for %d interfaces:\n%s", len(lines), len(ifs), out)
	}
	for i, ifc := range ifs {
		want := strconv.Itoa(i+1) + ". " + ifc.Name
		if ifc.Flags&net.FlagLoopback != 0 {
			want += " (Loopback)"
		}
		if lines[i] != want {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], want)
		}
	}
}

// -s on read -i keeps that many octets of each packet: a 300-octet UDP
// datagram on loopback is captured as 60 of its 342 octets.
func TestReadLiveSnaplen(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: capturing on lo needs root")
	}
	io, _, out, errOut := iostreams.Test()
	done := make(chan int, 1)
	go func() {
		done <- run(io, []string{"read", "-i", "lo", "-s", "60", "-c", "1", "-f", "udp port 47999",
			"-T", "fields", "-e", "frame.cap_len", "-e", "frame.len"})
	}()
	conn, err := net.Dial("udp", "127.0.0.1:47999")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	payload := make([]byte, 300)
	timeout := time.After(20 * time.Second)
	for {
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got := out.String(); got != "60\t342\n" {
				t.Fatalf("cap_len and len %q, want 60 of 342 (14+20+8+300)", got)
			}
			return
		case <-timeout:
			t.Fatal("no packet captured in 20 s")
		case <-time.After(50 * time.Millisecond):
			conn.Write(payload)
		}
	}
}

// -F pcap holds one link type: a frame of another is an error naming it
// and -F pcapng, and the run exits 2 leaving no file behind.
func TestWriteFormatPcapOneLinkType(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "mixed.pcapng")
	var b bytes.Buffer
	w, err := capture.NewPcapngWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	eth, _ := w.AddInterface(capture.LinkEthernet, 65535, "")
	raw, _ := w.AddInterface(capture.LinkRaw, 65535, "")
	frames := testpkt.ReadAll(t, "../../pcaps/rx/bos-queries.pcap")[:2]
	for i, f := range frames {
		f.Iface, f.LinkType = eth, capture.LinkEthernet
		if i == 1 { // the same IPv4 packet without its Ethernet header
			f.Iface, f.LinkType, f.Data, f.CapLen, f.WireLen = raw, capture.LinkRaw, f.Data[14:], f.CapLen-14, f.WireLen-14
		}
		if err := w.WritePacket(&f); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.pcap")
	io, _, _, errOut := iostreams.Test()
	code := run(io, []string{"read", "-q", "-F", "pcap", "-w", out, in})
	if code != 2 || !strings.Contains(errOut.String(), "frame 2 has link type 101, but a pcap file holds one link type (1, the first frame's): use -F pcapng") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed -F pcap run left its file")
	}
	io, _, _, errOut = iostreams.Test()
	if code := run(io, []string{"read", "-q", "-F", "pcapng", "-w", out, in}); code != 0 {
		t.Fatalf("-F pcapng: exit %d: %s", code, errOut)
	}
}
