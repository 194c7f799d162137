package flows

import (
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// The whole-capture tables of tshark's -z expert, -z io,phs and
// -z io,stat,INTERVAL. Each is filled by the engine once per frame without
// allocating for what it already holds, merges with the same table of
// another engine (-j workers) and has a limit on what grows with the input.

// MaxExpertRows bounds the distinct (severity, group, protocol, message)
// rows of the expert table: messages carry numbers, so a hostile capture can
// make one per frame. Findings past it are counted in a row of their own.
const MaxExpertRows = 4096

// ExpertKey is one row of the expert table.
type ExpertKey struct {
	Sev          uint8 // dissect.Severity: higher is worse
	Group, Proto string
	Msg          string
}

// Expert counts findings by severity, group, protocol and message, as
// tshark -z expert does. The zero value is ready. A full table keeps the
// rows met first (frame, then finding within it), as one engine does; a
// merge keeps the same rows while no -j engine went over the limit alone.
type Expert struct {
	m       map[ExpertKey]*expertRow
	dropped [4]uint64 // findings of rows past MaxExpertRows, by severity
}

type expertRow struct {
	n     uint64
	first uint64 // frame<<16 | finding index: the order rows were met
}

// Add counts one finding, the idx-th of frame; full reports that the
// table had no room for a new row (the finding is counted as dropped).
func (x *Expert) Add(k ExpertKey, frame uint64, idx int) (full bool) {
	if r := x.m[k]; r != nil {
		r.n++
		return false
	}
	if len(x.m) >= MaxExpertRows {
		x.dropped[k.Sev&3]++
		return true
	}
	if x.m == nil {
		x.m = map[ExpertKey]*expertRow{}
	}
	x.m[k] = &expertRow{n: 1, first: frame<<16 | uint64(min(idx, 0xffff))}
	return false
}

// Merge adds o's counts, then keeps the MaxExpertRows rows met first.
func (x *Expert) Merge(o *Expert) {
	for k, r := range o.m {
		if x.m == nil {
			x.m = map[ExpertKey]*expertRow{}
		}
		if xr := x.m[k]; xr != nil {
			xr.n += r.n
			xr.first = min(xr.first, r.first)
		} else {
			x.m[k] = &expertRow{n: r.n, first: r.first}
		}
	}
	for i, n := range o.dropped {
		x.dropped[i] += n
	}
	if len(x.m) <= MaxExpertRows {
		return
	}
	keys := make([]ExpertKey, 0, len(x.m))
	for k := range x.m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return x.m[keys[i]].first < x.m[keys[j]].first })
	for _, k := range keys[MaxExpertRows:] {
		x.dropped[k.Sev&3] += x.m[k].n
		delete(x.m, k)
	}
}

// Full reports whether findings were counted in the "other" row.
func (x *Expert) Full() bool { return x.dropped != [4]uint64{} }

// Reset forgets every count (a second pass counts again).
func (x *Expert) Reset() { clear(x.m); x.dropped = [4]uint64{} }

func sortExpert(keys []ExpertKey, m map[ExpertKey]*expertRow) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Sev != b.Sev {
			return a.Sev > b.Sev
		}
		if m[a].n != m[b].n {
			return m[a].n > m[b].n
		}
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Proto != b.Proto {
			return a.Proto < b.Proto
		}
		return a.Msg < b.Msg
	})
}

// Table builds the expert table: worst severity first, then most frequent;
// sevNames names the severities by number.
func (x *Expert) Table(sevNames []string) *Table {
	t := &Table{Title: "Expert information (findings by severity, group, protocol and message)",
		Header: []string{"Severity", "Group", "Protocol", "Count", "Message"}}
	keys := make([]ExpertKey, 0, len(x.m))
	for k := range x.m {
		keys = append(keys, k)
	}
	sortExpert(keys, x.m)
	name := func(s uint8) string {
		if int(s) < len(sevNames) {
			return sevNames[s]
		}
		return strconv.Itoa(int(s))
	}
	for _, k := range keys {
		t.Rows = append(t.Rows, []string{name(k.Sev), k.Group, k.Proto, U(x.m[k].n), k.Msg})
	}
	for s := len(x.dropped) - 1; s >= 0; s-- {
		if n := x.dropped[s]; n > 0 {
			t.Rows = append(t.Rows, []string{name(uint8(s)), "", "", U(n),
				"(other messages: the table keeps " + strconv.Itoa(MaxExpertRows) + ")"})
		}
	}
	return t
}

// MaxPHSChains bounds the distinct protocol chains (frame.protocols values)
// of the protocol hierarchy; frames with a new chain past it are counted
// in a row of their own.
const MaxPHSChains = 1024

type phsChain struct {
	chain         string
	frames, bytes uint64
	first         uint64 // the first frame with the chain: children print in the order met
}

// PHS counts frames and octets per protocol chain, for tshark's -z io,phs.
// The zero value is ready.
type PHS struct {
	idx            map[string]int
	chains         []phsChain
	dropped, dropB uint64
}

// Add counts a frame of n octets on the wire whose protocols are chain
// (colon-separated, as frame.protocols); full as in Expert.Add.
func (p *PHS) Add(chain []byte, n int, frame uint64) (full bool) {
	i, ok := p.idx[string(chain)] // no allocation for a lookup
	if !ok {
		if len(p.chains) >= MaxPHSChains {
			p.dropped++
			p.dropB += uint64(n)
			return true
		}
		if p.idx == nil {
			p.idx = map[string]int{}
		}
		i = len(p.chains)
		p.idx[string(chain)] = i
		p.chains = append(p.chains, phsChain{chain: string(chain), first: frame})
	}
	c := &p.chains[i]
	c.frames++
	c.bytes += uint64(n)
	return false
}

// Merge adds o's counts, then keeps the MaxPHSChains chains met first.
func (p *PHS) Merge(o *PHS) {
	for _, c := range o.chains {
		if i, ok := p.idx[c.chain]; ok {
			d := &p.chains[i]
			d.frames += c.frames
			d.bytes += c.bytes
			d.first = min(d.first, c.first)
			continue
		}
		if p.idx == nil {
			p.idx = map[string]int{}
		}
		p.idx[c.chain] = len(p.chains)
		p.chains = append(p.chains, c)
	}
	p.dropped += o.dropped
	p.dropB += o.dropB
	if len(p.chains) <= MaxPHSChains {
		return
	}
	sort.Slice(p.chains, func(i, j int) bool { return p.chains[i].first < p.chains[j].first })
	for _, c := range p.chains[MaxPHSChains:] {
		p.dropped += c.frames
		p.dropB += c.bytes
		delete(p.idx, c.chain)
	}
	p.chains = p.chains[:MaxPHSChains]
	for i, c := range p.chains {
		p.idx[c.chain] = i
	}
}

// Full reports whether frames were counted in the "other" row.
func (p *PHS) Full() bool { return p.dropped > 0 }

// Reset forgets every count.
func (p *PHS) Reset() { clear(p.idx); p.chains = p.chains[:0]; p.dropped, p.dropB = 0, 0 }

// phsSkip are names of frame.protocols that tshark's hierarchy leaves out:
// they are not protocols of their own there.
var phsSkip = map[string]bool{"ethertype": true, "frame": true}

type phsNode struct {
	name          string
	frames, bytes uint64
	first         uint64
	kids          []*phsNode
}

// Table builds the protocol hierarchy: a row per protocol at each level of
// the chains, indented two spaces a level, with the frames and octets of
// every frame whose chain passes through it; siblings in the order they
// were first met. The indent is "· " a level, not spaces: the table
// renderer trims cells.
func (p *PHS) Table() *Table {
	t := &Table{Title: "Protocol hierarchy (frames and bytes per protocol, as tshark -z io,phs)",
		Header: []string{"Protocol", "Frames", "Bytes"}}
	root := &phsNode{}
	for _, c := range p.chains {
		n := root
		for _, name := range strings.Split(c.chain, ":") {
			if phsSkip[name] || name == "" {
				continue
			}
			var k *phsNode
			for _, x := range n.kids {
				if x.name == name {
					k = x
					break
				}
			}
			if k == nil {
				k = &phsNode{name: name, first: c.first}
				n.kids = append(n.kids, k)
			}
			k.frames += c.frames
			k.bytes += c.bytes
			k.first = min(k.first, c.first)
			n = k
		}
	}
	var walk func(n *phsNode, depth int)
	walk = func(n *phsNode, depth int) {
		sort.SliceStable(n.kids, func(i, j int) bool { return n.kids[i].first < n.kids[j].first })
		for _, k := range n.kids {
			t.Rows = append(t.Rows, []string{strings.Repeat("· ", depth) + k.name, U(k.frames), U(k.bytes)})
			walk(k, depth+1)
		}
	}
	walk(root, 0)
	if p.dropped > 0 {
		t.Rows = append(t.Rows, []string{"(other chains: the table keeps " + strconv.Itoa(MaxPHSChains) + ")",
			U(p.dropped), U(p.dropB)})
	}
	return t
}

// MaxIOIntervals bounds the rows of -z io,stat: frames later than that
// many intervals after the first are counted in a row of their own.
const MaxIOIntervals = 1 << 16

// IOFn is what an io,stat column keeps per interval, as tshark's
// -z io,stat,INTERVAL,FN(FIELD)FILTER.
type IOFn uint8

const (
	IOFrames IOFn = iota // frames and octets (a plain FILTER column)
	IOCount              // occurrences of the field
	IOSum                // sum of the field's values
	IOMin                // smallest value
	IOMax                // largest value
	IOAvg                // sum / occurrences (integers: truncated, as tshark)
	IOLoad               // relative times: the intervals' share of them, per interval
)

var ioFnNames = [...]string{"", "COUNT", "SUM", "MIN", "MAX", "AVG", "LOAD"}

// String is the function's name as -z spells it ("" for IOFrames).
func (f IOFn) String() string { return ioFnNames[f] }

// IOKind is how a column's values compare, add and print.
type IOKind uint8

const (
	IOUint  IOKind = iota // unsigned integers
	IOInt                 // signed integers: int64 bits
	IOFloat               // math.Float64bits
	IOTime                // relative time: int64 nanoseconds, printed as seconds
)

// IOStat counts frames and octets per interval of capture time from the
// capture's first frame, for tshark's -z io,stat,INTERVAL. Interval 0 is
// one interval over the whole capture. With Fn set it keeps, per interval,
// the Fn of one field's values instead of octets (AddField).
type IOStat struct {
	Interval      int64 // ns
	Prec          int   // decimals the interval was given with: the table's times have as many
	Fn            IOFn
	Kind          IOKind
	frames, bytes []uint64 // bytes: octets, or the Fn's value (Kind's bits)
	nums          []uint64 // MIN, MAX, AVG: the values seen
	full          []int64  // LOAD: difference array of the whole intervals a value spans
	seen          bool
	last          int64 // the latest frame time after the first, ns
	over, overB   uint64
	overN         uint64
}

// Add counts a frame of n octets at rel ns after the capture's first
// frame; full reports a frame past MaxIOIntervals.
func (s *IOStat) Add(rel int64, n int) (full bool) {
	i := s.frame(rel)
	if i < 0 {
		s.over++
		s.overB += uint64(n)
		return true
	}
	s.frames[i]++
	s.bytes[i] += uint64(n)
	return false
}

// frame notes a frame at rel ns and returns its interval, grown to, or -1
// past MaxIOIntervals.
func (s *IOStat) frame(rel int64) int64 {
	if rel < 0 { // out of order before the first frame: tshark puts it first too
		rel = 0
	}
	if !s.seen || rel > s.last {
		s.last, s.seen = rel, true
	}
	i := s.index(rel)
	if i < 0 {
		return -1
	}
	s.grow(i)
	return i
}

// index is the interval of a frame at rel ns, -1 past MaxIOIntervals.
func (s *IOStat) index(rel int64) int64 {
	i := int64(0)
	if s.Interval > 0 {
		i = max(rel, 0) / s.Interval
	}
	if i >= MaxIOIntervals {
		return -1
	}
	return i
}

// grow makes interval i exist: once per interval, not per frame.
func (s *IOStat) grow(i int64) {
	for int64(len(s.frames)) <= i {
		s.frames = append(s.frames, 0)
		s.bytes = append(s.bytes, 0)
		switch s.Fn {
		case IOMin, IOMax, IOAvg:
			s.nums = append(s.nums, 0)
		case IOLoad:
			s.full = append(s.full, 0)
		}
	}
}

// AddValue counts, for a COUNT(FIELD) or SUM(FIELD) column of unsigned
// integers, a frame at rel ns that adds v to its interval's value (kept
// where Add keeps bytes).
func (s *IOStat) AddValue(rel int64, v uint64) {
	if s.Add(rel, 0) {
		s.overB += v
		return
	}
	s.bytes[s.index(rel)] += v
}

// AddField folds one value v (of Kind) of the field of a frame at rel ns
// into the frame's interval by Fn; the frame itself is counted with Add
// (rel, 0) once, before its values. A frame past MaxIOIntervals folds into
// the "later" row.
func (s *IOStat) AddField(rel int64, v uint64) {
	if s.Kind == IOFloat && (s.Fn == IOMin || s.Fn == IOMax) && math.IsNaN(math.Float64frombits(v)) {
		return // no order with NaN: the smallest would depend on which came first (and on -j)
	}
	i := s.index(rel)
	if i < 0 {
		if s.Fn == IOLoad { // the part within the interval only: no row in the table spans the later ones
			s.overB += s.loadPart(v)
			s.overN++
			return
		}
		s.overB = s.fold(s.overB, &s.overN, v)
		return
	}
	s.grow(i)
	switch s.Fn {
	case IOLoad:
		s.addLoad(i, v)
	case IOMin, IOMax, IOAvg:
		s.bytes[i] = s.fold(s.bytes[i], &s.nums[i], v)
	default:
		var n uint64
		s.bytes[i] = s.fold(s.bytes[i], &n, v)
	}
}

// fold is acc with v folded in by Fn and Kind; n counts the values (MIN and
// MAX take the first as it is).
func (s *IOStat) fold(acc uint64, n *uint64, v uint64) uint64 {
	first := *n == 0
	*n++
	switch s.Fn {
	case IOCount:
		return acc + 1
	case IOMin, IOMax:
		if first || s.less(v, acc) == (s.Fn == IOMin) && v != acc {
			return v
		}
		return acc
	}
	if s.Kind == IOFloat { // SUM, AVG, LOAD of floats
		return math.Float64bits(math.Float64frombits(acc) + math.Float64frombits(v))
	}
	return acc + v // two's complement: right for signed values and times too
}

// less compares two values of Kind.
func (s *IOStat) less(a, b uint64) bool {
	switch s.Kind {
	case IOInt, IOTime:
		return int64(a) < int64(b)
	case IOFloat:
		return math.Float64frombits(a) < math.Float64frombits(b)
	}
	return a < b
}

// loadUnit is tshark's unit for LOAD: it counts relative times and the
// interval in whole microseconds.
const loadUnit = 1000

// LoadTooFine reports whether an interval (ns) is too short for LOAD,
// which counts in microseconds: a positive one under a microsecond.
func LoadTooFine(interval int64) bool { return interval > 0 && interval < loadUnit }

// loadPart is the part of a relative time v (ns) LOAD puts in the frame's
// own interval, in microseconds: v modulo the interval, as tshark does
// (interval 0, the whole capture: all of it).
func (s *IOStat) loadPart(v uint64) uint64 {
	us := uint64(max(int64(v), 0)) / loadUnit
	if iv := uint64(s.Interval / loadUnit); iv > 0 {
		return us % iv
	}
	return us
}

// addLoad adds a relative time v (ns) to LOAD as tshark 4.0 spreads it:
// v modulo the interval in the frame's interval i, then one whole interval
// in each of the intervals before, as many as v has whole intervals (down
// to the first). Whole intervals are kept as a difference array (full),
// so a value costs the same however many intervals it spans.
func (s *IOStat) addLoad(i int64, v uint64) {
	part := s.loadPart(v)
	s.bytes[i] += part
	iv := s.Interval / loadUnit
	if iv <= 0 {
		return
	}
	m := (int64(max(int64(v), 0)/loadUnit) - int64(part)) / iv
	if lo := max(i-m, 0); lo < i {
		s.full[lo]++
		s.full[i]--
	}
}

// Merge adds o's counts (the same interval, function and first frame time).
func (s *IOStat) Merge(o *IOStat) {
	if len(o.frames) > 0 {
		s.grow(int64(len(o.frames)) - 1)
	}
	for i := range o.frames {
		s.frames[i] += o.frames[i]
		switch s.Fn {
		case IOMin, IOMax, IOAvg: // o's values as one: fold before adding the rest of its count
			if n := o.nums[i]; n > 0 {
				s.bytes[i] = s.fold(s.bytes[i], &s.nums[i], o.bytes[i])
				s.nums[i] += n - 1
			}
		case IOLoad:
			s.bytes[i] += o.bytes[i]
			s.full[i] += o.full[i]
		default:
			if s.Kind == IOFloat && s.Fn == IOSum {
				var n uint64
				s.bytes[i] = s.fold(s.bytes[i], &n, o.bytes[i])
			} else {
				s.bytes[i] += o.bytes[i]
			}
		}
	}
	if o.seen && (!s.seen || o.last > s.last) {
		s.last, s.seen = o.last, true
	}
	s.over += o.over
	switch {
	case o.overN == 0 || s.Fn == IOFrames || s.Fn == IOCount || s.Fn == IOLoad || s.Kind != IOFloat && s.Fn == IOSum:
		s.overB += o.overB
		s.overN += o.overN
	default: // MIN, MAX, AVG and float sums fold as one value
		n := o.overN
		s.overB = s.fold(s.overB, &s.overN, o.overB)
		s.overN += n - 1
	}
}

// Full reports whether frames were counted in the "later" row.
func (s *IOStat) Full() bool { return s.over > 0 }

// Reset forgets every count.
func (s *IOStat) Reset() {
	s.frames, s.bytes, s.nums, s.full = s.frames[:0], s.bytes[:0], s.nums[:0], s.full[:0]
	s.seen, s.last, s.over, s.overB, s.overN = false, 0, 0, 0, 0
}

// Table builds the io,stat table: a row per interval from the first frame
// to the last, empty ones included, as tshark prints them: times with as
// many decimals as the interval was given with (Prec), the last interval
// ending at the capture's duration ("Dur" for a whole-second interval).
// An interval of 0, or one longer than the capture, is one row over the
// whole capture with three decimals, as tshark clamps it.
func (s *IOStat) Table() *Table { return s.TableWith(nil) }

// IOColumn is a column of an io,stat table with FILTER columns: Legend is
// the column as given (FILTER, or FN(FIELD)FILTER...); S counts on the
// same intervals as the table's own IOStat, frames and bytes (S.Fn
// IOFrames) or one value per interval (AddField).
type IOColumn struct {
	Legend string
	S      *IOStat
}

// TableWith builds the io,stat table with cols in place of the frames and
// bytes of every frame, as tshark's -z io,stat,INTERVAL,COLUMN...: s (every
// frame) gives the intervals. Columns are headed "N: Frames" and "N:
// Bytes" (or "N: COUNT", "N: MIN"...), N numbering them in the title's
// legend. Values print as tshark 4.0 prints them: integers as integers
// (AVG truncated), relative times and floats in seconds with 6 decimals,
// LOAD as the intervals' share of the times, 6 decimals; an interval
// without values shows 0.
func (s *IOStat) TableWith(cols []IOColumn) *Table {
	iv, prec := s.Interval, s.Prec
	one := iv <= 0 || iv > s.last
	if one { // tshark's decimals for a duration of two digits or more: 1
		iv, prec = s.last, 3
		if s.last >= 10e9 {
			prec = 1
		}
	}
	t := &Table{Title: "IO statistics (interval " + secs(iv, prec) + " s, duration " + secs(s.last, 3) + " s)",
		Header: []string{"Interval", "Frames", "Bytes"}}
	if len(cols) > 0 {
		t.Header = t.Header[:1]
		var legend []string
		for i, c := range cols {
			n := strconv.Itoa(i + 1)
			legend = append(legend, n+": "+c.Legend)
			if c.S.Fn == IOFrames {
				t.Header = append(t.Header, n+": Frames", n+": Bytes")
			} else {
				t.Header = append(t.Header, n+": "+c.S.Fn.String())
			}
		}
		t.Title = strings.TrimSuffix(t.Title, ")") + "; columns " + strings.Join(legend, ", ") + ")"
	}
	n := int64(len(s.frames))
	if one {
		n = min(n, 1)
	} else if all := s.last/iv + 1; all <= MaxIOIntervals { // the intervals up to the last frame
		n = max(n, all)
	}
	loads := make([]int64, len(cols)) // running sums of the LOAD columns' whole intervals
	for i := int64(0); i < n; i++ {
		from, to := i*iv, (i+1)*iv
		end := secs(to, prec)
		lastRow := to > s.last || one
		if lastRow {
			end = secs(s.last, prec)
			if prec == 0 {
				end = "Dur"
			}
		}
		row := []string{secs(from, prec) + " <> " + end}
		if len(cols) == 0 {
			row = append(row, U(s.at(i)), U(s.atBytes(i)))
		}
		for j, c := range cols {
			switch c.S.Fn {
			case IOFrames:
				row = append(row, U(c.S.at(i)), U(c.S.atBytes(i)))
			case IOLoad:
				// tshark divides the last row by what of it the capture covers
				span := c.S.Interval / loadUnit
				if lastRow {
					span = loadDuration(s.last, prec) - from/loadUnit
				}
				if i < int64(len(c.S.full)) {
					loads[j] += c.S.full[i]
				}
				row = append(row, c.S.loadCell(c.S.atBytes(i)+uint64(loads[j]*(c.S.Interval/loadUnit)), span))
			default:
				row = append(row, c.S.cell(i))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if s.over > 0 {
		row := []string{"(later: the table keeps " + strconv.Itoa(MaxIOIntervals) + " intervals)"}
		if len(cols) == 0 {
			row = append(row, U(s.over), U(s.overB))
		}
		for _, c := range cols {
			switch c.S.Fn {
			case IOFrames:
				row = append(row, U(c.S.over), U(c.S.overB))
			case IOLoad:
				row = append(row, c.S.loadCell(c.S.overB, c.S.Interval/loadUnit))
			default:
				row = append(row, c.S.value(c.S.overB, c.S.overN))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// at is the frames of interval i (0 for one not reached).
func (s *IOStat) at(i int64) uint64 {
	if i < int64(len(s.frames)) {
		return s.frames[i]
	}
	return 0
}

// atBytes is the bytes (or value bits) of interval i.
func (s *IOStat) atBytes(i int64) uint64 {
	if i < int64(len(s.bytes)) {
		return s.bytes[i]
	}
	return 0
}

// cell is a COUNT, SUM, MIN, MAX or AVG column's cell of interval i.
func (s *IOStat) cell(i int64) string {
	n := uint64(0)
	if i < int64(len(s.nums)) {
		n = s.nums[i]
	}
	return s.value(s.atBytes(i), n)
}

// value formats acc, of n values, by Fn and Kind.
func (s *IOStat) value(acc, n uint64) string {
	if s.Fn == IOCount {
		return U(acc)
	}
	if s.Fn == IOAvg && n > 0 {
		switch s.Kind {
		case IOUint:
			acc /= n
		case IOInt, IOTime: // times: to the nanosecond, then usecs rounds
			acc = uint64(int64(acc) / int64(n))
		case IOFloat:
			acc = math.Float64bits(math.Float64frombits(acc) / float64(n))
		}
	}
	switch s.Kind {
	case IOInt:
		return strconv.FormatInt(int64(acc), 10)
	case IOFloat:
		return strconv.FormatFloat(math.Float64frombits(acc), 'f', 6, 64)
	case IOTime:
		return usecs(int64(acc))
	}
	return U(acc)
}

// usecs formats a relative time of ns nanoseconds as seconds to the
// microsecond, half a microsecond rounded away from zero, as tshark's
// io,stat prints times (0.2488715 s is 0.248872; a float would say
// 0.248871).
func usecs(ns int64) string {
	neg := ns < 0
	if neg {
		ns = -ns
	}
	us := (uint64(ns) + 500) / 1000
	b := make([]byte, 0, 24)
	if neg {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, us/1e6, 10)
	frac := strconv.FormatUint(us%1e6+1e6, 10) // 1dddddd: the six decimals with their zeros
	b = append(b, '.')
	return string(append(b, frac[1:]...))
}

// loadDuration is the capture's duration (ns) in microseconds as tshark
// 4.0 rounds it for a table with prec decimals: up when past half of the
// last decimal, else as it is (3.365771 s is 3.4 for 1 decimal; 3.130384
// stays 3.130384 for 3).
func loadDuration(ns int64, prec int) int64 {
	d, dv := (ns+loadUnit/2)/loadUnit, int64(1e6)
	for i := 0; i < min(prec, 6); i++ {
		dv /= 10
	}
	if d%dv > 5*(dv/10) {
		d = (d + 5*dv/10) / dv * dv
	}
	return d
}

// loadCell formats a LOAD: us microseconds of relative times over a span
// of microseconds (0 for an empty span), to 6 decimals truncated, as
// tshark prints it (32071 over 365771 is 0.087680, not 0.087681).
func (s *IOStat) loadCell(us uint64, span int64) string {
	if span <= 0 {
		return "0.000000"
	}
	hi, lo := bits.Mul64(us, 1e6)
	if hi >= uint64(span) { // past 2^64 millionths: no decimal to truncate matters
		return strconv.FormatFloat(float64(us)/float64(span), 'f', 6, 64)
	}
	q, _ := bits.Div64(hi, lo, uint64(span))
	frac := strconv.FormatUint(q%1e6+1e6, 10) // 1dddddd: the six decimals with their zeros
	return strconv.FormatUint(q/1e6, 10) + "." + frac[1:]
}

// secs formats ns as seconds with prec decimals.
func secs(ns int64, prec int) string {
	return strconv.FormatFloat(float64(ns)/1e9, 'f', prec, 64)
}
