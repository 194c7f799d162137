package pipeline_test

import (
	"io"
	"path/filepath"
	"strconv"
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
