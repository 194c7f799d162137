package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/active/iwarp"
	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
)

// loCapture records the loopback traffic of one TCP port into a pcap
// until the returned stop is called (root only: AF_PACKET). Only incoming
// packets are kept: on lo every packet also shows as outgoing, and libpcap
// drops that copy the same way.
func loCapture(t *testing.T, port int) (stop func() string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("LOUD: not root: the live capture of the iWARP exchange needs AF_PACKET (run as root, as CI does)")
	}
	l, err := capture.OpenLive(capture.LiveOptions{Iface: "lo", Filter: "tcp port " + strconv.Itoa(port), Direction: "in", NoPromisc: true})
	if err != nil {
		t.Skipf("LOUD: no live capture on lo: %v", err)
	}
	path := filepath.Join(t.TempDir(), "iwarp.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	pw, err := capture.NewPcapWriter(bw, capture.LinkEthernet, capture.DefaultSnaplen, true)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var p capture.Packet
		for {
			if err := l.Next(&p); err != nil {
				l.Close()
				done <- nil
				return
			}
			if err := pw.WritePacket(&p); err != nil {
				l.Close()
				done <- err
				return
			}
		}
	}()
	return func() string {
		time.Sleep(200 * time.Millisecond) // the last FINs reach the ring
		l.Stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
}

// checkJSON runs `rdx check -T json` and returns exit code, the per-check
// counts and standard error.
func checkJSON(t *testing.T, path string) (int, map[string][3]int, string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	code := run(io, []string{"check", "-T", "json", path})
	var doc struct {
		Checks []struct {
			Check                   string
			Checked, Passed, Failed int
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("check -T json: %v\n%s", err, out)
	}
	m := map[string][3]int{}
	for _, c := range doc.Checks {
		m[c.Check] = [3]int{c.Checked, c.Passed, c.Failed}
	}
	return code, m, errOut.String()
}

// stackFindings lists the frames of path with findings other than TCP's
// analysis notes (a loaded machine makes the kernel retransmit now and
// then, even on loopback: a tail loss probe, which tcp.analysis rightly
// notes) with their messages: what rdx's iWARP stack is to blame for.
func stackFindings(t *testing.T, path string) string {
	io, _, out, _ := iostreams.Test()
	run(io, []string{"read", "-Y", "_ws.expert and not tcp.analysis", "-T", "fields", "-e", "frame.number", "-e", "_ws.expert.message", path})
	return out.String()
}

// cleanCheck requires `rdx check` to pass with no error or warning, and
// nothing but TCP analysis notes among the findings.
func cleanCheck(t *testing.T, path string) map[string][3]int {
	t.Helper()
	code, m, stderr := checkJSON(t, path)
	if code != 0 || !strings.Contains(stderr, "findings: 0 errors, 0 warnings,") {
		t.Errorf("check exit %d: %s", code, stderr)
	}
	if f := stackFindings(t, path); f != "" {
		t.Errorf("findings besides TCP analysis notes:\n%s", f)
	}
	for _, k := range []string{"mpa.crc", "mpa.marker"} {
		if c := m[k]; c[0] == 0 || c[1] != c[0] || c[2] != 0 {
			t.Errorf("%s: checked %d passed %d failed %d", k, c[0], c[1], c[2])
		}
	}
	return m
}

// serveOne accepts one connection on l and runs rping's server on it.
func serveOne(l net.Listener, cfg iwarp.Config, size int) chan error {
	ch := make(chan error, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			ch <- err
			return
		}
		c, err := iwarp.Server(nc, cfg)
		if err != nil {
			nc.Close()
			ch <- err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = iwarp.RpingServer(ctx, c, iwarp.RpingOptions{Size: size})
		c.Close()
		ch <- err
	}()
	return ch
}

// TestIwarpSelfCapture runs rdx's iWARP stack against itself over loopback
// in every negotiation combination (revision 1/2, CRC asked by either side,
// markers asked by either side, each peer-to-peer RTR type), each
// connection an rping exchange whose Send, RDMA Read and RDMA Write data
// the client validates octet for octet (-V), one of them through the
// `rdx iwarp rping` verb; then checks the capture of it all: every CRC and
// every marker validates in dissect/mpa and nothing is reported.
func TestIwarpSelfCapture(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	stop := loCapture(t, port)
	combos := 0
	for _, rev := range []uint8{1, 2} {
		rtrs := []iwarp.RTR{iwarp.RTRNone}
		if rev == 2 {
			rtrs = append(rtrs, iwarp.RTRSend, iwarp.RTRWrite, iwarp.RTRRead)
		}
		for combo := range 16 {
			for _, rtr := range rtrs {
				cfgC := iwarp.Config{Rev: rev, CRC: combo&1 != 0, Markers: combo&4 != 0, P2P: rtr, MULPDU: 300}
				cfgS := iwarp.Config{Rev: rev, CRC: combo&2 != 0, Markers: combo&8 != 0, P2P: iwarp.RTRAny, MULPDU: 256}
				srv := serveOne(ln, cfgS, 1000)
				nc, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				c, err := iwarp.Client(nc, cfgC)
				if err != nil {
					t.Fatalf("%+v: %v", cfgC, err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				n, err := iwarp.RpingClient(ctx, c, iwarp.RpingOptions{Count: 2, Size: 1000, Validate: true})
				cancel()
				c.Close()
				if err != nil || n != 2 {
					t.Fatalf("client %s: %d pings, %v", c.Params(), n, err)
				}
				if err := <-srv; err != nil {
					t.Fatalf("server %s: %v", c.Params(), err)
				}
				combos++
			}
		}
	}
	// The verb, CRC and markers both ways.
	srv := serveOne(ln, iwarp.Config{Markers: true}, 100)
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"iwarp", "rping", "-c", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-C", "3", "-S", "100",
		"-V", "-v", "--crc", "--markers", "--timeout", "10s"}); code != 0 {
		t.Fatalf("rdx iwarp rping -c: exit %d\n%s%s", code, out, errOut)
	}
	if err := <-srv; err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "ping data: rdma-ping-"); got != 3 {
		t.Errorf("-v printed %d pings:\n%s", got, out)
	}
	m := cleanCheck(t, stop())
	t.Logf("%d negotiation combinations; mpa.crc %v, mpa.marker %v (checked, passed, failed)", combos, m["mpa.crc"], m["mpa.marker"])
}

// TestIwarpImpairCorrupt: `rdx iwarp rping --impair corrupt=2@22` flips an
// octet of the client's second FPDU (its second Send's payload); the
// server's CRC check fails and it sends a Terminate (LLP, MPA CRC error),
// which the client reports; the capture shows the bad CRC on exactly that
// FPDU and the Terminate after it.
func TestIwarpImpairCorrupt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	stop := loCapture(t, port)
	srv := serveOne(ln, iwarp.Config{}, 64)
	io, _, out, errOut := iostreams.Test()
	code := run(io, []string{"iwarp", "rping", "-c", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-C", "3", "-V",
		"--crc", "--impair", "corrupt=2@22", "--timeout", "10s"})
	if code != exitUsage || !strings.Contains(errOut.String(), "peer sent Terminate (LLP error: MPA CRC error)") ||
		!strings.Contains(errOut.String(), "impair: unit 2 (") {
		t.Errorf("client: exit %d\n%s%s", code, out, errOut)
	}
	serr := <-srv
	if serr == nil || !strings.Contains(serr.Error(), "sent Terminate (LLP error: MPA CRC error)") {
		t.Errorf("server: %v", serr)
	}
	path := stop()
	code, m, _ := checkJSON(t, path)
	if c := m["mpa.crc"]; code != exitFindings || c[2] != 1 || c[1] != c[0]-1 {
		t.Errorf("check exit %d, mpa.crc %v (checked, passed, failed)", code, c)
	}
	io, _, out, errOut = iostreams.Test()
	run(io, []string{"read", "--color", "never", path})
	if !strings.Contains(out.String(), "Terminate") {
		t.Errorf("no Terminate in the capture:\n%s%s", out, errOut)
	}
}

// TestIwarpRpingFlags: rping's own short flags parse as rping's, the MPA
// knobs fill the stack's Config, and bad combinations are usage errors.
func TestIwarpRpingFlags(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var o *IwarpOptions
	if c := execCmd(newCmdIwarp(io, hook(&o)), []string{"rping", "-c", "-a", "198.51.100.1", "-p", "7000", "-C", "5", "-S", "100", "-v", "-V",
		"--crc", "--markers", "--rev", "2", "--p2p", "write,read", "--ird", "4", "--private", "hi", "--impair", "corrupt=2@22"}); c != 0 || o == nil {
		t.Fatalf("exit %d", c)
	}
	if !o.Client || o.Server || o.Addr != "198.51.100.1" || o.Port != 7000 || o.Count != 5 || o.Size != 100 || !o.Verbose || !o.Validate {
		t.Errorf("rping flags: %+v", o)
	}
	if cfg := o.cfg; !cfg.CRC || !cfg.Markers || cfg.Rev != 2 || cfg.P2P != iwarp.RTRWrite|iwarp.RTRRead || cfg.IRD != 4 ||
		string(cfg.Private) != "hi" || cfg.Impair == nil {
		t.Errorf("config: %+v", cfg)
	}
	for _, bad := range [][]string{
		{"rping", "-a", "x"},                           // neither -s nor -c
		{"rping", "-s", "-c", "-a", "x"},               // both
		{"rping", "-c"},                                // client without -a
		{"rping", "-c", "-a", "x", "-S", "25"},         // below RPING_MIN_BUFSIZE
		{"rping", "-s", "--rev", "1", "--p2p", "read"}, // p2p is revision 2
		{"rping", "-s", "--p2p", "sideways"},
		{"rping", "-s", "--impair", "explode=1"},
	} {
		if c := execCmd(newCmdIwarp(io, hook(&o)), bad); c != exitUsage {
			t.Errorf("%q: exit %d, want %d", bad, c, exitUsage)
		}
	}
}

// TestIwarpNetns: the real binary as rping server in one network namespace
// and as client in another, over a veth pair (198.51.100.0/24), revision 2
// with CRC, markers both ways and a Read RTR; every ping validated (-V),
// and the capture on the server's side checks clean.
func TestIwarpNetns(t *testing.T) {
	l := newNetLab(t)
	pcap := filepath.Join(t.TempDir(), "netns.pcap")
	capCmd, _, _ := l.start(t, l.nsA, "capturing on", "capture", "-i", l.ifA, "-w", pcap, "-f", "tcp port 7174")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var sout, serr, cout, cerr strings.Builder
	srv := exec.CommandContext(ctx, "ip", "netns", "exec", l.nsA, l.bin, "iwarp", "rping", "-s", "-a", "198.51.100.1", "-v",
		"-S", "5000", "--markers", "--p2p", "any", "--timeout", "30s")
	srv.Stdout, srv.Stderr = &sout, &serr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The client does not retry a refused connection: wait for the listener
	// (a fixed 300 ms is not enough on a loaded machine). ip netns exec
	// execs rdx, so the pid is rdx's, in its namespace.
	waitBound(t, srv.Process.Pid, "tcp", 7174, 20*time.Second)
	cli := exec.CommandContext(ctx, "ip", "netns", "exec", l.nsB, l.bin, "iwarp", "rping", "-c", "-a", "198.51.100.1", "-C", "50",
		"-S", "5000", "-V", "-v", "--crc", "--markers", "--p2p", "read", "-d", "--timeout", "30s")
	cli.Stdout, cli.Stderr = &cout, &cerr
	cliErr := cli.Run()
	srvErr := srv.Wait()
	if cliErr != nil || srvErr != nil {
		t.Fatalf("client: %v\n%s\nserver: %v\n%s", cliErr, cerr.String(), srvErr, serr.String())
	}
	if n, m := strings.Count(cout.String(), "ping data: rdma-ping-"), strings.Count(sout.String(), "server ping data: rdma-ping-"); n != 50 || m != 50 {
		t.Errorf("client printed %d pings, server %d", n, m)
	}
	if !strings.Contains(cerr.String(), "MPA rev 2, CRC on, markers sent on received on, peer IRD 1 ORD 1, RTR read") {
		t.Errorf("client negotiation: %s", cerr.String())
	}
	capCmd.Process.Signal(os.Interrupt)
	waitExit(t, capCmd, 10*time.Second)
	m := cleanCheck(t, pcap)
	t.Logf("veth: 50 pings of 5000 octets; mpa.crc %v, mpa.marker %v (checked, passed, failed)", m["mpa.crc"], m["mpa.marker"])
}

// TestIwarpP2PDefault: the server accepts any RTR unless told (a
// peer-to-peer initiator such as siw otherwise terminates: no matching
// RTR), the client offers none unless told, and revision 1 has none.
func TestIwarpP2PDefault(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	for _, c := range []struct {
		args []string
		want iwarp.RTR
	}{
		{[]string{"rping", "-s"}, iwarp.RTRAny},
		{[]string{"rping", "-s", "--p2p", "none"}, iwarp.RTRNone},
		{[]string{"rping", "-s", "--rev", "1"}, iwarp.RTRNone},
		{[]string{"rping", "-c", "-a", "x"}, iwarp.RTRNone},
	} {
		var o *IwarpOptions
		if code := execCmd(newCmdIwarp(io, hook(&o)), c.args); code != 0 || o.cfg.P2P != c.want {
			t.Errorf("%q: exit %d, P2P %v, want %v", c.args, code, o.cfg.P2P, c.want)
		}
	}
}
