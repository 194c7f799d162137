package render

import (
	"fmt"
	"strings"

	"github.com/rdx-project/rdx/dissect"
)

// FieldsOpts are tshark's -E options.
type FieldsOpts struct {
	Header     bool
	Separator  string // between fields, default tab
	Aggregator string // between occurrences, default ","
	Quote      byte   // 0, '"' or '\''
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
		o.Header = v == "y" || v == "yes" || v == "1"
	case "separator":
		o.Separator = unslash(v)
	case "aggregator":
		o.Aggregator = unslash(v)
	case "occurrence":
		if v != "a" {
			return fmt.Errorf("-E occurrence=%s: only a (all occurrences) is supported", v)
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
	cols  [][]byte
	count []int
	idx   []int // column holding each name's values (a repeated name shares one)
	// columns of the finding parts (-1: not asked); any of them makes rows
	// read findings' nodes
	xMsg, xSev, xGroup, xField int
}

// NewFields checks the field names against the registry.
func NewFields(names []string, o FieldsOpts) (*Fields, error) {
	if o.Separator == "" {
		o.Separator = "\t"
	}
	if o.Aggregator == "" {
		o.Aggregator = ","
	}
	w := &Fields{Opts: o, names: names}
	for i, n := range names {
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
		w.idx = append(w.idx, int(w.col[id])-1)
	}
	w.xMsg, w.xSev, w.xGroup, w.xField = w.column(expertMsg), w.column(expertSev), w.column(expertGroup), w.column(expertField)
	w.cols = make([][]byte, len(names))
	w.count = make([]int, len(names))
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
	for _, n := range w.names {
		s.Add(dissect.Lookup(n))
	}
	if w.xMsg >= 0 || w.xSev >= 0 || w.xGroup >= 0 || w.xField >= 0 {
		s.AddExpert()
	}
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
func (w *Fields) open(c int) {
	if w.count[c] > 0 {
		w.cols[c] = append(w.cols[c], w.Opts.Aggregator...)
	}
	w.count[c]++
}

// putString adds an occurrence to column c (-1: not asked).
func (w *Fields) putString(c int, v string) {
	if c >= 0 {
		w.open(c)
		w.cols[c] = append(w.cols[c], v...)
	}
}

// Row appends one frame's row.
func (w *Fields) Row(dst []byte, t *dissect.Tree) []byte {
	for i := range w.cols {
		w.cols[i] = w.cols[i][:0]
		w.count[i] = 0
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
			w.open(c)
			w.cols[c] = dissect.AppendField(w.cols[c], n)
		}
	}
	for i := range w.names {
		if i > 0 {
			dst = append(dst, w.Opts.Separator...)
		}
		c := w.idx[i]
		if w.Opts.Quote != 0 && w.count[c] > 0 {
			dst = append(dst, w.Opts.Quote)
			dst = append(dst, w.cols[c]...)
			dst = append(dst, w.Opts.Quote)
		} else {
			dst = append(dst, w.cols[c]...)
		}
	}
	return append(dst, '\n')
}
