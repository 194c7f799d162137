package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rdx-project/rdx/active/replay"
	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// netLab is a veth pair between two namespaces this test creates (and
// always removes): A (198.51.100.1) sends, B (198.51.100.2) captures. No
// traffic leaves them.
type netLab struct {
	nsA, nsB, ifA, ifB string
	macA, macB         string
	bin                string
}

func newNetLab(t *testing.T) *netLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIP: live capture/replay tests need root (network namespaces, AF_PACKET)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("SKIP: iproute2 (ip) not installed")
	}
	id := os.Getpid() % 100000
	l := &netLab{
		nsA: fmt.Sprintf("rdxtA%d", id), nsB: fmt.Sprintf("rdxtB%d", id),
		ifA: fmt.Sprintf("rdxa%d", id), ifB: fmt.Sprintf("rdxb%d", id),
	}
	if out, err := exec.Command("ip", "netns", "add", l.nsA).CombinedOutput(); err != nil {
		t.Skipf("SKIP: ip netns add failed (%v: %s); no namespace to test in", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", l.nsA).Run() })
	l.must(t, "ip", "netns", "add", l.nsB)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", l.nsB).Run() })
	l.must(t, "ip", "link", "add", l.ifA, "type", "veth", "peer", "name", l.ifB)
	// Normally gone with the namespaces; this covers a failure before the move.
	t.Cleanup(func() { exec.Command("ip", "link", "del", l.ifA).Run() })
	l.must(t, "ip", "link", "set", l.ifA, "netns", l.nsA)
	l.must(t, "ip", "link", "set", l.ifB, "netns", l.nsB)
	for _, x := range [][2]string{{l.nsA, l.ifA}, {l.nsB, l.ifB}} {
		// No IPv6: router solicitations and MLD reports would land in the
		// capture.
		l.must(t, "ip", "netns", "exec", x[0], "sh", "-c",
			"for k in all default "+x[1]+"; do echo 1 > /proc/sys/net/ipv6/conf/$k/disable_ipv6; done")
	}
	l.must(t, "ip", "-n", l.nsA, "addr", "add", "198.51.100.1/24", "dev", l.ifA)
	l.must(t, "ip", "-n", l.nsB, "addr", "add", "198.51.100.2/24", "dev", l.ifB)
	l.must(t, "ip", "-n", l.nsA, "link", "set", l.ifA, "up")
	l.must(t, "ip", "-n", l.nsB, "link", "set", l.ifB, "up")
	l.macA = strings.TrimSpace(l.must(t, "ip", "netns", "exec", l.nsA, "cat", "/sys/class/net/"+l.ifA+"/address"))
	l.macB = strings.TrimSpace(l.must(t, "ip", "netns", "exec", l.nsB, "cat", "/sys/class/net/"+l.ifB+"/address"))

	// Static neighbours: no ARP exchange between the replayed frames.
	l.must(t, "ip", "-n", l.nsA, "neigh", "add", "198.51.100.2", "lladdr", l.macB, "dev", l.ifA, "nud", "permanent")
	l.must(t, "ip", "-n", l.nsB, "neigh", "add", "198.51.100.1", "lladdr", l.macA, "dev", l.ifB, "nud", "permanent")

	// Built once per test process, not per lab: on a loaded machine each
	// build took up to a minute, a dozen of them near go test's timeout.
	l.bin = rdxBin(t)
	return l
}

func (l *netLab) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start runs rdx in namespace ns and waits until its stderr has a line
// containing ready.
func (l *netLab) start(t *testing.T, ns, ready string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, l.bin}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	got := make(chan bool, 1)
	exited := make(chan struct{})
	procExited.Store(cmd, exited)
	go func() {
		sc := bufio.NewScanner(pr)
		seen := false
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if !seen && strings.Contains(sc.Text(), ready) {
				seen = true
				got <- true
			}
		}
		if !seen {
			got <- false
		}
		close(exited)
	}()
	go func() { cmd.Wait(); pw.Close() }()
	select {
	case ok := <-got:
		if !ok {
			t.Fatalf("rdx %v exited before %q:\n%s", args, ready, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("rdx %v: no %q after 20 s", args, ready)
	}
	return cmd, &stdout, &stderr
}

// procExited maps a command from start to a channel closed once it has
// exited and its stderr is all read (ProcessState is set before that).
var procExited sync.Map

// waitExit waits for cmd (started by start) to end.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) {
	t.Helper()
	ch, _ := procExited.Load(cmd)
	select {
	case <-ch.(chan struct{}):
	case <-time.After(d):
		t.Fatalf("%v did not exit within %v", cmd.Args, d)
	}
}

const ptsOps = "../../pcaps/rx/pts-ops.pcap"

// expected is pts-ops.pcap as replay sends it with rws, kept if keep says so.
func expected(t *testing.T, rws []string, keep func([]byte) bool) [][]byte {
	t.Helper()
	var rs []replay.Rewrite
	for _, s := range rws {
		r, err := replay.ParseRewrite(s)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	src, err := capture.Open(ptsOps)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out [][]byte
	var p capture.Packet
	for src.Next(&p) == nil {
		b := append([]byte(nil), p.Data...)
		if _, why := replay.Apply(rs, b); why != replay.OK {
			t.Fatalf("rewrite: %v", why)
		}
		if keep == nil || keep(b) {
			out = append(out, b)
		}
	}
	return out
}

func readFrames(t *testing.T, path string) [][]byte {
	t.Helper()
	pkts := testpkt.ReadAll(t, path)
	out := make([][]byte, len(pkts))
	for i := range pkts {
		out[i] = pkts[i].Data
	}
	return out
}

var (
	sentRE     = regexp.MustCompile(`sent (\d+) packets, (\d+) bytes in ([0-9.]+) s \((\d+) packets/s, ([0-9.]+) Mbit/s\)`)
	capturedRE = regexp.MustCompile(`(\d+) packets captured, (\d+) received by filter, (\d+) dropped by kernel`)
)

func atoiMatch(t *testing.T, re *regexp.Regexp, s string) []int {
	t.Helper()
	m := re.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %v in:\n%s", re, s)
	}
	var n []int
	for _, x := range m[1:] {
		v, _ := strconv.ParseFloat(x, 64)
		n = append(n, int(v))
	}
	return n
}

func compareFrames(t *testing.T, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("captured %d frames, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("frame %d differs:\n got %x\nwant %x", i+1, got[i], want[i])
			return
		}
	}
}

func TestReplayCaptureVeth(t *testing.T) {
	l := newNetLab(t)
	rws := []string{"eth.src=" + l.macA, "eth.dst=" + l.macB, "ip.src=198.51.100.1", "ip.dst=198.51.100.2"}
	dir := t.TempDir()

	t.Run("all", func(t *testing.T) {
		want := expected(t, rws, nil)
		out := filepath.Join(dir, "all.pcapng")
		capCmd, _, capErr := l.start(t, l.nsB, "capturing on", "capture", "-i", l.ifB, "-Q", "in", "-s", "9000", "-w", out, "-c", strconv.Itoa(len(want)))
		args := []string{"netns", "exec", l.nsA, l.bin, "replay", ptsOps, "-i", l.ifA, "--topspeed"}
		for _, r := range rws {
			args = append(args, "--rewrite", r)
		}
		rep, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("replay: %v\n%s", err, rep)
		}
		waitExit(t, capCmd, 10*time.Second)
		sent := atoiMatch(t, sentRE, string(rep))
		cnt := atoiMatch(t, capturedRE, capErr.String())
		t.Logf("replay --topspeed: %s", strings.TrimSpace(string(rep)))
		t.Logf("capture: %s", strings.TrimSpace(capErr.String()))
		if sent[0] != len(want) || cnt[0] != sent[0] || cnt[2] != 0 {
			t.Errorf("sent %d, captured %d (received %d, dropped %d), want %d everywhere and 0 drops", sent[0], cnt[0], cnt[1], cnt[2], len(want))
		}
		compareFrames(t, readFrames(t, out), want)
		// -s is the snapshot length the interface block records
		if b, err := os.ReadFile(out); err != nil || len(b) < 32 {
			t.Errorf("%s: %d octets, %v", out, len(b), err)
		} else if shb := binary.LittleEndian.Uint32(b[4:]); int(shb)+16 > len(b) || binary.LittleEndian.Uint32(b[shb+12:]) != 9000 {
			t.Errorf("the interface block does not record -s 9000: % x", b[shb:min(int(shb)+16, len(b))])
		}
	})

	t.Run("filter", func(t *testing.T) {
		// Frames sent by the client keep dst port 7002; the server's
		// replies get src port 7000, so "udp port 7002" keeps only the
		// former.
		frws := append(append([]string(nil), rws...), "udp.srcport=7000")
		want := expected(t, frws, func(b []byte) bool { return binary.BigEndian.Uint16(b[36:]) == 7002 })
		if len(want) == 0 || len(want) == 112 {
			t.Fatalf("bad test: %d of 112 frames match", len(want))
		}
		out := filepath.Join(dir, "filter.pcapng")
		capCmd, _, capErr := l.start(t, l.nsB, "capturing on", "capture", "-i", l.ifB, "-Q", "in", "-w", out, "-f", "udp port 7002")
		args := []string{"netns", "exec", l.nsA, l.bin, "replay", ptsOps, "-i", l.ifA, "--pps", "20000"}
		for _, r := range frws {
			args = append(args, "--rewrite", r)
		}
		rep, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("replay: %v\n%s", err, rep)
		}
		// Stopped by SIGINT: the file must still be complete.
		time.Sleep(300 * time.Millisecond)
		capCmd.Process.Signal(syscall.SIGINT)
		waitExit(t, capCmd, 5*time.Second)
		cnt := atoiMatch(t, capturedRE, capErr.String())
		if cnt[0] != len(want) || cnt[1] != len(want) || cnt[2] != 0 {
			t.Errorf("capture counts %v, want %d captured and received, 0 dropped\n%s", cnt, len(want), capErr)
		}
		compareFrames(t, readFrames(t, out), want)
	})

	t.Run("vlan", func(t *testing.T) {
		// The kernel hands a packet socket's filter the frame without its
		// 802.1Q tag, so VLAN filters run in user space on the frame with
		// the tag put back: tagged frames must arrive whole.
		plain := expected(t, rws, nil)[:10]
		var frames, want [][]byte
		for i, f := range plain {
			if i%2 == 0 {
				tagged := append(append(append([]byte(nil), f[:12]...), 0x81, 0x00, 0x00, 0x05), f[12:]...)
				frames = append(frames, tagged)
				want = append(want, tagged)
			} else {
				frames = append(frames, f)
			}
		}
		in := filepath.Join(dir, "vlan.pcap")
		testpkt.WriteFrames(t, in, capture.LinkEthernet, 1e6, frames)
		out := filepath.Join(dir, "vlan.pcapng")
		capCmd, _, capErr := l.start(t, l.nsB, "capturing on", "capture", "-i", l.ifB, "-Q", "in", "-w", out, "-f", "vlan 5 and udp", "-c", strconv.Itoa(len(want)))
		if rep, err := exec.Command("ip", "netns", "exec", l.nsA, l.bin, "replay", in, "-i", l.ifA, "--topspeed").CombinedOutput(); err != nil {
			t.Fatalf("replay: %v\n%s", err, rep)
		}
		waitExit(t, capCmd, 10*time.Second)
		if cnt := atoiMatch(t, capturedRE, capErr.String()); cnt[0] != len(want) {
			t.Errorf("captured %d, want %d", cnt[0], len(want))
		}
		compareFrames(t, readFrames(t, out), want)
	})

	t.Run("ring", func(t *testing.T) {
		// -b filesize:8 (8000 bytes) over ~25 kB: several files, of which
		// -b files:2 keeps the last two; together they end with the last
		// frames sent.
		want := expected(t, rws, nil)
		base := filepath.Join(dir, "ring.pcapng")
		capCmd, _, _ := l.start(t, l.nsB, "capturing on", "capture", "-i", l.ifB, "-Q", "in", "-w", base,
			"-b", "filesize:8", "-b", "files:2", "-c", strconv.Itoa(len(want)))
		args := []string{"netns", "exec", l.nsA, l.bin, "replay", ptsOps, "-i", l.ifA, "--topspeed"}
		for _, r := range rws {
			args = append(args, "--rewrite", r)
		}
		if rep, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("replay: %v\n%s", err, rep)
		}
		waitExit(t, capCmd, 10*time.Second)
		files, _ := filepath.Glob(filepath.Join(dir, "ring_*.pcapng"))
		if len(files) != 2 {
			t.Fatalf("ring files %v, want 2", files)
		}
		var got [][]byte
		for _, f := range files { // names sort by their sequence number
			if st, _ := os.Stat(f); st.Size() > 8000+2000 {
				t.Errorf("%s is %d bytes", f, st.Size())
			}
			got = append(got, readFrames(t, f)...)
		}
		compareFrames(t, got, want[len(want)-len(got):])
	})

	t.Run("read-live", func(t *testing.T) {
		rd, stdout, rdErr := l.start(t, l.nsB, "capturing on", "read", "-i", l.ifB, "-f", "udp", "-c", "4", "-T", "fields", "-e", "frame.number", "-e", "udp.dstport")
		args := []string{"netns", "exec", l.nsA, l.bin, "replay", ptsOps, "-i", l.ifA, "--pps", "2000"}
		for _, r := range rws {
			args = append(args, "--rewrite", r)
		}
		if rep, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("replay: %v\n%s", err, rep)
		}
		waitExit(t, rd, 10*time.Second)
		if got, want := stdout.String(), "1\t7002\n2\t46913\n3\t7002\n4\t7002\n"; got != want {
			t.Errorf("rdx read -i output:\n%s\nwant:\n%s\nstderr:\n%s", got, want, rdErr)
		}
	})
}

func TestCaptureErrors(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIP: needs root to reach the interface checks")
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"capture", "-i", "rdx-no-such", "-w", os.DevNull}, `no such interface "rdx-no-such"`},
		{[]string{"capture", "-i", "lo", "-w", os.DevNull, "-f", "udp[8] = 0"}, `"[": unsupported`},
		{[]string{"capture", "-i", "lo"}, "no output file"},
		{[]string{"capture", "-i", "lo", "-w", os.DevNull, "-b", "files:3"}, "needs -b filesize"},
		{[]string{"replay", ptsOps, "-i", "rdx-no-such"}, `no such interface "rdx-no-such"`},
		{[]string{"replay", ptsOps, "--dry-run", "--rewrite", "ip.dst=2001:db8::1"}, "not an IPv4 address"},
		{[]string{"replay", ptsOps, "--dry-run", "--pps", "5", "--topspeed"}, "choose one of"},
		{[]string{"read", "-i", "rdx-no-such"}, `no such interface "rdx-no-such"`},
	}
	for _, c := range cases {
		io, _, _, stderr := iostreams.Test()
		code := run(io, c.args)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("rdx %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}

func TestCaptureNotPermitted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIP: needs root to drop to an unprivileged user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("SKIP: setpriv (util-linux) not installed")
	}
	bin := filepath.Join(t.TempDir(), "rdx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	os.Chmod(filepath.Dir(bin), 0o755)
	for _, args := range [][]string{{"capture", "-i", "lo", "-w", os.DevNull}, {"replay", ptsOps, "-i", "lo"}} {
		cmd := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}, args...)...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "lo: not permitted: packet sockets need root or CAP_NET_RAW") {
			t.Errorf("rdx %v as nobody: %v\n%s", args, err, out)
		}
	}
}

// replay --dry-run does not wait out the capture's timing (cell-bringup
// spans 40 s) unless a rate is asked; -L stops after N packets, as
// tcpreplay's; bad counts are usage errors.
func TestReplayDryRunLimit(t *testing.T) {
	const cell = "../../pcaps/rx/cell-bringup.pcap"
	io, _, out, errOut := iostreams.Test()
	start := time.Now()
	if code := run(io, []string{"replay", cell, "--dry-run", "-L", "7"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("--dry-run took %v: it waited for the capture's timing", d)
	}
	if n := strings.Count(out.String(), "\n"); n != 7 || !strings.Contains(errOut.String(), "would send 7 packets") {
		t.Errorf("-L 7: %d lines, %q", n, errOut)
	}
	io, _, _, errOut = iostreams.Test()
	code := run(io, []string{"replay", cell, "--dry-run", "--pps", "100", "-L", "3"})
	m := regexp.MustCompile(`would send 3 packets, \d+ bytes in (\d+\.\d+) s`).FindStringSubmatch(errOut.String())
	if secs, _ := strconv.ParseFloat(append(m, "", "")[1], 64); code != 0 || secs < 0.019 {
		t.Errorf("--dry-run --pps 100 -L 3: exit %d, %q (3 packets at 100/s take 0.02 s)", code, errOut)
	}
	for _, bad := range [][]string{{"-L", "-1"}, {"--stats", "-2"}} {
		io, _, _, errOut := iostreams.Test()
		if code := run(io, append([]string{"replay", cell, "--dry-run"}, bad...)); code != 2 {
			t.Errorf("%v: exit %d, %q", bad, code, errOut)
		}
	}
}
