package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// TestRdsLoopback: rdx rds send to rdx rds listen over 127.0.0.1 with the
// real binary (no root needed): messages of every size up to 1 MiB arrive
// byte for byte, each one's sha256 the same on both sides.
func TestRdsLoopback(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rdx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	r := rdsRun{t: t, dir: dir, listen: []string{bin}, send: []string{bin}, addr: "127.0.0.1", port: 20000 + os.Getpid()%20000}
	r.exchange("loopback", rdsSizes, nil, nil)
}

// rdsSizes: every framing boundary (header, RDS_FRAG_SIZE, 1 MiB).
const rdsSizes = "0,1,47,48,49,1400,4095,4096,4097,5000,60000,100000,1048575,1048576,3"

type rdsRun struct {
	t            *testing.T
	dir          string
	listen, send []string // command prefix (the binary, maybe inside ip netns exec)
	addr         string
	port         int
}

// exchange sends one message per size and checks what the listener wrote
// and its per-message sums; it returns both sides' stderr.
func (r rdsRun) exchange(name, sizes string, sendArgs, listenArgs []string) (sendErr, listenErr string) {
	t := r.t
	t.Helper()
	total := 0
	for _, s := range strings.Split(sizes, ",") {
		n, _ := strconv.Atoi(s)
		total += n
	}
	data := make([]byte, total)
	rng := rand.New(rand.NewPCG(uint64(total), 17))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	in, out := filepath.Join(r.dir, name+".in"), filepath.Join(r.dir, name+".out")
	ssums, lsums := filepath.Join(r.dir, name+".send.sums"), filepath.Join(r.dir, name+".listen.sums")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(r.port)
	lc := exec.Command(r.listen[0], append(append(slices.Clone(r.listen[1:]), "rds", "listen", "--addr", r.addr, "--port", port,
		"-o", out, "--sums", lsums, "--stats", "--timeout", "30s"), listenArgs...)...)
	var serr bytes.Buffer
	var lerr syncBuf // read below while rdx writes to it
	lc.Stderr = &lerr
	if err := lc.Start(); err != nil {
		t.Fatal(err)
	}
	defer lc.Process.Kill()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(lerr.String(), "listening on"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: listen: no 'listening on' after 20 s: %s", name, lerr.String())
		}
	}
	sc := exec.Command(r.send[0], append(append(append(slices.Clone(r.send[1:]), "rds", "send", r.addr, "--port", port,
		"--sizes", sizes, "--sums", ssums, "--stats", "--timeout", "30s"), sendArgs...), in)...)
	sc.Stderr = &serr
	start := time.Now()
	if err := sc.Run(); err != nil {
		t.Fatalf("%s: send: %v\n%s\nlisten:\n%s", name, err, serr.String(), lerr.String())
	}
	done := make(chan error, 1)
	go func() { done <- lc.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: listen: %v\n%s", name, err, lerr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: listen did not exit after the sender closed:\n%s", name, lerr.String())
	}
	t.Logf("%s: %d octets in %v\nsend: %slisten: %s", name, total, time.Since(start).Round(time.Millisecond), lastLine(serr.String(), "rds stats"), lastLine(lerr.String(), "rds stats"))
	if listenArgs == nil && sendArgs == nil || strings.Contains(strings.Join(sendArgs, " "), "test-cut") {
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: %d of %d octets arrived intact (first difference at %d)", name, len(got), len(data), byteDiff(got, data))
		}
		a, b := sumCols(t, ssums), sumCols(t, lsums)
		if a != b || strings.Count(a, "\n") != strings.Count(sizes, ",")+1 {
			t.Fatalf("%s: per-message sums differ:\nsent:\n%s\nreceived:\n%s", name, a, b)
		}
	}
	return serr.String(), lerr.String()
}

func lastLine(s, prefix string) string {
	if i := strings.LastIndex(s, prefix); i >= 0 {
		s = s[i:]
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			return s[:j+1]
		}
	}
	return "(none)\n"
}

func byteDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// sumCols keeps the sha256 and length columns of a --sums file.
func sumCols(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			sb.WriteString(f[0] + " " + f[1] + "\n")
		}
	}
	return sb.String()
}

var statField = regexp.MustCompile(`(\w+)=(\d+)`)

func rdsStats(t *testing.T, stderr string) map[string]int {
	m := map[string]int{}
	for _, kv := range statField.FindAllStringSubmatch(lastLine(stderr, "rds stats"), -1) {
		m[kv[1]], _ = strconv.Atoi(kv[2])
	}
	if len(m) == 0 {
		t.Fatalf("no rds stats line in %q", stderr)
	}
	return m
}

// TestRdsNetns runs the stack between two namespaces joined by a veth pair
// (198.51.100.1 and .2, RFC 5737), captures the listener's side with rdx
// capture, and checks the capture with rdx check: clean (8 paths, every
// size to 1 MiB), across a reconnect (the sender's path cut mid-message:
// unacknowledged messages resent with RDS_FLAG_RETRANSMITTED, delivered
// once), and with one message dropped by --impair (the capture shows the
// sequence gap where the shim put it). Needs root and iproute2.
func TestRdsNetns(t *testing.T) {
	l := newNetLab(t)
	for _, ns := range []string{l.nsA, l.nsB} {
		l.must(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	dir := t.TempDir()
	r := rdsRun{t: t, dir: dir, listen: []string{"ip", "netns", "exec", l.nsA, l.bin}, send: []string{"ip", "netns", "exec", l.nsB, l.bin},
		addr: "198.51.100.1", port: 16385}
	for _, c := range []struct {
		name     string
		sizes    string
		send     []string
		findings []string // expected in rdx check's output; none: must be clean
	}{
		{name: "clean", sizes: rdsSizes},
		{name: "reconnect", sizes: "100000,100000,100000,100000,100000,1048576,5000,5000", send: []string{"--paths", "1", "--test-cut", "250000"},
			// the cut message, half written before the connection closed
			findings: []string{"truncated RDS message"}},
		{name: "drop", sizes: "1000,1000,1000,1000,1000", send: []string{"--paths", "1", "--impair", "drop=3"},
			findings: []string{"missing RDS sequence number 4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			pcap := filepath.Join(dir, c.name+".pcapng")
			capCmd, _, capErr := l.start(t, l.nsA, "capturing on", "capture", "-i", l.ifA, "-w", pcap, "-f", "tcp port 16385")
			serr, lerr := r.exchange(c.name, c.sizes, c.send, nil)
			time.Sleep(300 * time.Millisecond) // the last FIN/ACKs
			capCmd.Process.Signal(syscall.SIGINT)
			waitExit(t, capCmd, 10*time.Second)
			ss, ls := rdsStats(t, serr), rdsStats(t, lerr)
			_, err := exec.Command(l.bin, "check", pcap).CombinedOutput()
			expert, _ := exec.Command(l.bin, "read", "-q", "-z", "expert", pcap).CombinedOutput()
			t.Logf("rdx check %s: %v; findings:\n%s", c.name, err, lastLines(string(expert), 12))
			switch c.name {
			case "clean":
				if err != nil {
					t.Fatalf("capture of a clean exchange does not check clean: %v\n%s\ncapture: %s", err, expert, capErr.String())
				}
				if ss["pongs"] != 1 || ls["pings"] != 1 || ls["cong_rcvd"] != 8 || ss["cong_rcvd"] != 8 {
					t.Errorf("handshake or paths: sender %v listener %v", ss, ls)
				}
			case "reconnect":
				if ss["reconnects"] != 1 || ss["retransmits"] == 0 {
					t.Errorf("sender: %v, want one reconnect and retransmissions", ss)
				}
				// each resent message carries RDS_FLAG_RETRANSMITTED on the wire
				rt, _ := exec.Command(l.bin, "read", "-Y", "rds.flags.retransmitted == 1", pcap).Output()
				if n := strings.Count(string(rt), "\n"); n != ss["retransmits"] {
					t.Errorf("capture has %d retransmitted messages, the sender says %d:\n%s", n, ss["retransmits"], rt)
				}
			case "drop":
				if ls["gaps"] != 1 || ls["msgs_rcvd"] != 4 || !strings.Contains(serr, "impair: unit 3") {
					t.Errorf("drop=3: listener %v, sender log:\n%s", ls, serr)
				}
			}
			if c.findings != nil && err == nil {
				t.Errorf("rdx check of %s passed; the capture should show the fault", c.name)
			}
			for _, f := range c.findings {
				if !strings.Contains(string(expert), f) {
					t.Errorf("rdx's findings for %s lack %q:\n%s", c.name, f, expert)
				}
			}
		})
	}
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = append([]string{fmt.Sprintf("(%d lines before)", len(ls)-n)}, ls[len(ls)-n:]...)
	}
	return strings.Join(ls, "\n")
}

// TestRdsFlags: the verbs' flags reach RdsOptions, and bad values are usage
// errors (exit 2) before anything is sent.
func TestRdsFlags(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var so *RdsOptions
	if c := execCmd(newCmdRds(io, nil, hook(&so)), []string{"send", "192.0.2.1", "--sizes", "0,1,1048576", "--sport", "7", "--impair", "drop=3", "f"}); c != 0 || so == nil {
		t.Fatalf("send: exit %d", c)
	}
	if so.Host != "192.0.2.1" || so.File != "f" || !slices.Equal(so.sizes, []int{0, 1, 1048576}) || so.Sport != 7 || so.Port != 16385 || !so.spec.Active() {
		t.Errorf("send parsed as %+v", so)
	}
	var lo *RdsOptions
	if c := execCmd(newCmdRds(io, hook(&lo), nil), []string{"listen", "--count", "3", "-o", "x"}); c != 0 || lo == nil || lo.Count != 3 || lo.Output != "x" {
		t.Fatalf("listen: exit %d, %+v", c, lo)
	}
	for _, args := range [][]string{
		{"send", "h", "--sizes", "1,x"}, {"send", "h", "--sizes", "1048577"}, {"send", "h", "--size", "0"},
		{"send", "h", "--sport", "0"}, {"send", "h", "--paths", "9"}, {"listen", "--port", "0"}, {"listen", "--impair", "drop"},
	} {
		if c := execCmd(newCmdRds(io, hook(&lo), hook(&so)), args); c != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, c, exitUsage)
		}
	}
}
