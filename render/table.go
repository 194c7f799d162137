package render

import (
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// TableStyle is a table's border set.
type TableStyle int

const (
	// TableASCII is tshark's -z look: +---+ borders, for tables after the frames.
	TableASCII TableStyle = iota
	// TableLight draws box characters: rdx check's report.
	TableLight
)

// Table writes rows under a header as a bordered table, headers left-aligned
// and kept as given. Every table rdx prints is set up here.
func Table(w io.Writer, style TableStyle, header []string, rows [][]string) error {
	sym := tw.StyleASCII
	if style == TableLight {
		sym = tw.StyleLight
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(sym)})),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoFormat(tw.Off))
	h := make([]any, len(header))
	for i, s := range header {
		h[i] = s
	}
	t.Header(h...)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

// Plural is n and word, with an s unless n is 1: "1 note", "2 notes".
func Plural[N ~int | ~int64 | ~uint64](n N, word string) string {
	s := strconv.FormatInt(int64(n), 10) + " " + word
	if n != 1 {
		s += "s"
	}
	return s
}
