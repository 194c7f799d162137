package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/internal/iostreams"
)

func TestCheckUsage(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	if code := run(io, []string{"check"}); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	io, _, _, _ = iostreams.Test()
	if code := run(io, []string{"check", "-T", "xml", "x.pcap"}); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
	// Every registered check appears in JSON, even with no PDU checked; the
	// table shows the ones that ran and says how many did not apply.
	io, _, out, _ := iostreams.Test()
	if code := run(io, []string{"check", "-T", "json", "../../pcaps/iwarp/iwarp_rping.pcap"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range []string{"mpa.crc", "mpa.marker", "infiniband.icrc"} {
		if !strings.Contains(out.String(), c) {
			t.Errorf("missing %s:\n%s", c, out)
		}
	}
	io, _, out, _ = iostreams.Test()
	if code := run(io, []string{"check", "../../pcaps/iwarp/iwarp_rping.pcap"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "2 of ") || strings.Contains(out.String(), "mpa.crc") || !strings.Contains(out.String(), "tcp.checksum") {
		t.Errorf("table of a capture without CRC:\n%s", out)
	}
}

// TestCheckFlags: -i/-f/-c parse as for rdx read; a file and -i together,
// or neither, are usage errors; rdx check FILE is unchanged.
func TestCheckFlags(t *testing.T) {
	var got *CheckOptions
	runF := func(o *CheckOptions) error { got = o; return nil }
	check := func(io *iostreams.IO, args []string) int { return execCmd(newCmdCheck(io, runF), args[1:]) }
	io, _, _, _ := iostreams.Test()
	if code := check(io, []string{"check", "-i", "eth1", "-f", "tcp port 4210", "-c", "50", "-T", "json"}); code != 0 || got == nil {
		t.Fatalf("check -i: exit %d", code)
	}
	if got.Iface != "eth1" || got.CapFilter != "tcp port 4210" || got.Count != 50 || got.File != "" || got.Format != "json" {
		t.Errorf("check -i parsed as %+v", got)
	}
	got = nil
	io, _, _, _ = iostreams.Test()
	if code := check(io, []string{"check", "x.pcap"}); code != 0 || got == nil || got.File != "x.pcap" || got.Iface != "" {
		t.Errorf("check FILE: exit %d, %+v", code, got)
	}
	got = nil // several files are checked together (issue 15), no more a usage error
	if code := check(io, []string{"check", "a.pcap", "b.pcap"}); code != 0 || got == nil || !slices.Equal(got.Files, []string{"a.pcap", "b.pcap"}) {
		t.Errorf("check a.pcap b.pcap: exit %d, %+v", code, got)
	}
	for _, args := range [][]string{{"check", "-i", "eth1", "x.pcap"}, {"check"}, {"check", "-i", "eth1", "a.pcap", "b.pcap"}} {
		got = nil
		io, _, _, _ = iostreams.Test()
		if code := check(io, args); code != 2 || got != nil {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// TestCheckLive replays the synthesized marker capture through a veth pair
// between two network namespaces and runs `rdx check -i` on the receiving
// end: every FPDU's CRC and markers are checked live. Needs root and
// iproute2 (skipped loudly otherwise).
func TestCheckLive(t *testing.T) {
	l := newNetLab(t)
	const pcap = "../../pcaps/iwarp/synth_markers_tshark_fails.pcap" // 24 frames, 19 FPDUs
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	chk := exec.CommandContext(ctx, "ip", "netns", "exec", l.nsB, l.bin, "check", "-i", l.ifB, "-f", "tcp port 4210", "-c", "24", "-T", "json")
	var out bytes.Buffer
	var errOut syncBuf // read below while rdx writes to it
	chk.Stdout, chk.Stderr = &out, &errOut
	if err := chk.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the capture to be open before sending: a replay sent before
	// it is lost, and check -c 24 would wait out the minute.
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(errOut.String(), "capturing on"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("rdx check -i: no 'capturing on' after 20 s: %s", errOut.String())
		}
	}
	if o, err := exec.CommandContext(ctx, "ip", "netns", "exec", l.nsA, l.bin, "replay", pcap, "-i", l.ifA, "--topspeed").CombinedOutput(); err != nil {
		t.Fatalf("replay: %v\n%s", err, o)
	}
	if err := chk.Wait(); err != nil {
		t.Fatalf("rdx check -i: %v\n%s%s", err, out.String(), errOut.String())
	}
	var res struct {
		Iface  string `json:"interface"`
		Frames int    `json:"frames"`
		Checks []struct {
			Check                   string
			Checked, Passed, Failed int
		} `json:"checks"`
		OK bool `json:"ok"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	n := map[string]int{}
	for _, c := range res.Checks {
		n[c.Check] = c.Passed
		if c.Failed != 0 {
			t.Errorf("%s: %d failed", c.Check, c.Failed)
		}
	}
	// The same counts as rdx check on the file: 19 FPDU CRCs, 12 FPDUs
	// with markers.
	if !res.OK || res.Iface != l.ifB || res.Frames != 24 || n["mpa.crc"] != 19 || n["mpa.marker"] != 12 {
		t.Errorf("live check: %+v\n%s", res, errOut.String())
	}
	io, _, fout, _ := iostreams.Test()
	if code := run(io, []string{"check", "-T", "json", pcap}); code != 0 ||
		!strings.Contains(fout.String(), `"check": "mpa.marker",
      "proto": "iwarp_mpa",
      "description": "marker FPDU back-pointers at every 512-octet position",
      "checked": 12,`) {
		t.Errorf("file check: exit %d\n%s", code, fout)
	}
}

// TestCheckCapturesExit: a clean transfer never fails check. rdx check
// verifies the IPv4, UDP and TCP checksums (loopback captures' offloaded
// ones are not checked, and say so) and exits 1 on any error finding; of
// the captures in pcaps/ exactly these have errors, each also Bad for
// tshark -o ip/udp/tcp.check_checksum:TRUE.
func TestCheckCapturesExit(t *testing.T) {
	bad := map[string]string{
		"crafted/base_fields.pcap":                            "ip.checksum",  // hand-built, checksums left 0 or stale
		"iwarp/wiki_iwarp_connect__C00_M00_reject.pcap":       "tcp.checksum", // frame 6: tshark "should be 0xf5bc"
		"public/the-tcpdump-group+tcpdump__rx_ubik-oobr.pcap": "ip.checksum",  // tcpdump's fuzzed regression input
		"the-tcpdump-group+tcpdump__rx_serviceid_oobr.pcap":   "ip.checksum",
	}
	var files []string
	for _, pat := range []string{"*.pcap", "*.cap.gz", "*/*.pcap", "*/*.pcapng"} {
		m, _ := filepath.Glob(filepath.Join("../../pcaps", pat))
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d captures found", len(files))
	}
	offloaded := false
	for _, f := range files {
		rel, _ := filepath.Rel("../../pcaps", f)
		io, _, out, errOut := iostreams.Test()
		code := run(io, []string{"check", f})
		if want, ok := bad[rel]; ok {
			if code != exitFindings || !strings.Contains(out.String(), want) {
				t.Errorf("%s: exit %d, want 1 with %s failing:\n%s%s", rel, code, want, out, errOut)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d:\n%s%s", rel, code, out, errOut)
		}
		offloaded = offloaded || strings.Contains(out.String(), "likely offloaded")
	}
	if !offloaded {
		t.Error("no capture's checksums counted as offloaded (the rx/ captures are from loopback)")
	}
}
