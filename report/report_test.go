package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all" // every protocol, as rdx has them
	"github.com/rdx-project/rdx/internal/strict"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/report"
)

// TestMain runs every engine strict: a dissector panic fails the test.
func TestMain(m *testing.M) { strict.Main(m) }

// The captures the tests report on: crafted frames with bad IP, TCP and
// UDP checksums (failed checks, error findings), and a real RDP capture
// with loss (warnings and notes on many frames).
const (
	badSums = "../pcaps/crafted/base_fields.pcap"
	lossy   = "../pcaps/rdp/lossy.pcap"
	// Real Linux RDS/TCP under netem loss (pcaps/kernel/lossy_README.md):
	// retransmissions, out-of-order segments and dup ACKs as findings.
	lossyRDS = "../pcaps/kernel/lossy_rds_tcp.pcap"
)

// barFigure is the tests' FigureFunc: a small real SVG, one bar per file
// as long as its frame count, so a figure depends on the files it was
// given. Kind "qp" fails, as a plot with nothing to draw would.
func barFigure(w io.Writer, kind string, files []string) error {
	if kind == "qp" {
		return errors.New("no InfiniBand <QP> in these captures")
	}
	fmt.Fprintf(w, `<?xml version="1.0"?>`+"\n"+`<svg xmlns="http://www.w3.org/2000/svg" width="320" height="%d" viewBox="0 0 320 %d">`, 20+20*len(files), 20+20*len(files))
	fmt.Fprintf(w, `<text x="4" y="14" font-size="12">%s: frames per file</text>`, kind)
	for i, name := range files {
		n, err := countFrames(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, `<rect x="4" y="%d" width="%d" height="14" fill="#3870c0"/>`, 20+20*i, 10+n)
	}
	_, err := io.WriteString(w, "</svg>\n")
	return err
}

func countFrames(name string) (int, error) {
	src, err := capture.Open(name)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	var p capture.Packet
	n := 0
	for {
		if err := src.Next(&p); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// page builds the report of files and parses it.
func page(t *testing.T, files []string, opt report.Options) (*report.Report, *html.Node, []byte) {
	t.Helper()
	r, err := report.Build(files, opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return r, doc, b.Bytes()
}

// find returns every element under n for which ok is true, in document order.
func find(n *html.Node, ok func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && ok(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	return strings.Contains(" "+attr(n, "class")+" ", " "+c+" ")
}

func tag(name, class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name && (class == "" || hasClass(n, class)) }
}

// text is n's text content.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// bodyRows are a table's rows in its tbody.
func bodyRows(table *html.Node) []*html.Node {
	var out []*html.Node
	for _, tb := range find(table, tag("tbody", "")) {
		out = append(out, find(tb, tag("tr", ""))...)
	}
	return out
}

func cells(tr *html.Node) []string {
	var out []string
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
			out = append(out, strings.TrimSpace(text(c)))
		}
	}
	return out
}

// fileSection is the section of the i-th file (from 1).
func fileSection(t *testing.T, doc *html.Node, i int) *html.Node {
	t.Helper()
	s := find(doc, func(n *html.Node) bool { return n.Data == "section" && attr(n, "id") == "file-"+strconv.Itoa(i) })
	if len(s) != 1 {
		t.Fatalf("%d sections file-%d, want 1", len(s), i)
	}
	return s[0]
}

// TestReportStructure reports on a crafted capture with failed checks and
// on a real one with loss (Linux RDS over TCP under netem), and finds in
// each page what rdx check, rdx stats -T json and rdx flows -T json say of
// it, every finding, and the -V tree of every frame with findings.
func TestReportStructure(t *testing.T) {
	t.Run("bad-checksums", func(t *testing.T) { reportStructure(t, badSums, true) })
	t.Run("lossy-rds-tcp", func(t *testing.T) { reportStructure(t, lossyRDS, false) })
}

func reportStructure(t *testing.T, file string, wantFailed bool) {
	files := []string{file}
	r, doc, raw := page(t, files, report.Options{Figure: barFigure})
	sec := fileSection(t, doc, 1)

	// The check table is rdx check's: the same checks, counts and failures.
	eo := dissect.Options{Checksums: true}
	cres, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Engine: eo, Out: io.Discard, Quiet: true, Check: &pipeline.CheckReport{}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, c := range cres.Checks {
		if c.Checked > 0 || len(c.NotChecked) > 0 {
			want[c.Check] = []string{strconv.FormatUint(c.Checked, 10), strconv.FormatUint(c.Passed, 10), strconv.FormatUint(c.Failed, 10)}
		}
	}
	checks := find(sec, tag("table", "checks"))
	if len(checks) != 1 {
		t.Fatalf("%d check tables, want 1", len(checks))
	}
	rows := bodyRows(checks[0])
	if len(rows) != len(want) || len(rows) == 0 {
		t.Fatalf("check table has %d rows, rdx check %d", len(rows), len(want))
	}
	failed := 0
	for _, tr := range rows {
		c := cells(tr) // Check, Proto, Description, Checked, Passed, Failed, Not checked, Result, frames
		w, ok := want[c[0]]
		if !ok || c[3] != w[0] || c[4] != w[1] || c[5] != w[2] {
			t.Errorf("check row %q, rdx check has %v", c, w)
		}
		if (c[5] != "0") != (c[7] == "fail") || (c[5] != "0") != hasClass(tr, "fail") {
			t.Errorf("check row %q: result %q, class %q", c, c[7], attr(tr, "class"))
		}
		if c[7] == "fail" {
			failed++
		}
	}
	if (failed > 0) != wantFailed {
		t.Errorf("%d failed checks in the page; want failures: %v", failed, wantFailed)
	}

	// The statistics and flow tables are rdx stats/flows -T json's (the
	// endpoints tables are neither), with the same rows.
	var js bytes.Buffer
	if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Engine: eo, Out: &js, Quiet: true,
		Stats: pipeline.StatNames(), SkipEmptyStats: true, StatsFormat: "json"}); err != nil {
		t.Fatal(err)
	}
	var doc2 struct {
		Tables []struct {
			Name    string
			Columns []string
			Rows    [][]any
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc2); err != nil {
		t.Fatal(err)
	}
	got := map[string]*html.Node{}
	for _, tb := range find(sec, tag("table", "stat")) {
		got[attr(tb, "data-name")] = tb
	}
	nt := 0
	for _, jt := range doc2.Tables {
		if strings.HasPrefix(jt.Name, "endpoints,") {
			continue
		}
		nt++
		tb := got[jt.Name]
		if tb == nil {
			t.Errorf("table %s not in the page", jt.Name)
			continue
		}
		hrows := bodyRows(tb)
		if len(hrows) != len(jt.Rows) {
			t.Errorf("table %s: %d rows in the page, %d in rdx stats -T json", jt.Name, len(hrows), len(jt.Rows))
			continue
		}
		for i, jr := range jt.Rows {
			hc := cells(hrows[i])
			for j, v := range jr {
				if j < len(hc) && !sameCell(hc[j], v) {
					t.Errorf("table %s row %d col %s: page %q, json %v", jt.Name, i, jt.Columns[j], hc[j], v)
				}
			}
		}
	}
	if nt == 0 || len(got) != nt {
		t.Errorf("page has %d tables, json %d", len(got), nt)
	}
	if got["io,phs"] == nil {
		t.Error("no protocol hierarchy")
	}

	// Every finding is listed, each with a link to its frame's tree.
	f := r.Files[0]
	total := f.Overview.Counts.Total()
	if total == 0 || (f.Overview.Errors > 0) != wantFailed {
		t.Fatalf("%s: %+v findings", file, f.Overview.Counts)
	}
	frows := find(sec, tag("tr", "finding"))
	if len(frows) != total {
		t.Errorf("%d finding rows, %d findings", len(frows), total)
	}
	for _, tr := range frows {
		links := find(tr, tag("a", "frame-link"))
		c := cells(tr)
		if len(links) != 1 || attr(links[0], "href") != "#frame-"+c[0] {
			t.Errorf("finding %q: links %d, want one to #frame-%s", c, len(links), c[0])
		}
		if !hasClass(tr, "sev-"+c[1]) {
			t.Errorf("finding %q: class %q", c, attr(tr, "class"))
		}
	}
	checkLinks(t, doc)

	// The trees are rdx read -V's, with checksums checked as rdx check.
	var v bytes.Buffer
	if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Engine: eo, Out: &v, Print: pipeline.Print{Verbose: true}}); err != nil {
		t.Fatal(err)
	}
	vtrees := strings.Split(v.String(), "\n\n") // -V separates frames with a blank line
	trees := find(sec, tag("div", "frame"))
	if len(trees) == 0 || len(trees) != len(f.Trees) {
		t.Fatalf("%d trees in the page, %d in the report", len(trees), len(f.Trees))
	}
	for _, d := range trees {
		n, err := strconv.Atoi(strings.TrimPrefix(attr(d, "id"), "frame-"))
		if err != nil || n < 1 || n > len(vtrees) {
			t.Fatalf("tree id %q", attr(d, "id"))
		}
		pre := find(d, tag("pre", "tree"))
		if len(pre) != 1 || strings.TrimSpace(text(pre[0])) != strings.TrimSpace(vtrees[n-1]) {
			t.Errorf("frame %d: tree differs from rdx read -V's: %s", n, firstDiff(text(pre[0]), vtrees[n-1]))
		}
	}

	// Plots: drawn ones are data: images; a failed one is a note naming
	// its error, escaped.
	for _, k := range report.Kinds() {
		figs := find(doc, func(n *html.Node) bool { return attr(n, "data-kind") == k })
		if len(figs) != 1 {
			t.Fatalf("kind %s: %d elements", k, len(figs))
		}
		if k == "qp" {
			if !hasClass(figs[0], "figure-missing") || !strings.Contains(text(figs[0]), "no InfiniBand <QP> in these captures") {
				t.Errorf("qp: %q, want a note with the error", text(figs[0]))
			}
			continue
		}
		img := find(figs[0], tag("img", ""))
		if len(img) != 1 || !strings.HasPrefix(attr(img[0], "src"), "data:image/svg+xml;base64,") {
			t.Errorf("kind %s: no SVG image", k)
		}
	}
	selfContained(t, doc, raw)
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: page %q, -V %q", i+1, x, y)
		}
	}
	return "no difference"
}

// sameCell compares a page's cell with a JSON one (a number as a number:
// the page's "18.000" ms is JSON's 18).
func sameCell(cell string, v any) bool {
	if f, ok := v.(float64); ok {
		c, err := strconv.ParseFloat(cell, 64)
		return err == nil && c == f
	}
	return cell == fmt.Sprint(v)
}

// checkLinks fails unless every #link in the page has its target.
func checkLinks(t *testing.T, doc *html.Node) {
	t.Helper()
	ids := map[string]bool{}
	for _, n := range find(doc, func(n *html.Node) bool { return attr(n, "id") != "" }) {
		if ids[attr(n, "id")] {
			t.Errorf("id %q twice", attr(n, "id"))
		}
		ids[attr(n, "id")] = true
	}
	links := 0
	for _, a := range find(doc, tag("a", "")) {
		h := attr(a, "href")
		if !strings.HasPrefix(h, "#") || !ids[h[1:]] {
			t.Errorf("link %q has no target", h)
		}
		links++
	}
	if links == 0 {
		t.Error("no links")
	}
}

// selfContained fails when the page would load anything: a script, a
// stylesheet link, or a src or href that is not a data: URI or #anchor.
func selfContained(t *testing.T, doc *html.Node, raw []byte) {
	t.Helper()
	for _, n := range find(doc, func(n *html.Node) bool { return true }) {
		if n.Data == "script" || n.Data == "link" || n.Data == "iframe" {
			t.Errorf("page has a <%s>", n.Data)
		}
		if s := attr(n, "src"); s != "" && !strings.HasPrefix(s, "data:") {
			t.Errorf("<%s src=%q> loads from outside", n.Data, s)
		}
		if h := attr(n, "href"); h != "" && !strings.HasPrefix(h, "#") {
			t.Errorf("<%s href=%q> leaves the page", n.Data, h)
		}
	}
	if bytes.Contains(raw, []byte("@import")) || bytes.Contains(raw, []byte("url(")) {
		t.Error("the style loads something")
	}
}

// TestReportCaps: with more findings and frames than the limits, the page
// lists the first ones, says how many it left out, and links only to the
// trees it has.
func TestReportCaps(t *testing.T) {
	r, doc, _ := page(t, []string{lossy}, report.Options{MaxTreeFrames: 3, MaxFindings: 10})
	f := r.Files[0]
	total := f.Overview.Counts.Total()
	if total <= 10 {
		t.Fatalf("%s: %d findings, want more than 10", lossy, total)
	}
	if len(f.Findings) != 10 || f.FindingsOmitted != total-10 {
		t.Errorf("findings %d listed, %d omitted; want 10 and %d", len(f.Findings), f.FindingsOmitted, total-10)
	}
	if len(f.Trees) != 3 || f.TreesOmitted == 0 {
		t.Errorf("%d trees, %d omitted", len(f.Trees), f.TreesOmitted)
	}
	sec := fileSection(t, doc, 1)
	if n := len(find(sec, tag("tr", "finding"))); n != 10 {
		t.Errorf("%d finding rows, want 10", n)
	}
	if n := len(find(sec, tag("div", "frame"))); n != 3 {
		t.Errorf("%d trees, want 3", n)
	}
	for _, c := range []string{"findings-capped", "trees-capped"} {
		p := find(sec, tag("p", c))
		if len(p) != 1 || !strings.Contains(text(p[0]), "not") {
			t.Errorf("no %s note", c)
		}
	}
	if p := find(sec, tag("p", "findings-capped")); len(p) == 1 && !strings.Contains(text(p[0]), strconv.Itoa(total-10)+" more findings") {
		t.Errorf("note %q does not say %d more findings", text(p[0]), total-10)
	}
	checkLinks(t, doc)

	// The tree text's bound: past it, no more trees (the first is kept
	// whole).
	rb, _, _ := page(t, []string{lossy}, report.Options{MaxTreeBytes: 1})
	if fb := rb.Files[0]; len(fb.Trees) != 1 || fb.TreesOmitted != len(r.Files[0].Trees)+r.Files[0].TreesOmitted-1 {
		t.Errorf("MaxTreeBytes 1: %d trees, %d omitted", len(fb.Trees), fb.TreesOmitted)
	}

	// No plot maker: each kind is a note.
	if n := len(find(doc, tag("p", "figure-missing"))); n != len(report.Kinds()) {
		t.Errorf("%d figure notes, want %d", n, len(report.Kinds()))
	}
}

// TestReportManyFiles: one section per file, ids prefixed per file so the
// same frame number in two files has two targets, and a total row.
func TestReportManyFiles(t *testing.T) {
	dir := t.TempDir()
	// A file name is the user's text: it must reach the page escaped.
	odd := filepath.Join(dir, `<b>x&"y.pcap`)
	b, err := os.ReadFile(badSums)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(odd, b, 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{badSums, lossy, odd}
	r, doc, _ := page(t, files, report.Options{Figure: barFigure})
	if len(find(doc, tag("b", ""))) != 0 {
		t.Error("the file name's <b> became an element")
	}
	for i := range files {
		sec := fileSection(t, doc, i+1)
		h := find(sec, tag("h2", ""))
		if len(h) == 0 || text(h[0]) != files[i] {
			t.Errorf("section %d is headed %q, want %q", i+1, text(h[0]), files[i])
		}
		pre := fmt.Sprintf("#f%d-frame-", i+1)
		for _, a := range find(sec, tag("a", "frame-link")) {
			if !strings.HasPrefix(attr(a, "href"), pre) {
				t.Errorf("file %d links to %q", i+1, attr(a, "href"))
			}
		}
	}
	checkLinks(t, doc)
	ov := find(doc, func(n *html.Node) bool { return attr(n, "id") == "overview-table" })
	if len(ov) != 1 {
		t.Fatal("no overview table")
	}
	rows := bodyRows(ov[0])
	if len(rows) != len(files)+1 {
		t.Fatalf("overview has %d rows, want a row per file and the total", len(rows))
	}
	var sum uint64
	for i, f := range r.Files {
		c := cells(rows[i])
		if c[1] != strconv.FormatUint(f.Overview.Frames, 10) {
			t.Errorf("overview row %d: frames %s, want %d", i, c[1], f.Overview.Frames)
		}
		sum += f.Overview.Frames
	}
	if c := cells(rows[len(files)]); c[1] != strconv.FormatUint(sum, 10) || r.Total.Frames != sum || sum != 19+239+19 {
		t.Errorf("total row %q, want %d frames", c, sum)
	}
	if !strings.Contains(cells(rows[1])[5], "raw IPv4 (228): 239 frames") {
		t.Errorf("lossy.pcap link types %q", cells(rows[1])[5])
	}
}

// TestReportBadRecord: a capture cut inside a record gets its page of the
// frames before the cut, and the error names it.
func TestReportBadRecord(t *testing.T) {
	b, err := os.ReadFile(lossy)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = report.Write(&out, []string{cut}, report.Options{})
	if err == nil {
		t.Fatal("no error for a cut capture")
	}
	doc, perr := html.Parse(&out)
	if perr != nil {
		t.Fatal(perr)
	}
	p := find(doc, tag("p", "read-error"))
	if len(p) != 1 || !strings.Contains(text(p[0]), err.Error()) {
		t.Errorf("page does not say %q", err)
	}
	if _, err := report.Build([]string{filepath.Join(t.TempDir(), "missing.pcap")}, report.Options{}); err == nil {
		t.Error("no error for a missing file")
	}
}

// stopAfter is a Stopper that is stopped once asked n times.
type stopAfter struct {
	n, asked int
	acked    bool
	done     chan struct{}
}

func (s *stopAfter) Stopped() bool {
	s.asked++
	if s.asked == s.n {
		close(s.done)
	}
	return s.asked >= s.n
}
func (s *stopAfter) Done() <-chan struct{} { return s.done }
func (s *stopAfter) Ack()                  { s.acked = true }

// TestReportStop: a stop (SIGINT) ends the reading; the page is of the
// files read and names those that were not.
func TestReportStop(t *testing.T) {
	// Asked about once per frame of each pass: base_fields (19 frames,
	// two passes) is read whole, the stop comes in lossy.pcap's first pass
	// (239 frames), and the third file is not read.
	st := &stopAfter{n: 100, done: make(chan struct{})}
	r, doc, _ := page(t, []string{badSums, lossy, badSums}, report.Options{Stop: st})
	if len(r.Files) != 2 || r.Files[0].Overview.Frames != 19 || !slices.Equal(r.NotRead, []string{badSums}) || !st.acked {
		t.Fatalf("%d files read, not read %q, acked %v", len(r.Files), r.NotRead, st.acked)
	}
	if n := r.Files[1].Overview.Frames; n >= 239 {
		t.Errorf("the stopped file has %d frames", n)
	}
	p := find(doc, tag("p", "not-read"))
	if len(p) != 1 || !strings.Contains(text(p[0]), "1 file not read: "+badSums) {
		t.Errorf("no note of the file not read")
	}
	if len(find(doc, tag("section", "file"))) != 2 {
		t.Error("want two file sections")
	}
}
