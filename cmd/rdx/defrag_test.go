package main

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// rawIPv4Frag is a raw IPv4 (link type 228) UDP fragment of id 0x77.
func rawIPv4Frag(off int, more bool, payload []byte) []byte {
	return testpkt.IPv4Frag(0x77, off, more, payload)
}

// writePcap writes frames as a raw-IPv4 pcap file in dir, one a second.
func writePcap(t *testing.T, dir string, frames ...[]byte) string {
	name := filepath.Join(dir, "frags.pcap")
	testpkt.WriteFrames(t, name, capture.LinkIPv4, 1e9, frames)
	return name
}

// The two fragments of issue 10 (0-24 with MF, then 8-16 last) hung every
// verb with nothing printed. Each now finishes and reports the drop (live
// `read -i` runs the same loop, pass in read.go).
func TestFragmentHangVerbs(t *testing.T) {
	udp := make([]byte, 24)
	binary.BigEndian.PutUint16(udp[0:], 40000)
	binary.BigEndian.PutUint16(udp[2:], 7000)
	binary.BigEndian.PutUint16(udp[4:], 24)
	file := writePcap(t, t.TempDir(), rawIPv4Frag(0, true, udp), rawIPv4Frag(8, false, udp[8:16]))
	const finding = "IPv4 last fragment (id 0x77, offset 8-16) ends before data already held (offset 0-24 from frame 1)"
	for _, tc := range []struct {
		args []string
		want string // in stdout; every verb's closing line counts the warning
	}{
		{[]string{"read", file}, finding},
		{[]string{"read", "-V", file}, finding},
		{[]string{"read", "-T", "json", file}, finding},
		{[]string{"read", "-T", "fields", "-e", "_ws.expert.message", file}, finding},
		{[]string{"read", "-q", file}, ""},
		{[]string{"check", file}, ""},
		{[]string{"stats", file}, ""},
		{[]string{"flows", file}, ""},
	} {
		done := make(chan struct{})
		io, _, out, errOut := iostreams.Test()
		var code int
		go func() {
			code = run(io, tc.args)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not finish in 10 s", tc.args)
		}
		if code != 0 && !(tc.args[0] == "check" && code == exitFindings) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out)
		}
		if !strings.Contains(errOut.String(), "rdx: 2 frames; findings: 0 errors, 1 warning, 1 note") {
			t.Errorf("%v: stderr %q", tc.args, errOut)
		}
	}
}
