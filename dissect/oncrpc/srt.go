package oncrpc

import "sort"

// maxSRT bounds the number of procedures tracked (hostile traffic could
// invent program numbers without end).
const maxSRT = 4096

type srtKey struct{ prog, vers, proc uint32 }

// ProcStat is the service response time of one procedure of one program
// version: the time from a call to its reply, over every matched reply.
type ProcStat struct {
	Prog, Vers, Proc uint32
	Program          string // "NFS" ("" if unknown)
	Procedure        string // "GETATTR" ("" if unknown)
	Count            uint64 // replies matched to their call
	MinNS, MaxNS     int64
	TotalNS          int64
}

// AvgNS is the mean response time in nanoseconds.
func (p ProcStat) AvgNS() int64 {
	if p.Count == 0 {
		return 0
	}
	return p.TotalNS / int64(p.Count)
}

func (d *State) addSRT(ci *CallInfo, rtt int64) {
	k := srtKey{ci.Prog, ci.Vers, ci.Proc}
	s, ok := d.srt[k]
	if !ok {
		if len(d.srt) >= maxSRT {
			return
		}
		s = &ProcStat{Prog: k.prog, Vers: k.vers, Proc: k.proc, MinNS: rtt, MaxNS: rtt}
		d.srt[k] = s
	}
	s.Count++
	s.TotalNS += rtt
	s.MinNS = min(s.MinNS, rtt)
	s.MaxNS = max(s.MaxNS, rtt)
}

// SRT returns the response-time statistics per program, version and
// procedure seen so far (each reply counted once, in the first pass of a
// two-pass read), sorted by program, version, procedure (tests reach it
// with e.Instance(oncrpc.Name).(*oncrpc.State).SRT()).
func (d *State) SRT() []ProcStat {
	out := make([]ProcStat, 0, len(d.srt))
	for _, s := range d.srt {
		p := *s
		p.Program = ProgramName(p.Prog)
		p.Procedure = ProcName(p.Prog, p.Vers, p.Proc)
		out = append(out, p)
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
