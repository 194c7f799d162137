package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/testpkt"
	"golang.org/x/sys/unix"
)

var (
	rdxBinOnce sync.Once
	rdxBinPath string
	rdxBinErr  error
)

// removeRdxBin removes the binary rdxBin built (TestMain calls it).
func removeRdxBin() {
	if rdxBinPath != "" {
		os.RemoveAll(filepath.Dir(rdxBinPath))
	}
}

// rdxBin builds the binary once for the subprocess tests.
func rdxBin(t *testing.T) string {
	t.Helper()
	rdxBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rdxbin")
		if err != nil {
			rdxBinErr = err
			return
		}
		rdxBinPath = filepath.Join(dir, "rdx")
		if out, err := exec.Command("go", "build", "-o", rdxBinPath, ".").CombinedOutput(); err != nil {
			rdxBinErr = errors.New(string(out))
		}
	})
	if rdxBinErr != nil {
		t.Fatalf("go build: %v", rdxBinErr)
	}
	return rdxBinPath
}

// proc is a running rdx whose stdout lines are timestamped as they come.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of the process's standard input (a pipe)
	mu     sync.Mutex
	lines  []string
	at     []time.Time
	stderr syncBuf
	exited chan struct{}
	err    error
}

func startProc(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), exited: make(chan struct{})}
	// A pipe of our own rather than StdinPipe: waitRead needs the *os.File.
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdin, p.stdin = in, w
	t.Cleanup(func() { w.Close() })
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.Close()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.exited })
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.at = append(p.at, time.Now())
			p.mu.Unlock()
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	return p
}

// waitLines waits up to d for at least n stdout lines and returns when the
// n-th came.
func (p *proc) waitLines(t *testing.T, n int, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		if len(p.lines) >= n {
			at := p.at[n-1]
			p.mu.Unlock()
			return at
		}
		p.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Fatalf("%d stdout lines after %v, want %d: %q\nstderr: %s", len(p.lines), d, n, p.lines, p.stderrString())
	return time.Time{}
}

// waitRead waits up to d until the process has read all that was written
// to its standard input (the pipe holds nothing). The verbs open their
// input after they start watching for SIGINT and SIGTERM, so from then on
// a signal is theirs to handle. A fixed sleep is not enough: on a loaded
// machine the process was still starting 300 ms later, and the signal
// killed it before its handler was in place (exit -1, nothing on stderr).
func (p *proc) waitRead(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		n, err := pipeUnread(p.stdin)
		if err != nil {
			t.Fatalf("unread octets in the stdin pipe: %v", err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v: %d octets of stdin still unread after %v; stderr: %s", p.cmd.Args, n, d, p.stderrString())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pipeUnread is how many octets written to pipe f are not read yet.
func pipeUnread(f *os.File) (n int, err error) {
	rc, err := f.SyscallConn() // not Fd: that would make our end blocking
	if err != nil {
		return 0, err
	}
	cerr := rc.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return n, errors.Join(cerr, err)
}

// term sends sig and returns how long the process took to exit, and its
// exit code.
func (p *proc) term(t *testing.T, sig os.Signal) (time.Duration, int) {
	t.Helper()
	start := time.Now()
	p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("%v: still running 5 s after %v", p.cmd.Args, sig)
	}
	took := time.Since(start)
	code := p.cmd.ProcessState.ExitCode() // -1 when killed by the signal
	return took, code
}

func (p *proc) stderrString() string { return p.stderr.String() }

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

func ptsFrames(t *testing.T, n int) []capture.Packet {
	t.Helper()
	return testpkt.ReadAll(t, ptsOps)[:n]
}

// A capture piped in slowly (tcpdump -w - | rdx read -) is a live source:
// each frame's line shows as it arrives, not when a 1024-frame batch or
// the output buffer fills; SIGTERM then ends every verb reading it within
// a second, with its tables and counts, exit status 0 (as tshark after a
// capture). Before, nothing showed until the pipe closed, and SIGTERM
// killed the process with the output lost.
func TestSignalSlowPipe(t *testing.T) {
	bin := rdxBin(t)
	frames := ptsFrames(t, 2)
	for _, c := range []struct {
		verb     []string
		lines    bool     // a line per frame on stdout
		wantOut  []string // after the signal
		wantCode int
	}{
		{[]string{"read", "-", "-T", "fields", "-e", "frame.number", "-e", "rx.type"}, true, []string{"1\t1", "2\t1"}, 0},
		{[]string{"stats", "-"}, false, []string{"Rx"}, 0},
		{[]string{"check", "-"}, false, []string{"checks applied to -"}, 0},
		{[]string{"flows", "-"}, false, []string{"127.1.0.1:7002"}, 0},
	} {
		t.Run(c.verb[0], func(t *testing.T) {
			p := startProc(t, bin, c.verb...)
			w, err := capture.NewPcapWriter(p.stdin, capture.LinkEthernet, 65535, true)
			if err != nil {
				t.Fatal(err)
			}
			// The file header read: rdx has started and watches for the
			// signal, and the lags below are its own, not its start-up's.
			p.waitRead(t, 20*time.Second)
			for i := range frames {
				if i > 0 {
					time.Sleep(time.Second) // a slow source: one frame a second
				}
				sent := time.Now()
				if err := w.WritePacket(&frames[i]); err != nil {
					t.Fatal(err)
				}
				if c.lines {
					// A frame held in a buffer shows with the next one, a
					// second later, or at exit: 700 ms tells that from a
					// loaded machine's scheduling delays (100-300 ms seen).
					if lag := p.waitLines(t, i+1, 2*time.Second).Sub(sent); lag > 700*time.Millisecond {
						t.Errorf("frame %d printed %v after it arrived", i+1, lag)
					} else {
						t.Logf("frame %d printed %v after it arrived", i+1, lag.Round(time.Millisecond))
					}
				}
			}
			p.waitRead(t, 5*time.Second)
			time.Sleep(200 * time.Millisecond) // read, and decoded by now
			took, code := p.term(t, syscall.SIGTERM)
			t.Logf("exit %d %v after SIGTERM; stderr: %s", code, took.Round(time.Millisecond), strings.TrimSpace(p.stderrString()))
			if took > time.Second || code != c.wantCode {
				t.Errorf("SIGTERM: exit status %d after %v, want %d within 1 s", code, took, c.wantCode)
			}
			out := p.output()
			for _, s := range c.wantOut {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if !strings.Contains(p.stderrString(), "rdx: 2 frames") {
				t.Errorf("no closing count in stderr: %s", p.stderrString())
			}
		})
	}
}

// A verb stuck where it cannot look for the signal (here: waiting for the
// capture header of a silent pipe) is ended by the watchdog within a
// second, exit status 128+15.
func TestSignalStuckSource(t *testing.T) {
	p := startProc(t, rdxBin(t), "read", "-")
	// The first octets of a pcap header, read: rdx waits for the rest.
	if _, err := p.stdin.Write([]byte{0xd4, 0xc3, 0xb2, 0xa1}); err != nil {
		t.Fatal(err)
	}
	p.waitRead(t, 20*time.Second)
	took, code := p.term(t, syscall.SIGTERM)
	// The watchdog ends it after stopGrace (500 ms); 2 s leaves a loaded
	// machine time to run it and exit, and still fails a longer grace.
	// Without the watchdog it would not end at all.
	if took > 2*time.Second || code != 128+int(syscall.SIGTERM) || !strings.Contains(p.stderrString(), "did not stop within") {
		t.Errorf("stuck read: exit %d after %v, stderr %q; want 143 within 2 s", code, took, p.stderrString())
	}
}

// rdx replay --pps 0.5 waits two seconds between frames: SIGTERM must not
// wait for the next frame. The dry-run line of the first frame is printed
// when it is sent, not at the end.
func TestSignalSlowReplay(t *testing.T) {
	p := startProc(t, rdxBin(t), "replay", ptsOps, "--dry-run", "--pps", "0.5")
	p.waitLines(t, 1, 2*time.Second)
	time.Sleep(200 * time.Millisecond)
	took, code := p.term(t, syscall.SIGINT)
	t.Logf("exit %d %v after SIGINT: %s", code, took.Round(time.Millisecond), strings.TrimSpace(p.stderrString()))
	if took > time.Second || code != 0 || !strings.Contains(p.stderrString(), "would send 1 packets") {
		t.Errorf("replay --pps 0.5: exit %d after %v; want 0 within 1 s and 1 packet counted", code, took)
	}
}

// rdx rdp listen waiting for a connection stops on SIGTERM, exit 0.
func TestSignalRdpListen(t *testing.T) {
	port := 20000 + os.Getpid()%20000
	p := startProc(t, rdxBin(t), "rdp", "listen", "--port", "7", "--transport", "udp", "--udp-port", strconv.Itoa(port), "--stats")
	waitBound(t, 0, "udp", port, 20*time.Second) // bound after it watches for the signal
	took, code := p.term(t, syscall.SIGTERM)
	if took > time.Second || code != 0 || !strings.Contains(p.stderrString(), "interrupted before any connection") {
		t.Errorf("rdp listen: exit %d after %v, stderr %q; want 0 within 1 s", code, took, p.stderrString())
	}
}

// Live traffic at one frame a second over a veth pair: rdx read -i prints
// each frame's line as it arrives, rdx capture -w - hands each frame to
// the pipe as it arrives (it held 256 KiB before), and SIGTERM ends both
// within a second with their counts, exit status 0.
func TestSignalLiveSlow(t *testing.T) {
	l := newNetLab(t)
	rws := []string{"--rewrite", "eth.src=" + l.macA, "--rewrite", "eth.dst=" + l.macB,
		"--rewrite", "ip.src=198.51.100.1", "--rewrite", "ip.dst=198.51.100.2"}
	dir := t.TempDir()
	three := filepath.Join(dir, "three.pcap")
	fh, err := os.Create(three)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := capture.NewPcapWriter(fh, capture.LinkEthernet, 65535, true)
	for _, p := range ptsFrames(t, 3) {
		pw.WritePacket(&p)
	}
	fh.Close()
	replaySlow := func() (time.Time, chan error) {
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			out, err := exec.Command("ip", append([]string{"netns", "exec", l.nsA, l.bin, "replay", three, "-i", l.ifA, "--pps", "1"}, rws...)...).CombinedOutput()
			if err != nil {
				err = errors.New(err.Error() + ": " + string(out))
			}
			done <- err
		}()
		return start, done
	}
	// Wait until the socket is open: the ready line on stderr.
	ready := func(p *proc) {
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(p.stderrString(), "capturing on") {
			if time.Now().After(deadline) {
				t.Fatalf("no 'capturing on': %s", p.stderrString())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	t.Run("read", func(t *testing.T) {
		p := startProc(t, "ip", "netns", "exec", l.nsB, l.bin, "read", "-i", l.ifB, "-f", "udp", "-T", "fields", "-e", "frame.number", "-e", "udp.dstport")
		ready(p)
		start, done := replaySlow()
		var at [3]time.Time
		for i := range 3 {
			at[i] = p.waitLines(t, i+1, 5*time.Second)
			t.Logf("frame %d printed %v after the replay started", i+1, at[i].Sub(start).Round(time.Millisecond))
		}
		streamed(t, "printed", at)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		took, code := p.term(t, syscall.SIGTERM)
		t.Logf("exit %d %v after SIGTERM; stderr: %s", code, took.Round(time.Millisecond), strings.TrimSpace(p.stderrString()))
		if took > time.Second || code != 0 || !strings.Contains(p.stderrString(), "rdx: 3 frames") {
			t.Errorf("read -i: exit %d after %v; want 0 within 1 s with the count", code, took)
		}
		if got := p.output(); got != "1\t7002\n2\t46913\n3\t7002" {
			t.Errorf("output %q", got)
		}
	})

	t.Run("capture-pipe", func(t *testing.T) {
		cmd := exec.Command("ip", "netns", "exec", l.nsB, l.bin, "capture", "-i", l.ifB, "-f", "udp", "-w", "-")
		stdout, _ := cmd.StdoutPipe()
		var stderr syncBuf
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(stderr.String(), "capturing on") {
			if time.Now().After(deadline) {
				t.Fatalf("no 'capturing on': %s", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		got := make(chan time.Time, 3)
		go func() {
			r, err := capture.NewReader(stdout, "pipe")
			if err != nil {
				return
			}
			var pkt capture.Packet
			for r.Next(&pkt) == nil {
				got <- time.Now()
			}
		}()
		start, done := replaySlow()
		var ats [3]time.Time
		for i := range 3 {
			select {
			case at := <-got:
				ats[i] = at
				t.Logf("frame %d through the pipe %v after the replay started", i+1, at.Sub(start).Round(time.Millisecond))
			case <-time.After(5 * time.Second):
				t.Fatalf("frame %d not in the pipe after 5 s (held in a buffer?); stderr: %s", i+1, stderr.String())
			}
		}
		streamed(t, "reached the pipe", ats)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		took := time.Since(sent)
		if took > time.Second || err != nil || !strings.Contains(stderr.String(), "3 packets captured") {
			t.Errorf("capture: %v after %v; stderr %s", err, took, stderr.String())
		}
	})
}

// streamed checks that three frames sent a second apart (replay --pps 1)
// came out a second apart, each as it arrived: a frame held in a buffer
// comes out with the next one (within the 50 ms flush tick) or at exit
// (then the third never shows before the replay ends). The gaps, not the
// delay after the replay was started, are what is checked: the replay
// process itself took 0.75 s to start on a loaded CI machine, which delays
// all three frames alike. The bounds are wide, 250 ms to 2.5 s, as a loaded
// machine delays one frame's send or print by some hundred ms and so
// shortens the gap after it; a held frame's gap is still well under 250 ms.
func streamed(t *testing.T, what string, at [3]time.Time) {
	t.Helper()
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < 250*time.Millisecond || gap > 2500*time.Millisecond {
			t.Errorf("frame %d %s %v after frame %d, want about 1 s (sent 1 s apart)", i+1, what, gap.Round(time.Millisecond), i)
		}
	}
}

// waitBound waits up to d until a socket of process pid (0: this one) is
// bound to port of proto ("udp": any; "tcp": listening) in the process's
// network namespace, per /proc/PID/net/PROTO and PROTO6.
func waitBound(t *testing.T, pid int, proto string, port int, d time.Duration) {
	t.Helper()
	dir := "/proc/self/net/"
	if pid != 0 {
		dir = fmt.Sprintf("/proc/%d/net/", pid)
	}
	local := fmt.Sprintf(":%04X", port) // local_address is ADDR:PORT in hex
	for deadline := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		for _, f := range []string{proto, proto + "6"} {
			b, _ := os.ReadFile(dir + f)
			for _, line := range strings.Split(string(b), "\n") {
				// sl local_address rem_address st ...; st 0A is LISTEN
				if fs := strings.Fields(line); len(fs) > 3 && strings.HasSuffix(fs[1], local) && (proto == "udp" || fs[3] == "0A") {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing bound to %s port %d after %v", proto, port, d)
		}
	}
}

// syncBuf is a bytes.Buffer safe to read while a process writes to it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
