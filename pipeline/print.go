package pipeline

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/render"
)

// Print is how frames are printed, as tshark's -V, -x, -T, -e and -E.
type Print struct {
	Format    string   // text (or ""), json, jsonl, fields
	Verbose   bool     // the protocol tree of every frame (text)
	Hex       bool     // a hex dump of every frame (text)
	Fields    []string // -T fields columns
	FieldOpts []string // -E options
	Style     *render.Style
	Only      []string          // -O: with -V, expand only these protocols
	Time      render.TimeFormat // -t: the Time column (summary, _ws.col.Time)
	HMS       bool              // -u hms
	// TimeDigits is the Time column's decimals; 0 takes the capture's
	// timestamp precision (6 for microseconds, 9 for nanoseconds), as
	// tshark's automatic precision does.
	TimeDigits int
	// LineFlush (-l) writes each frame's output by itself; otherwise a
	// file's frames go out in batches of outHold octets.
	LineFlush bool
}

// outHold is how much output the printer holds before one Write when it
// reads a file (as -j's rounds hold theirs): a Write per line cost about
// 100 instructions a frame (Out's lock and copy). A live or piped source,
// a caller's sinks and -l still get a Write per frame.
const outHold = 32 << 10

// printer is the sink that prints frames to Out.
type printer struct {
	p     Print
	out   io.Writer
	fw    *render.Fields
	eng   *dissect.Engine
	buf   []byte
	first bool
	clk   render.Clock
	// -t dd: the previous shown frame's time; allShown (a -j worker, which
	// runs dd only without a display filter) makes it the previous frame's.
	shown     int64
	seenShown bool
	allShown  bool
	summary   bool                 // the text summary line and nothing else (the common case: Frame goes straight to it)
	hold      bool                 // frames' output held in buf up to outHold (reading a file)
	cols      *render.SummaryCache // the summary's repeated columns (one printer per -j worker)
}

// newPrinter checks the print options (even for -q, as before: -e without
// -T fields is a mistake either way).
func newPrinter(cfg Config) (*printer, error) {
	p := cfg.Print
	pr := &printer{p: p, out: cfg.Out, first: true, cols: render.NewSummaryCache()}
	pr.hold = cfg.Input.rereadable() && len(cfg.Sinks) == 0 && !p.LineFlush
	pr.clk = render.Clock{Format: p.Time, HMS: p.HMS, Digits: p.TimeDigits}
	switch p.Format {
	case "", "text", "json", "jsonl":
		if len(p.Fields) > 0 {
			return nil, fmt.Errorf("-e needs -T fields")
		}
	case "fields":
		if len(p.Fields) == 0 {
			return nil, fmt.Errorf("-T fields needs at least one -e FIELD")
		}
		var fo render.FieldsOpts
		for _, e := range p.FieldOpts {
			if err := fo.ParseE(e); err != nil {
				return nil, err
			}
		}
		var err error
		if pr.fw, err = render.NewFields(p.Fields, fo); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("-T %s: want text, json, jsonl or fields", p.Format)
	}
	if pr.p.Format == "" {
		pr.p.Format = "text"
	}
	pr.summary = pr.p.Format == "text" && !pr.p.Verbose && !pr.p.Hex
	for _, name := range p.Only {
		if f := dissect.Lookup(name); dissect.LookupProto(name) == nil && (f == nil || f.Type != dissect.TProtocol) {
			return nil, fmt.Errorf("-O %s: not a protocol (rdx fields lists them)", name)
		}
	}
	return pr, nil
}

// needsTree: everything but the summary line and the hex dump shows the tree.
func (pr *printer) needsTree() bool { return pr.p.Verbose || pr.p.Format != "text" }

// treeWant is what a run's trees must hold: nil for the whole tree (-V,
// JSON, a TreeSink), else only the fields -T fields prints and the display
// filter reads (dissect.Tree.SetWant), so asking for 4 fields costs 4
// fields and not a whole tree.
func treeWant(cfg Config, pr *printer, flt *filter.Filter) *dissect.FieldSet {
	set := &dissect.FieldSet{}
	for _, s := range cfg.Sinks {
		if ts, ok := s.(TreeSink); ok && ts.NeedsTree() {
			fs, ok := s.(FieldSink)
			if !ok {
				return nil
			}
			fs.WantFields(set)
		}
	}
	if !cfg.Quiet && pr.needsTree() {
		if pr.fw == nil {
			return nil
		}
		pr.fw.Want(set)
	}
	if flt != nil {
		flt.Want(set)
	}
	return set
}

func (pr *printer) Start(e *dissect.Engine) error {
	pr.eng = e
	if pr.fw != nil && pr.fw.Opts.Header {
		pr.out.Write(pr.fw.Header(nil))
	}
	if pr.p.Format == "json" {
		io.WriteString(pr.out, "[\n")
	}
	return nil
}

func (pr *printer) Frame(f *dissect.Frame, t *dissect.Tree) {
	buf := pr.body(pr.sep(pr.buf), f, t) // buf is empty unless held
	if !pr.hold || len(buf) >= outHold {
		pr.out.Write(buf)
		buf = buf[:0]
	}
	pr.buf = buf
}

// writeHeld writes the output held back (hold).
func (pr *printer) writeHeld() {
	if len(pr.buf) > 0 {
		pr.out.Write(pr.buf)
		pr.buf = pr.buf[:0]
	}
}

// sep appends what goes between two frames (-V's blank line, JSON's comma):
// it depends on the frames before, so -j's merger adds it, not a worker.
func (pr *printer) sep(buf []byte) []byte {
	if !pr.first && !pr.summary {
		switch {
		case pr.p.Format == "text" && pr.p.Verbose:
			buf = append(buf, '\n')
		case pr.p.Format == "json":
			buf = append(buf, ",\n"...)
		}
	}
	pr.first = false
	return buf
}

// body appends the frame's own output (a -j worker renders it).
func (pr *printer) body(buf []byte, f *dissect.Frame, t *dissect.Tree) []byte {
	if pr.summary {
		return render.SummaryClock(buf, f, pr.clock(f), pr.p.Style, pr.cols)
	}
	switch pr.p.Format {
	case "text":
		if pr.p.Verbose {
			buf = render.VerboseOnly(buf, t, pr.p.Style, pr.p.Only)
		} else {
			buf = render.SummaryClock(buf, f, pr.clock(f), pr.p.Style, pr.cols)
		}
		if pr.p.Hex {
			if pr.p.Verbose {
				buf = append(buf, '\n')
			}
			buf = render.Hex(buf, f.Data)
			if !pr.p.Verbose {
				buf = append(buf, '\n')
			}
		}
	case "json", "jsonl":
		var raw []byte // -x: tshark's "_raw" members
		if pr.p.Hex {
			raw = f.Data
		}
		buf = render.JSONRaw(buf, t, f.TimeNS, pr.p.Format == "json", raw)
		if pr.p.Format == "jsonl" {
			buf = append(buf, '\n')
		}
	case "fields":
		pr.fw.SetFrameClock(f, pr.clock(f)) // for _ws.col.* columns
		buf = pr.fw.Row(buf, t)
	}
	return buf
}

// clock is the Time column's clock for f, a shown frame.
func (pr *printer) clock(f *dissect.Frame) *render.Clock {
	c := &pr.clk
	c.First, c.Prev = pr.eng.Times()
	if c.Format == render.TimeDeltaDisplayed {
		switch {
		case pr.allShown:
			c.Shown = c.Prev
		case pr.seenShown:
			c.Shown = pr.shown
		default:
			c.Shown = f.TimeNS
		}
		pr.shown, pr.seenShown = f.TimeNS, true
	}
	return c
}

// setDigits gives the capture's timestamp decimals unless -t asked for some.
func (pr *printer) setDigits(d int) {
	if pr.p.TimeDigits == 0 {
		pr.clk.Digits = d
	}
}

func (pr *printer) End(error) error {
	pr.writeHeld()
	if pr.p.Format == "json" {
		if !pr.first {
			io.WriteString(pr.out, "\n")
		}
		io.WriteString(pr.out, "]\n")
	}
	return nil
}

// statsSink prints the -z tables after the frames, as tshark does, also
// after an input error: they are then of what was read before the bad
// record, and the error follows.
type statsSink struct {
	names     []string
	skipEmpty bool   // leave out tables without rows
	format    string // "json" for one JSON document, else text tables
	file      string
	files     []string // rdx stats over many files (WriteStats)
	out       io.Writer
	eng       *dissect.Engine
	style     *render.Style // text tables' colours (nil: plain)
}

// WriteStats prints the -z tables names of eng as the end of a run does
// (text tables, or with format "json" one document naming the files):
// rdx stats and flows over many files print their engines' tables, merged
// (dissect.Engine.Merge), with it.
func WriteStats(out io.Writer, eng *dissect.Engine, names []string, skipEmpty bool, format string, files ...string) error {
	return WriteStatsStyled(out, eng, names, skipEmpty, format, nil, files...)
}

// WriteStatsStyled is WriteStats with the text tables in st's colours
// (render.TableStyled; nil: plain).
func WriteStatsStyled(out io.Writer, eng *dissect.Engine, names []string, skipEmpty bool, format string, st *render.Style, files ...string) error {
	s := &statsSink{names: names, skipEmpty: skipEmpty, format: format, out: out, eng: eng, style: st}
	if len(files) == 1 {
		s.file = files[0]
	} else {
		s.files = files
	}
	return s.End(nil)
}

// stat builds table z; over many files (WriteStats of engines merged after
// dissect.Engine.TagFrames) its frames name their file.
func (s *statsSink) stat(z string) *dissect.StatTable {
	t := s.eng.Stat(z)
	if t != nil && len(s.files) > 1 {
		t.NameFrames(flows.FileLabels(s.files))
	}
	return t
}

func (s *statsSink) Start(e *dissect.Engine) error       { s.eng = e; return nil }
func (s *statsSink) Frame(*dissect.Frame, *dissect.Tree) {}

func (s *statsSink) End(error) error {
	if s.format == "json" {
		return s.json()
	}
	for _, z := range s.names {
		t := s.stat(z)
		if t == nil || s.skipEmpty && len(t.Rows) == 0 {
			continue
		}
		fmt.Fprintf(s.out, "\n%s\n", t.Title)
		if len(t.Rows) == 0 {
			fmt.Fprintln(s.out, "(none)")
			continue
		}
		if err := render.TableStyled(s.out, render.TableASCII, t.Header, t.Rows, s.style, nil); err != nil {
			return err
		}
	}
	return nil
}

// statTable is one -z table in rdx stats/flows -T json: the text table's
// columns (normalised as render.NormTable: one unit per column, named in
// the column) and rows, numbers as JSON numbers.
type statTable struct {
	Name    string              `json:"name"`
	Title   string              `json:"title"`
	Columns []string            `json:"columns"`
	Rows    [][]json.RawMessage `json:"rows"`
}

func (s *statsSink) json() error {
	out := struct {
		File   string      `json:"file,omitempty"`
		Files  []string    `json:"files,omitempty"`
		Tables []statTable `json:"tables"`
	}{File: s.file, Files: s.files, Tables: []statTable{}}
	for _, z := range s.names {
		t := s.stat(z)
		if t == nil || s.skipEmpty && len(t.Rows) == 0 {
			continue
		}
		h, rows, num := render.NormTable(t.Header, t.Rows)
		st := statTable{Name: z, Title: t.Title, Columns: h, Rows: make([][]json.RawMessage, len(rows))}
		for i, r := range rows {
			st.Rows[i] = make([]json.RawMessage, len(h))
			for j := range h {
				c := ""
				if j < len(r) {
					c = r[j]
				}
				switch {
				case num[j] && c != "":
					st.Rows[i][j] = json.RawMessage(c)
				default:
					b, _ := json.Marshal(c)
					st.Rows[i][j] = b
				}
			}
		}
		out.Tables = append(out.Tables, st)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.out, "%s\n", b)
	return err
}
