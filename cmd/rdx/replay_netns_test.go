package main

import (
	"bytes"
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// udpFrame is an Ethernet/IPv4/UDP frame from A to B with size octets in
// all (checksums left zero: none for UDP, the IPv4 one filled in).
func udpFrame(l *netLab, size int, tag byte) []byte {
	mac := func(s string) []byte {
		var m []byte
		for _, x := range strings.Split(s, ":") {
			v, _ := strconv.ParseUint(x, 16, 8)
			m = append(m, byte(v))
		}
		return m
	}
	b := make([]byte, size)
	copy(b, mac(l.macB))
	copy(b[6:], mac(l.macA))
	b[12], b[13] = 0x08, 0x00
	ip := b[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(size-14))
	ip[8], ip[9] = 64, 17
	copy(ip[12:], []byte{198, 51, 100, 1, 198, 51, 100, 2})
	var s uint32
	for i := 0; i < 20; i += 2 {
		s += uint32(ip[i])<<8 | uint32(ip[i+1])
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(s))
	udp := ip[20:]
	binary.BigEndian.PutUint16(udp, 40000)
	binary.BigEndian.PutUint16(udp[2:], 7009)
	binary.BigEndian.PutUint16(udp[4:], uint16(size-34))
	udp[8] = tag
	return b
}

// TestReplayOverMTU replays frames of which some exceed the veth's MTU
// (1500): those are skipped and counted, the others all arrive, and the
// exit status is 0. Before, the replay stopped at the first with "message
// too long" (exit 2) and never sent the rest.
func TestReplayOverMTU(t *testing.T) {
	l := newNetLab(t)
	sizes := []int{100, 2000, 200, 1514, 1515, 300, 9000, 400}
	var frames, want [][]byte
	for i, n := range sizes {
		f := udpFrame(l, n, byte(i))
		frames = append(frames, f)
		if n <= 1514 {
			want = append(want, f)
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "mtu.pcap")
	testpkt.WriteFrames(t, in, capture.LinkEthernet, 1e6, frames)
	out := filepath.Join(dir, "mtu.pcapng")
	capCmd, _, capErr := l.start(t, l.nsB, "capturing on", "capture", "-i", l.ifB, "-Q", "in", "-w", out, "-f", "udp port 7009", "-c", strconv.Itoa(len(want)))
	start := time.Now()
	rep, err := exec.Command("ip", "netns", "exec", l.nsA, l.bin, "replay", in, "-i", l.ifA, "--topspeed").CombinedOutput()
	t.Logf("replay (%v): %s", time.Since(start).Round(time.Millisecond), bytes.TrimSpace(rep))
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	waitExit(t, capCmd, 10*time.Second)
	if sent := atoiMatch(t, sentRE, string(rep)); sent[0] != len(want) {
		t.Errorf("sent %d, want %d", sent[0], len(want))
	}
	if !strings.Contains(string(rep), "skipped 3 frames: 3 larger than the interface MTU") {
		t.Errorf("no skip count in %q", rep)
	}
	if cnt := atoiMatch(t, capturedRE, capErr.String()); cnt[0] != len(want) {
		t.Errorf("captured %d, want %d", cnt[0], len(want))
	}
	compareFrames(t, readFrames(t, out), want)
}
