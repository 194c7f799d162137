package dissect

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rdx-project/rdx/flows"
)

// The engine's whole-capture -z tables: expert, io,phs and io,stat
// (flows/tally.go), counted at the end of every frame when Options.ZStats
// asks for them; endpoints,* are made from the conversations.

// tally holds the tables a read asked for; nil when none.
type tally struct {
	expert *flows.Expert
	phs    *flows.PHS
	io     []ioTally
	convs  []*filtConv    // conv,TYPE,FILTER and endpoints,TYPE,FILTER (zfilter.go)
	params []paramCounter // a dissector's tables with a FILTER (rpc,srt,PROGRAM,VERSION,FILTER)
}

type ioTally struct {
	name string
	s    flows.IOStat // every frame: the intervals
	cols []ioCol      // FILTER columns (zfilter.go); none: s's frames and bytes
}

// ParseIOStat parses "io,stat,INTERVAL" (seconds, decimals allowed; 0: one
// interval over the whole capture) into nanoseconds and the decimals given.
func ParseIOStat(name string) (ns int64, prec int, err error) {
	ns, err = parseIOStat(name)
	rest, _ := strings.CutPrefix(name, "io,stat,")
	iv, _, _ := strings.Cut(rest, ",")
	if _, frac, ok := strings.Cut(iv, "."); ok {
		prec = min(len(frac), 9)
	}
	return ns, prec, err
}

func parseIOStat(name string) (int64, error) {
	rest, ok := strings.CutPrefix(name, "io,stat,")
	if !ok {
		return 0, errors.New("not io,stat")
	}
	iv, _, _ := strings.Cut(rest, ",")
	v, err := strconv.ParseFloat(iv, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v > 1e9 {
		return 0, fmt.Errorf("-z %s: the interval must be a number of seconds, e.g. io,stat,0.1", name)
	}
	ns := int64(math.Round(v * 1e9))
	if v > 0 && ns == 0 {
		return 0, fmt.Errorf("-z %s: the interval is shorter than a nanosecond", name)
	}
	return ns, nil
}

// statTemplates are the -z names with a parameter, as `-z help` lists them
// (plot=FILE is rdx read's: it draws the io,stat frames with rdx plot io).
var statTemplates = []string{"io,stat,INTERVAL", "io,stat,INTERVAL,FILTER...", "io,stat,INTERVAL,COUNT|SUM|MIN|MAX|AVG|LOAD(FIELD)FILTER", "io,stat,INTERVAL,plot=FILE", "conv,TYPE,FILTER", "endpoints,TYPE,FILTER",
	"rpc,srt,PROGRAM,VERSION", "rpc,srt,PROGRAM,VERSION,FILTER"}

// StatHelp lists the -z tables for -z help: every name StatNames lists and
// the forms with a parameter, sorted.
func (e *Engine) StatHelp() []string {
	out := append(e.StatNames(), statTemplates...)
	sort.Strings(out)
	return out
}

// tallyNames are the whole-capture tables without a parameter.
var tallyNames = []string{"expert", "io,phs"}

// CheckStat reports whether name is a -z table of this engine: a name
// StatNames lists, or io,stat,INTERVAL.
func (e *Engine) CheckStat(name string) error {
	if strings.HasPrefix(name, "io,stat,") {
		if _, _, err := ParseIOStat(name); err != nil {
			return err
		}
		_, err := e.parseIOCols(name, ioCols(name))
		return err
	}
	if ok, err := e.checkFiltered(name); ok {
		return err
	}
	if ok, err := e.checkParam(name); ok {
		return err
	}
	for _, n := range e.StatNames() {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("-z %s: unknown statistics (known: %s)", name, strings.Join(e.StatNames(), ", "))
}

// ioCols are the columns of an io,stat name after its interval.
func ioCols(name string) []string {
	rest, _ := strings.CutPrefix(name, "io,stat,")
	_, cols, ok := strings.Cut(rest, ",")
	if !ok {
		return nil
	}
	return strings.Split(cols, ",")
}

func newTally(e *Engine, names []string) *tally {
	var t *tally
	get := func() *tally {
		if t == nil {
			t = &tally{}
		}
		return t
	}
	for _, n := range names {
		switch {
		case n == "expert":
			get().expert = &flows.Expert{}
		case n == "io,phs":
			get().phs = &flows.PHS{}
		case strings.HasPrefix(n, "io,stat,"):
			iv, prec, err := ParseIOStat(n)
			if err != nil { // the caller checks names (CheckStat) first
				continue
			}
			cols, err := e.parseIOCols(n, ioCols(n))
			if err != nil {
				continue
			}
			for i := range cols {
				cols[i].s.Interval, cols[i].s.Prec = iv, prec
			}
			get().io = append(t.io, ioTally{name: n, s: flows.IOStat{Interval: iv, Prec: prec}, cols: cols})
		default:
			if _, flt, ok := splitZ(n); ok {
				get().filtered(e, flt)
			}
		}
	}
	return t
}

// count adds the engine's current frame to the tables. A full table says
// so in its "other" row and in TallyFindings at the end, not on a frame:
// which frame first finds a table full depends on how -j shards the
// frames, and the output must not.
func (t *tally) count(e *Engine, f *Frame) {
	if t.phs != nil {
		var buf [256]byte
		t.phs.Add(e.ProtoChain(buf[:0], f), f.WireLen, f.Num)
	}
	for i := range t.io {
		t.io[i].s.Add(f.TimeNS-e.firstTime, f.WireLen)
	}
	if t.expert != nil {
		for i := range f.Findings {
			g := &f.Findings[i]
			t.expert.Add(flows.ExpertKey{Sev: uint8(g.Sev), Group: g.Group.String(), Proto: g.Proto, Msg: g.Msg}, f.Num, i)
		}
	}
}

func (t *tally) reset() {
	if t.expert != nil {
		t.expert.Reset()
	}
	if t.phs != nil {
		t.phs.Reset()
	}
	for i := range t.io {
		t.io[i].s.Reset()
		for j := range t.io[i].cols {
			t.io[i].cols[j].s.Reset()
		}
	}
	for _, fc := range t.convs {
		fc.convs.Reset()
	}
	for _, p := range t.params {
		p.c.Reset()
	}
}

// merge adds from's counts (the same names asked).
func (t *tally) merge(from *tally) {
	if t == nil || from == nil {
		return
	}
	if t.expert != nil && from.expert != nil {
		t.expert.Merge(from.expert)
	}
	if t.phs != nil && from.phs != nil {
		t.phs.Merge(from.phs)
	}
	for i := range t.io {
		if i < len(from.io) && from.io[i].name == t.io[i].name {
			t.io[i].s.Merge(&from.io[i].s)
			for j := range t.io[i].cols {
				if j < len(from.io[i].cols) {
					t.io[i].cols[j].s.Merge(&from.io[i].cols[j].s)
				}
			}
		}
	}
	for i, fc := range t.convs {
		if i < len(from.convs) && from.convs[i].filter == fc.filter {
			fc.convs.Merge(&from.convs[i].convs)
		}
	}
	for i, p := range t.params {
		if i < len(from.params) && from.params[i].name == p.name {
			p.c.Merge(from.params[i].c)
		}
	}
}

// TallyFindings are the end-of-run findings of the -z expert, io,phs and
// io,stat tables: one per table that went over its limit (MaxExpertRows,
// MaxPHSChains, MaxIOIntervals) and counted the rest in its "other" row.
// They are the same for one engine and for -j engines merged (Merge): a
// table goes over its limit when the whole capture has more distinct rows
// than it keeps, however the frames were sharded.
func (e *Engine) TallyFindings() []Finding {
	t := e.tly
	if t == nil {
		return nil
	}
	var out []Finding
	full := func(name string, limit int, what, row string) {
		out = append(out, Finding{Sev: Warn, Group: GroupUndecoded, Proto: "rdx", PDU: -1,
			Msg: "-z " + name + ": the table keeps " + strconv.Itoa(limit) + " " + what + "; the rest are counted in its \"" + row + "\" row"})
	}
	if t.expert != nil && t.expert.Full() {
		full("expert", flows.MaxExpertRows, "messages", "other messages")
	}
	if t.phs != nil && t.phs.Full() {
		full("io,phs", flows.MaxPHSChains, "protocol chains", "other chains")
	}
	for i := range t.io {
		if t.io[i].s.Full() {
			full(t.io[i].name, flows.MaxIOIntervals, "intervals", "later")
		}
	}
	return out
}

var sevNames = []string{"", Note.String(), Warn.String(), Error.String()}

// tallyTable builds a table of the tally by name, nil if none.
func (e *Engine) tallyTable(name string) *StatTable {
	if t := e.filteredTable(name); t != nil {
		return t
	}
	if strings.HasPrefix(name, "endpoints,") {
		return e.convs.Endpoints(name)
	}
	t := e.tly
	if t == nil {
		return nil
	}
	for _, p := range t.params {
		if p.name == name {
			tab := p.c.Table()
			tab.Title += " (filter: " + p.m.String() + ")"
			return tab
		}
	}
	switch {
	case name == "expert" && t.expert != nil:
		return t.expert.Table(sevNames)
	case name == "io,phs" && t.phs != nil:
		return t.phs.Table()
	}
	for i := range t.io {
		if io := &t.io[i]; io.name == name {
			cols := make([]flows.IOColumn, len(io.cols))
			for j := range io.cols {
				c := &io.cols[j]
				cols[j] = flows.IOColumn{Legend: c.text, S: &c.s}
			}
			return io.s.TableWith(cols)
		}
	}
	return nil
}
