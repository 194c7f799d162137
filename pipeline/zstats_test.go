package pipeline

import (
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
)

// The engine's -z expert, io,phs and io,stat tables cost no allocation per
// frame once they hold the capture's rows: the capture is decoded once to
// warm up, then again frame by frame, counted.
func TestZStatsNoAllocPerFrame(t *testing.T) {
	src, err := capture.Open("../pcaps/rx/pts-ops.pcap")
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := capture.ReadAll(src)
	src.Close()
	if err != nil || len(pkts) == 0 {
		t.Fatal(len(pkts), err)
	}
	decode := func(e *dissect.Engine) {
		for i := range pkts {
			p := &pkts[i]
			e.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: p.TimeNS, CapLen: p.CapLen, WireLen: p.WireLen,
				LinkType: p.LinkType, Data: p.Data})
		}
	}
	measure := func(z []string) float64 {
		e := dissect.NewEngine(dissect.Options{ZStats: z})
		decode(e)
		return testing.AllocsPerRun(3, func() { decode(e) })
	}
	base := measure(nil)
	with := measure([]string{"expert", "io,phs", "io,stat,0.01"})
	t.Logf("allocations per pass of %d frames: %v without the tables, %v with", len(pkts), base, with)
	if with > base {
		t.Errorf("%v allocations per pass with the tables, %v without", with, base)
	}
}
