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
//	DIR/calls/host=H/CAPTURE.parquet     one row per ONC RPC or Rx reply (Options.Calls)
//	DIR/flows/host=H/CAPTURE.parquet     conversations and InfiniBand flows (Options.Flows)
//	DIR/rx/host=H/CAPTURE.parquet        one row per Rx packet (Options.Tables: rx, rpc, ...;
//	                                     see protocols.go)
//
// or with Options.PartitionBy date,host DIR/TABLE/date=YYYY-MM-DD/host=H/,
// a file per UTC day of the rows' frames.
//
// host is only in the path, as Hive partitioning has it (Spark refuses a
// column that is both in the files and in the path); engines add it as a
// column. Every row carries its capture's file name (column capture).
package export

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/rdx-project/rdx/dissect"
)

// Tables are the tables one capture is written to, in this order (calls
// only with Options.Calls, flows only with Options.Flows).
var Tables = []string{"frames", "findings", "checks", "calls", "flows"}

// RowGroupRows is the row group size: about a million rows (10-20 MB of
// frames) is what scanning engines split work by, and what one table holds
// in memory before it goes to the file, so memory stays bounded whatever
// the capture's size.
const RowGroupRows = 1 << 20

// codec is zstd at its fastest level: on rdx's columns (dictionary and
// delta coded before it) the default level was no smaller (1M generated
// Rx frames: 1.87 MB against 1.74) and took more CPU. It costs about 13
// instructions an octet of Info (RoCE: 1,600 a frame); neither a smaller
// window, 128 KiB or 1 MiB pages nor klauspost/compress v1.18.3 (-3%)
// changed that, and literals without Huffman coding saved 9% of it for
// 44% more octets.
var codec = &zstd.Codec{Level: zstd.SpeedFastest}

// noBounds are the columns without min/max statistics: text whose
// min/max prunes nothing (each page holds many addresses, protocols and
// checks; capture is one value a file) and whose bounds cost 10-15% of an
// export's time (profile of 1M Rx frames: byteArrayDictionary.Bounds;
// check's were 110 instructions a row of checks). Numbers, times and ok
// keep theirs.
var noBounds = []parquet.WriterOption{parquet.SkipPageBounds("info"), parquet.SkipPageBounds("message"),
	parquet.SkipPageBounds("src"), parquet.SkipPageBounds("dst"), parquet.SkipPageBounds("protocol"),
	parquet.SkipPageBounds("frame_protocols"), parquet.SkipPageBounds("capture"), parquet.SkipPageBounds("check")}

// dictMaxBytes bounds a column chunk's dictionary: past it the column's
// later pages are PLAIN. A dictionary helps columns of few values (ports,
// opcodes, protocols); one of a sequence number, XID or PSN only grows,
// and each value inserted probes a larger table: -e rx.seq -e rx.serial
// -e rx.callnumber -e rx.flags on 200k Rx frames took 17,080
// instructions per frame with parquet-go's default (no bound).
const dictMaxBytes = 64 << 10

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
	// PartitionBy are the Hive partition keys of the path, outermost first:
	// "host" and "date" (the day of the row's frame, UTC). Empty: host.
	PartitionBy []string
	// Flows writes the flows table at the end: conversations (when the
	// engine counts them: dissect.Options.Conversations) and InfiniBand
	// flows with their counters.
	Flows bool
	// Tables are per-protocol tables (ProtoTables: rx, rpc, infiniband,
	// ...), one row per PDU of the protocol.
	Tables []string
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

// Path is where table's file of a capture goes (partitioned by host).
func Path(dir, table, host, capture string) string {
	return filepath.Join(dir, table, "host="+partValue(host), partValue(capture)+".parquet")
}

// PartitionKeys are the keys --partition-by takes.
var PartitionKeys = []string{"host", "date"}

// partPath is where a table's file of a capture goes: the partitions in
// keys' order, then the capture's name; day's seq-th file (past
// MaxOpenDays) is CAPTURE#N.parquet. A glob pattern instead with glob:
// any date, any seq.
func (o *Options) partPath(table string, day int64, seq int, glob bool) string {
	elems := []string{o.Dir, table}
	for _, k := range o.keys() {
		switch k {
		case "host":
			elems = append(elems, "host="+partValue(o.Host))
		case "date":
			d := "*"
			if !glob {
				d = time.Unix(0, day*nsPerDay).UTC().Format(time.DateOnly)
			}
			elems = append(elems, "date="+d)
		}
	}
	name := partValue(o.Capture)
	switch {
	case glob:
		name += "*"
	case seq > 0:
		name += "#" + strconv.Itoa(seq+1)
	}
	return filepath.Join(append(elems, name+".parquet")...)
}

func (o *Options) keys() []string {
	if len(o.PartitionBy) == 0 {
		return []string{"host"}
	}
	return o.PartitionBy
}

func (o *Options) byDate() bool { return slices.Contains(o.keys(), "date") }

const nsPerDay = 24 * 60 * 60 * 1e9

// dayOf is the day (since the epoch, UTC) of a time in ns.
func dayOf(ns int64) int64 {
	d := ns / nsPerDay
	if ns < 0 && d*nsPerDay != ns {
		d--
	}
	return d
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
	calls  *callsTable   // nil without Options.Calls
	flows  *flowsTable   // nil without Options.Flows
	protos []*protoTable // Options.Tables
	refs   []fieldRef    // by field ID: the protocol table column a field's nodes go to
	eng    *dissect.Engine
	byDate bool // date partitions
	// no date partitions, calls, protocol tables or -e columns: a frame
	// without findings is only a row of frames (addFast) and its checks'
	// rows, and Frame skips the tests of the rest (42 instructions a
	// frame of 200k Rx)
	onlyFrames bool
	// Rows counts the rows written to each table, in Tables' order;
	// ProtoRows each of Options.Tables'.
	Rows      [5]int64
	ProtoRows []int64
	capture   []byte // o.Capture, never changed: values may point into it
	checkRows *typedRows[checkRow]
}

// checkRow is a row of the checks table (typedBatch).
type checkRow struct {
	Capture     string `parquet:"capture"`
	FrameNumber uint64 `parquet:"frame_number"`
	Check       string `parquet:"check"`
	OK          bool   `parquet:"ok"`
}

// New checks the options and the fields; the files are created by Start.
func New(o Options) (*Sink, error) {
	if o.Dir == "" {
		return nil, errors.New("export: no output directory")
	}
	for i, k := range o.PartitionBy {
		if !slices.Contains(PartitionKeys, k) {
			return nil, fmt.Errorf("partition key %q: want host, date or both (date,host)", k)
		}
		if slices.Contains(o.PartitionBy[:i], k) {
			return nil, fmt.Errorf("partition key %q given twice", k)
		}
	}
	ft, err := newFrameTable(o.Fields)
	if err != nil {
		return nil, err
	}
	if ft.rows != nil {
		for i := range ft.rows.rows { // the rows are reused: capture is set once
			ft.rows.rows[i].Capture = o.Capture
		}
	}
	s := &Sink{o: o, frames: ft, capture: []byte(o.Capture), byDate: o.byDate()}
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
	s.checkRows = newTypedRows[checkRow](s.checks.schema)
	for i := range s.checkRows.rows { // the rows are reused: capture is set once
		s.checkRows.rows[i].Capture = o.Capture
	}
	s.checks.fast = s.checkRows
	if o.Calls {
		s.calls = &callsTable{table: table{name: "calls", schema: newSchema("calls", callColumns)}, rpc: lookupRPC()}
	}
	if o.Flows {
		s.flows = &flowsTable{table: table{name: "flows", schema: newSchema("flows", flowColumns)}}
	}
	if s.protos, err = parseTables(o.Tables); err != nil {
		return nil, err
	}
	s.ProtoRows = make([]int64, len(s.protos))
	s.onlyFrames = !s.byDate && s.calls == nil && len(s.protos) == 0 && ft.rows != nil
	for _, pt := range s.protos {
		s.ref(pt.proto, fieldRef{pt, -1})
		for i, c := range pt.cols {
			s.ref(c.f, fieldRef{pt, i})
		}
	}
	if !o.Overwrite {
		for _, t := range s.tables() {
			if p := s.former(t.name); p != "" {
				return nil, fmt.Errorf("%s exists (a former export of %s; --overwrite replaces it)", p, o.Capture)
			}
		}
	}
	return s, nil
}

// former is a file of table a former export of the capture wrote, or "".
func (s *Sink) former(table string) string {
	if !s.o.byDate() {
		if p := s.o.partPath(table, 0, 0, false); fileExists(p) {
			return p
		}
		return ""
	}
	m, _ := filepath.Glob(s.o.partPath(table, 0, 0, true))
	for _, p := range m {
		// the capture's own files only (x.pcap, not x.pcap.gz): CAPTURE.parquet or CAPTURE#N.parquet
		rest := strings.TrimPrefix(filepath.Base(p), partValue(s.o.Capture))
		if rest == ".parquet" || strings.HasPrefix(rest, "#") {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// ref says where field f's nodes go.
func (s *Sink) ref(f *dissect.Field, r fieldRef) {
	for len(s.refs) <= f.ID() {
		s.refs = append(s.refs, fieldRef{})
	}
	s.refs[f.ID()] = r
}

// NeedsTree: -e fields, the calls table and the protocol tables are read
// from the tree.
func (s *Sink) NeedsTree() bool {
	return len(s.frames.extra) > 0 || s.calls != nil || len(s.protos) > 0
}

// WantFields adds the fields the sink reads to set: the trees keep only
// those (a sparse tree: each other node costs a count, not a copy).
func (s *Sink) WantFields(set *dissect.FieldSet) {
	for _, x := range s.frames.extra {
		set.Add(x.f)
	}
	if s.calls != nil && s.calls.rpc != nil {
		for _, f := range s.calls.rpc.fields() {
			set.Add(f)
		}
	}
	for _, pt := range s.protos {
		set.Add(pt.proto)
		for _, c := range pt.cols {
			set.Add(c.f)
		}
	}
}

// Start creates the three files (as temporary names until End).
func (s *Sink) Start(e *dissect.Engine) error {
	s.frames.eng = e // for frame_protocols
	s.eng = e        // for the flows table
	for _, t := range s.tables() {
		t.groupRows = s.o.RowGroupRows
		if t.groupRows <= 0 {
			t.groupRows = RowGroupRows
		}
		t.init()
		t.path = func(day int64, seq int) string { return s.o.partPath(t.name, day, seq, false) }
		if s.o.byDate() {
			// a file per day, made by its first row; a former export's
			// files of other days would stay beside them
			if s.o.Overwrite {
				for p := s.former(t.name); p != ""; p = s.former(t.name) {
					if err := os.Remove(p); err != nil {
						return err
					}
				}
			}
			continue
		}
		if err := t.at(0); err != nil {
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
	if s.flows != nil {
		t = append(t, &s.flows.table)
	}
	for _, pt := range s.protos {
		t = append(t, &pt.table)
	}
	return t
}

// to makes day's part of t the one its rows go to: with date partitions
// only (else the one part Start opened is).
func (s *Sink) to(t *table, day int64) {
	if s.byDate {
		t.at(day)
	}
}

// Frame adds the frame's row and its findings' and checks' rows.
func (s *Sink) Frame(f *dissect.Frame, t *dissect.Tree) {
	if s.onlyFrames && len(f.Findings) == 0 {
		s.frames.addFast(f)
		if len(f.Checks) > 0 { // checks' part is current: no date partitions
			s.checkRowsOf(f)
		}
		return
	}
	capture := s.capture
	day := int64(0)
	if s.byDate {
		day = dayOf(f.TimeNS)
	}
	s.to(&s.frames.table, day)
	if s.frames.rows != nil { // straight to addFast: add's call was 13 instructions a frame
		s.frames.addFast(f)
	} else {
		s.frames.add(f, t, capture)
	}
	if s.calls != nil {
		s.to(&s.calls.table, day)
		s.calls.add(f, t, capture)
		for ; s.calls.evicted > 0; s.calls.evicted-- {
			s.to(s.finds, day)
			s.finding(f, dissect.Note, dissect.GroupResponse, "rpcordma", "export: "+strconv.Itoa(maxPendingRDMA)+
				" RPC-over-RDMA calls wait for their replies: the oldest is forgotten (its reply's calls row has no rdma_credits_requested, rdma_read_bytes)")
		}
	}
	if len(s.protos) > 0 {
		s.protoRows(f, t, day)
	}
	if len(f.Findings) > 0 {
		s.to(s.finds, day)
	}
	if len(f.Checks) > 0 {
		s.to(s.checks, day)
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
	s.checkRowsOf(f)
}

// checkRowsOf adds f's checks' rows (to the checks part made current).
func (s *Sink) checkRowsOf(f *dissect.Frame) {
	for i := range f.Checks {
		c := &f.Checks[i]
		if c.Skip != dissect.SkipNone { // applies but did not run: neither passed nor failed
			continue
		}
		r := &s.checkRows.rows[s.checks.n]
		r.FrameNumber, r.Check, r.OK = f.Num, c.Check.Name, c.OK
		s.checks.end()
	}
}

// finding adds a row of the export's own to the findings table.
func (s *Sink) finding(f *dissect.Frame, sev dissect.Severity, g dissect.Group, proto, msg string) {
	t := s.finds
	t.put(0, parquet.ByteArrayValue(s.capture))
	t.put(1, parquet.Int64Value(int64(f.Num)))
	t.str(2, sev.String(), 0)
	t.str(3, g.String(), 0)
	t.str(4, proto, 0)
	t.put(5, parquet.NullValue())
	t.str(6, msg, 0)
	t.end()
}

// End writes the rest and each file's footer, also after a bad record
// (the files then hold every frame before it, and say so in their
// metadata: rdx.complete=false, rdx.error), and moves them in place.
func (s *Sink) End(err error) error {
	if s.calls != nil && s.eng != nil {
		s.calls.connections(s.eng, s.capture, s.byDate)
	}
	if s.flows != nil && s.eng != nil {
		first, _ := s.eng.Times()
		s.flows.write(s.eng, s.capture, s.byDate, dayOf(first))
	}
	var first error
	for _, t := range s.tables() {
		if e := t.finish(err); e != nil && first == nil {
			first = e
		}
		if i := slices.Index(Tables, t.name); i >= 0 {
			s.Rows[i] = t.rows
		}
	}
	for i, pt := range s.protos {
		s.ProtoRows[i] = pt.rows
	}
	return first
}

// Files are the files End wrote, in Tables' order (calls only with
// Options.Calls, flows only with Options.Flows): the first of each table
// ("" none: with date partitions a table without rows has no file).
// Paths lists them all.
// Paths are every file End wrote.
func (s *Sink) Paths() []string {
	var out []string
	for _, t := range s.tables() {
		out = append(out, t.done...)
	}
	return out
}

func (s *Sink) Files() []string {
	var out []string
	for _, t := range s.tables() {
		if len(t.done) > 0 {
			out = append(out, t.done[0])
		} else {
			out = append(out, "")
		}
	}
	return out
}

// table is one table of a capture being written: one Parquet file, or with
// date partitions one per day its rows fall on (a part). Rows are collected
// by column and handed to each column's writer a batch at a time:
// parquet-go's row-wise WriteRows spends most of its time splitting rows
// into columns. A batch holds rows of one part.
type table struct {
	name      string
	schema    *parquet.Schema
	cols      [][]parquet.Value // the batch, by column
	n         int               // rows in the batch
	groupRows int
	arena     []byte // the batch's strings (values point into it)
	scratch   []byte // a value's text being built
	rows      int64
	err       error

	// fast, when set, holds the batch as typed rows (frames without -e
	// columns, checks) instead of the Values in cols
	fast typedBatch
	// schemaFor, when set, is the schema of a part's file, chosen when its
	// first batch is written (the batch is in fast or cols)
	schemaFor func() *parquet.Schema

	path  func(day int64, seq int) string // a part's file
	parts map[int64]*part                 // open parts by day
	cur   *part                           // the batch's
	seqs  map[int64]int                   // files written of each day so far
	tick  uint64
	done  []string // files finished
}

// part is one Parquet file being written.
type part struct {
	day     int64
	path    string
	tmp     string
	f       *os.File
	w       pqWriter // nil until its first batch: see writer
	inGroup int      // rows in the row group being written
	used    uint64   // tick of its last row, for closing the least recently used
}

// pqWriter is what a part needs of its parquet-go writer, typed or not.
type pqWriter interface {
	ColumnWriters() []*parquet.ColumnWriter
	Flush() error
	Close() error
	SetKeyValueMetadata(key, value string)
}

// typedBatch is a batch of rows of a Go struct type whose parquet-go
// schema has the table's types: parquet-go writes them straight into its
// column buffers, without a parquet.Value per cell (Values cost about a
// third of an export of 1M Rx frames). The encodings are the table's,
// given as the writer's schema.
type typedBatch interface {
	newWriter(w io.Writer, opts ...parquet.WriterOption) pqWriter
	write(w pqWriter, n int) error
}

type typedRows[T any] struct {
	rows []T
	// the batch's texts, which the rows' strings point into until the
	// batch is written (parquet-go copies them)
	arena []byte
}

func newTypedRows[T any](schema *parquet.Schema) *typedRows[T] {
	var zero T
	if !parquet.EqualNodes(schema, parquet.SchemaOf(zero)) {
		panic(fmt.Sprintf("export: %T is not the %s table: %s", zero, schema.Name(), parquet.SchemaOf(zero)))
	}
	return &typedRows[T]{rows: make([]T, batchRows)}
}

func (b *typedRows[T]) newWriter(w io.Writer, opts ...parquet.WriterOption) pqWriter {
	return parquet.NewGenericWriter[T](w, opts...)
}

func (b *typedRows[T]) write(w pqWriter, n int) error {
	_, err := w.(*parquet.GenericWriter[T]).Write(b.rows[:n])
	return err
}

// text is p as a string in the batch's arena.
func (b *typedRows[T]) text(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	start := len(b.arena)
	b.arena = append(b.arena, p...)
	return unsafe.String(&b.arena[start], len(p))
}

// MaxOpenDays bounds the files of one table written at once with date
// partitions: a capture's frames span a day or two, but timestamps can
// jump about. Past it the least recently used is finished, and its day's
// later rows go to a next file, CAPTURE#2.parquet ('#' is escaped in
// capture names, so no capture's file is named so).
const MaxOpenDays = 8

func (t *table) init() {
	t.cols = make([][]parquet.Value, len(t.schema.Columns()))
	for i := range t.cols {
		t.cols[i] = make([]parquet.Value, 0, batchRows)
	}
	t.parts = map[int64]*part{}
	t.seqs = map[int64]int{}
}

// at makes day's part the one rows go to, opening it if need be.
func (t *table) at(day int64) error {
	if t.cur != nil && t.cur.day == day {
		t.tick++
		t.cur.used = t.tick
		return nil
	}
	t.write() // the batch is the former part's
	p := t.parts[day]
	if p == nil {
		if len(t.parts) >= MaxOpenDays {
			var lru *part
			for _, q := range t.parts {
				if lru == nil || q.used < lru.used {
					lru = q
				}
			}
			if err := t.finishPart(lru, nil); err != nil && t.err == nil {
				t.err = err
			}
		}
		seq := t.seqs[day]
		t.seqs[day] = seq + 1
		var err error
		if p, err = t.create(day, t.path(day, seq)); err != nil {
			t.cur = nil
			if t.err == nil {
				t.err = err
			}
			return err
		}
		t.parts[day] = p
	}
	t.cur = p
	t.tick++
	p.used = t.tick
	return nil
}

func (t *table) create(day int64, path string) (*part, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	// not os.CreateTemp: its 0600 would outlive the rename; this is 0666
	// less the umask, as any file the user writes
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+strconv.Itoa(os.Getpid())+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	return &part{day: day, path: path, tmp: f.Name(), f: f}, nil
}

// writer is p's parquet-go writer, made at its first batch (or at its
// end, without rows): its schema may depend on the rows (schemaFor).
func (t *table) writer(p *part) pqWriter {
	if p.w != nil {
		return p.w
	}
	schema := t.schema
	if t.schemaFor != nil && p == t.cur { // else a part without rows
		schema = t.schemaFor()
	}
	// No statistics in each data page's header: engines prune by the
	// column chunk's statistics and the page index, which keep theirs;
	// parquet-go computed the header's bounds of every page again, skipped
	// columns too (8% of an export of 1M RoCE frames).
	opts := append([]parquet.WriterOption{schema, parquet.Compression(codec), parquet.CreatedBy("rdx", "", ""),
		parquet.DataPageStatistics(false), parquet.DictionaryMaxBytes(dictMaxBytes)}, noBounds...)
	if t.fast != nil {
		p.w = t.fast.newWriter(p.f, opts...)
	} else {
		p.w = parquet.NewGenericWriter[any](p.f, opts...)
	}
	return p.w
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
	if t.n == batchRows || t.cur != nil && t.cur.inGroup+t.n == t.groupRows {
		t.write()
	}
}

func (t *table) write() {
	if p := t.cur; t.n > 0 && t.err == nil && p != nil {
		w := t.writer(p)
		if t.fast != nil {
			if err := t.fast.write(w, t.n); err != nil {
				t.err = fmt.Errorf("writing %s: %w", p.tmp, err)
			}
		} else {
			for c, cw := range w.ColumnWriters() {
				if _, err := cw.WriteRowValues(t.cols[c]); err != nil {
					t.err = fmt.Errorf("writing %s: %w", p.tmp, err)
					break
				}
			}
		}
		t.rows += int64(t.n)
		p.inGroup += t.n
		if p.inGroup >= t.groupRows && t.err == nil {
			if err := w.Flush(); err != nil {
				t.err = fmt.Errorf("writing %s: %w", p.tmp, err)
			}
			p.inGroup = 0
		}
	}
	for c := range t.cols {
		t.cols[c] = t.cols[c][:0]
	}
	t.n = 0
	t.arena = t.arena[:0]
}

// finish writes the rest and every part's footer and puts the files in
// place, in the order of their days.
func (t *table) finish(readErr error) error {
	t.write()
	days := make([]int64, 0, len(t.parts))
	for d := range t.parts {
		days = append(days, d)
	}
	slices.Sort(days)
	err := t.err
	for _, d := range days {
		if e := t.finishPart(t.parts[d], readErr); e != nil && err == nil {
			err = e
		}
	}
	return err
}

func (t *table) finishPart(p *part, readErr error) error {
	if p == t.cur {
		t.write()
		t.cur = nil
	}
	delete(t.parts, p.day)
	complete := "true"
	w := t.writer(p)
	if readErr != nil {
		complete = "false"
		w.SetKeyValueMetadata("rdx.error", readErr.Error())
	}
	w.SetKeyValueMetadata("rdx.complete", complete)
	err := t.err
	if e := w.Close(); e != nil && err == nil {
		err = fmt.Errorf("writing %s: %w", p.tmp, e)
	}
	if e := p.f.Close(); e != nil && err == nil {
		err = e
	}
	if err != nil {
		os.Remove(p.tmp)
		return err
	}
	if err := os.Rename(p.tmp, p.path); err != nil {
		return err
	}
	t.done = append(t.done, p.path)
	return nil
}

// abort removes the files of a table that never got rows (a later table
// could not be created).
func (t *table) abort() {
	for _, p := range t.parts {
		p.f.Close()
		os.Remove(p.tmp)
	}
	clear(t.parts)
	t.cur = nil
}
