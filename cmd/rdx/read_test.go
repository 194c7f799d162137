package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	notCap := filepath.Join(dir, "notes.txt")
	os.WriteFile(notCap, []byte("this is not a capture file at all"), 0o644)
	good, _ := os.ReadFile("../../pcaps/rx/pts-ops.pcap")
	trunc := filepath.Join(dir, "trunc.pcap")
	os.WriteFile(trunc, good[:len(good)-10], 0o644)
	cases := []struct {
		args     []string
		code     int
		errHas   string
		outLines int // summary lines printed before the error
	}{
		{[]string{"read", notCap}, 2, "notes.txt: not a pcap or pcapng file", 0},
		{[]string{"read", filepath.Join(dir, "missing.pcap")}, 2, "missing.pcap", 0},
		{[]string{"read", trunc}, 2, "trunc.pcap: frame 112", 111},
		{[]string{"read"}, 2, "no capture file", 0},
		{[]string{"read", "-T", "fields", trunc}, 2, "needs at least one -e", 0},
		{[]string{"read", "-T", "fields", "-e", "rx.nosuch", trunc}, 2, "rx.nosuch", 0},
		{[]string{"read", "-d", "udp.port==7000,nosuchproto", trunc}, 2, "unknown protocol", 0},
		{[]string{"read", "-T", "yaml", trunc}, 2, "-T yaml", 0},
		{[]string{"read", "--nosuchflag", trunc}, 2, "unknown flag", 0},
		{[]string{"read", "--max-mem", "12X", trunc}, 2, `--max-mem: bad size "12X"`, 0},
		{[]string{"check", "--max-mem", "-1", trunc}, 2, "--max-mem", 0},
	}
	for _, c := range cases {
		io, _, out, errOut := iostreams.Test()
		code := run(io, c.args)
		if code != c.code || !strings.Contains(errOut.String(), c.errHas) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.errHas)
		}
		if n := strings.Count(out.String(), "\n"); n != c.outLines {
			t.Errorf("%v: %d lines printed before the error, want %d", c.args, n, c.outLines)
		}
	}
}

func TestReadStdinAndCount(t *testing.T) {
	data, err := os.ReadFile("../../pcaps/rx/udebug.pcap")
	if err != nil {
		t.Fatal(err)
	}
	io, in, out, errOut := iostreams.Test()
	in.Write(data)
	if code := run(io, []string{"read", "-r", "-", "-c", "3"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("-c 3 printed %d lines", n)
	}
	if !strings.Contains(errOut.String(), "rdx: 3 frames; findings:") {
		t.Errorf("closing line missing: %q", errOut)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("escape codes in non-TTY output")
	}
}

func TestFieldsOptionsAndColor(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	code := run(io, []string{"read", "-T", "fields", "-e", "frame.number", "-e", "rx.flags", "-E", "separator=,",
		"-E", "header=y", "-E", "quote=d", "-c", "2", "../../pcaps/rx/bos-queries.pcap"})
	if code != 0 {
		t.Fatal(code)
	}
	want := "frame.number,rx.flags\n\"1\",\"0x05\"\n\"2\",\"0x04\"\n"
	if out.String() != want {
		t.Errorf("got %q want %q", out.String(), want)
	}
	io, _, out, _ = iostreams.Test()
	run(io, []string{"read", "--color", "always", "-c", "20", "../../pcaps/rx/probe-busy-crafted.pcap"})
	if !strings.Contains(out.String(), "\x1b[") {
		t.Error("--color always printed no escape codes")
	}
	t.Setenv("NO_COLOR", "1")
	io, _, out, _ = iostreams.Test()
	io.SetTTY(true, true)
	run(io, []string{"read", "-c", "20", "../../pcaps/rx/probe-busy-crafted.pcap"})
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("NO_COLOR on a terminal still coloured")
	}
}

func TestFieldsVerb(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	if code := run(io, []string{"fields"}); code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"P\tRX Protocol\trx", "F\tSequence Number\trx.seq\tFT_UINT32\trx\t", "F\tFlags\trx.flags\tFT_UINT8\trx\tBASE_HEX"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("rdx fields lacks %q", want)
		}
	}
}

func TestDisplayFilter(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	code := run(io, []string{"read", "-Y", "rx.type == abort && rx.abort_code < 0", "-T", "fields", "-e", "frame.number",
		"-e", "rx.abort_code", "../../pcaps/rx/probe-busy-crafted.pcap"})
	if code != 0 {
		t.Fatal(code)
	}
	if want := "6\t-455\n8\t-453\n10\t-2\n12\t-2\n"; out.String() != want {
		t.Errorf("got %q want %q", out.String(), want)
	}
	io, _, _, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-Y", "rx.seq ==", "../../pcaps/rx/probe-busy-crafted.pcap"}); code != 2 ||
		!strings.Contains(errOut.String(), "expected a value") {
		t.Errorf("bad filter: exit %d, %q", code, errOut)
	}
}

// -z rdp,conv prints the per-connection summary after the frames; the
// lossy reference capture has 22 retransmissions by the sender.
func TestStatisticsRDP(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-q", "-z", "rdp,conv", "../../pcaps/rdp/lossy.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := out.String()
	if !strings.Contains(s, "RDP connections") || !strings.Contains(s, "| 198.51.100.2:4001 → 198.51.100.1:4000 | CLOSE-WAIT |      125 | 124928 |          22 |") {
		t.Errorf("table:\n%s", s)
	}
	io, _, _, errOut = iostreams.Test()
	if code := run(io, []string{"read", "-z", "nope", "../../pcaps/rdp/lossy.pcap"}); code != 2 || !strings.Contains(errOut.String(), "known: ") {
		t.Errorf("unknown -z: exit %d %q", code, errOut)
	}
}

// -z rx,srt: response times per call type, aborts counted; the probe
// capture's opcode 9999 ends in an abort (RXGEN_OPCODE).
func TestStatisticsRxSRT(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-q", "-z", "rx,srt", "../../pcaps/rx/pts-ops.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "| PR NameToID     |         73 |        7002 |    13 |      0 |") {
		t.Errorf("table:\n%s", out)
	}
	io, _, out, _ = iostreams.Test()
	run(io, []string{"read", "-q", "-z", "rx,srt", "../../pcaps/rx/probe-busy-crafted.pcap"})
	if !strings.Contains(out.String(), "| VL opcode 9999     |         52 |        7003 |     1 |      1 |") {
		t.Errorf("table:\n%s", out)
	}
}

// -z rpc,srt counts each NFS reply once whether rdx reads the file once
// (-q) or twice (a tree mode).
func TestStatisticsRPCSRT(t *testing.T) {
	const row = "| NFS     |       3 | WRITE       |    24 |"
	for _, args := range [][]string{{"-q"}, {"-T", "fields", "-e", "frame.number"}} {
		io, _, out, errOut := iostreams.Test()
		a := append(append([]string{"read"}, args...), "-z", "rpc,srt", "../../pcaps/kernel/nfs3_rdma_roce.pcap")
		if code := run(io, a); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out.String(), row) {
			t.Errorf("%v: no %q in\n%s", args, row, out.String()[max(0, out.Len()-3000):])
		}
	}
}

// -w writes the frames that pass -Y to pcapng; reading that file back
// gives exactly those frames. Without -P nothing is printed.
func TestWriteFiltered(t *testing.T) {
	out := filepath.Join(t.TempDir(), "aborts.pcapng")
	io, _, stdout, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-Y", "rx.type == abort", "-w", out, "../../pcaps/rx/probe-busy-crafted.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if stdout.Len() != 0 {
		t.Errorf("printed without -P: %q", stdout)
	}
	io, _, stdout, errOut = iostreams.Test()
	if code := run(io, []string{"read", "-T", "fields", "-e", "rx.abort_code", out}); code != 0 {
		t.Fatalf("reading back: exit %d: %s", code, errOut)
	}
	if want := "-455\n-453\n-2\n-2\n"; stdout.String() != want {
		t.Errorf("written frames decode as %q, want %q", stdout, want)
	}
	io, _, stdout, _ = iostreams.Test()
	run(io, []string{"read", "-P", "-c", "3", "-w", filepath.Join(t.TempDir(), "x.pcapng"), "../../pcaps/rx/probe-busy-crafted.pcap"})
	if strings.Count(stdout.String(), "\n") != 3 {
		t.Errorf("-P printed %q", stdout)
	}
}
