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

// TagFrames implements dissect.FrameTagger.
func (d *State) TagFrames(tag uint64) { d.srt.TagFrames(tag) }

// MergeStats implements dissect.StatsMerger: from's response times (another
// engine's calls) are added to d's.
func (d *State) MergeStats(from dissect.Dissector) []dissect.Finding {
	if o, ok := from.(*State); ok {
		d.srt.Merge(&o.srt)
	}
	return nil
}

// ParamStat implements dissect.ParamStatsProvider: -z rpc,srt,PROGRAM,VERSION
// and rpc,srt,PROGRAM,VERSION,FILTER, as tshark's: the response times of one
// program version's procedures, by procedure number; with a FILTER, of the
// replies in frames it matches.
func (d *State) ParamStat(name string) (dissect.ParamTable, bool, error) {
	rest, ok := strings.CutPrefix(name, "rpc,srt,")
	if !ok {
		return dissect.ParamTable{}, false, nil
	}
	parts := strings.SplitN(rest, ",", 3)
	if len(parts) < 2 {
		return dissect.ParamTable{}, true, fmt.Errorf("-z %s: want rpc,srt,PROGRAM,VERSION[,FILTER] (numbers, e.g. rpc,srt,100003,3)", name)
	}
	prog, err1 := strconv.ParseUint(parts[0], 10, 32)
	vers, err2 := strconv.ParseUint(parts[1], 10, 32)
	if err1 != nil || err2 != nil {
		return dissect.ParamTable{}, true, fmt.Errorf("-z %s: PROGRAM and VERSION are numbers (e.g. rpc,srt,100003,3)", name)
	}
	p, v := uint32(prog), uint32(vers)
	if len(parts) == 3 && strings.TrimSpace(parts[2]) != "" {
		return dissect.ParamTable{Filter: parts[2], Counter: func() dissect.FrameCounter {
			fs := &filtSRT{d: d, prog: p, vers: v}
			d.filt = append(d.filt, fs)
			return fs
		}}, true, nil
	}
	return dissect.ParamTable{Build: func() *flows.Table { return progTable(&d.srt, p, v) }}, true, nil
}

// progTable is rpc,srt,PROGRAM,VERSION: one row per procedure answered.
func progTable(srt *flows.SRT[srtKey], prog, vers uint32) *flows.Table {
	title := ProgramName(prog)
	if title == "" {
		title = strconv.FormatUint(uint64(prog), 10)
	}
	t := &flows.Table{Title: "ONC RPC service response time of " + title + " version " + strconv.FormatUint(uint64(vers), 10),
		Header: []string{"Index", "Procedure", "Calls", "Min", "Avg", "Max"}}
	for _, p := range procStats(srt) {
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

// loggedSRT is one reply of the current frame (State.frameLog).
type loggedSRT struct {
	k   srtKey
	rtt int64
}

// logSRT notes a matched reply of frame for the filtered tables. The log
// holds one frame's replies: it grows to the most replies one frame
// carries, not with the input.
func (d *State) logSRT(ci *CallInfo, rtt int64, frame uint64) {
	if len(d.filt) == 0 {
		return
	}
	if frame != d.logFrame {
		d.frameLog, d.logFrame = d.frameLog[:0], frame
	}
	d.frameLog = append(d.frameLog, loggedSRT{srtKey{ci.Prog, ci.Vers, ci.Proc}, rtt})
}

// filtSRT is one -z rpc,srt,PROGRAM,VERSION,FILTER table
// (dissect.FrameCounter): the engine calls CountFrame for the frames its
// filter matches.
type filtSRT struct {
	d          *State
	prog, vers uint32
	srt        flows.SRT[srtKey]
}

// TagFrames implements dissect.FrameTagger.
func (fs *filtSRT) TagFrames(tag uint64) { fs.srt.TagFrames(tag) }

// CountFrame counts the replies of the program version logged for f.
func (fs *filtSRT) CountFrame(f *dissect.Frame) {
	if fs.d.logFrame != f.Num {
		return
	}
	for _, l := range fs.d.frameLog {
		if l.k.prog == fs.prog && l.k.vers == fs.vers {
			fs.srt.Add(l.k, l.rtt, f.Num)
		}
	}
}

func (fs *filtSRT) Table() *flows.Table { return progTable(&fs.srt, fs.prog, fs.vers) }

func (fs *filtSRT) Merge(from dissect.FrameCounter) {
	if o, ok := from.(*filtSRT); ok {
		fs.srt.Merge(&o.srt)
	}
}

func (fs *filtSRT) Reset() { fs.srt.Reset() }
