package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/render"
)

//go:embed report.html.tmpl
var pageText string

// page is parsed on first use: only `rdx report` needs it, and parsing it
// at init cost every other run ~80 KB and 1,700 allocations.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"frameID":   func(f *File, n uint64) string { return f.Anchor + "frame-" + strconv.FormatUint(n, 10) },
		"hasTree":   func(f *File, n uint64) bool { return f.treeSet[n] },
		"time":      fmtTime,
		"duration":  func(o Overview) string { return time.Duration(o.Last - o.First).String() },
		"linkTypes": linkTypes,
		"bytes":     func(n uint64) string { return render.Plural(n, "byte") },
		"plural":    func(n int, what string) string { return render.Plural(n, what) },
		"checkRows": checkRows,
		"notes":     checkNotes,
		"sev":       func(s dissect.Severity) string { return s.String() },
		"img":       func(uri string) template.URL { return template.URL(uri) }, // our own data: URI (dataURI), not the capture's
		"add":       func(a, b int) int { return a + b },
		"num":       func(t *Table, j int) bool { return j < len(t.Num) && t.Num[j] },
	}).Parse(pageText))
})

// WriteHTML writes the report as one HTML page.
func (r *Report) WriteHTML(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10) // the template writes in many small pieces
	if err := page().Execute(bw, r); err != nil {
		return err
	}
	return bw.Flush()
}

// Write builds the report of files and writes it to w: Build, then
// WriteHTML. A bad record in a file still writes the page, and then
// returns the error (Report.Err).
func Write(w io.Writer, files []string, opt Options) error {
	r, err := Build(files, opt)
	if err != nil {
		return err
	}
	if err := r.WriteHTML(w); err != nil {
		return err
	}
	return r.Err()
}

// fmtTime is a frame time in UTC, to the nanosecond.
func fmtTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000000000")
}

// linkTypeNames are the LINKTYPE_ values rdx reads (tcpdump.org's
// link-layer header types).
var linkTypeNames = map[uint16]string{
	0: "BSD loopback", 1: "Ethernet", 12: "raw IP", 101: "raw IP", 108: "OpenBSD loopback",
	113: "Linux cooked (SLL)", 197: "ERF", 228: "raw IPv4", 229: "raw IPv6",
	247: "InfiniBand", 276: "Linux cooked v2 (SLL2)",
}

// linkTypes words a link type tally: "Ethernet (1): 12 frames".
func linkTypes(m map[uint16]uint64) string {
	keys := make([]uint16, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		name := linkTypeNames[k]
		if name == "" {
			name = "link type"
		}
		parts = append(parts, name+" ("+strconv.Itoa(int(k))+"): "+render.Plural(m[k], "frame"))
	}
	return strings.Join(parts, ", ")
}

// checkRow is a check table row as rdx check prints it.
type checkRow struct {
	pipeline.CheckRow
	NotChecked uint64
}

// checkRows are the checks that applied (ran or were skipped), as rdx
// check's table has them; rdx check -T json lists every check.
func checkRows(rows []pipeline.CheckRow) []checkRow {
	var out []checkRow
	for _, r := range rows {
		var skipped uint64
		for _, n := range r.NotChecked {
			skipped += n
		}
		if r.Checked == 0 && skipped == 0 {
			continue
		}
		out = append(out, checkRow{r, skipped})
	}
	return out
}

// checkNotes are the lines rdx check prints under its table: why checks
// did not run, and failures a protocol explained.
func checkNotes(rows []pipeline.CheckRow) []string {
	var out []string
	for _, r := range rows {
		if len(r.NotChecked) == 0 {
			continue
		}
		var why []string
		var n uint64
		for _, name := range dissect.SkipNames { // rdx check's order
			if c := r.NotChecked[name]; c > 0 {
				why = append(why, strconv.FormatUint(c, 10)+" "+name)
				n += c
			}
		}
		out = append(out, r.Check+" not checked on "+render.Plural(n, "PDU")+": "+strings.Join(why, ", "))
	}
	for _, r := range rows {
		if r.Explained > 0 {
			out = append(out, r.Check+": "+strconv.FormatUint(r.Explained, 10)+" of "+strconv.FormatUint(r.Failed, 10)+
				" failures explained, e.g. "+r.Explanation)
		}
	}
	return out
}

// dataURI makes an image a data: URI: an SVG (it has an <svg element) or a
// PNG (its signature); anything else is refused.
func dataURI(b []byte) (string, error) {
	var typ string
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		typ = "image/png"
	case bytes.Contains(b[:min(len(b), 4096)], []byte("<svg")):
		typ = "image/svg+xml"
	case len(b) == 0:
		return "", errors.New("the figure is empty")
	default:
		return "", errors.New("the figure is neither SVG nor PNG")
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}
