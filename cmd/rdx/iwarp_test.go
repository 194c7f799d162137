package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

var iwarpFields = []string{"-e", "frame.number", "-e", "iwarp_mpa.ulpdulength", "-e", "iwarp_mpa.crc_check", "-e", "iwarp_mpa.crc.status",
	"-e", "iwarp_mpa.marker_fpduptr", "-e", "iwarp_mpa.marker.status", "-e", "iwarp_rdma.opcode", "-e", "iwarp_ddp.msn",
	"-e", "iwarp_ddp.stag", "-e", "_ws.expert.message", "-E", "header=y"}

// iwarpGoldenCases: summary and -T fields goldens of the iWARP captures.
func iwarpGoldenCases() map[string][]string {
	cases := map[string][]string{}
	caps, _ := filepath.Glob("../../pcaps/iwarp/*.pcap")
	for _, c := range caps {
		base := "iwarp_" + strings.TrimPrefix(strings.TrimSuffix(filepath.Base(c), ".pcap"), "iwarp_")
		cases[base+".summary"] = []string{"read", "--color", "never", c}
		cases[base+".fields"] = append([]string{"read", "-T", "fields", c}, iwarpFields...)
	}
	return cases
}

// flipFPDUByte copies a pcap with one octet flipped in the payload of frame
// num (offset from the end of the frame, inside the FPDU's ULPDU).
func flipFPDUByte(t *testing.T, src string, num int, fromEnd int) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	o := 24
	for n := 1; o+16 <= len(b); n++ {
		cl := int(uint32(b[o+8]) | uint32(b[o+9])<<8 | uint32(b[o+10])<<16 | uint32(b[o+11])<<24)
		if n == num {
			b[o+16+cl-fromEnd] ^= 0x10
			break
		}
		o += 16 + cl
	}
	out := filepath.Join(t.TempDir(), "flipped.pcap")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckIwarp(t *testing.T) {
	for _, c := range []string{"iwarp_rping_crc.pcap", "wiki_iwarp_rdma__write_crc.pcap", "wiki_iwarp_send_recv__snd_recv_crc_mrkr.pcap"} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, []string{"check", "../../pcaps/iwarp/" + c}); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c, code, out, errOut)
		}
		if !strings.Contains(out.String(), "mpa.crc") || !strings.Contains(errOut.String(), "findings:") {
			t.Errorf("%s: %s", c, out)
		}
	}
	// Frame 10 of iwarp_rping_crc is a Read Response FPDU: flip a payload
	// octet 10 before the CRC; exactly frame 10 fails.
	bad := flipFPDUByte(t, "../../pcaps/iwarp/iwarp_rping_crc.pcap", 10, 10)
	io, _, out, _ := iostreams.Test()
	if code := run(io, []string{"check", "-T", "json", bad}); code != 1 {
		t.Fatalf("flipped: exit %d\n%s", code, out)
	}
	if !strings.Contains(out.String(), `"first_failing_frames": [
        10
      ]`) {
		t.Errorf("flipped: want frame 10 only\n%s", out)
	}
	io, _, out, _ = iostreams.Test()
	run(io, []string{"read", bad})
	if !strings.Contains(out.String(), "bad MPA CRC") {
		t.Errorf("no bad-CRC finding in summary:\n%s", out)
	}
	io, _, _, _ = iostreams.Test()
	if code := run(io, []string{"check", "no-such-file.pcap"}); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}

// TestIwarpLegacyMarkers: the 2008 wiki capture with markers decodes every
// FPDU (20 Writes, 20 Read Requests, 20 Read Responses, 3 Sends, as the
// same run without markers) with every marker good under the legacy rule
// rdx detects (dissect/mpa TestLegacyMarkers has the byte evidence).
func TestIwarpLegacyMarkers(t *testing.T) {
	const c = "../../pcaps/iwarp/wiki_iwarp_rdma__read_write_long_run_mrkr.pcap"
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"check", "-T", "json", c}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out.String(), `"checked": 43,
      "passed": 43,`) {
		t.Errorf("markers:\n%s", out)
	}
	io, _, out, _ = iostreams.Test()
	run(io, []string{"read", "-V", c})
	s := out.String()
	for op, n := range map[string]int{"Write (0x00)": 20, "Read Request (0x01)": 20, "Read Response (0x02)": 20, "Send (0x03)": 3} {
		if got := strings.Count(s, "OpCode: "+op); got != n {
			t.Errorf("%s: %d, want %d", op, got, n)
		}
	}
	if strings.Count(s, "markers follow a pre-RFC sender rule") != 2 {
		t.Errorf("want the legacy-rule note once per direction")
	}
}
