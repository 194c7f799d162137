package dissect

import (
	"fmt"
	"strings"

	"github.com/rdx-project/rdx/flows"
)

// The -z forms with a display FILTER, as tshark's: conv,TYPE,FILTER,
// endpoints,TYPE,FILTER and io,stat,INTERVAL,COLUMN... where a COLUMN is a
// FILTER (frames and bytes of the matching frames) or COUNT(FIELD)FILTER /
// SUM(FIELD)FILTER. A filter needs the frame's tree, which the engine does
// not build: the pipeline builds it after Decode and hands it to
// CountFiltered, on the output pass, before its own -Y filter (the tables
// count every frame, as the unfiltered ones do).

// Matcher is a compiled display filter (package filter's *Filter, which
// imports this package: Options.ZFilter compiles).
type Matcher interface {
	Match(t *Tree) bool
	Want(s *FieldSet)
	String() string
}

// filtConv is one FILTER of the conv and endpoints tables: the
// conversations of the frames it matches. Tables with the same FILTER
// share one.
type filtConv struct {
	filter string
	m      Matcher
	convs  flows.Conversations
}

// ioCol is one column of an io,stat table with FILTER columns.
type ioCol struct {
	text string     // as given, for the table's legend
	fn   flows.IOFn // IOFrames: frames and bytes; else FN(FIELD)
	f    *Field     // FN(FIELD): the field
	m    Matcher    // nil: every frame
	s    flows.IOStat
}

// splitZ splits a filtered -z name into the table's base name and its
// filter: "conv,tcp,tcp.len>0" → "conv,tcp", "tcp.len>0". ok is false for
// names of another form (or no filter).
func splitZ(name string) (base, filter string, ok bool) {
	for _, p := range []string{"conv,", "endpoints,"} {
		if rest, found := strings.CutPrefix(name, p); found {
			typ, flt, cut := strings.Cut(rest, ",")
			if !cut {
				return "", "", false
			}
			return p + typ, flt, true
		}
	}
	return "", "", false
}

// compileZ compiles a -z filter with Options.ZFilter ("" matches every
// frame: nil).
func (e *Engine) compileZ(name, src string) (Matcher, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	if e.Opts.ZFilter == nil {
		return nil, fmt.Errorf("-z %s: filters are not available here", name)
	}
	m, err := e.Opts.ZFilter(src)
	if err != nil {
		return nil, fmt.Errorf("-z %s: %v", name, err)
	}
	return m, nil
}

// ioFns are the FN(FIELD) functions of io,stat columns, as tshark 4.0's.
var ioFns = []flows.IOFn{flows.IOCount, flows.IOSum, flows.IOMin, flows.IOMax, flows.IOAvg, flows.IOLoad}

// parseIOCols parses io,stat's columns after the interval: FILTER or
// FN(FIELD)FILTER. COUNT takes any field; SUM, MIN, MAX and AVG numbers
// and relative times; LOAD relative times only (tshark refuses the rest
// too).
func (e *Engine) parseIOCols(name string, cols []string) ([]ioCol, error) {
	out := make([]ioCol, 0, len(cols))
	iv, _, _ := ParseIOStat(name) // CheckStat refused a bad one
	for _, c := range cols {
		col := ioCol{text: c}
		flt := c
		for _, fn := range ioFns {
			rest, ok := strings.CutPrefix(c, fn.String()+"(")
			if !ok {
				continue
			}
			fld, after, ok := strings.Cut(rest, ")")
			if !ok {
				return nil, fmt.Errorf("-z %s: %s( without a closing parenthesis", name, fn)
			}
			f := Lookup(strings.TrimSpace(fld))
			if f == nil {
				return nil, fmt.Errorf("-z %s: %s: no field %q (see `rdx fields`)", name, fn, fld)
			}
			kind, num := ioKind(f.Type)
			switch {
			case fn == flows.IOLoad && f.Type != TRelTime:
				return nil, fmt.Errorf("-z %s: LOAD(%s): LOAD is only for relative-time fields such as rpc.time (%s is %s)", name, fld, fld, f.Type)
			case fn != flows.IOCount && !num:
				return nil, fmt.Errorf("-z %s: %s(%s): not a number or relative-time field (%s)", name, fn, fld, f.Type)
			case fn == flows.IOLoad && flows.LoadTooFine(iv):
				return nil, fmt.Errorf("-z %s: LOAD needs an interval of at least a microsecond (tshark counts it in microseconds)", name)
			}
			col.fn, col.f, flt = fn, f, after
			col.s.Fn, col.s.Kind = fn, kind
		}
		m, err := e.compileZ(name, flt)
		if err != nil {
			return nil, err
		}
		col.m = m
		out = append(out, col)
	}
	return out, nil
}

// ioKind is how io,stat's functions treat a field's values; num is false
// for a field that is not a number or a relative time.
func ioKind(t Type) (k flows.IOKind, num bool) {
	switch t {
	case TUint8, TUint16, TUint24, TUint32, TUint64, TFrameNum:
		return flows.IOUint, true
	case TInt16, TInt32, TInt64:
		return flows.IOInt, true
	case TFloat:
		return flows.IOFloat, true
	case TRelTime:
		return flows.IOTime, true
	}
	return flows.IOUint, false
}

// ioValue is a node's value as its io,stat kind keeps it: signed integers
// sign-extended to 64 bits, floats and times as they are stored.
func ioValue(nd *Node) uint64 {
	switch nd.F.Type {
	case TInt16:
		return uint64(int64(int16(nd.Value())))
	case TInt32:
		return uint64(int64(int32(nd.Value())))
	case TFloat, TRelTime, TInt64:
		return nd.U
	}
	return nd.Value()
}

// checkFiltered checks a filtered conv or endpoints name (handled: false
// for other names).
func (e *Engine) checkFiltered(name string) (handled bool, err error) {
	base, flt, ok := splitZ(name)
	if !ok {
		return false, nil
	}
	if !flows.IsConv(base) && !isEndpoints(base) {
		return true, fmt.Errorf("-z %s: unknown statistics %s (known: %s)", name, base,
			strings.Join(append(flows.ConvNames(), flows.EndpointNames...), ", "))
	}
	_, err = e.compileZ(name, flt)
	return true, err
}

func isEndpoints(name string) bool {
	for _, n := range flows.EndpointNames {
		if n == name {
			return true
		}
	}
	return false
}

// filtered returns the conversations kept for filter src, making them
// (nil, and no table, when it does not compile: CheckStat said so first).
func (t *tally) filtered(e *Engine, src string) *filtConv {
	for _, fc := range t.convs {
		if fc.filter == src {
			return fc
		}
	}
	m, err := e.compileZ(src, src)
	if err != nil {
		return nil
	}
	fc := &filtConv{filter: src, m: m}
	t.convs = append(t.convs, fc)
	return fc
}

// NeedsTree reports whether a -z table has a FILTER: the pipeline then
// builds every frame's tree and hands it to CountFiltered.
func (e *Engine) NeedsTree() bool {
	t := e.tly
	if t == nil {
		return false
	}
	if len(t.convs) > 0 || len(t.params) > 0 {
		return true
	}
	for i := range t.io {
		if len(t.io[i].cols) > 0 {
			return true
		}
	}
	return false
}

// WantZ adds the fields the -z filters and COUNT/SUM columns read to s.
func (e *Engine) WantZ(s *FieldSet) {
	t := e.tly
	if t == nil {
		return
	}
	for _, fc := range t.convs {
		if fc.m != nil {
			fc.m.Want(s)
		}
	}
	for _, p := range t.params {
		if p.m != nil {
			p.m.Want(s)
		}
	}
	for i := range t.io {
		for j := range t.io[i].cols {
			c := &t.io[i].cols[j]
			if c.m != nil {
				c.m.Want(s)
			}
			s.Add(c.f)
		}
	}
}

// CountFiltered counts frame f, whose tree is t, in the -z tables with a
// FILTER (NeedsTree). f must be the frame Decode returned last.
func (e *Engine) CountFiltered(f *Frame, t *Tree) {
	z := e.tly
	if z == nil || t == nil {
		return
	}
	for _, fc := range z.convs {
		if fc.m == nil || fc.m.Match(t) {
			fc.convs.CountLogged(&e.convs)
		}
	}
	for _, p := range z.params {
		if p.m == nil || p.m.Match(t) {
			p.c.CountFrame(f)
		}
	}
	rel := f.TimeNS - e.firstTime
	for i := range z.io {
		for j := range z.io[i].cols {
			c := &z.io[i].cols[j]
			if c.m != nil && !c.m.Match(t) {
				continue
			}
			if c.fn == flows.IOFrames {
				c.s.Add(rel, f.WireLen)
				continue
			}
			c.s.Add(rel, 0) // the frame, then each value of the field in it
			for k := range t.Nodes {
				if nd := &t.Nodes[k]; nd.F == c.f {
					c.s.AddField(rel, ioValue(nd))
				}
			}
		}
	}
}

// filteredTable builds a filtered conv or endpoints table, nil if name is
// none.
func (e *Engine) filteredTable(name string) *StatTable {
	base, flt, ok := splitZ(name)
	if !ok || e.tly == nil {
		return nil
	}
	for _, fc := range e.tly.convs {
		if fc.filter != flt {
			continue
		}
		var t *StatTable
		if flows.IsConv(base) {
			t = fc.convs.Table(base)
		} else {
			t = fc.convs.Endpoints(base)
		}
		if t != nil {
			t.Title += " (filter: " + flt + ")"
		}
		return t
	}
	return nil
}

// ParamStatsProvider is implemented by dissectors whose -z tables take
// parameters (rpc,srt,PROGRAM,VERSION[,FILTER]). ParamStat reports whether
// name is one of them (mine) and an error for a bad parameter.
type ParamStatsProvider interface {
	ParamStat(name string) (t ParamTable, mine bool, err error)
}

// ParamTable is a parameterised -z table: Build makes it, or, for a table
// with a FILTER, Counter makes the engine's counter of it (once per
// engine, which makes the dissector log what the counter needs).
type ParamTable struct {
	Build   func() *StatTable
	Filter  string
	Counter func() FrameCounter
}

// FrameCounter is a -z table with a FILTER that a dissector fills: the
// engine calls CountFrame for the frames the filter matches, after their
// tree (CountFiltered), on the output pass.
type FrameCounter interface {
	CountFrame(f *Frame)
	Table() *StatTable
	Merge(from FrameCounter) // the same table of another engine (-j)
	Reset()                  // a second pass counts again
}

// paramCounter is one -z table with a FILTER a dissector keeps.
type paramCounter struct {
	name string
	m    Matcher
	c    FrameCounter
}

// paramStat finds the dissector that owns a parameterised -z name.
func (e *Engine) paramStat(name string) (t ParamTable, mine bool, err error) {
	for _, d := range e.inst {
		if p, ok := d.(ParamStatsProvider); ok {
			if t, mine, err := p.ParamStat(name); mine {
				return t, true, err
			}
		}
	}
	return ParamTable{}, false, nil
}

// checkParam checks a parameterised -z name (handled: false when no
// dissector takes it).
func (e *Engine) checkParam(name string) (handled bool, err error) {
	t, mine, err := e.paramStat(name)
	if err == nil && t.Counter != nil {
		_, err = e.compileZ(name, t.Filter)
	}
	return mine, err
}

// addParamCounters makes the counters of the parameterised -z tables with
// a FILTER (after the dissectors exist).
func (t *tally) addParamCounters(e *Engine, names []string) *tally {
	for _, n := range names {
		pt, mine, err := e.paramStat(n)
		if !mine || err != nil || pt.Counter == nil {
			continue
		}
		m, err := e.compileZ(n, pt.Filter)
		if err != nil {
			continue
		}
		if t == nil {
			t = &tally{}
		}
		t.params = append(t.params, paramCounter{name: n, m: m, c: pt.Counter()})
	}
	return t
}

// ZMatchers lists the compiled filters of the -z tables (for the pipeline
// to see which fields they read: later ones need two passes).
func (e *Engine) ZMatchers() []Matcher {
	t := e.tly
	if t == nil {
		return nil
	}
	var out []Matcher
	for _, fc := range t.convs {
		if fc.m != nil {
			out = append(out, fc.m)
		}
	}
	for _, p := range t.params {
		if p.m != nil {
			out = append(out, p.m)
		}
	}
	for i := range t.io {
		for _, c := range t.io[i].cols {
			if c.m != nil {
				out = append(out, c.m)
			}
		}
	}
	return out
}
