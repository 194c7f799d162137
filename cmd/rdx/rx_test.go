package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rxServe starts `rdx rx serve` on a free loopback port, as a process of
// its own; the returned func stops it (SIGTERM), waits for it to end and
// returns its standard error. It is stopped when the test is done with it,
// not after a fixed time: with --duration 4s, on a loaded machine, the
// calls could outlast the server.
func rxServe(t *testing.T, extra ...string) (string, func() string) {
	t.Helper()
	port := strconv.Itoa(freeUDPPort(t))
	p := startProc(t, rdxBin(t), append([]string{"rx", "serve", "--port", port, "--bind", "127.0.0.1",
		"--version-string", "rdx-test"}, extra...)...)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(p.stderrString(), "listening on"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("rx serve: not listening after 20 s: %s", p.stderrString())
		}
	}
	return "127.0.0.1:" + port, func() string {
		if _, code := p.term(t, syscall.SIGTERM); code != 0 {
			t.Errorf("serve exit %d: %s", code, p.stderrString())
		}
		return p.stderrString()
	}
}

func rxRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	io, _, out, errb := iostreams.Test()
	code := run(io, append([]string{"rx"}, args...))
	return code, out.String(), errb.String()
}

// rxCheckClean runs rdx check on a recorded exchange: every frame decodes as
// Rx with no error finding.
func rxCheckClean(t *testing.T, pcap string, port string) {
	t.Helper()
	io, _, out, errb := iostreams.Test()
	if code := run(io, []string{"check", "-d", "udp.port==" + port + ",rx", pcap}); code != 0 {
		t.Fatalf("check %s: exit %d\n%s%s", pcap, code, out, errb)
	}
	if !strings.Contains(errb.String(), " 0 errors") {
		t.Fatalf("check %s: %s", pcap, errb)
	}
	io, _, out, _ = iostreams.Test()
	run(io, []string{"read", "-d", "udp.port==" + port + ",rx", pcap})
	if strings.Contains(out.String(), "UDP ") && !strings.Contains(out.String(), " RX ") && !strings.Contains(out.String(), " AFS ") {
		t.Fatalf("%s: frames not decoded as Rx:\n%s", pcap, out)
	}
}

// TestRxCLILoopback: every verb against rdx rx serve, with and without
// impairment; each exchange's recording decodes clean.
func TestRxCLILoopback(t *testing.T) {
	dir := t.TempDir()
	addr, wait := rxServe(t, "-v", "--impair", "drop=4,reorder=9", "--pcap", filepath.Join(dir, "serve.pcap"))
	port := addr[strings.LastIndexByte(addr, ':')+1:]

	code, out, errb := rxRun(t, "version", addr, "--pcap", filepath.Join(dir, "version.pcap"))
	if code != 0 || out != "AFS version: rdx-test\n" {
		t.Fatalf("version: exit %d %q %s", code, out, errb)
	}

	// ubik VOTE XDebug, decoded by the AFS dissector
	code, out, errb = rxRun(t, "call", addr, "vote", "XDebug", "--pcap", filepath.Join(dir, "vote.pcap"))
	if code != 0 || !strings.Contains(out, "Operation: XDebug (10006)") || !strings.Contains(out, "Interface Address: 127.0.0.1") {
		t.Fatalf("vote XDebug: exit %d\n%s%s", code, out, errb)
	}

	// a 60000-octet echo under loss, reordering and duplication on both
	// sides: jumbograms both ways, retransmissions, complete
	code, out, errb = rxRun(t, "call", addr, "4242", "2", strings.Repeat("r", 60000), "-v", "--impair", "drop=2,drop=5,reorder=3,dup=6",
		"--pcap", filepath.Join(dir, "bulk.pcap"))
	if code != 0 || !strings.Contains(out, "RX Protocol") {
		t.Fatalf("bulk call: exit %d\n%s%s", code, out, errb)
	}
	for _, want := range []string{"impair: unit 2", "impair: unit 5", "resend seq"} {
		if !strings.Contains(errb, want) {
			t.Errorf("bulk call stderr lacks %q:\n%s", want, errb)
		}
	}

	// echo, reply shown raw
	code, out, errb = rxRun(t, "call", addr, "4242", "2", strings.Repeat("x", 1000), "--raw", "--pcap", filepath.Join(dir, "echo.pcap"))
	if code != 0 || !strings.Contains(out, "reply: 1008 octets") {
		t.Fatalf("echo: exit %d\n%s%s", code, out, errb)
	}

	// the fault shows in the recording where rdx says it put it: unit 1
	// (serial 1, the request) dropped, so the first request packet on the
	// wire is seq 1 with serial 2
	code, _, errb = rxRun(t, "call", addr, "4242", "2", "--raw", "--impair", "drop=1", "--pcap", filepath.Join(dir, "drop.pcap"))
	if code != 0 || !strings.Contains(errb, "impair: unit 1 (") {
		t.Fatalf("drop=1: exit %d %s", code, errb)
	}
	io, _, fo, _ := iostreams.Test()
	run(io, []string{"read", "-d", "udp.port==" + port + ",rx", "-T", "fields", "-e", "rx.seq", "-e", "rx.serial",
		"-Y", "rx.flags.client_init==1 && rx.type==1", filepath.Join(dir, "drop.pcap")})
	if first, _, _ := strings.Cut(fo.String(), "\n"); first != "1\t2" {
		t.Fatalf("first request packet on the wire: seq/serial %q, want 1/2:\n%s", first, fo)
	}

	// an ABORT exits 1 and names the code
	code, _, errb = rxRun(t, "call", addr, "4242", "1")
	if code != 1 || !strings.Contains(errb, "ABORT code 1") {
		t.Fatalf("abort: exit %d %s", code, errb)
	}

	code, out, errb = rxRun(t, "ping", addr, "-c", "2", "-i", "10ms", "--pcap", filepath.Join(dir, "ping.pcap"))
	if code != 0 || strings.Count(out, "PING_RESPONSE from "+addr) != 2 {
		t.Fatalf("ping: exit %d\n%s%s", code, out, errb)
	}

	code, out, errb = rxRun(t, "debug", addr, "-allconnections", "-peers", "-rxstats", "--pcap", filepath.Join(dir, "debug.pcap"))
	if code != 0 || !strings.Contains(out, "Debug version 'S'") || !strings.Contains(out, "Connection from host 127.0.0.1") ||
		!strings.Contains(out, "Peer at host 127.0.0.1") || !regexp.MustCompile(`packetsRead\[version\] +1`).MatchString(out) {
		t.Fatalf("debug: exit %d\n%s%s", code, out, errb)
	}

	serr := wait()
	if !strings.Contains(serr, "impair: unit 4") {
		t.Errorf("serve did not impair its 4th datagram:\n%s", serr)
	}
	for _, f := range []string{"serve", "version", "vote", "bulk", "echo", "drop", "ping", "debug"} {
		rxCheckClean(t, filepath.Join(dir, f+".pcap"), port)
	}
	// the bulk exchange has jumbograms both ways and the retransmissions
	io, _, out2, _ := iostreams.Test()
	run(io, []string{"read", "-d", "udp.port==" + port + ",rx", filepath.Join(dir, "bulk.pcap")})
	s := out2.String()
	if !strings.Contains(s, "jumbogram") || !strings.Contains(s, "REQ-ACK") {
		t.Fatalf("bulk.pcap: no jumbogram or REQUEST_ACK:\n%s", s)
	}
}

func TestRxCLIErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--port", "70000"},
		{"version", "127.0.0.1:0"},
		{"version", "127.0.0.1:7000", "--impair", "explode=1"},
		{"call", "127.0.0.1", "nosuch", "1"},
		{"call", "127.0.0.1", "vl", "NoSuchOp"},
		{"call", "127.0.0.1", "pr", "IDToName", "notanumber"},
		{"call", "127.0.0.1", "fs", "FetchStatus", "1.2"},
		{"debug"},
		{"debug", "127.0.0.1", "--bogus"},
		{"ping", "127.0.0.1", "-c", "0"},
	} {
		if code, _, errb := rxRun(t, args...); code != 2 {
			t.Errorf("rdx rx %v: exit %d, want 2 (%s)", args, code, errb)
		}
	}
	// nothing listens: a clear error, not a hang
	port := strconv.Itoa(freeUDPPort(t))
	code, _, errb := rxRun(t, "call", "127.0.0.1:"+port, "4242", "2", "--timeout", "500ms", "--raw")
	if code == 0 || !strings.Contains(errb, "deadline") {
		t.Fatalf("dead server: exit %d %s", code, errb)
	}
}

func TestRxdebugArgs(t *testing.T) {
	got := rxdebugArgs([]string{"h", "-peers", "-allconnections", "-x", "--stats", "-c"})
	want := []string{"h", "--peers", "--allconnections", "-x", "--stats", "-c"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%v", got)
	}
}
