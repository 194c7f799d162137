package main

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// freeUDPPort returns a loopback UDP port nobody uses now.
func freeUDPPort(t *testing.T) int {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// TestRdpCLIUDP moves stdin to stdout over UDP on loopback, in process.
func TestRdpCLIUDP(t *testing.T) {
	up := strconv.Itoa(freeUDPPort(t))
	lio, _, lout, lerr := iostreams.Test()
	done := make(chan int)
	go func() {
		done <- run(lio, []string{"rdp", "listen", "--port", "7", "--transport", "udp", "--udp-port", up, "--unsequenced=false"})
	}()
	time.Sleep(100 * time.Millisecond)
	sio, in, _, serr := iostreams.Test()
	msg := bytes.Repeat([]byte("RDP over UDP. "), 5000)
	in.Write(msg)
	if code := run(sio, []string{"rdp", "send", "127.0.0.1", "--port", "7", "--transport", "udp", "--udp-port", up, "--mss", "500", "-", "--linger", "100ms"}); code != 0 {
		t.Fatalf("send exit %d: %s", code, serr)
	}
	if code := <-done; code != 0 {
		t.Fatalf("listen exit %d: %s", code, lerr)
	}
	if !bytes.Equal(lout.Bytes(), msg) {
		t.Fatalf("got %d octets, want %d", lout.Len(), len(msg))
	}
	if serr.Len() != 0 {
		t.Errorf("stderr not a terminal, yet: %q", serr)
	}
}

func TestRdpCLIErrors(t *testing.T) {
	up := freeUDPPort(t)
	io, _, _, errOut := iostreams.Test()
	code := run(io, []string{"rdp", "send", "127.0.0.1", "--port", "9", "--transport", "udp", "--udp-port", strconv.Itoa(up), "/dev/null"})
	if code != 2 || !strings.Contains(errOut.String(), "127.0.0.1 port 9 (UDP port "+strconv.Itoa(up)+") refused") {
		t.Errorf("nothing on the UDP port: exit %d, %q", code, errOut)
	}

	// A socket that never answers: timeout, saying after how long.
	silent, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	sp := strconv.Itoa(silent.LocalAddr().(*net.UDPAddr).Port)
	io, _, _, errOut = iostreams.Test()
	code = run(io, []string{"rdp", "send", "127.0.0.1", "--port", "9", "--transport", "udp", "--udp-port", sp, "--timeout", "700ms", "/dev/null"})
	if code != 2 || !strings.Contains(errOut.String(), "no answer from 127.0.0.1 port 9 (UDP port "+sp+") after 700ms (timeout)") {
		t.Errorf("silent peer: exit %d, %q", code, errOut)
	}

	for _, args := range [][]string{
		{"rdp", "send", "127.0.0.1", "--port", "0"},
		{"rdp", "listen", "--port", "7", "--transport", "carrier-pigeon"},
		{"rdp", "listen", "--port", "7", "--window", "0"},
		{"rdp", "listen"},
	} {
		io, _, _, errOut = iostreams.Test()
		if code := run(io, args); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
}

// TestRdpCLIImpairExact puts exactly one fault of each kind on the sender's
// segments: the transfer still completes byte for byte, the sender says
// which unit got which fault, and the receiver's capture shows the corrupted
// segment as a bad RDP checksum where the log says it was put.
func TestRdpCLIImpairExact(t *testing.T) {
	up := strconv.Itoa(freeUDPPort(t))
	trace := t.TempDir() + "/recv.pcap"
	lio, _, lout, lerr := iostreams.Test()
	done := make(chan int)
	go func() {
		done <- run(lio, []string{"rdp", "listen", "--port", "7", "--transport", "udp", "--udp-port", up, "--unsequenced=false", "--pcap", trace})
	}()
	time.Sleep(100 * time.Millisecond)
	sio, in, _, serr := iostreams.Test()
	msg := bytes.Repeat([]byte("impaired RDP. "), 800)
	in.Write(msg)
	args := []string{"rdp", "send", "127.0.0.1", "--port", "7", "--transport", "udp", "--udp-port", up, "--mss", "500", "-", "--linger", "100ms",
		"--impair", "drop=3,corrupt=6@12,dup=8,reorder=10"}
	if code := run(sio, args); code != 0 {
		t.Fatalf("send exit %d: %s", code, serr)
	}
	if code := <-done; code != 0 {
		t.Fatalf("listen exit %d: %s", code, lerr)
	}
	if !bytes.Equal(lout.Bytes(), msg) {
		t.Fatalf("got %d octets, want %d", lout.Len(), len(msg))
	}
	for _, want := range []string{"impair: unit 3 (", "): drop", "impair: unit 6 (", "corrupted octet 12", "impair: unit 8 (", "): dup", "impair: unit 10 (", "): reorder"} {
		if !strings.Contains(serr.String(), want) {
			t.Errorf("sender's log lacks %q:\n%s", want, serr)
		}
	}
	cio, _, cout, cerr := iostreams.Test()
	if code := run(cio, []string{"read", "-r", trace, "-Y", "rdp.checksum.status == 2", "-T", "fields", "-e", "frame.number"}); code != 0 {
		t.Fatalf("read exit %d: %s", code, cerr)
	}
	if n := strings.Count(cout.String(), "\n"); n != 1 {
		t.Errorf("%d segments with a bad checksum in the receiver's capture, want the one corrupted: %q", n, cout)
	}
}
