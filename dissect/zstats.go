package dissect

import (
	"errors"
	"fmt"
	"math"
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
	full   [3]bool // a table already said it is full (expert, phs, io)
}

type ioTally struct {
	name string
	s    flows.IOStat
}

// ParseIOStat parses "io,stat,INTERVAL" (seconds, decimals allowed; 0: one
// interval over the whole capture) into nanoseconds.
func ParseIOStat(name string) (int64, error) {
	rest, ok := strings.CutPrefix(name, "io,stat,")
	if !ok {
		return 0, errors.New("not io,stat")
	}
	iv, filters, _ := strings.Cut(rest, ",")
	if filters != "" {
		return 0, fmt.Errorf("-z %s: io,stat filters (columns per FILTER) are not supported yet; use io,stat,%s", name, iv)
	}
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

// statTemplates are the -z names with a parameter, as `-z help` lists them.
var statTemplates = []string{"io,stat,INTERVAL"}

// tallyNames are the whole-capture tables without a parameter.
var tallyNames = []string{"expert", "io,phs"}

// CheckStat reports whether name is a -z table of this engine: a name
// StatNames lists, or io,stat,INTERVAL.
func (e *Engine) CheckStat(name string) error {
	if strings.HasPrefix(name, "io,stat,") {
		_, err := ParseIOStat(name)
		return err
	}
	for _, n := range e.StatNames() {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("-z %s: unknown statistics (known: %s)", name, strings.Join(e.StatNames(), ", "))
}

func newTally(names []string) *tally {
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
			iv, err := ParseIOStat(n)
			if err != nil { // the caller checks names (CheckStat) first
				continue
			}
			get().io = append(t.io, ioTally{name: n, s: flows.IOStat{Interval: iv}})
		}
	}
	return t
}

// count adds the engine's current frame to the tables; a table that is
// full says so once, with a finding on the frame that found it full.
func (t *tally) count(e *Engine, f *Frame) {
	var full [3]bool
	if t.phs != nil {
		var buf [256]byte
		full[1] = t.phs.Add(e.ProtoChain(buf[:0], f), f.WireLen, f.Num)
	}
	for i := range t.io {
		if t.io[i].s.Add(f.TimeNS-e.firstTime, f.WireLen) {
			full[2] = true
		}
	}
	for i := range full[1:] {
		t.fullFinding(f, i+1, full[i+1])
	}
	if t.expert != nil { // last: the findings above count too
		n := len(f.Findings)
		for i := 0; i < n; i++ {
			g := &f.Findings[i]
			if t.expert.Add(flows.ExpertKey{Sev: uint8(g.Sev), Group: g.Group.String(), Proto: g.Proto, Msg: g.Msg}) {
				full[0] = true
			}
		}
		t.fullFinding(f, 0, full[0])
	}
}

var tallyTables = [3]string{"expert", "io,phs", "io,stat"}

func (t *tally) fullFinding(f *Frame, i int, full bool) {
	if !full || t.full[i] {
		return
	}
	t.full[i] = true
	f.AddFinding(-1, Warn, GroupUndecoded, nil, "rdx", "-z "+tallyTables[i]+
		" table is full: later entries are counted in its \"other\" row")
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
	}
	t.full = [3]bool{}
}

// merge adds from's counts (the same names asked); findings for a table the
// merge filled.
func (t *tally) merge(from *tally) []Finding {
	if t == nil || from == nil {
		return nil
	}
	var out []Finding
	note := func(i int) {
		if !t.full[i] {
			t.full[i] = true
			out = append(out, Finding{Sev: Warn, Group: GroupUndecoded, Proto: "rdx", PDU: -1,
				Msg: "-z " + tallyTables[i] + " table is full: later entries are counted in its \"other\" row"})
		}
	}
	if t.expert != nil && from.expert != nil && t.expert.Merge(from.expert) {
		note(0)
	}
	if t.phs != nil && from.phs != nil && t.phs.Merge(from.phs) {
		note(1)
	}
	for i := range t.io {
		if i < len(from.io) && from.io[i].name == t.io[i].name {
			t.io[i].s.Merge(&from.io[i].s)
		}
	}
	return out
}

var sevNames = []string{"", Note.String(), Warn.String(), Error.String()}

// tallyTable builds a table of the tally by name, nil if none.
func (e *Engine) tallyTable(name string) *StatTable {
	if strings.HasPrefix(name, "endpoints,") {
		return e.convs.Endpoints(name)
	}
	t := e.tly
	if t == nil {
		return nil
	}
	switch {
	case name == "expert" && t.expert != nil:
		return t.expert.Table(sevNames)
	case name == "io,phs" && t.phs != nil:
		return t.phs.Table()
	}
	for i := range t.io {
		if t.io[i].name == name {
			return t.io[i].s.Table()
		}
	}
	return nil
}
