package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
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
	path := stop()
	code, m, stderr := checkJSON(t, path)
	if code != 0 || !strings.Contains(stderr, "findings: 0 errors, 0 warnings, 0 notes") {
		t.Errorf("check exit %d: %s", code, stderr)
	}
	for _, k := range []string{"mpa.crc", "mpa.marker"} {
		if c := m[k]; c[0] == 0 || c[1] != c[0] || c[2] != 0 {
			t.Errorf("%s: checked %d passed %d failed %d", k, c[0], c[1], c[2])
		}
	}
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
