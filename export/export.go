// Package export writes what rdx decodes as Parquet tables that DuckDB,
// Spark, Trino or ClickHouse query as they are: a pipeline.Sink per
// capture, streaming (one row group in memory per table), zstd-compressed.
//
// Layout (Hive partitioning, one directory per table so each has one
// schema):
//
//	DIR/frames/host=H/CAPTURE.parquet    one row per frame
//	DIR/findings/host=H/CAPTURE.parquet  one row per finding
//	DIR/checks/host=H/CAPTURE.parquet    one row per check result
//
// host is only in the path, as Hive partitioning has it (Spark refuses a
// column that is both in the files and in the path); engines add it as a
// column. Every row carries its capture's file name (column capture).
package export

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// Tables are the tables one capture is written to, in this order.
var Tables = []string{"frames", "findings", "checks"}

// RowGroupRows is the row group size: about a million rows (10-20 MB of
// frames) is what scanning engines split work by, and what one table holds
// in memory before it goes to the file, so memory stays bounded whatever
// the capture's size.
const RowGroupRows = 1 << 20

// batchRows rows are collected before they go to the writer in one call.
const batchRows = 1024

// Options say where one capture's tables go.
type Options struct {
	Dir     string   // the dataset's directory
	Host    string   // the host partition (see HostOf)
	Capture string   // the capture column: the input file's name
	Fields  []string // -e fields: more columns of frames
	// Overwrite replaces files a former export wrote; without it an
	// existing file is an error before anything is read.
	Overwrite bool
}

// HostOf is the host a capture file stands for when --host is not given:
// its base name up to the first '.' (server1.pcap.gz is server1).
func HostOf(file string) string {
	b := filepath.Base(file)
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return b
}

// Path is where table's file of a capture goes.
func Path(dir, table, host, capture string) string {
	return filepath.Join(dir, table, "host="+partValue(host), partValue(capture)+".parquet")
}

// partValue escapes what a path element or Hive's key=value cannot hold,
// as Hive does (%XX).
func partValue(s string) string {
	if s == "" {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(`/\=%:"'*?<>|#{}[]^`, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	if b.String() == "." || b.String() == ".." {
		return url.PathEscape(b.String()) + "_"
	}
	return b.String()
}

// Sink writes one capture's frames, findings and checks. It is a
// pipeline.Sink (and a TreeSink when -e fields need the tree).
type Sink struct {
	o      Options
	frames *frameTable
	finds  *table
	checks *table
	// Rows counts the rows written to each table, in Tables' order.
	Rows    [3]int64
	info    []byte
	capture []byte // o.Capture, never changed: values may point into it
}

// New checks the options and the fields; the files are created by Start.
func New(o Options) (*Sink, error) {
	if o.Dir == "" {
		return nil, errors.New("export: no output directory")
	}
	ft, err := newFrameTable(o.Fields)
	if err != nil {
		return nil, err
	}
	s := &Sink{o: o, frames: ft, capture: []byte(o.Capture)}
	s.finds = &table{name: "findings", schema: newSchema("findings", []column{
		{"capture", dictString()},
		{"frame_number", parquet.Encoded(parquet.Uint(64), delta)},
		{"severity", dictString()},
		{"group", dictString()},
		{"protocol", dictString()},
		{"field", parquet.Optional(dictString())},
		{"message", parquet.String()},
	})}
	s.checks = &table{name: "checks", schema: newSchema("checks", []column{
		{"capture", dictString()},
		{"frame_number", parquet.Encoded(parquet.Uint(64), delta)},
		{"check", dictString()},
		{"ok", parquet.Leaf(parquet.BooleanType)},
	})}
	if !o.Overwrite {
		for _, t := range Tables {
			p := Path(o.Dir, t, o.Host, o.Capture)
			if _, err := os.Lstat(p); err == nil {
				return nil, fmt.Errorf("%s exists (a former export of %s; --overwrite replaces it)", p, o.Capture)
			}
		}
	}
	return s, nil
}

// NeedsTree: only -e fields are read from the tree.
func (s *Sink) NeedsTree() bool { return len(s.frames.extra) > 0 }

// Start creates the three files (as temporary names until End).
func (s *Sink) Start(e *dissect.Engine) error {
	s.frames.eng = e // for frame_protocols
	for _, t := range s.tables() {
		if err := t.create(Path(s.o.Dir, t.name, s.o.Host, s.o.Capture)); err != nil {
			for _, c := range s.tables() {
				c.abort()
			}
			return err
		}
	}
	return nil
}

func (s *Sink) tables() []*table { return []*table{&s.frames.table, s.finds, s.checks} }

// Frame adds the frame's row and its findings' and checks' rows.
func (s *Sink) Frame(f *dissect.Frame, t *dissect.Tree) {
	capture := s.capture
	s.info = render.Info(s.info[:0], f)
	s.frames.add(f, t, capture, s.info)
	for i := range f.Findings {
		fd := &f.Findings[i]
		r := s.finds.row()
		r = append(r,
			parquet.ByteArrayValue(capture).Level(0, 0, 0),
			parquet.Int64Value(int64(f.Num)).Level(0, 0, 1),
			s.finds.str(fd.Sev.String(), 0, 2),
			s.finds.str(fd.Group.String(), 0, 3),
			s.finds.str(fd.Proto, 0, 4))
		if fd.Field != nil {
			r = append(r, s.finds.str(fd.Field.Abbrev, 1, 5))
		} else {
			r = append(r, parquet.NullValue().Level(0, 0, 5))
		}
		r = append(r, s.finds.str(fd.Msg, 0, 6))
		s.finds.put(r)
	}
	for i := range f.Checks {
		c := &f.Checks[i]
		r := s.checks.row()
		r = append(r,
			parquet.ByteArrayValue(capture).Level(0, 0, 0),
			parquet.Int64Value(int64(f.Num)).Level(0, 0, 1),
			s.checks.str(c.Check.Name, 0, 2),
			parquet.BooleanValue(c.OK).Level(0, 0, 3))
		s.checks.put(r)
	}
}

// End writes the rest and each file's footer, also after a bad record
// (the files then hold every frame before it, and say so in their
// metadata: rdx.complete=false, rdx.error), and moves them in place.
func (s *Sink) End(err error) error {
	var first error
	for i, t := range s.tables() {
		if e := t.finish(err); e != nil && first == nil {
			first = e
		}
		s.Rows[i] = t.rows
	}
	return first
}

// Files are the files End wrote, in Tables' order.
func (s *Sink) Files() []string {
	var out []string
	for _, t := range s.tables() {
		out = append(out, t.path)
	}
	return out
}

// table is one Parquet file being written.
type table struct {
	name   string
	schema *parquet.Schema
	path   string
	tmp    string
	f      *os.File
	w      *parquet.Writer
	batch  []parquet.Row
	n      int    // rows in batch
	arena  []byte // the batch's strings (values point into it)
	rows   int64
	err    error
}

func (t *table) create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	t.path, t.tmp, t.f = path, f.Name(), f
	t.w = parquet.NewWriter(f, t.schema, parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(RowGroupRows), parquet.CreatedBy("rdx", "", ""))
	t.batch = make([]parquet.Row, batchRows)
	return nil
}

// row is the next row of the batch, emptied.
func (t *table) row() parquet.Row { return t.batch[t.n][:0] }

// str is s as a value of column col; its bytes are kept in the batch's
// arena until the batch is written.
func (t *table) str(s string, def, col int) parquet.Value {
	start := len(t.arena)
	t.arena = append(t.arena, s...)
	return parquet.ByteArrayValue(t.arena[start:len(t.arena):len(t.arena)]).Level(0, def, col)
}

func (t *table) bytes(b []byte, rep, def, col int) parquet.Value {
	start := len(t.arena)
	t.arena = append(t.arena, b...)
	return parquet.ByteArrayValue(t.arena[start:len(t.arena):len(t.arena)]).Level(rep, def, col)
}

// put keeps r as the batch's next row, writing the batch when full.
func (t *table) put(r parquet.Row) {
	t.batch[t.n] = r
	t.n++
	if t.n == len(t.batch) {
		t.write()
	}
}

func (t *table) write() {
	if t.n > 0 && t.err == nil {
		if _, err := t.w.WriteRows(t.batch[:t.n]); err != nil {
			t.err = fmt.Errorf("writing %s: %w", t.tmp, err)
		}
		t.rows += int64(t.n)
	}
	t.n = 0
	t.arena = t.arena[:0]
}

// finish writes the footer and puts the file in place.
func (t *table) finish(readErr error) error {
	if t.f == nil {
		return nil
	}
	t.write()
	complete := "true"
	if readErr != nil {
		complete = "false"
		t.w.SetKeyValueMetadata("rdx.error", readErr.Error())
	}
	t.w.SetKeyValueMetadata("rdx.complete", complete)
	err := t.err
	if e := t.w.Close(); e != nil && err == nil {
		err = fmt.Errorf("writing %s: %w", t.tmp, e)
	}
	if e := t.f.Close(); e != nil && err == nil {
		err = e
	}
	t.f = nil
	if err != nil {
		os.Remove(t.tmp)
		return err
	}
	return os.Rename(t.tmp, t.path)
}

// abort removes a file that never got rows (a later table could not be
// created).
func (t *table) abort() {
	if t.f != nil {
		t.f.Close()
		os.Remove(t.tmp)
		t.f = nil
	}
}
