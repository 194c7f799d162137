package render

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
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
// that escape sequence, ended by reset (rdx check's failing checks). The
// sequences go in after the table's layout is decided, and tablewriter
// measures cells without them, so the table is Table's.
func TableMarked(w io.Writer, style TableStyle, header []string, rows [][]string, mark []string, reset string) error {
	header, rows, num := NormTable(header, rows)
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
		if err := table(w, style, h, r, pickBool(num, cols), mark, reset); err != nil {
			return err
		}
	}
	return nil
}

func table(w io.Writer, style TableStyle, header []string, rows [][]string, num []bool, mark []string, reset string) error {
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
		h[i] = s
	}
	t.Header(h...)
	for i, r := range rows {
		if i < len(mark) && mark[i] != "" {
			m := make([]string, len(r))
			for j, c := range r {
				if c != "" {
					m[j] = mark[i] + c + reset
				}
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
