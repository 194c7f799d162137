package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rdx-project/rdx/dissect"
)

// FieldsOpts are tshark's -E options.
type FieldsOpts struct {
	Header     bool
	Separator  string // between fields, default tab
	Aggregator string // between occurrences, default ","
	Quote      byte   // 0, '"' or '\''
	Occurrence byte   // -E occurrence: 'f' first, 'l' last, 0 or 'a' all
}

// ParseE applies one -E option ("header=y", "separator=,", "separator=/t",
// "aggregator=;", "quote=d").
func (o *FieldsOpts) ParseE(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("-E %q: want NAME=VALUE", s)
	}
	unslash := func(v string) string {
		switch v {
		case "/t":
			return "\t"
		case "/s":
			return " "
		}
		return v
	}
	switch k {
	case "header":
		switch v {
		case "y", "yes", "1":
			o.Header = true
		case "n", "no", "0":
			o.Header = false
		default:
			return fmt.Errorf("-E header=%s: want y or n", v)
		}
	case "separator":
		o.Separator = unslash(v)
	case "aggregator":
		o.Aggregator = unslash(v)
	case "occurrence":
		switch v {
		case "f", "l", "a":
			o.Occurrence = v[0]
		default:
			return fmt.Errorf("-E occurrence=%s: want f (first), l (last) or a (all)", v)
		}
	case "quote":
		switch v {
		case "d":
			o.Quote = '"'
		case "s":
			o.Quote = '\''
		case "n":
			o.Quote = 0
		default:
			return fmt.Errorf("-E quote=%s: want d, s or n", v)
		}
	default:
		return fmt.Errorf("-E %s: unknown option (header, separator, aggregator, occurrence, quote)", k)
	}
	return nil
}

// Fields writes `-T fields` rows: one per frame, every requested field, all
// occurrences of a field joined by the aggregator.
type Fields struct {
	Opts  FieldsOpts
	names []string
	col   []int32 // by field ID: 1 + the column of the field's values, 0 for none
	cols  []column
	idx   []int // column holding each name's values (a repeated name shares one)
	// lastUse[i]: name i is the last to print its column, which the row
	// then empties for the next
	lastUse []bool
	// columns of the finding parts (-1: not asked); any of them makes rows
	// read findings' nodes
	xMsg, xSev, xGroup, xField int
	// summary columns asked for as _ws.col.*, by output column, and the
	// frame they come from (SetFrame)
	wscol []wsCol
	hasWS bool // some wscol is a column
	// direct: every name is its own column, none a _ws.col.* or
	// _ws.expert.* one: Row tries rowDirect first
	direct bool
	// at[c] is 1 + the index in the tree's nodes of column c's node
	// while rowDirect runs, else 0; kinds[c] is how it writes column c
	at    []int32
	kinds []colKind
	frame *dissect.Frame
	clock Clock
}

// column is one column's text in the row being made and its number of
// occurrences (values joined by the aggregator).
type column struct {
	b []byte
	n int
}

// wsCol is a summary column tshark prints for -e _ws.col.TITLE.
type wsCol uint8

const (
	colNone wsCol = iota
	colNo
	colTime
	colSource
	colDest
	colProto
	colLength
	colInfo
)

// wsColumns maps tshark's -e names of the default columns to them: the
// column titles of tshark 4.0 (_ws.col.Info) and the names later versions
// use (_ws.col.info, _ws.col.def_src, ...).
var wsColumns = map[string]wsCol{
	"_ws.col.No.": colNo, "_ws.col.Time": colTime, "_ws.col.Source": colSource, "_ws.col.Destination": colDest,
	"_ws.col.Protocol": colProto, "_ws.col.Length": colLength, "_ws.col.Info": colInfo,
	"_ws.col.number": colNo, "_ws.col.cls_time": colTime, "_ws.col.def_src": colSource, "_ws.col.def_dst": colDest,
	"_ws.col.protocol": colProto, "_ws.col.length": colLength, "_ws.col.info": colInfo,
}

// IsColumn reports whether name is a summary column's -e name (_ws.col.Info).
func IsColumn(name string) bool { return wsColumns[name] != colNone }

// SetFrame gives the frame whose summary columns the next Row prints, and
// the first frame's time (the Time column is relative to it, as the summary
// line's). Only needed when a _ws.col.* field was asked for.
func (w *Fields) SetFrame(f *dissect.Frame, first int64) {
	w.frame, w.clock = f, Clock{First: first}
}

// SetFrameClock is SetFrame with the Time column written by c (-t, -u).
// Without _ws.col.* columns nothing reads them: no copy of the clock a row.
func (w *Fields) SetFrameClock(f *dissect.Frame, c *Clock) {
	if w.hasWS {
		w.frame, w.clock = f, *c
	}
}

// appendColumn appends one summary column of f as the summary line shows it
// (no padding): addresses without ports; without an IP header, the LIDs
// or GIDs of InfiniBand (Frame.Link), else a MAC address.
func appendColumn(dst []byte, c wsCol, f *dissect.Frame, clock *Clock) []byte {
	switch c {
	case colNo:
		return strconv.AppendUint(dst, f.Num, 10)
	case colTime:
		return clock.Append(dst, f.TimeNS)
	case colSource, colDest:
		if n := &f.Net; n.HasIP {
			if c == colSource {
				return n.Src.AppendTo(dst)
			}
			return n.Dst.AppendTo(dst)
		}
		if f.Link.Kind != dissect.LinkNone {
			return f.Link.AppendLinkAddr(dst, c == colSource)
		}
		if f.LinkType == dissect.LinkTypeEthernet && len(f.Data) >= 14 {
			if c == colSource {
				return dissect.AppendHexBytes(dst, f.Data[6:12], ':')
			}
			return dissect.AppendHexBytes(dst, f.Data[0:6], ':')
		}
		return dst
	case colProto:
		return appendProtoColumn(dst, f)
	case colLength:
		return strconv.AppendInt(dst, int64(f.WireLen), 10)
	case colInfo:
		return appendInfo(dst, f)
	}
	return dst
}

// NewFields checks the field names against the registry.
func NewFields(names []string, o FieldsOpts) (*Fields, error) {
	if o.Separator == "" {
		o.Separator = "\t"
	}
	if o.Aggregator == "" {
		o.Aggregator = ","
	}
	w := &Fields{Opts: o, names: names, wscol: make([]wsCol, len(names)), kinds: make([]colKind, len(names))}
	for i, n := range names {
		if c := wsColumns[n]; c != colNone { // from the frame (SetFrame), not the tree
			w.wscol[i], w.hasWS = c, true
			w.idx = append(w.idx, i)
			continue
		}
		f := dissect.Lookup(n)
		if f == nil {
			return nil, fmt.Errorf("some fields aren't valid: %s (see `rdx fields`)", n)
		}
		id := f.ID()
		if id >= len(w.col) {
			w.col = append(w.col, make([]int32, id+1-len(w.col))...)
		}
		if w.col[id] == 0 {
			w.col[id] = int32(i) + 1
		}
		w.kinds[i] = kindOf(f)
		w.idx = append(w.idx, int(w.col[id])-1)
	}
	w.xMsg, w.xSev, w.xGroup, w.xField = w.column(expertMsg), w.column(expertSev), w.column(expertGroup), w.column(expertField)
	w.cols = make([]column, len(names))
	w.lastUse = make([]bool, len(names))
	w.at = make([]int32, len(names))
	w.direct = !w.hasWS && w.xMsg < 0 && w.xSev < 0 && w.xGroup < 0 && w.xField < 0
	for i, c := range w.idx {
		w.lastUse[i] = !slices.Contains(w.idx[i+1:], c)
		w.direct = w.direct && c == i
	}
	return w, nil
}

// column is the column of f's values, or -1.
func (w *Fields) column(f *dissect.Field) int {
	if id := f.ID(); id < len(w.col) {
		return int(w.col[id]) - 1
	}
	return -1
}

// Want adds the fields a row reads to s, for a sparse tree
// (dissect.Tree.SetWant) that holds nothing else.
func (w *Fields) Want(s *dissect.FieldSet) {
	for i, n := range w.names {
		if w.wscol[i] == colNone {
			s.Add(dissect.Lookup(n))
		}
	}
	if w.xMsg >= 0 || w.xSev >= 0 || w.xGroup >= 0 || w.xField >= 0 {
		s.AddExpert()
	}
}

// rowDirect writes the row straight into dst when the tree holds at most
// one value a column (a frame's usual row): no column buffers and no
// join. The values may come in any order (ip.src's node precedes rx.seq's
// in the tree, whatever the order of -e): one pass over the nodes notes
// each column's node, a second writes them in column order. It reports
// false when a column has two values; Row then makes the row with
// columns. Only for names that are each their own column, without
// _ws.col.* or _ws.expert.* ones (direct).
func (w *Fields) rowDirect(dst []byte, t *dissect.Tree) ([]byte, bool) {
	// locals: the appends below would make the compiler reload w's fields
	cols, at := w.col, w.at
	nodes := t.Nodes
	for k := range nodes {
		n := &nodes[k]
		f := n.F
		if f == nil || n.IsExpert() {
			continue
		}
		id := uint(f.ID())
		if id >= uint(len(cols)) {
			continue
		}
		c := uint(cols[id]) - 1 // no column: wraps past len(at)
		if c >= uint(len(at)) {
			continue
		}
		if at[c] != 0 { // a second value
			clear(at)
			return dst, false
		}
		at[c] = int32(k) + 1
	}
	sep, q, kinds := w.Opts.Separator, w.Opts.Quote, w.kinds
	for c, k := range at {
		if c > 0 {
			if len(sep) == 1 {
				dst = append(dst, sep[0])
			} else {
				dst = append(dst, sep...)
			}
		}
		if k == 0 || c >= len(kinds) {
			continue
		}
		at[c] = 0
		n := &nodes[k-1]
		if q != 0 {
			dst = append(dst, q)
		}
		// the column's one field decides how its value is written:
		// the common kinds without AppendField's switch (kindOf)
		switch kinds[c] {
		case kindDec:
			dst = dissect.AppendUint(dst, n.U)
		case kindIPv4:
			if len(n.B) == 4 {
				dst = dissect.AppendIPv4(dst, [4]byte(n.B))
			} else {
				dst = dissect.AppendField(dst, n)
			}
		case kindProto:
			dst = append(dst, n.F.Abbrev...)
		case kindOne:
			dst = append(dst, '1')
		default:
			dst = dissect.AppendField(dst, n)
		}
		if q != 0 {
			dst = append(dst, q)
		}
	}
	return append(dst, '\n'), true
}

// colKind is how rowDirect writes a column's value.
type colKind uint8

const (
	kindField colKind = iota // dissect.AppendField
	kindDec                  // an unsigned integer in decimal, no mask: AppendUint
	kindIPv4                 // an IPv4 address: AppendIPv4
	kindProto                // a protocol: its name
	kindOne                  // a field without a value (FT_NONE): 1
)

// kindOf is the colKind of field f's values: what AppendField would
// write them as, taken once for the column rather than a row.
func kindOf(f *dissect.Field) colKind {
	switch f.Type {
	case dissect.TProtocol:
		return kindProto
	case dissect.TNone:
		return kindOne
	case dissect.TUint8, dissect.TUint16, dissect.TUint24, dissect.TUint32, dissect.TUint64:
		if f.Mask == 0 && f.Base != dissect.BaseHex && f.Base != dissect.BaseHexDec {
			return kindDec
		}
	case dissect.TFrameNum:
		return kindDec
	case dissect.TIPv4:
		return kindIPv4
	}
	return kindField
}

// Header appends the header line.
func (w *Fields) Header(dst []byte) []byte {
	for i, n := range w.names {
		if i > 0 {
			dst = append(dst, w.Opts.Separator...)
		}
		dst = append(dst, n...)
	}
	return append(dst, '\n')
}

var (
	expertMsg   = dissect.FExpertMsg
	expertSev   = dissect.FExpertSev
	expertGroup = dissect.FExpertGroup
	expertField = dissect.FExpertField
)

// open starts one more occurrence in column c.
// It reports false when -E occurrence=f keeps the column as it is.
func (w *Fields) open(c *column) bool {
	if c.n > 0 {
		switch w.Opts.Occurrence {
		case 'f':
			return false
		case 'l':
			c.b = c.b[:0]
			return true
		}
		c.b = append(c.b, w.Opts.Aggregator...)
	}
	c.n++
	return true
}

// putString adds an occurrence to column c (-1: not asked).
func (w *Fields) putString(c int, v string) {
	if c >= 0 && w.open(&w.cols[c]) {
		w.cols[c].b = append(w.cols[c].b, v...)
	}
}

// Row appends one frame's row. The columns are empty between rows: the
// join at the end empties each one it copies.
func (w *Fields) Row(dst []byte, t *dissect.Tree) []byte {
	if w.direct {
		l := len(dst)
		if out, ok := w.rowDirect(dst, t); ok {
			return out
		}
		dst = dst[:l]
	}
	for k := range t.Nodes {
		n := &t.Nodes[k]
		if n.IsExpert() {
			sev, g, field, msg := n.ExpertParts()
			w.putString(w.xMsg, msg)
			w.putString(w.xSev, sev.String())
			w.putString(w.xGroup, g.String())
			w.putString(w.xField, field)
			continue
		}
		if n.F == nil {
			continue
		}
		id := n.F.ID()
		if id >= len(w.col) || w.col[id] == 0 {
			continue
		}
		c := int(w.col[id]) - 1
		switch n.F.Type {
		case dissect.TProtocol:
			w.putString(c, n.F.Abbrev)
		case dissect.TNone:
			w.putString(c, "1")
		default:
			if col := &w.cols[c]; w.open(col) {
				col.b = dissect.AppendField(col.b, n)
			}
		}
	}
	if w.hasWS && w.frame != nil {
		for i, c := range w.wscol {
			if c != colNone { // one value a frame: no aggregation
				w.cols[i].b = appendColumn(w.cols[i].b, c, w.frame, &w.clock)
				w.cols[i].n = 1
			}
		}
	}
	sep := w.Opts.Separator
	for i, c := range w.idx {
		if i > 0 {
			if len(sep) == 1 {
				dst = append(dst, sep[0])
			} else {
				dst = append(dst, sep...)
			}
		}
		col := &w.cols[c]
		if w.Opts.Quote != 0 && col.n > 0 {
			dst = append(dst, w.Opts.Quote)
			dst = append(dst, col.b...)
			dst = append(dst, w.Opts.Quote)
		} else {
			dst = append(dst, col.b...)
		}
		if w.lastUse[i] { // a repeated name shares its column: empty it after its last use
			col.b, col.n = col.b[:0], 0
		}
	}
	return append(dst, '\n')
}
