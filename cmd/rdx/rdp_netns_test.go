package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/dissect"
	rdpwire "github.com/rdx-project/rdx/dissect/rdp"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// TestRdpNetns moves a file between two network namespaces joined by a veth
// pair (198.51.100.1/24 and .2/24, RFC 5737) with the real binary, over raw
// IP protocol 27 and over UDP, clean and through netem loss and reordering;
// then runs rdx's dissector on each side's --pcap and compares its counts
// with the stacks' own (--stats). Needs root and iproute2.
func TestRdpNetns(t *testing.T) {
	l := newNetLab(t)
	nsA, nsB := l.nsA, l.nsB
	for _, ns := range []string{nsA, nsB} {
		l.must(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "in.bin")
	data := make([]byte, 2<<20)
	r := rand.New(rand.NewPCG(6, 27))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}

	netem := func(on bool) error {
		for _, nd := range [][2]string{{nsA, l.ifA}, {nsB, l.ifB}} {
			args := []string{"netns", "exec", nd[0], "tc", "qdisc", "del", "dev", nd[1], "root"}
			if on {
				args = []string{"netns", "exec", nd[0], "tc", "qdisc", "add", "dev", nd[1], "root", "netem",
					"loss", "5%", "reorder", "25%", "delay", "1ms"}
			}
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil && on {
				return fmt.Errorf("%v: %s", err, out)
			}
		}
		return nil
	}

	port := 7000
	for _, c := range []struct {
		name, transport string
		lossy           bool
	}{{"ip", "ip", false}, {"ip-netem", "ip", true}, {"udp-netem", "udp", true}} {
		t.Run(c.name, func(t *testing.T) {
			var shim []string
			if c.lossy {
				if err := netem(true); err != nil {
					// Without sch_netem the same impairment comes from the
					// stacks' userspace shim on both sides (--impair).
					t.Logf("LOUD: tc netem unavailable (%v); using rdx's userspace shim --impair drop=5%%,reorder=25%%,hold=4ms instead", err)
					shim = []string{"--impair", "drop=5%,reorder=25%,hold=4ms"}
				} else {
					defer netem(false)
				}
			}
			port++
			out := filepath.Join(dir, c.name+".out")
			pcapA, pcapB := filepath.Join(dir, c.name+"-listen.pcap"), filepath.Join(dir, c.name+"-send.pcap")
			common := append([]string{"--port", strconv.Itoa(port), "--transport", c.transport, "--stats", "--timeout", "20s"}, shim...)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			var lerr, serr bytes.Buffer
			lc := exec.CommandContext(ctx, "ip", append(append([]string{"netns", "exec", nsA, l.bin, "rdp", "listen"}, common...),
				"-o", out, "--pcap", pcapA)...)
			lc.Stderr = &lerr
			if err := lc.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // the SYN is resent anyway
			start := time.Now()
			sc := exec.CommandContext(ctx, "ip", append(append([]string{"netns", "exec", nsB, l.bin, "rdp", "send", "198.51.100.1"}, common...),
				"--pcap", pcapB, file)...)
			sc.Stderr = &serr
			serrRun := sc.Run()
			lerrRun := lc.Wait()
			if serrRun != nil || lerrRun != nil {
				t.Fatalf("send: %v\n%s\nlisten: %v\n%s", serrRun, serr.String(), lerrRun, lerr.String())
			}
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("file did not arrive intact: %d of %d octets (%v)", len(got), len(data), err)
			}
			ss, ls := parseStats(t, serr.String()), parseStats(t, lerr.String())
			ds, dl := dissectPcap(t, pcapB), dissectPcap(t, pcapA)
			t.Logf("%s: %d octets in %v", c.name, len(data), time.Since(start).Round(time.Millisecond))
			t.Logf("sender stack:   retransmits=%d fast=%d timeouts=%d eacks_rcvd=%d segs_sent=%d", ss["retransmits"], ss["fast_retransmits"], ss["timeouts"], ss["eacks_rcvd"], ss["segs_sent"])
			t.Logf("listener stack: eacks_sent=%d out_of_order=%d duplicates=%d segs_sent=%d", ls["eacks_sent"], ls["out_of_order"], ls["duplicates"], ls["segs_sent"])
			t.Logf("dissector:      sender retransmits=%d (send-side capture), listener EACK entries=%d (listen-side capture)", ds.Stats[0].Retransmits, dl.Stats[1].EACKs)
			if ds.Stats[0].Retransmits != ss["retransmits"] || dl.Stats[1].EACKs != ls["eacks_sent"] {
				t.Errorf("dissector and stack disagree")
			}
			if ds.Stats[0].Segments != ss["segs_sent"] {
				t.Errorf("sender segments: dissector %d, stack %d", ds.Stats[0].Segments, ss["segs_sent"])
			}
			if c.lossy && (ss["retransmits"] == 0 || ls["eacks_sent"] == 0) {
				t.Errorf("5%% loss and 25%% reordering produced no retransmissions or no EACKs")
			}
		})
	}
}

var statRe = regexp.MustCompile(`(\w+)=(\d+)`)

func parseStats(t *testing.T, stderr string) map[string]uint64 {
	t.Helper()
	i := strings.LastIndex(stderr, "rdp stats:")
	if i < 0 {
		t.Fatalf("no stats line in %q", stderr)
	}
	m := map[string]uint64{}
	for _, kv := range statRe.FindAllStringSubmatch(stderr[i:], -1) {
		m[kv[1]], _ = strconv.ParseUint(kv[2], 10, 64)
	}
	return m
}

// dissectPcap runs rdx's engine over a capture and returns the RDP
// connection it tracked.
func dissectPcap(t *testing.T, path string) rdpwire.ConnSummary {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	err := testpkt.Each(path, func(p dissect.Packet) error {
		eng.Decode(p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	eng.Finish()
	conns := eng.Instance("rdp").(*rdpwire.State).Connections(nil)
	if len(conns) != 1 {
		t.Fatalf("%s: dissector tracked %d RDP connections, want 1", path, len(conns))
	}
	return conns[0]
}
