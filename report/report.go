// Package report makes `rdx report`: one self-contained HTML page about one
// or more captures, with each capture's overview (frames, bytes, times, link
// types, protocol hierarchy), the check table rdx check prints, the tables
// rdx stats and rdx flows print, every finding linking to its frame's -V
// tree, and plots drawn by a FigureFunc. The page loads nothing: styles are
// inline and plots are data: URIs, so it can be mailed or archived as is.
//
// Build reads the captures (pipeline.Run, the same run rdx check, stats and
// flows make, with a sink collecting findings and trees); WriteHTML renders
// what it gathered through html/template, which escapes every capture-made
// string.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/render"
)

const (
	// MaxTreeFrames is how many frames with findings get their -V tree in
	// a file's section (the first ones): a tree is some kilobytes of page,
	// and a badly broken capture has a finding on every frame. The page
	// says how many frames with findings it left out.
	MaxTreeFrames = 2000
	// MaxTreeBytes bounds the trees' text in a file's section too: 2000
	// trees of jumbo frames full of fields would be a page no browser
	// opens. Frames past it count as past MaxTreeFrames.
	MaxTreeBytes = 32 << 20
	// MaxFindings is how many findings a file's section lists (the first
	// ones); the page says how many more there were. The counts by
	// severity and the expert table cover them all.
	MaxFindings = 20000
	// MaxFigureBytes bounds one figure as the FigureFunc writes it; a
	// larger one is left out with a note.
	MaxFigureBytes = 8 << 20
)

// FigureFunc draws the plot kind of files as SVG into w (a PNG is taken
// too, recognised by its signature). An error leaves the figure out of the
// page with a note saying why.
type FigureFunc func(w io.Writer, kind string, files []string) error

// Kinds are the figures a report asks its FigureFunc for, in page order.
func Kinds() []string { return []string{"io", "srt", "qp", "rtt", "checks"} }

// kindTitles are the figures' captions.
var kindTitles = map[string]string{
	"io":     "IO graph: packets and bytes per interval",
	"srt":    "Response times per procedure",
	"qp":     "InfiniBand per-QP timeline: PSN gaps, NAKs, CNPs, ECN",
	"rtt":    "RDP and Rx windows and round-trip times",
	"checks": "Check failures over time",
}

// Options set up a report.
type Options struct {
	// Engine is the dissection setup (decode-as, preferences, memory
	// budget) for every file; Source is set per file.
	Engine dissect.Options
	// Figure draws the plots; nil leaves them out with a note.
	Figure FigureFunc
	// Stop, when set, ends reading early (SIGINT): the file being read is
	// reported as far as its output pass read it (nothing when the stop
	// came in its first pass, as with rdx read -V), and the files after it
	// are left out (Report.NotRead).
	Stop pipeline.Stopper
	// MaxTreeFrames, MaxTreeBytes and MaxFindings override the package
	// limits when > 0 (tests).
	MaxTreeFrames, MaxTreeBytes, MaxFindings int
}

// Report is what Build gathered.
type Report struct {
	Files   []*File
	Figures []Figure
	// Total sums the files' overviews (one file: that file's).
	Total Overview
	// NotRead are the files a stop (Options.Stop) left unread.
	NotRead []string
}

// Figure is one plot: its image as a data: URI, or why there is none.
type Figure struct {
	Kind, Title string
	URI         string // data:image/svg+xml;base64,... ("" when Err)
	Err         string
}

// Overview is a capture's (or all captures') summary, as capinfos gives it.
type Overview struct {
	Frames           uint64
	Bytes, WireBytes uint64 // captured and on the wire
	First, Last      int64  // frame times, ns since the epoch (valid when Frames > 0)
	LinkTypes        map[uint16]uint64
	dissect.Counts   // findings by severity
}

// File is one capture's part of the report.
type File struct {
	Name string
	// Anchor prefixes the ids of the file's frames ("" with one file:
	// ids are frame-N; with several, fK-frame-N for the K-th file).
	Anchor   string
	Overview Overview
	// Err is why reading stopped early (a bad record); what was read
	// before it is reported.
	Err string

	PHS          *Table // -z io,phs
	Checks       []pipeline.CheckRow
	ChecksFailed bool
	Stats        []*Table // what rdx stats prints, but io,phs and the flow tables
	Flows        []*Table // what rdx flows prints
	Expert       *Table   // -z expert

	Findings        []Finding
	FindingsOmitted int // beyond MaxFindings
	Trees           []Tree
	TreesOmitted    int // frames with findings beyond MaxTreeFrames
	treeSet         map[uint64]bool
}

// Table is one -z table as rdx stats -T json has it: columns normalised by
// render.NormTable, Num telling the numeric ones.
type Table struct {
	Name, Title string
	Columns     []string
	Rows        [][]string
	Num         []bool
}

// Finding is one finding of a frame (Frame 0: of the capture, e.g. a table
// over its limit).
type Finding struct {
	Frame uint64
	Sev   dissect.Severity
	Group dissect.Group
	Proto string
	Field string // the field's abbreviation, "" for the PDU
	Msg   string
}

// Tree is a frame's -V tree as rdx read -V prints it.
type Tree struct {
	Frame   uint64
	Summary string
	Text    string
}

// Build reads every file and gathers the report. An error that keeps a
// file from being read at all (missing, not a capture, bad options) is
// returned; a bad record part way is kept in File.Err and the report is
// of what was read before it (see Report.Err).
func Build(files []string, opt Options) (*Report, error) {
	if len(files) == 0 {
		return nil, errors.New("no capture files")
	}
	r := &Report{Total: Overview{LinkTypes: map[uint16]uint64{}}}
	for i, name := range files {
		if opt.Stop != nil && opt.Stop.Stopped() {
			opt.Stop.Ack() // stopped between two files: the page of those read follows
			r.NotRead = files[i:]
			break
		}
		f := &File{Name: name}
		if len(files) > 1 {
			f.Anchor = "f" + strconv.Itoa(i+1) + "-"
		}
		if err := readFile(f, opt); err != nil {
			return nil, err
		}
		r.Files = append(r.Files, f)
		r.Total.add(&f.Overview)
	}
	r.Figures = figures(files[:len(r.Files)], opt.Figure)
	return r, nil
}

// Err is the first file's reading error (a bad record), or nil.
func (r *Report) Err() error {
	for _, f := range r.Files {
		if f.Err != "" {
			return errors.New(f.Err)
		}
	}
	return nil
}

// readFile runs name through the pipeline once with every -z table, the
// check tally and the collector.
func readFile(f *File, opt Options) error {
	c := &collector{file: f, maxTrees: opt.MaxTreeFrames, maxTreeBytes: opt.MaxTreeBytes, maxFindings: opt.MaxFindings}
	if c.maxTrees <= 0 {
		c.maxTrees = MaxTreeFrames
	}
	if c.maxTreeBytes <= 0 {
		c.maxTreeBytes = MaxTreeBytes
	}
	if c.maxFindings <= 0 {
		c.maxFindings = MaxFindings
	}
	f.Overview.LinkTypes = map[uint16]uint64{}
	f.treeSet = map[uint64]bool{}
	eo := opt.Engine
	eo.Source = ""                           // Run names findings after the file
	eo.ZStats, eo.Conversations = nil, false // Run sets them from Stats
	eo.Checksums = true                      // as rdx check: IP, UDP and TCP checksums verified too
	var out bytes.Buffer                     // nothing is printed (Quiet, Check without a format); a -z help would be
	res, err := pipeline.Run(pipeline.Config{
		Input:  pipeline.Input{File: f.Name},
		Engine: eo,
		Out:    &out,
		Stop:   opt.Stop,
		Quiet:  true,
		// Two passes, as rdx read -V reads a file (a TreeSink asks for
		// them too): the trees show what later frames taught (a request's
		// reply frame).
		TwoPass: true,
		Stats:   pipeline.StatNames(),
		Check:   &pipeline.CheckReport{},
		Sinks:   []pipeline.Sink{c},
	})
	if !res.Ran {
		if err == nil {
			err = errors.New("not read")
		}
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if err != nil {
		f.Err = err.Error()
	}
	f.Overview.Counts = res.Counts
	f.Checks, f.ChecksFailed = res.Checks, res.ChecksFailed
	for _, fd := range res.Engine.TallyFindings() { // a -z table over its limit: of no frame
		c.add(0, &fd)
	}
	for _, z := range pipeline.StatNames() {
		t := res.Engine.Stat(z)
		if t == nil || len(t.Rows) == 0 {
			continue
		}
		tab := newTable(z, t)
		switch {
		case z == "io,phs":
			f.PHS = tab
		case z == "expert":
			f.Expert = tab
		case flows.IsFlow(z):
			f.Flows = append(f.Flows, tab)
		case flows.IsStat(z):
			f.Stats = append(f.Stats, tab)
		}
	}
	return nil
}

// newTable normalises t as rdx stats -T json does (render.NormTable) on a
// copy: the engine's rows are left alone.
func newTable(name string, t *dissect.StatTable) *Table {
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = slices.Clone(r)
	}
	h, rows, num := render.NormTable(t.Header, rows)
	return &Table{Name: name, Title: t.Title, Columns: h, Rows: rows, Num: num}
}

// collector is the report's sink: the overview counts, the findings and
// the trees of the frames that have findings.
type collector struct {
	file                  *File
	maxTrees, maxFindings int
	maxTreeBytes          int
	buf                   []byte
	treeBytes             int // the text of the trees kept
}

func (c *collector) Start(*dissect.Engine) error { return nil }

// NeedsTree: every frame's tree is built, though only those with findings
// are kept, because some fields are worked out while trees are built, in
// frame order (tcp.time_relative, tcp.analysis.acks_frame: see
// dissect/tcptree.go); trees of only some frames would show them wrong.
func (c *collector) NeedsTree() bool { return true }

func (c *collector) Frame(f *dissect.Frame, t *dissect.Tree) {
	o := &c.file.Overview
	if o.Frames == 0 {
		o.First = f.TimeNS
	}
	o.Frames++
	o.Bytes += uint64(f.CapLen)
	o.WireBytes += uint64(f.WireLen)
	o.First, o.Last = min(o.First, f.TimeNS), max(o.Last, f.TimeNS)
	o.LinkTypes[f.LinkType]++
	if len(f.Findings) == 0 {
		return
	}
	for i := range f.Findings {
		c.add(f.Num, &f.Findings[i])
	}
	fl := c.file
	if len(fl.Trees) >= c.maxTrees || c.treeBytes >= c.maxTreeBytes {
		fl.TreesOmitted++
		return
	}
	c.buf = render.Verbose(c.buf[:0], t, nil)
	sum := render.Summary(nil, f, o.First, nil)
	fl.Trees = append(fl.Trees, Tree{Frame: f.Num, Summary: string(bytes.TrimSpace(sum)), Text: string(c.buf)})
	c.treeBytes += len(c.buf)
	fl.treeSet[f.Num] = true
}

func (c *collector) add(frame uint64, fd *dissect.Finding) {
	fl := c.file
	if len(fl.Findings) >= c.maxFindings {
		fl.FindingsOmitted++
		return
	}
	field := ""
	if fd.Field != nil {
		field = fd.Field.Abbrev
	}
	fl.Findings = append(fl.Findings, Finding{Frame: frame, Sev: fd.Sev, Group: fd.Group, Proto: fd.Proto, Field: field, Msg: fd.Msg})
}

func (c *collector) End(error) error { return nil }

// add sums o into t.
func (t *Overview) add(o *Overview) {
	if o.Frames > 0 {
		if t.Frames == 0 {
			t.First, t.Last = o.First, o.Last
		}
		t.First, t.Last = min(t.First, o.First), max(t.Last, o.Last)
	}
	t.Frames += o.Frames
	t.Bytes += o.Bytes
	t.WireBytes += o.WireBytes
	for lt, n := range o.LinkTypes {
		t.LinkTypes[lt] += n
	}
	t.Errors += o.Errors
	t.Warnings += o.Warnings
	t.Notes += o.Notes
}

// figures draws every kind; a kind that fails, or writes something not an
// image, becomes a note.
func figures(files []string, draw FigureFunc) []Figure {
	var out []Figure
	for _, k := range Kinds() {
		fig := Figure{Kind: k, Title: kindTitles[k]}
		if draw == nil {
			fig.Err = "no plotting in this build"
			out = append(out, fig)
			continue
		}
		var buf bytes.Buffer
		err := draw(&limitWriter{w: &buf, n: MaxFigureBytes}, k, files)
		switch {
		case err != nil:
			fig.Err = err.Error()
		default:
			fig.URI, err = dataURI(buf.Bytes())
			if err != nil {
				fig.Err = err.Error()
			}
		}
		out = append(out, fig)
	}
	return out
}

// errFigureSize is a figure over MaxFigureBytes.
var errFigureSize = fmt.Errorf("figure larger than %d MiB", MaxFigureBytes>>20)

// limitWriter fails a write past n bytes.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, errFigureSize
	}
	l.n -= len(p)
	return l.w.Write(p)
}
