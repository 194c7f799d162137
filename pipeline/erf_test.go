package pipeline_test

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

// TestWriteERF: -w x.pcapng from a pcap of ERF records keeps each
// record's own nanosecond time (the pcap record had microseconds) and puts
// each ERF interface on its own pcapng interface, numbered as read, as
// tshark writes them, on one worker and on two.
func TestWriteERF(t *testing.T) {
	const in = "../pcaps/ib/infiniband_erf.pcap"
	orig := testpkt.ReadAll(t, in)
	for _, j := range []int{1, 2} {
		out := filepath.Join(t.TempDir(), "erf"+strconv.Itoa(j)+".pcapng")
		if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: in}, Quiet: true, Out: io.Discard,
			Write: out, Workers: j}); err != nil {
			t.Fatal(err)
		}
		got := testpkt.ReadAll(t, out)
		if len(got) != len(orig) {
			t.Fatalf("-j %d: %d frames written, %d read", j, len(got), len(orig))
		}
		subus, ifaces := 0, map[int]bool{}
		for i, o := range orig {
			g := got[i]
			want := dissect.FrameTimeNS(o.LinkType, o.Data, o.CapLen, o.WireLen, o.TimeNS)
			if g.TimeNS != want || g.Iface != o.Iface || g.LinkType != dissect.LinkTypeERF || string(g.Data) != string(o.Data) {
				t.Errorf("-j %d frame %d: time %d iface %d, want the ERF header's %d and iface %d", j, i+1, g.TimeNS, g.Iface, want, o.Iface)
			}
			if g.TimeNS%1000 != 0 {
				subus++
			}
			ifaces[g.Iface] = true
		}
		if subus == 0 || len(ifaces) != 2 {
			t.Errorf("-j %d: %d times below the microsecond, %d interfaces: the capture should have both", j, subus, len(ifaces))
		}
	}
}

// TestWorkersStreamsIPoIB: TestWorkersStreams's TCP and UDP between 40
// host pairs, carried as IP over InfiniBand in ERF records, each host pair
// between its own LIDs (the ICMP errors from a router's): tcp.stream and
// udp.stream count the whole capture's conversations with -j 3 as with
// -j 1, though the workers each see the LID pairs the shard key gives them.
func TestWorkersStreamsIPoIB(t *testing.T) {
	const hosts = 40
	var frames [][]byte
	for _, p := range streamFlows(hosts) {
		ip := p.Data
		slid, dlid := uint16(ip[14])<<8|uint16(ip[15]), uint16(ip[18])<<8|uint16(ip[19])
		frames = append(frames, testpkt.ERFIB(p.TimeNS, 0, slid, dlid, 0x64, 2, 0, testpkt.IPoIB(0x0800, ip)))
	}
	path := filepath.Join(t.TempDir(), "ipoib.pcap")
	testpkt.WriteFrames(t, path, dissect.LinkTypeERF, 1000, frames)
	cfg := pipeline.Config{Input: pipeline.Input{File: path},
		Print: pipeline.Print{Format: "fields", Fields: []string{"frame.number", "frame.protocols", "tcp.stream", "udp.stream"}}}
	_, _, want := sameOnWorkers(t, cfg, 3)
	tcps, udps := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 4 || !strings.HasPrefix(f[1], "erf:infiniband:ethertype:ip") {
			t.Fatalf("line %q", l)
		}
		if f[2] != "" {
			tcps[f[2]] = true
		}
		if f[3] != "" {
			udps[f[3]] = true
		}
	}
	if len(tcps) != 3*hosts || len(udps) != 7*hosts {
		t.Errorf("%d tcp.stream and %d udp.stream numbers, want %d and %d", len(tcps), len(udps), 3*hosts, 7*hosts)
	}
}

// TestIPoIBInfo: the Info of IP over InfiniBand that nothing above UDP or
// TCP decoded ends with what the transport says, as an Ethernet frame's
// does (tshark's whole Info there): after the InfiniBand packet's summary.
func TestIPoIBInfo(t *testing.T) {
	var out strings.Builder
	if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: "../pcaps/ib/infiniband_erf.pcap"}, Out: &out,
		Count: 4}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[2], " UDP ") || !strings.HasSuffix(lines[2], "[VCRC ok]; UDP 49501 → 49501 Len=68") ||
		strings.Contains(lines[0], "; UDP") {
		t.Errorf("summary:\n%s", out.String())
	}
}
