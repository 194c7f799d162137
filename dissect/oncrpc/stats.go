package oncrpc

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
)

// Stats implements flows.Provider: -z rpc,srt.
func (d *State) Stats() []flows.Stat { return []flows.Stat{{Name: "rpc,srt", Table: d.srtTable}} }

// srtTable is the service response time per program, version and
// procedure, as tshark's -z rpc,srt (over TCP and RDMA alike).
func (d *State) srtTable() *flows.Table {
	t := &flows.Table{Title: "ONC RPC service response time",
		Header: []string{"Program", "Version", "Procedure", "Calls", "Min", "Avg", "Max"}}
	for _, p := range d.SRT() {
		prog, proc := p.Program, p.Procedure
		if prog == "" {
			prog = strconv.FormatUint(uint64(p.Prog), 10)
		}
		if proc == "" {
			proc = strconv.FormatUint(uint64(p.Proc), 10)
		}
		t.Rows = append(t.Rows, []string{prog, strconv.FormatUint(uint64(p.Vers), 10), proc,
			flows.U(p.Count), flows.Dur(p.MinNS), flows.Dur(p.AvgNS()), flows.Dur(p.MaxNS)})
	}
	return t
}

// MergeStats implements dissect.StatsMerger: from's response times (another
// engine's calls) are added to d's.
func (d *State) MergeStats(from dissect.Dissector) []dissect.Finding {
	if o, ok := from.(*State); ok {
		d.srt.Merge(&o.srt)
	}
	return nil
}
