package flows

import (
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

// IOStat counts frames and octets per interval of capture time from the
// capture's first frame, for tshark's -z io,stat,INTERVAL. Interval 0 is
// one interval over the whole capture.
type IOStat struct {
	Interval      int64 // ns
	Prec          int   // decimals the interval was given with: the table's times have as many
	frames, bytes []uint64
	seen          bool
	last          int64 // the latest frame time after the first, ns
	over, overB   uint64
}

// Add counts a frame of n octets at rel ns after the capture's first
// frame; full reports a frame past MaxIOIntervals.
func (s *IOStat) Add(rel int64, n int) (full bool) {
	if rel < 0 { // out of order before the first frame: tshark puts it first too
		rel = 0
	}
	if !s.seen || rel > s.last {
		s.last, s.seen = rel, true
	}
	i := int64(0)
	if s.Interval > 0 {
		i = rel / s.Interval
	}
	if i >= MaxIOIntervals {
		s.over++
		s.overB += uint64(n)
		return true
	}
	for int64(len(s.frames)) <= i { // grows once per interval, not per frame
		s.frames = append(s.frames, 0)
		s.bytes = append(s.bytes, 0)
	}
	s.frames[i]++
	s.bytes[i] += uint64(n)
	return false
}

// AddValue counts, for a COUNT(FIELD) or SUM(FIELD) column, a frame at
// rel ns that adds v to its interval's value (kept where Add keeps bytes).
func (s *IOStat) AddValue(rel int64, v uint64) {
	if s.Add(rel, 0) {
		s.overB += v
		return
	}
	i := int64(0)
	if s.Interval > 0 {
		i = max(rel, 0) / s.Interval
	}
	s.bytes[i] += v
}

// Merge adds o's counts (the same interval and first frame time).
func (s *IOStat) Merge(o *IOStat) {
	for i := range o.frames {
		for len(s.frames) <= i {
			s.frames = append(s.frames, 0)
			s.bytes = append(s.bytes, 0)
		}
		s.frames[i] += o.frames[i]
		s.bytes[i] += o.bytes[i]
	}
	if o.seen && (!s.seen || o.last > s.last) {
		s.last, s.seen = o.last, true
	}
	s.over += o.over
	s.overB += o.overB
}

// Full reports whether frames were counted in the "later" row.
func (s *IOStat) Full() bool { return s.over > 0 }

// Reset forgets every count.
func (s *IOStat) Reset() {
	s.frames, s.bytes = s.frames[:0], s.bytes[:0]
	s.seen, s.last, s.over, s.overB = false, 0, 0, 0
}

// Table builds the io,stat table: a row per interval from the first frame
// to the last, empty ones included, as tshark prints them: times with as
// many decimals as the interval was given with (Prec), the last interval
// ending at the capture's duration ("Dur" for a whole-second interval).
// An interval of 0, or one longer than the capture, is one row over the
// whole capture with three decimals, as tshark clamps it.
func (s *IOStat) Table() *Table { return s.TableWith(nil) }

// IOColumn is a column of an io,stat table with FILTER columns: Legend is
// the column as given (FILTER, or COUNT(FIELD)FILTER...), Fn "" for frames
// and bytes, "COUNT" or "SUM" for one value (AddValue); S counts on the
// same intervals as the table's own IOStat.
type IOColumn struct {
	Legend, Fn string
	S          *IOStat
}

// TableWith builds the io,stat table with cols in place of the frames and
// bytes of every frame, as tshark's -z io,stat,INTERVAL,COLUMN...: s (every
// frame) gives the intervals. Columns are headed "N: Frames" and "N:
// Bytes" (or "N: COUNT"...), N numbering them in the title's legend.
func (s *IOStat) TableWith(cols []IOColumn) *Table {
	iv, prec := s.Interval, s.Prec
	one := iv <= 0 || iv > s.last
	if one {
		iv, prec = s.last, 3
	}
	t := &Table{Title: "IO statistics (interval " + secs(iv, prec) + " s, duration " + secs(s.last, 3) + " s)",
		Header: []string{"Interval", "Frames", "Bytes"}}
	if len(cols) > 0 {
		t.Header = t.Header[:1]
		var legend []string
		for i, c := range cols {
			n := strconv.Itoa(i + 1)
			legend = append(legend, n+": "+c.Legend)
			if c.Fn == "" {
				t.Header = append(t.Header, n+": Frames", n+": Bytes")
			} else {
				t.Header = append(t.Header, n+": "+c.Fn)
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
	for i := int64(0); i < n; i++ {
		from, to := i*iv, (i+1)*iv
		end := secs(to, prec)
		if to > s.last || one {
			end = secs(s.last, prec)
			if prec == 0 {
				end = "Dur"
			}
		}
		row := []string{secs(from, prec) + " <> " + end}
		if len(cols) == 0 {
			fr, by := s.at(i, one)
			row = append(row, U(fr), U(by))
		}
		for _, c := range cols {
			fr, by := c.S.at(i, one)
			if c.Fn == "" {
				row = append(row, U(fr))
			}
			row = append(row, U(by))
		}
		t.Rows = append(t.Rows, row)
	}
	if s.over > 0 {
		row := []string{"(later: the table keeps " + strconv.Itoa(MaxIOIntervals) + " intervals)"}
		if len(cols) == 0 {
			row = append(row, U(s.over), U(s.overB))
		}
		for _, c := range cols {
			if c.Fn == "" {
				row = append(row, U(c.S.over))
			}
			row = append(row, U(c.S.overB))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// at is the frames and bytes (or value) of interval i; one: of every
// interval.
func (s *IOStat) at(i int64, one bool) (fr, by uint64) {
	if one {
		for j := range s.frames {
			fr += s.frames[j]
			by += s.bytes[j]
		}
	} else if i < int64(len(s.frames)) {
		fr, by = s.frames[i], s.bytes[i]
	}
	return fr, by
}

// secs formats ns as seconds with prec decimals.
func secs(ns int64, prec int) string {
	return strconv.FormatFloat(float64(ns)/1e9, 'f', prec, 64)
}
