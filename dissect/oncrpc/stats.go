package oncrpc

import (
	"fmt"
	"strconv"
	"strings"

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

// ParamStat implements dissect.ParamStatsProvider: -z rpc,srt,PROGRAM,VERSION,
// as tshark's, the response times of one program version's procedures by
// procedure number.
func (d *State) ParamStat(name string) (func() *flows.Table, bool, error) {
	rest, ok := strings.CutPrefix(name, "rpc,srt,")
	if !ok {
		return nil, false, nil
	}
	parts := strings.SplitN(rest, ",", 3)
	if len(parts) < 2 {
		return nil, true, fmt.Errorf("-z %s: want rpc,srt,PROGRAM,VERSION (numbers, e.g. rpc,srt,100003,3)", name)
	}
	prog, err1 := strconv.ParseUint(parts[0], 10, 32)
	vers, err2 := strconv.ParseUint(parts[1], 10, 32)
	if err1 != nil || err2 != nil {
		return nil, true, fmt.Errorf("-z %s: PROGRAM and VERSION are numbers (e.g. rpc,srt,100003,3)", name)
	}
	if len(parts) == 3 {
		return nil, true, fmt.Errorf("-z %s: rpc,srt with a FILTER is not supported; filter with -Y on a file written with -w", name)
	}
	return func() *flows.Table { return d.progTable(uint32(prog), uint32(vers)) }, true, nil
}

// progTable is rpc,srt,PROGRAM,VERSION: one row per procedure answered.
func (d *State) progTable(prog, vers uint32) *flows.Table {
	title := ProgramName(prog)
	if title == "" {
		title = strconv.FormatUint(uint64(prog), 10)
	}
	t := &flows.Table{Title: "ONC RPC service response time of " + title + " version " + strconv.FormatUint(uint64(vers), 10),
		Header: []string{"Index", "Procedure", "Calls", "Min", "Avg", "Max"}}
	for _, p := range d.SRT() {
		if p.Prog != prog || p.Vers != vers {
			continue
		}
		proc := p.Procedure
		if proc == "" {
			proc = strconv.FormatUint(uint64(p.Proc), 10)
		}
		t.Rows = append(t.Rows, []string{strconv.FormatUint(uint64(p.Proc), 10), proc,
			flows.U(p.Count), flows.Dur(p.MinNS), flows.Dur(p.AvgNS()), flows.Dur(p.MaxNS)})
	}
	return t
}
