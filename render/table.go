package render

import (
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/rdx-project/rdx/dissect"
)

// TableStyle is a table's border set.
type TableStyle int

const (
	// TableASCII is tshark's -z look: +---+ borders, for tables after the frames.
	TableASCII TableStyle = iota
	// TableLight draws box characters (no rdx table uses it now: check,
	// stats and flows share TableASCII).
	TableLight
)

// TableWidth is the widest a table is printed: a wider one is split into
// several, each repeating the leading key columns (a terminal's 100).
const TableWidth = 100

// Table writes rows under a header as a bordered table in rdx's one table
// style (check, stats, flows and -z): columns normalised as NormTable does,
// numbers right-aligned, no wider than TableWidth. Every table rdx prints
// is set up here.
func Table(w io.Writer, style TableStyle, header []string, rows [][]string) error {
	return TableMarked(w, style, header, rows, nil, "")
}

// TableMarked is Table with each row i whose mark[i] is not "" drawn in
// that escape sequence, ended by reset (rdx check's failing checks).
func TableMarked(w io.Writer, style TableStyle, header []string, rows [][]string, mark []string, reset string) error {
	return TableStyled(w, style, header, rows, &Style{Reset: reset}, mark)
}

// TableStyled is Table in st's colours: the header row in st.Header, each
// cell that reports failures (badCells) in st.Bad, each row i whose mark[i]
// is not "" in that sequence; every one ended by st.Reset. The sequences go
// in after the table's layout is decided, and tablewriter measures cells
// without them, so the table is Table's. A nil st (a pipe, --color never)
// is Table, byte for byte.
func TableStyled(w io.Writer, style TableStyle, header []string, rows [][]string, st *Style, mark []string) error {
	header, rows, num := NormTable(header, rows)
	var bad [][]bool
	if st != nil && st.Bad != "" {
		bad = badCells(header, rows)
	}
	if tableWidth(header, rows, false) > TableWidth {
		// first the headers over two or more lines ("Packets\nA→B"), then,
		// if that is not enough, into several tables
		for j, h := range header {
			header[j] = wrapHeader(h, colWidth(header, rows, j, true))
		}
	}
	for _, cols := range splitColumns(header, rows, num) {
		h := pick(header, cols)
		r := make([][]string, len(rows))
		for i, row := range rows {
			r[i] = pick(row, cols)
		}
		wrapWide(h, r, pickBool(num, cols))
		var b [][]bool
		if bad != nil {
			b = make([][]bool, len(rows))
			for i := range bad {
				b[i] = pickBool(bad[i], cols)
			}
		}
		if err := table(w, style, h, r, pickBool(num, cols), st, mark, b); err != nil {
			return err
		}
	}
	return nil
}

// badColumns are the table columns that count failures: a cell above 0 in
// one is drawn as a failure (TableStyled).
var badColumns = map[string]bool{"Failed": true, "Errors": true, "Aborts": true, "NAKs": true, "RNR": true, "Lost": true,
	"Malformed": true, "Bad": true, "Dropped": true}

// badCells marks the cells that report failures: a number above 0 in a
// badColumns column, "error" in a Severity column (the expert table).
func badCells(header []string, rows [][]string) [][]bool {
	out := make([][]bool, len(rows))
	for i, r := range rows {
		out[i] = make([]bool, len(header))
		for j, h := range header {
			if j >= len(r) {
				continue
			}
			c := r[j]
			switch {
			case h == "Severity":
				out[i][j] = c == dissect.Error.String()
			case badColumns[h]:
				v, err := strconv.ParseFloat(c, 64)
				out[i][j] = err == nil && v > 0
			}
		}
	}
	return out
}

func table(w io.Writer, style TableStyle, header []string, rows [][]string, num []bool, st *Style, mark []string, bad [][]bool) error {
	sym := tw.StyleASCII
	if style == TableLight {
		sym = tw.StyleLight
	}
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignLeft
		if num[i] {
			align[i] = tw.AlignRight
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(sym)})),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{Global: tw.AlignLeft, PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignLeft, PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoFormat(tw.Off))
	h := make([]any, len(header))
	for i, s := range header {
		if st != nil && st.Header != "" && s != "" { // each line of a wrapped header on its own
			s = st.Header + strings.ReplaceAll(s, "\n", st.Reset+"\n"+st.Header) + st.Reset
		}
		h[i] = s
	}
	t.Header(h...)
	reset := ""
	if st != nil {
		reset = st.Reset
	}
	for i, r := range rows {
		rowMark := ""
		if i < len(mark) {
			rowMark = mark[i]
		}
		var b []bool
		if i < len(bad) {
			b = bad[i]
		}
		if rowMark != "" || slices.Contains(b, true) {
			m := make([]string, len(r))
			for j, c := range r {
				seq := rowMark
				if j < len(b) && b[j] {
					seq += st.Bad
				}
				if c != "" && seq != "" {
					c = seq + c + reset
				}
				m[j] = c
			}
			r = m
		}
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

// NormTable puts a table's cells in rdx's one form, for text and JSON
// alike: a frame range of one frame ("6-6") is that frame ("6"), a column
// of durations ("33µs", "3.278ms") has one unit, named in its header
// ("Min (ms)") and its cells plain numbers, and num says which columns
// hold only numbers (right-aligned, JSON numbers). rows is changed in place.
func NormTable(header []string, rows [][]string) ([]string, [][]string, []bool) {
	header = append([]string(nil), header...)
	num := make([]bool, len(header))
	for j := range header {
		for _, r := range rows {
			if j < len(r) {
				r[j] = oneFrame(r[j])
			}
		}
		if unit, ok := durationColumn(rows, j); ok {
			header[j] += " (" + unit.name + ")"
			for _, r := range rows {
				if j < len(r) && r[j] != "" {
					d, _ := time.ParseDuration(r[j])
					r[j] = strconv.FormatFloat(float64(d)/float64(unit.d), 'f', unit.prec, 64)
				}
			}
		}
		num[j] = numberColumn(rows, j)
	}
	return header, rows, num
}

// oneFrame is "6" for "6-6", else s.
func oneFrame(s string) string {
	i := strings.IndexByte(s, '-')
	if i <= 0 || len(s) != 2*i+1 || s[:i] != s[i+1:] || !allDigits(s[:i]) {
		return s
	}
	return s[:i]
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

type timeUnit struct {
	name string
	d    time.Duration
	prec int // decimals: nanosecond resolution at most
}

var timeUnits = []timeUnit{{"s", time.Second, 6}, {"ms", time.Millisecond, 3}, {"µs", time.Microsecond, 0}}

// durationColumn says whether every cell of column j is a Go duration
// (at least one with a unit) and the unit its largest value reads best in.
func durationColumn(rows [][]string, j int) (timeUnit, bool) {
	var max time.Duration
	seen := false
	for _, r := range rows {
		if j >= len(r) || r[j] == "" {
			continue
		}
		c := r[j]
		if c[0] < '0' || c[0] > '9' {
			return timeUnit{}, false
		}
		d, err := time.ParseDuration(c)
		if err != nil {
			return timeUnit{}, false
		}
		seen = seen || c != "0"
		max = maxDur(max, d)
	}
	if !seen {
		return timeUnit{}, false
	}
	for _, u := range timeUnits[:len(timeUnits)-1] {
		if max >= u.d {
			return u, true
		}
	}
	return timeUnits[len(timeUnits)-1], true
}

func maxDur(a, b time.Duration) time.Duration {
	if b < 0 {
		b = -b
	}
	return max(a, b)
}

// numberColumn: every non-empty cell of column j is a decimal number, and
// one is there.
func numberColumn(rows [][]string, j int) bool {
	seen := false
	for _, r := range rows {
		if j >= len(r) || r[j] == "" {
			continue
		}
		c := r[j]
		if c[0] != '-' && (c[0] < '0' || c[0] > '9') || strings.ContainsAny(c, "xXeEpP_") {
			return false
		}
		// a JSON number too ("007" and "1." are not): JSON writes it as one
		if v, err := strconv.ParseFloat(c, 64); err != nil || math.IsInf(v, 0) || !json.Valid([]byte(c)) {
			return false
		}
		seen = true
	}
	return seen
}

// splitColumns groups the columns into tables no wider than TableWidth:
// one group when the table fits, else each group starts with the leading
// key columns (those before the first numeric one, or just the first
// when they alone leave too little room).
func splitColumns(header []string, rows [][]string, num []bool) [][]int {
	wid := make([]int, len(header))
	total := 1
	for j := range header {
		wid[j] = colWidth(header, rows, j, false) + 3 // a space either side and the border
		total += wid[j]
	}
	all := make([]int, len(header))
	for j := range all {
		all[j] = j
	}
	if total <= TableWidth || len(header) < 2 {
		return [][]int{all}
	}
	maxKeys := 1
	for maxKeys < len(header)-1 && !num[maxKeys] {
		maxKeys++
	}
	// fill groups the columns after the first keys ones, each group
	// starting with the keys, filled up to limit
	fill := func(keys, limit int) [][]int {
		kw := 1
		for _, w := range wid[:keys] {
			kw += w
		}
		var groups [][]int
		cur, cw := append([]int(nil), all[:keys]...), kw
		for j := keys; j < len(header); j++ {
			if cw+wid[j] > limit && len(cur) > keys {
				groups = append(groups, cur)
				cur, cw = append([]int(nil), all[:keys]...), kw
			}
			cur, cw = append(cur, j), cw+wid[j]
		}
		return append(groups, cur)
	}
	// the most key columns that need no more tables than fewer would
	var best [][]int
	bestKeys := 0
	for k := maxKeys; k >= 1; k-- {
		if g := fill(k, TableWidth); best == nil || len(g) < len(best) {
			best, bestKeys = g, k
		}
	}
	// then the columns spread evenly over that many tables (no table of
	// one lonely column)
	kw := 1
	for _, w := range wid[:bestKeys] {
		kw += w
	}
	even := kw + (total-kw+len(best)-1)/len(best)
	if e := fill(bestKeys, min(even, TableWidth)); len(e) == len(best) {
		return e
	}
	return best
}

// colWidth is the width of column j: its widest cell or header line (or,
// with words, the header's longest word).
func colWidth(header []string, rows [][]string, j int, words bool) int {
	w := 0
	sep := "\n"
	if words {
		sep = " \n"
	}
	for _, l := range strings.FieldsFunc(header[j], func(r rune) bool { return strings.ContainsRune(sep, r) }) {
		w = max(w, utf8.RuneCountInString(l))
	}
	for _, r := range rows {
		if j < len(r) {
			for _, l := range strings.Split(r[j], "\n") {
				w = max(w, utf8.RuneCountInString(l))
			}
		}
	}
	return w
}

// wrapWide breaks the cells of the widest text column over lines when a
// table split as far as it goes is still wider than TableWidth: a key
// column and one long message ("Previous segment(s) not captured (common
// at capture start)") cannot be split apart.
func wrapWide(header []string, rows [][]string, num []bool) {
	for range header {
		over := tableWidth(header, rows, false) - TableWidth
		if over <= 0 {
			return
		}
		wj, ww := -1, 0
		for j := 1; j < len(header); j++ {
			if w := colWidth(header, rows, j, false); !num[j] && w > ww {
				wj, ww = j, w
			}
		}
		if wj < 0 || ww-over < 16 {
			return // nothing left worth wrapping: wider it is
		}
		for _, r := range rows {
			if wj < len(r) {
				r[wj] = wrapHeader(r[wj], ww-over)
			}
		}
		if colWidth(header, rows, wj, false) >= ww {
			return // one long word: wrapping cannot help
		}
	}
}

func tableWidth(header []string, rows [][]string, words bool) int {
	t := 1
	for j := range header {
		t += colWidth(header, rows, j, words) + 3
	}
	return t
}

// wrapHeader breaks h at spaces into lines of at most w runes (a longer
// word stays whole).
func wrapHeader(h string, w int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(h) {
		l := utf8.RuneCountInString(word)
		if i > 0 {
			if n+1+l > w {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += l
	}
	return b.String()
}

func pick(s []string, cols []int) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		if c < len(s) {
			out[i] = s[c]
		}
	}
	return out
}

func pickBool(s []bool, cols []int) []bool {
	out := make([]bool, len(cols))
	for i, c := range cols {
		out[i] = s[c]
	}
	return out
}

// Plural is n and word, with an s unless n is 1: "1 note", "2 notes".
func Plural[N ~int | ~int64 | ~uint64](n N, word string) string {
	s := strconv.FormatInt(int64(n), 10) + " " + word
	if n != 1 {
		s += "s"
	}
	return s
}
