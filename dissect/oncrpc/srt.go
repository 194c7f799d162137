package oncrpc

import (
	"sort"

	"github.com/rdx-project/rdx/flows"
)

type srtKey struct{ prog, vers, proc uint32 }

// ProcStat is the service response time of one procedure of one program
// version: the time from a call to its reply, over every matched reply
// (flows.Times: Count, MinNS, MaxNS, TotalNS, AvgNS).
type ProcStat struct {
	Prog, Vers, Proc uint32
	Program          string // "NFS" ("" if unknown)
	Procedure        string // "GETATTR" ("" if unknown)
	flows.Times
}

func (d *State) addSRT(ci *CallInfo, rtt int64, frame uint64) {
	d.srt.Add(srtKey{ci.Prog, ci.Vers, ci.Proc}, rtt, frame)
}

// SRT returns the response-time statistics per program, version and
// procedure seen so far (each reply counted once, in the first pass of a
// two-pass read), sorted by program, version, procedure (tests reach it
// with e.Instance(oncrpc.Name).(*oncrpc.State).SRT()).
func (d *State) SRT() []ProcStat { return procStats(&d.srt) }

func procStats(srt *flows.SRT[srtKey]) []ProcStat {
	out := make([]ProcStat, 0, srt.Len())
	for _, k := range srt.Keys() {
		out = append(out, ProcStat{Prog: k.prog, Vers: k.vers, Proc: k.proc, Program: ProgramName(k.prog),
			Procedure: ProcName(k.prog, k.vers, k.proc), Times: *srt.Get(k)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Prog != b.Prog {
			return a.Prog < b.Prog
		}
		if a.Vers != b.Vers {
			return a.Vers < b.Vers
		}
		return a.Proc < b.Proc
	})
	return out
}
