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
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// Tables are the tables one capture is written to, in this order (calls
// only with Options.Calls).
var Tables = []string{"frames", "findings", "checks", "calls"}

// RowGroupRows is the row group size: about a million rows (10-20 MB of
// frames) is what scanning engines split work by, and what one table holds
// in memory before it goes to the file, so memory stays bounded whatever
// the capture's size.
const RowGroupRows = 1 << 20

// codec is zstd at its fastest level: on rdx's columns (dictionary and
// delta coded before it) the default level was no smaller (1M generated
// Rx frames: 1.87 MB against 1.74) and took more CPU.
var codec = &zstd.Codec{Level: zstd.SpeedFastest}

// noBounds are the columns without min/max statistics: text whose
// min/max prunes nothing (each page holds many addresses and protocols)
// and whose bounds cost 10-15% of an export's time (profile of 1M Rx
// frames: byteArrayDictionary.Bounds). Numbers, times and capture keep
// theirs.
var noBounds = []parquet.WriterOption{parquet.SkipPageBounds("info"), parquet.SkipPageBounds("message"),
	parquet.SkipPageBounds("src"), parquet.SkipPageBounds("dst"), parquet.SkipPageBounds("protocol"),
	parquet.SkipPageBounds("frame_protocols")}

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
	// RowGroupRows is the row group size (0: RowGroupRows).
	RowGroupRows int
	// Calls writes the calls table (ONC RPC replies with their calls). It
	// reads every frame's tree, which costs about as much as -T fields.
	Calls bool
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
	calls  *callsTable // nil without Options.Calls
	// Rows counts the rows written to each table, in Tables' order.
	Rows    [4]int64
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
	if o.Calls {
		s.calls = &callsTable{table: table{name: "calls", schema: newSchema("calls", callColumns)}, rpc: lookupRPC()}
	}
	if !o.Overwrite {
		for _, t := range s.tables() {
			p := Path(o.Dir, t.name, o.Host, o.Capture)
			if _, err := os.Lstat(p); err == nil {
				return nil, fmt.Errorf("%s exists (a former export of %s; --overwrite replaces it)", p, o.Capture)
			}
		}
	}
	return s, nil
}

// NeedsTree: only -e fields are read from the tree.
func (s *Sink) NeedsTree() bool { return len(s.frames.extra) > 0 || s.calls != nil }

// Start creates the three files (as temporary names until End).
func (s *Sink) Start(e *dissect.Engine) error {
	s.frames.eng = e // for frame_protocols
	for _, t := range s.tables() {
		t.groupRows = s.o.RowGroupRows
		if t.groupRows <= 0 {
			t.groupRows = RowGroupRows
		}
		if err := t.create(Path(s.o.Dir, t.name, s.o.Host, s.o.Capture)); err != nil {
			for _, c := range s.tables() {
				c.abort()
			}
			return err
		}
	}
	return nil
}

func (s *Sink) tables() []*table {
	t := []*table{&s.frames.table, s.finds, s.checks}
	if s.calls != nil {
		t = append(t, &s.calls.table)
	}
	return t
}

// Frame adds the frame's row and its findings' and checks' rows.
func (s *Sink) Frame(f *dissect.Frame, t *dissect.Tree) {
	capture := s.capture
	s.info = render.Info(s.info[:0], f)
	s.frames.add(f, t, capture, s.info)
	if s.calls != nil {
		s.calls.add(f, t, capture)
	}
	for i := range f.Findings {
		fd := &f.Findings[i]
		t := s.finds
		t.put(0, parquet.ByteArrayValue(capture))
		t.put(1, parquet.Int64Value(int64(f.Num)))
		t.str(2, fd.Sev.String(), 0)
		t.str(3, fd.Group.String(), 0)
		t.str(4, fd.Proto, 0)
		if fd.Field != nil {
			t.str(5, fd.Field.Abbrev, 1)
		} else {
			t.put(5, parquet.NullValue())
		}
		t.str(6, fd.Msg, 0)
		t.end()
	}
	for i := range f.Checks {
		c := &f.Checks[i]
		if c.Skip != dissect.SkipNone { // applies but did not run: neither passed nor failed
			continue
		}
		t := s.checks
		t.put(0, parquet.ByteArrayValue(capture))
		t.put(1, parquet.Int64Value(int64(f.Num)))
		t.str(2, c.Check.Name, 0)
		t.put(3, parquet.BooleanValue(c.OK))
		t.end()
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

// Files are the files End wrote, in Tables' order (calls only with
// Options.Calls).
func (s *Sink) Files() []string {
	var out []string
	for _, t := range s.tables() {
		out = append(out, t.path)
	}
	return out
}

// table is one Parquet file being written. Rows are collected by column
// and handed to each column's writer a batch at a time: parquet-go's
// row-wise WriteRows spends most of its time splitting rows into columns.
type table struct {
	name      string
	schema    *parquet.Schema
	path      string
	tmp       string
	f         *os.File
	w         *parquet.GenericWriter[any]
	cols      [][]parquet.Value // the batch, by column
	n         int               // rows in the batch
	inGroup   int               // rows in the row group being written
	groupRows int
	arena     []byte // the batch's strings (values point into it)
	rows      int64
	err       error
}

func (t *table) create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	// not os.CreateTemp: its 0600 would outlive the rename; this is 0666
	// less the umask, as any file the user writes
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+strconv.Itoa(os.Getpid())+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	t.path, t.tmp, t.f = path, f.Name(), f
	opts := append([]parquet.WriterOption{t.schema, parquet.Compression(codec), parquet.CreatedBy("rdx", "", "")}, noBounds...)
	t.w = parquet.NewGenericWriter[any](f, opts...)
	t.cols = make([][]parquet.Value, len(t.schema.Columns()))
	for i := range t.cols {
		t.cols[i] = make([]parquet.Value, 0, batchRows)
	}
	return nil
}

// put adds v to required column col (or a null to an optional one) of
// the row being built.
func (t *table) put(col int, v parquet.Value) { t.cols[col] = append(t.cols[col], v) }

// putLevel adds v with the levels given (repeated columns).
// Levels 0 are a new value's own: a column writer reads nothing else (not
// the column index), so only a defined optional or a repeated value pays
// for Level.
func (t *table) putLevel(col int, v parquet.Value, rep, def int) {
	if rep|def != 0 {
		v = v.Level(rep, def, col)
	}
	t.cols[col] = append(t.cols[col], v)
}

// str adds s to column col at definition level def; its bytes are kept
// in the batch's arena until the batch is written.
func (t *table) str(col int, s string, def int) {
	start := len(t.arena)
	t.arena = append(t.arena, s...)
	t.putLevel(col, parquet.ByteArrayValue(t.arena[start:len(t.arena):len(t.arena)]), 0, def)
}

// bytes is str of b, for a repeated column too.
func (t *table) bytes(col int, b []byte, rep, def int) {
	start := len(t.arena)
	t.arena = append(t.arena, b...)
	t.putLevel(col, parquet.ByteArrayValue(t.arena[start:len(t.arena):len(t.arena)]), rep, def)
}

// end ends the row being built, writing the batch when full.
func (t *table) end() {
	t.n++
	if t.n == batchRows || t.inGroup+t.n == t.groupRows {
		t.write()
	}
}

func (t *table) write() {
	if t.n > 0 && t.err == nil {
		for c, cw := range t.w.ColumnWriters() {
			if _, err := cw.WriteRowValues(t.cols[c]); err != nil {
				t.err = fmt.Errorf("writing %s: %w", t.tmp, err)
				break
			}
		}
		t.rows += int64(t.n)
		t.inGroup += t.n
		if t.inGroup >= t.groupRows && t.err == nil {
			if err := t.w.Flush(); err != nil {
				t.err = fmt.Errorf("writing %s: %w", t.tmp, err)
			}
			t.inGroup = 0
		}
	}
	for c := range t.cols {
		t.cols[c] = t.cols[c][:0]
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
