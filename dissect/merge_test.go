package dissect

import (
	"testing"

	"github.com/rdx-project/rdx/flows"
)

// Merge adds the engine-level counters: tcp,analysis per flag and its
// forgotten directions, conversations and the merged engines' findings.
func TestEngineMerge(t *testing.T) {
	e, o := NewEngine(Options{}), NewEngine(Options{})
	e.tcpStats[0], o.tcpStats[0], o.tcpStats[2] = 1, 2, 5
	o.tcpTab.drops = 4
	o.convs.Between(flows.RDP, flows.Endpoint{}, flows.Endpoint{QP: 1}, 0, 10, 0, 1)
	o.mergeFindings = []Finding{{Msg: "dropped"}}
	e.Merge(o)
	if e.tcpStats[0] != 3 || e.tcpStats[2] != 5 || e.tcpTab.drops != 4 {
		t.Errorf("tcp stats %v drops %d", e.tcpStats, e.tcpTab.drops)
	}
	tab := e.Stat("tcp,analysis")
	if last := tab.Rows[len(tab.Rows)-1]; last[1] != "4" {
		t.Errorf("forgotten directions row %q", last)
	}
	if rows := e.Stat("conv,rdp").Rows; len(rows) != 1 || rows[0][3] != "10" {
		t.Errorf("conv,rdp %q", rows)
	}
	if fs := e.MergeFindings(); len(fs) != 1 || fs[0].Msg != "dropped" {
		t.Errorf("merge findings %+v", fs)
	}
	e.Merge(e) // no-op, not a doubling
	if e.tcpStats[0] != 3 {
		t.Errorf("merging an engine into itself counted twice: %v", e.tcpStats)
	}
}
