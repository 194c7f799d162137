package export_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/export"
	"github.com/rdx-project/rdx/internal/strict"
	"github.com/rdx-project/rdx/pipeline"
)

func TestMain(m *testing.M) { strict.Main(m) }

// captures cover Rx/AFS, iWARP with CRC checks (one failing), RoCE, IB
// without IP addresses, an IPv6/ICMP/ARP mix and RDP.
var captures = []string{
	"../pcaps/rx/vos-dump-bulk.pcap",
	"../pcaps/rx/probe-busy-crafted.pcap",
	"../pcaps/iwarp/iwarp_rping_crc.pcap",
	"../pcaps/iwarp/nfs3_rdma_iwarp.pcap",
	"../pcaps/ib/roce_rping.pcap",
	"../pcaps/ib/infiniband_erf.pcap",
	"../pcaps/icmp/oferby+proxy__roce_icmpv6_arp.pcap",
}

// exportRun exports file into dir in the same run that prints `rdx read`'s
// summary and `rdx check`'s tally, so the tables can be held against both.
func exportRun(t *testing.T, dir, file string, fields ...string) (*export.Sink, pipeline.Result, string, error) {
	t.Helper()
	s, err := export.New(export.Options{Dir: dir, Host: "h1", Capture: filepath.Base(file), Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Out: &out,
		Check: &pipeline.CheckReport{}, Sinks: []pipeline.Sink{s}})
	return s, res, out.String(), err
}

// table is a file read back with parquet-go: its schema and rows.
type table struct {
	schema *parquet.Schema
	rows   []parquet.Row
	meta   map[string]string
}

func readTable(t *testing.T, path string) table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tb := table{schema: pf.Schema(), meta: map[string]string{}}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		tb.meta[kv.Key] = kv.Value
	}
	r := parquet.NewReader(f, pf.Schema())
	defer r.Close()
	buf := make([]parquet.Row, 100)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			tb.rows = append(tb.rows, row.Clone())
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if int64(len(tb.rows)) != pf.NumRows() {
		t.Fatalf("%s: read %d rows of %d", path, len(tb.rows), pf.NumRows())
	}
	return tb
}

// col is the values of column name in row i (none for a null).
func (tb table) col(t *testing.T, i int, name string) []parquet.Value {
	t.Helper()
	lc, ok := tb.schema.Lookup(name)
	if !ok {
		t.Fatalf("no column %s in %s", name, tb.schema)
	}
	var out []parquet.Value
	for _, v := range tb.rows[i] {
		if v.Column() == lc.ColumnIndex && !v.IsNull() {
			out = append(out, v)
		}
	}
	return out
}

func (tb table) str(t *testing.T, i int, name string) string {
	t.Helper()
	v := tb.col(t, i, name)
	if len(v) != 1 {
		t.Fatalf("row %d: %s has %d values", i, name, len(v))
	}
	return v[0].String()
}

// TestFramesAreTheSummary: one row per frame `rdx read` prints, in order,
// with its number, and Info as the summary line ends; the findings rows are
// the findings rdx counts; the checks rows add up to `rdx check`'s tally.
func TestFramesAreTheSummary(t *testing.T) {
	for _, file := range captures {
		t.Run(filepath.Base(file), func(t *testing.T) {
			dir := t.TempDir()
			s, res, summary, err := exportRun(t, dir, file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(summary, "\n"), "\n")
			files := s.Files()
			frames := readTable(t, files[0])
			if len(frames.rows) != len(lines) || uint64(len(lines)) != res.Frames || res.Frames == 0 {
				t.Fatalf("%d rows, %d summary lines, %d frames", len(frames.rows), len(lines), res.Frames)
			}
			if frames.meta["rdx.complete"] != "true" {
				t.Errorf("metadata %v", frames.meta)
			}
			for i, line := range lines {
				num := frames.col(t, i, "frame_number")[0].Uint64()
				if got := strings.Fields(line)[0]; got != strconv.FormatUint(num, 10) {
					t.Fatalf("row %d: frame_number %d, summary line %q", i, num, line)
				}
				info := frames.str(t, i, "info")
				if !strings.HasSuffix(line, " "+info) {
					t.Fatalf("row %d: info %q is not the end of %q", i, info, line)
				}
				if c := frames.str(t, i, "capture"); c != filepath.Base(file) {
					t.Fatalf("row %d: capture %q", i, c)
				}
				// src and dst are the summary's, with the port when the line has one
				src, dst := frames.col(t, i, "src"), frames.col(t, i, "dst")
				sp := frames.col(t, i, "src_port")
				if len(src) == 1 {
					want := src[0].String()
					if len(sp) == 1 {
						want = joinPort(want, sp[0].Int32())
					}
					if !strings.Contains(line, " "+want+" ") || len(dst) != 1 {
						t.Fatalf("row %d: src %q not in %q", i, want, line)
					}
				} else if !strings.Contains(line, " -  ") && !strings.Contains(line, "ID: ") || len(sp) != 0 { // no IP: "-", or InfiniBand's LIDs/GIDs
					t.Fatalf("row %d: no src but %q", i, line)
				}
			}

			findings := readTable(t, files[1])
			if len(findings.rows) != res.Counts.Total() {
				t.Errorf("%d findings rows, rdx counted %+v", len(findings.rows), res.Counts)
			}
			var sev dissect.Counts
			for i := range findings.rows {
				switch findings.str(t, i, "severity") {
				case dissect.Error.String():
					sev.Errors++
				case dissect.Warn.String():
					sev.Warnings++
				default:
					sev.Notes++
				}
			}
			if sev != res.Counts {
				t.Errorf("findings by severity %+v, rdx %+v", sev, res.Counts)
			}

			checks := readTable(t, files[2])
			type tally struct{ passed, failed uint64 }
			got := map[string]tally{}
			for i := range checks.rows {
				c := got[checks.str(t, i, "check")]
				if checks.col(t, i, "ok")[0].Boolean() {
					c.passed++
				} else {
					c.failed++
				}
				got[checks.str(t, i, "check")] = c
			}
			want := map[string]tally{}
			for _, r := range res.Checks {
				if r.Checked > 0 {
					want[r.Check] = tally{r.Passed, r.Failed}
				}
			}
			if len(got) != len(want) {
				t.Errorf("checks %v, rdx check %v", got, want)
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("check %s: %+v, rdx check %+v", k, got[k], w)
				}
			}
		})
	}
}

func joinPort(addr string, port int32) string {
	return addr + ":" + strconv.Itoa(int(port))
}

// TestChecksFail: a RoCE capture whose first packet's ICRC is spoiled has
// a failed check row for it (so the tally comparison above compares
// something that fails).
func TestChecksFail(t *testing.T) {
	b, err := os.ReadFile("../pcaps/ib/roce_rping.pcap")
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 {
		t.Fatal("not a little-endian pcap")
	}
	n := int(binary.LittleEndian.Uint32(b[24+8:]))
	b[24+16+n-1] ^= 0xff // the last octet of the ICRC
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pcap")
	if err := os.WriteFile(bad, b, 0o666); err != nil {
		t.Fatal(err)
	}
	s, res, _, err := exportRun(t, filepath.Join(dir, "out"), bad)
	if err != nil {
		t.Fatal(err)
	}
	checks := readTable(t, s.Files()[2])
	var failed []string
	for i := range checks.rows {
		if c := checks.str(t, i, "capture"); c != "bad.pcap" { // set once in the rows the batches reuse
			t.Fatalf("check row %d: capture %q", i, c)
		}
		if !checks.col(t, i, "ok")[0].Boolean() {
			failed = append(failed, checks.str(t, i, "check")+"@"+checks.col(t, i, "frame_number")[0].String())
		}
	}
	if len(failed) != 1 || failed[0] != "infiniband.icrc@1" || !res.ChecksFailed {
		t.Fatalf("failed check rows %v, ChecksFailed %v", failed, res.ChecksFailed)
	}
}

// TestColumnTypes pins the schema every query relies on.
func TestColumnTypes(t *testing.T) {
	s, _, _, err := exportRun(t, t.TempDir(), "../pcaps/rx/vos-dump-bulk.pcap", "rx.seq", "rx.flags.last_packet", "ip.src", "afs", "rx.callnumber")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"capture":              "BYTE_ARRAY STRING required",
		"frame_number":         "INT64 INT(64,false) required",
		"frame_time":           "INT64 TIMESTAMP(isAdjustedToUTC=false,unit=NANOS) required",
		"src":                  "BYTE_ARRAY STRING optional",
		"src_port":             "INT32 INT(16,false) optional",
		"frame_len":            "INT32 INT(32,false) required",
		"protocol":             "BYTE_ARRAY STRING required",
		"frame_protocols":      "BYTE_ARRAY STRING required",
		"info":                 "BYTE_ARRAY STRING required",
		"rx_seq":               "INT32 INT(32,false) repeated",
		"rx_flags_last_packet": "BOOLEAN  repeated",
		"ip_src":               "BYTE_ARRAY STRING repeated",
		"afs":                  "BOOLEAN  required",
	}
	frames := readTable(t, s.Files()[0])
	for name, w := range want {
		lc, ok := frames.schema.Lookup(name)
		if !ok {
			t.Errorf("no column %s", name)
			continue
		}
		n := lc.Node
		rep := "required"
		if n.Optional() {
			rep = "optional"
		} else if n.Repeated() {
			rep = "repeated"
		}
		lt := ""
		if l := n.Type().LogicalType(); l != nil {
			lt = l.String()
		}
		if got := n.Type().Kind().String() + " " + lt + " " + rep; got != w {
			t.Errorf("%s: %s, want %s", name, got, w)
		}
	}
	if f := frames.schema.Fields(); f[0].Name() != "capture" || f[1].Name() != "frame_number" || f[len(f)-1].Name() != "rx_callnumber" {
		t.Errorf("columns not in their order: %v", frames.schema)
	}
}

// TestFieldsAreTFields: an -e column holds what `rdx read -T fields -e`
// prints, every occurrence.
func TestFieldsAreTFields(t *testing.T) {
	const file = "../pcaps/rx/vos-dump-bulk.pcap"
	fields := []string{"rx.seq", "rx.callnumber", "ip.src", "rx.flags.last_packet"}
	s, _, _, err := exportRun(t, t.TempDir(), file, fields...)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Out: &out,
		Print: pipeline.Print{Format: "fields", Fields: fields}}); err != nil {
		t.Fatal(err)
	}
	frames := readTable(t, s.Files()[0])
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(frames.rows) {
		t.Fatalf("%d lines, %d rows", len(lines), len(frames.rows))
	}
	many := 0
	for i, line := range lines {
		want := strings.Split(line, "\t")
		for j, name := range fields {
			var got []string
			for _, v := range frames.col(t, i, export.ColumnName(name)) {
				switch v.Kind() {
				case parquet.Boolean:
					got = append(got, map[bool]string{true: "1", false: "0"}[v.Boolean()])
				case parquet.Int32:
					got = append(got, strconv.FormatUint(uint64(v.Uint32()), 10))
				default:
					got = append(got, v.String())
				}
			}
			if len(got) > 1 {
				many++
			}
			if g := strings.Join(got, ","); g != want[j] {
				t.Fatalf("frame %d %s: %q, -T fields %q", i+1, name, g, want[j])
			}
		}
	}
	if many == 0 {
		t.Error("no field with several occurrences: the list columns are not tested")
	}
}

// TestTruncatedCapture: a capture cut inside a record is an error naming
// the file, and the tables are valid files of every frame before it,
// marked incomplete.
func TestTruncatedCapture(t *testing.T) {
	b, err := os.ReadFile("../pcaps/rx/vos-dump-bulk.pcap")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, b[:len(b)*2/3], 0o666); err != nil {
		t.Fatal(err)
	}
	s, res, _, err := exportRun(t, filepath.Join(dir, "out"), cut)
	if err == nil || !strings.Contains(err.Error(), cut) {
		t.Fatalf("error %v does not name %s", err, cut)
	}
	frames := readTable(t, s.Files()[0])
	if res.Frames == 0 || uint64(len(frames.rows)) != res.Frames {
		t.Fatalf("%d rows for %d frames read", len(frames.rows), res.Frames)
	}
	if frames.meta["rdx.complete"] != "false" || !strings.Contains(frames.meta["rdx.error"], cut) {
		t.Errorf("metadata %v", frames.meta)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "out", "*", "*", ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestNoOverwrite: a second export of the same capture and host is refused
// before anything is read, unless Overwrite.
func TestNoOverwrite(t *testing.T) {
	dir := t.TempDir()
	if _, _, _, err := exportRun(t, dir, "../pcaps/rx/pts-ops.pcap"); err != nil {
		t.Fatal(err)
	}
	o := export.Options{Dir: dir, Host: "h1", Capture: "pts-ops.pcap"}
	if _, err := export.New(o); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("second export: %v", err)
	}
	o.Overwrite = true
	if _, err := export.New(o); err != nil {
		t.Fatal(err)
	}
}

func TestPathEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"fs1":   "out/frames/host=fs1/c.pcap.parquet",
		"a/b=c": "out/frames/host=a%2Fb%3Dc/c.pcap.parquet",
		"":      "out/frames/host=__HIVE_DEFAULT_PARTITION__/c.pcap.parquet",
		"..":    "out/frames/host=.._/c.pcap.parquet",
	} {
		if got := export.Path("out", "frames", in, "c.pcap"); got != want {
			t.Errorf("host %q: %s, want %s", in, got, want)
		}
	}
	if h := export.HostOf("/x/server1.pcap.gz"); h != "server1" {
		t.Errorf("HostOf: %s", h)
	}
}

// TestRowGroups: a capture longer than a row group is written as several,
// and every row is read back in order.
func TestRowGroups(t *testing.T) {
	const file = "../pcaps/rx/vos-dump-bulk.pcap" // 370 frames
	s, err := export.New(export.Options{Dir: t.TempDir(), Host: "h", Capture: "c", RowGroupRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Sinks: []pipeline.Sink{s}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(s.Files()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, rg := range pf.RowGroups() {
		sizes = append(sizes, rg.NumRows())
	}
	if !slices.Equal(sizes, []int64{100, 100, 100, 70}) {
		t.Errorf("row groups of %v rows", sizes)
	}
	frames := readTable(t, s.Files()[0])
	for i := range frames.rows {
		if n := frames.col(t, i, "frame_number")[0].Uint64(); n != uint64(i+1) {
			t.Fatalf("row %d is frame %d", i, n)
		}
	}
	if uint64(len(frames.rows)) != res.Frames {
		t.Fatalf("%d rows of %d frames", len(frames.rows), res.Frames)
	}
}

// TestCallsAreTheSRT: the calls table holds every reply rdx's `-z
// rpc,srt` counted: per program and version the same number of calls and
// the same minimum and maximum response time.
func TestCallsAreTheSRT(t *testing.T) {
	for _, file := range []string{"../pcaps/iwarp/nfs3_rdma_iwarp.pcap", "../pcaps/kernel/nfs3_rdma_roce.pcap",
		"../pcaps/kernel/lossy_nfs3_rdma_roce_dup.pcap", "../pcaps/kernel/nfs_rpc_synth.pcap"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			s, err := export.New(export.Options{Dir: t.TempDir(), Host: "h", Capture: "c", Calls: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Sinks: []pipeline.Sink{s}})
			if err != nil {
				t.Fatal(err)
			}
			srt := res.Engine.Stat("rpc,srt")
			type key struct {
				prog, vers string
			}
			type agg struct {
				n        int
				min, max int64
			}
			want := map[key][]agg{}
			for _, r := range srt.Rows {
				n, _ := strconv.Atoi(r[3])
				lo, err1 := time.ParseDuration(r[4])
				hi, err2 := time.ParseDuration(r[6])
				if err1 != nil || err2 != nil {
					t.Fatalf("srt row %q", r)
				}
				k := key{r[0], r[1]}
				want[k] = append(want[k], agg{n, int64(lo), int64(hi)})
			}
			calls := readTable(t, s.Files()[3])
			progNames := dissect.Lookup("rpc.program").Names
			got := map[key]map[uint32]*agg{}
			for i := range calls.rows {
				prog := calls.col(t, i, "rpc_program")[0].Uint32()
				k := key{progNames[uint64(prog)], strconv.Itoa(int(calls.col(t, i, "rpc_programversion")[0].Uint32()))}
				proc := calls.col(t, i, "rpc_procedure")[0].Uint32()
				rtt := calls.col(t, i, "response_time")[0].Int64()
				if got[k] == nil {
					got[k] = map[uint32]*agg{}
				}
				a := got[k][proc]
				if a == nil {
					a = &agg{min: rtt, max: rtt}
					got[k][proc] = a
				}
				a.n++
				a.min, a.max = min(a.min, rtt), max(a.max, rtt)
				if req, rep := calls.col(t, i, "request_frame")[0].Uint64(), calls.col(t, i, "reply_frame")[0].Uint64(); req >= rep {
					t.Fatalf("row %d: request frame %d, reply %d", i, req, rep)
				}
			}
			total := 0
			for k, ws := range want {
				for _, w := range ws {
					total += w.n
					found := false
					for _, a := range got[k] {
						// the table shows durations to the microsecond
						if a.n == w.n && abs(a.min-w.min) < 1000 && abs(a.max-w.max) < 1000 {
							found = true
						}
					}
					if !found {
						t.Errorf("%v: rpc,srt has %+v, calls table %v", k, w, got[k])
					}
				}
			}
			if len(calls.rows) != total {
				t.Errorf("%d calls rows, rpc,srt counts %d", len(calls.rows), total)
			}
			if total < 5 {
				t.Errorf("only %d calls", total)
			}
		})
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestFileMode: the files are readable as any file the user writes (0666
// less the umask), not the 0600 of a temporary file.
func TestFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	s, _, _, err := exportRun(t, t.TempDir(), "../pcaps/rx/pts-ops.pcap")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files() {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v", f, st.Mode())
		}
	}
}

// TestRxCallsAreTheSRT: the calls table's Rx rows are what `-z rx,srt`
// counts: per call name, service and server port the same number of calls
// and aborts and the same minimum and maximum response time.
func TestRxCallsAreTheSRT(t *testing.T) {
	files, _ := filepath.Glob("../pcaps/rx/*.pcap")
	total := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			s, err := export.New(export.Options{Dir: t.TempDir(), Host: "h", Capture: "c", Calls: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Sinks: []pipeline.Sink{s}})
			if err != nil {
				t.Fatal(err)
			}
			type agg struct {
				n, aborts int
				min, max  int64
			}
			want := map[string]agg{}
			for _, r := range res.Engine.Stat("rx,srt").Rows {
				n, _ := strconv.Atoi(r[3])
				ab, _ := strconv.Atoi(r[4])
				lo, err1 := time.ParseDuration(r[5])
				hi, err2 := time.ParseDuration(r[7])
				if err1 != nil || err2 != nil {
					t.Fatalf("srt row %q", r)
				}
				want[r[0]+"|"+r[1]+"|"+r[2]] = agg{n, ab, int64(lo), int64(hi)}
			}
			calls := readTable(t, s.Files()[3])
			got := map[string]*agg{}
			for i := range calls.rows {
				if p := calls.col(t, i, "protocol")[0].String(); p != "rx" {
					t.Fatalf("row %d: protocol %q", i, p)
				}
				k := calls.col(t, i, "call")[0].String() + "|" + strconv.Itoa(int(calls.col(t, i, "rx_serviceid")[0].Uint32())) +
					"|" + strconv.Itoa(int(calls.col(t, i, "rx_server_port")[0].Uint32()))
				rtt := calls.col(t, i, "response_time")[0].Int64()
				a := got[k]
				if a == nil {
					a = &agg{min: rtt, max: rtt}
					got[k] = a
				}
				a.n++
				a.aborts += len(calls.col(t, i, "rx_abort_code"))
				a.min, a.max = min(a.min, rtt), max(a.max, rtt)
				if req, rep := calls.col(t, i, "request_frame")[0].Uint64(), calls.col(t, i, "reply_frame")[0].Uint64(); req >= rep {
					t.Fatalf("row %d: request frame %d, reply %d", i, req, rep)
				}
				if len(calls.col(t, i, "rpc_xid")) != 0 {
					t.Fatalf("row %d: an Rx row with an rpc_xid", i)
				}
			}
			for k, w := range want {
				g := got[k]
				if g == nil || g.n != w.n || g.aborts != w.aborts || abs(g.min-w.min) >= 1000 || abs(g.max-w.max) >= 1000 {
					t.Errorf("%s: rx,srt has %+v, calls table %+v", k, w, g)
				}
				total += w.n
			}
			if len(got) != len(want) {
				t.Errorf("%d call types in the calls table, rx,srt has %d", len(got), len(want))
			}
		})
	}
	if total < 100 {
		t.Errorf("only %d Rx calls in pcaps/rx", total)
	}
}

// TestFlowsAreTheZTables: the flows table's qp rows are -z
// infiniband,flows row for row (PSN gaps, NAKs, CNPs, ...), and its
// conversation rows are -z conv,ip's and conv,udp's.
func TestFlowsAreTheZTables(t *testing.T) {
	gaps, naks := 0, 0
	for _, file := range []string{"../pcaps/kernel/lossy_nfs3_rdma_roce.pcap", "../pcaps/kernel/lossy_nfs3_rdma_roce_dup.pcap",
		"../pcaps/ib/rocev1.pcap", "../pcaps/ib/roce_rping.pcap", "../pcaps/ib/infiniband_erf.pcap"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			s, err := export.New(export.Options{Dir: t.TempDir(), Host: "h", Capture: "c", Flows: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true,
				Engine: dissect.Options{Conversations: true}, Sinks: []pipeline.Sink{s}})
			if err != nil {
				t.Fatal(err)
			}
			fl := readTable(t, s.Files()[3])
			u := func(i int, c string) string {
				v := fl.col(t, i, c)
				if len(v) == 0 {
					return "null"
				}
				return strconv.FormatUint(v[0].Uint64(), 10)
			}
			var qp []string
			convs := map[string]int{}
			for i := range fl.rows {
				kind := fl.col(t, i, "kind")[0].String()
				if kind != "qp" {
					convs[kind]++
					continue
				}
				qp = append(qp, fmt.Sprintf("%s → %s|0x%06x|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s",
					fl.col(t, i, "addr_a")[0].String(), fl.col(t, i, "addr_b")[0].String(), fl.col(t, i, "qp_b")[0].Uint32(),
					fl.col(t, i, "transport")[0].String(), u(i, "packets_ab"), u(i, "bytes_ab"), u(i, "psn_gaps"), u(i, "dup_psns"),
					u(i, "acks"), u(i, "coalesced_acks"), u(i, "naks"), u(i, "rnr_naks"), u(i, "ecn_ce"), u(i, "fecn"), u(i, "becn"),
					u(i, "cnps"), u(i, "first_frame")))
				n, _ := strconv.Atoi(u(i, "psn_gaps"))
				gaps += n
				n, _ = strconv.Atoi(u(i, "naks"))
				naks += n
			}
			var want []string
			for _, r := range res.Engine.Stat("infiniband,flows").Rows {
				// the frames column ("25-3482") only by its first frame: its
				// style is the table renderer's
				r[len(r)-1], _, _ = strings.Cut(r[len(r)-1], "-")
				want = append(want, strings.Join(r, "|"))
			}
			if !slices.Equal(qp, want) {
				t.Errorf("qp rows:\n%s\n-z infiniband,flows:\n%s", strings.Join(qp, "\n"), strings.Join(want, "\n"))
			}
			for _, k := range []string{"ip", "udp", "tcp", "ib"} {
				n := len(res.Engine.Stat("conv," + k).Rows)
				if k == "ip" { // kind ip holds both families; -z conv,ipv6 lists the IPv6 ones (infiniband_erf's IPoIB)
					n += len(res.Engine.Stat("conv,ipv6").Rows)
				}
				if n != convs[k] {
					t.Errorf("%d %s conversations, conv,%s has %d", convs[k], k, k, n)
				}
			}
		})
	}
	if gaps == 0 || naks == 0 {
		t.Errorf("%d PSN gaps, %d NAKs: the captures have both", gaps, naks)
	}
}

// redate writes a copy of a little-endian classic pcap whose frame i is
// at day(i) (days since the epoch) plus its old time of day.
func redate(t *testing.T, file string, day func(i int) int64) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 {
		t.Fatalf("%s: not a little-endian microsecond pcap", file)
	}
	for off, i := 24, 0; off+16 <= len(b); i++ {
		sec := int64(binary.LittleEndian.Uint32(b[off:]))
		binary.LittleEndian.PutUint32(b[off:], uint32(day(i)*86400+sec%86400))
		off += 16 + int(binary.LittleEndian.Uint32(b[off+8:]))
	}
	out := filepath.Join(t.TempDir(), filepath.Base(file))
	if err := os.WriteFile(out, b, 0o666); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPartitionByDate: --partition-by date,host puts each frame in the
// file of its UTC day (date=YYYY-MM-DD/host=H), every frame once, also when
// the days jump about more than MaxOpenDays files stay open (a day's later
// frames then go to CAPTURE#2.parquet); host,date nests the other way; a
// second export without --overwrite is refused, with it the files of every
// day are replaced.
func TestPartitionByDate(t *testing.T) {
	const d0 = 19000 // 2022-01-08
	for _, c := range []struct {
		name string
		keys []string
		day  func(i int) int64
		days int
	}{
		{"two days", []string{"date", "host"}, func(i int) int64 { return d0 + int64(i/60) }, 2},
		{"jumping", []string{"host", "date"}, func(i int) int64 { return d0 + int64(i%(export.MaxOpenDays+3)) }, export.MaxOpenDays + 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := redate(t, "../pcaps/rx/pts-ops.pcap", c.day)
			dir := t.TempDir()
			o := export.Options{Dir: dir, Host: "h1", Capture: "pts-ops.pcap", PartitionBy: c.keys, Calls: true}
			s, err := export.New(o)
			if err != nil {
				t.Fatal(err)
			}
			res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Sinks: []pipeline.Sink{s}})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[uint64]bool{}
			dates := map[string]bool{}
			for _, p := range s.Paths() {
				rel, _ := filepath.Rel(dir, p)
				parts := strings.Split(rel, string(filepath.Separator))
				var date string
				if c.keys[0] == "date" {
					date, _ = strings.CutPrefix(parts[1], "date=")
					if parts[2] != "host=h1" {
						t.Fatalf("%s", rel)
					}
				} else {
					date, _ = strings.CutPrefix(parts[2], "date=")
					if parts[1] != "host=h1" {
						t.Fatalf("%s", rel)
					}
				}
				dates[date] = true
				if parts[0] != "frames" {
					continue
				}
				tb := readTable(t, p)
				for i := range tb.rows {
					n := tb.col(t, i, "frame_number")[0].Uint64()
					ts := time.Unix(0, tb.col(t, i, "frame_time")[0].Int64()).UTC()
					if seen[n] || ts.Format(time.DateOnly) != date {
						t.Fatalf("%s: frame %d (again: %v) of %v", rel, n, seen[n], ts)
					}
					seen[n] = true
				}
			}
			if uint64(len(seen)) != res.Frames || len(dates) != c.days {
				t.Errorf("%d frames of %d written, on %d days of %d", len(seen), res.Frames, len(dates), c.days)
			}
			if c.days > export.MaxOpenDays && !slices.ContainsFunc(s.Paths(), func(p string) bool { return strings.HasSuffix(p, "#2.parquet") }) {
				t.Errorf("no second file of a day: %v", s.Paths())
			}
			if _, err := export.New(o); err == nil || !strings.Contains(err.Error(), "exists") {
				t.Errorf("a second export: %v", err)
			}
			o.Overwrite = true
			s2, _ := export.New(o)
			if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Sinks: []pipeline.Sink{s2}}); err != nil {
				t.Fatal(err)
			}
			var all []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					all = append(all, p)
				}
				return nil
			})
			slices.Sort(all)
			want := s2.Paths()
			slices.Sort(want)
			if !slices.Equal(all, want) {
				t.Errorf("after --overwrite:\n%v\nwritten:\n%v", all, want)
			}
		})
	}
	if _, err := export.New(export.Options{Dir: "d", PartitionBy: []string{"week"}}); err == nil {
		t.Error("--partition-by week accepted")
	}
}

// TestProtoTablesAreTFields: each protocol table (--tables) holds, frame
// by frame, what `rdx read -T fields -e` prints of its columns' fields:
// as many values (every occurrence, across the frame's PDUs) and the same
// numbers; and a row per occurrence of the protocol.
func TestProtoTablesAreTFields(t *testing.T) {
	cases := map[string][]string{
		"../pcaps/rx/vos-dump-bulk.pcap":                      {"rx"},
		"../pcaps/iwarp/nfs3_rdma_iwarp.pcap":                 {"rpc", "rpcrdma", "ddp", "mpa"},
		"../pcaps/kernel/lossy_nfs3_rdma_roce.pcap":           {"infiniband", "rpcrdma", "rpc"},
		"../pcaps/kernel/rds_tcp.pcap":                        {"rds"},
		"../pcaps/rdp/lossy.pcap":                             {"rdp"},
		"../pcaps/iwarp/wiki_iwarp_rdma__read.pcap":           {"ddp", "mpa"},
		"../pcaps/ib/roce_atomic_bw.pcap":                     {"infiniband"},
		"../pcaps/public/the-tcpdump-group+tcpdump__afs.pcap": {"rx"},
	}
	// fields a PDU holds twice: Portmap's Program Version is
	// rpc.programversion too, an Rx ACK's body has the serial it acks,
	// RPC has a credential's and a verifier's flavor
	dupes := map[string]bool{"rpc.programversion": true, "rx.serial": true, "rpc.auth.flavor": true}
	for file, tables := range cases {
		t.Run(filepath.Base(file), func(t *testing.T) {
			s, err := export.New(export.Options{Dir: t.TempDir(), Host: "h", Capture: "c", Tables: tables})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Sinks: []pipeline.Sink{s}}); err != nil {
				t.Fatal(err)
			}
			paths := s.Paths()
			for ti, name := range tables {
				protoField := map[string]string{"rpcrdma": "rpcordma", "ddp": "iwarp_ddp_rdmap", "mpa": "iwarp_mpa"}[name]
				if protoField == "" {
					protoField = name
				}
				fields := append([]string{protoField}, export.ProtoFields(name)...)
				var out bytes.Buffer
				if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Out: &out,
					Print: pipeline.Print{Format: "fields", Fields: append([]string{"frame.number"}, fields...), FieldOpts: []string{"aggregator=|"}}}); err != nil {
					t.Fatal(err)
				}
				path := paths[len(paths)-len(tables)+ti]
				if !strings.Contains(path, "/"+name+"/") {
					t.Fatalf("table %s in %s", name, path)
				}
				tb := readTable(t, path)
				if int64(len(tb.rows)) != s.ProtoRows[ti] || len(tb.rows) == 0 {
					t.Fatalf("%s: %d rows, counted %d", name, len(tb.rows), s.ProtoRows[ti])
				}
				// the table's values by frame and column, as -T fields prints them
				got := map[string][]string{}
				for i := range tb.rows {
					num := tb.col(t, i, "frame_number")[0].Uint64()
					k := strconv.FormatUint(num, 10)
					if got[k] == nil {
						got[k] = make([]string, len(fields))
					}
					got[k][0] += "x|"
					for j, fname := range fields[1:] {
						for _, v := range tb.col(t, i, export.ColumnName(fname)) {
							got[k][j+1] += valueText(v) + "|"
						}
					}
				}
				checked, values := 0, 0
				for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
					want := strings.Split(line, "\t")
					g := got[want[0]]
					if want[1] == "" {
						if g != nil {
							t.Fatalf("%s frame %s: rows but no %s", name, want[0], protoField)
						}
						continue
					}
					checked++
					for j, w := range want[1:] {
						gs := strings.Split(strings.TrimSuffix(g[j], "|"), "|")
						ws := strings.Split(w, "|")
						if w == "" {
							ws = nil
						}
						if g[j] == "" {
							gs = nil
						}
						if len(gs) < len(ws) && dupes[fields[j]] {
							// the field again later in the PDU: the row has the first, the PDU's own
							rest := slices.Clone(ws)
							for _, g := range gs {
								k := slices.IndexFunc(rest, func(w string) bool { return fmt.Sprint(parseUint(w)) == g })
								if k < 0 {
									t.Fatalf("%s frame %s %s: %q, -T fields %q", name, want[0], fields[j], g[j], w)
								}
								rest = slices.Delete(rest, k, k+1)
							}
							continue
						}
						if len(gs) != len(ws) {
							t.Fatalf("%s frame %s %s: %d values %q, -T fields %d %q", name, want[0], fields[j], len(gs), g[j], len(ws), w)
						}
						for k := range ws {
							if wn, err := strconv.ParseUint(ws[k], 0, 64); err == nil && j > 0 {
								values++
								if gn, err := strconv.ParseUint(gs[k], 10, 64); err != nil || gn != wn {
									t.Fatalf("%s frame %s %s: %q, -T fields %q", name, want[0], fields[j], gs[k], ws[k])
								}
							}
						}
					}
				}
				if checked != len(got) || values == 0 {
					t.Errorf("%s: %d frames checked of %d with rows, %d numbers", name, checked, len(got), values)
				}
			}
		})
	}
}

// valueText is a value as a number when it is one (booleans 1 and 0).
func valueText(v parquet.Value) string {
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return "1"
		}
		return "0"
	case parquet.Int32:
		return strconv.FormatUint(uint64(v.Uint32()), 10)
	case parquet.Int64:
		return strconv.FormatUint(v.Uint64(), 10)
	}
	return v.String()
}

func parseUint(s string) uint64 { n, _ := strconv.ParseUint(s, 0, 64); return n }

// callsRows exports file's calls table.
func callsRows(t *testing.T, file string) (table, pipeline.Result) {
	t.Helper()
	s, err := export.New(export.Options{Dir: t.TempDir(), Host: "h", Capture: "c", Calls: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Sinks: []pipeline.Sink{s}})
	if err != nil {
		t.Fatal(err)
	}
	return readTable(t, s.Files()[3]), res
}

// tfields is `rdx read -T fields -E aggregator=| -e frame.number -e ...`
// of file by frame number.
func tfields(t *testing.T, file string, fields ...string) map[uint64][]string {
	t.Helper()
	var out bytes.Buffer
	if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Out: &out,
		Print: pipeline.Print{Format: "fields", Fields: append([]string{"frame.number"}, fields...), FieldOpts: []string{"aggregator=|"}}}); err != nil {
		t.Fatal(err)
	}
	m := map[uint64][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		c := strings.Split(line, "\t")
		n, _ := strconv.ParseUint(c[0], 10, 64)
		m[n] = c[1:]
	}
	return m
}

// opt is column name of row i: its number, or -1 for a null.
func (tb table) opt(t *testing.T, i int, name string) int64 {
	v := tb.col(t, i, name)
	if len(v) == 0 {
		return -1
	}
	if v[0].Kind() == parquet.Int32 {
		return int64(v[0].Uint32())
	}
	return v[0].Int64()
}

// TestCallsRDMA: an RPC-over-RDMA call's row has the credits its call's
// and its reply's RPC-over-RDMA headers carry (rpcordma.flow_control) and
// the octets of the call's read chunks and the reply's write and reply
// chunks (rpcordma.rdma_length under each list's count), as -T fields
// prints them for the request and the reply frame.
func TestCallsRDMA(t *testing.T) {
	for _, file := range []string{"../pcaps/kernel/lossy_nfs3_rdma_roce.pcap", "../pcaps/iwarp/nfs3_rdma_iwarp.pcap",
		"../pcaps/kernel/nfs42_acl_rdma_roce.pcap"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			calls, _ := callsRows(t, file)
			tf := tfields(t, file, "rpcordma.flow_control", "rpcordma.reads_count", "rpcordma.writes_count", "rpcordma.reply_count", "rpcordma.rdma_length", "rpcordma.xid")
			// the frames of each XID's headers, in order
			byXID := map[uint64][]uint64{}
			for fr, c := range tf {
				if c[5] != "" && !strings.Contains(c[5], "|") {
					byXID[parseUint(c[5])] = append(byXID[parseUint(c[5])], fr)
				}
			}
			for _, frs := range byXID {
				slices.Sort(frs)
			}
			// lists is the octets of each chunk list of a frame's one header, when -T fields tells
			// (one list with segments); ok false when it does not
			lists := func(fr uint64) (credits int64, bytes [3]int64, ok bool) {
				c := tf[fr]
				if c == nil || c[0] == "" || strings.Contains(c[0], "|") {
					return 0, bytes, false
				}
				credits = int64(parseUint(c[0]))
				sum := int64(0)
				for _, l := range strings.Split(c[4], "|") {
					sum += int64(parseUint(l))
				}
				with := -1
				for k := 0; k < 3; k++ {
					if parseUint(c[1+k]) != 0 {
						if with >= 0 {
							return credits, bytes, false // segments of two lists
						}
						with = k
					}
				}
				if with >= 0 {
					bytes[with] = sum
				}
				return credits, bytes, true
			}
			rdma, reads, writes, replies := 0, 0, 0, 0
			for i := range calls.rows {
				if calls.str(t, i, "protocol") != "rpc" || calls.str(t, i, "rpc_transport") != "rdma" {
					if calls.opt(t, i, "rdma_credits_granted") != -1 {
						t.Fatalf("row %d: rdma columns on a call not over RDMA", i)
					}
					continue
				}
				rdma++
				req, rep := calls.opt(t, i, "request_frame"), calls.opt(t, i, "reply_frame")
				// the call's header: its XID's last before the reply frame (the
				// call's own frame, or before it when the call came in a read chunk)
				hdr := uint64(0)
				for _, fr := range byXID[uint64(calls.opt(t, i, "rpc_xid"))] {
					if fr <= uint64(req) {
						hdr = fr
					}
				}
				if cr, b, ok := lists(hdr); ok {
					if got := calls.opt(t, i, "rdma_credits_requested"); got != cr {
						t.Errorf("calls %d-%d: credits requested %d, -T fields %d (frame %d)", req, rep, got, cr, hdr)
					}
					if got := calls.opt(t, i, "rdma_read_bytes"); got != b[0] {
						t.Errorf("calls %d-%d: read chunks %d, -T fields %d (frame %d)", req, rep, got, b[0], hdr)
					}
					reads += min(int(b[0]), 1)
				}
				if cr, b, ok := lists(uint64(rep)); ok {
					if got := calls.opt(t, i, "rdma_credits_granted"); got != cr {
						t.Errorf("calls %d-%d: credits granted %d, -T fields %d", req, rep, got, cr)
					}
					if w, r := calls.opt(t, i, "rdma_write_bytes"), calls.opt(t, i, "rdma_reply_bytes"); w != b[1] || r != b[2] {
						t.Errorf("calls %d-%d: write chunks %d reply chunk %d, -T fields %d %d", req, rep, w, r, b[1], b[2])
					}
					writes += min(int(b[1]), 1)
					replies += min(int(b[2]), 1)
				}
			}
			t.Logf("%d RPC-over-RDMA calls: %d with read chunks, %d with write chunks, %d with a reply chunk", rdma, reads, writes, replies)
			if rdma == 0 || reads+writes+replies == 0 {
				t.Errorf("%d RPC-over-RDMA calls, none with chunks", rdma)
			}
		})
	}
}

// TestCallsRDSPing: every RDS pong matched to its ping is a calls row,
// with the round trip rds.ping_rtt gives: rds_tcp.pcap has an MPRDS probe
// answered and two pings, one answered in the probe pong's frame.
func TestCallsRDSPing(t *testing.T) {
	const file = "../pcaps/kernel/rds_tcp.pcap"
	calls, _ := callsRows(t, file)
	tf := tfields(t, file, "rds.ping_frame", "rds.ping_rtt")
	var got []string
	for i := range calls.rows {
		if calls.str(t, i, "protocol") != "rds" {
			continue
		}
		req, rep := calls.opt(t, i, "request_frame"), calls.opt(t, i, "reply_frame")
		rtt := time.Duration(calls.opt(t, i, "response_time"))
		got = append(got, fmt.Sprintf("%d-%d %s", req, rep, calls.str(t, i, "call")))
		c := tf[uint64(rep)]
		if !slices.Contains(strings.Split(c[0], "|"), strconv.FormatInt(req, 10)) ||
			!slices.Contains(strings.Split(c[1], "|"), fmt.Sprintf("%.9f", rtt.Seconds())) {
			t.Errorf("row %d-%d rtt %v: -T fields %q", req, rep, rtt, c)
		}
	}
	if want := []string{"31-33 probe", "31-33 ping", "534-536 ping"}; !slices.Equal(got, want) {
		t.Errorf("RDS calls %q, want %q", got, want)
	}
}

// TestCallsRDP: a calls row per RDP connection of -z rdp,conv, from its
// first to its last frame, with each side's segments, data octets,
// retransmissions and EACKs.
func TestCallsRDP(t *testing.T) {
	for _, file := range []string{"../pcaps/rdp/lossy.pcap", "../pcaps/rdp/clean.pcap"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			calls, res := callsRows(t, file)
			conv := res.Engine.Stat("rdp,conv")
			var want, got []string
			for k := 0; k+1 < len(conv.Rows); k += 2 {
				a, b := conv.Rows[k], conv.Rows[k+1]
				want = append(want, strings.Join([]string{a[0], a[11], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5]}, " "))
			}
			for i := range calls.rows {
				if calls.str(t, i, "protocol") != "rdp" {
					t.Fatalf("row %d: %s", i, calls.str(t, i, "protocol"))
				}
				n := func(c string) string { return strconv.FormatInt(calls.opt(t, i, c), 10) }
				got = append(got, strings.Join([]string{calls.str(t, i, "rdp_a") + " → " + calls.str(t, i, "rdp_b"),
					n("request_frame") + "-" + n("reply_frame"), n("rdp_segments_ab"), n("rdp_segments_ba"), n("rdp_bytes_ab"), n("rdp_bytes_ba"),
					n("rdp_retransmits_ab"), n("rdp_retransmits_ba"), n("rdp_eacks_ab"), n("rdp_eacks_ba")}, " "))
			}
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("calls:\n%s\n-z rdp,conv:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestPruningStatistics: the frames file keeps what engines prune row
// groups and pages by, numbers and times with min and max in the column
// chunk and the page index, although the data pages' headers have none;
// text columns without bounds have none. The checks file: frame_number
// and ok have bounds, check (many checks a page) none.
func TestPruningStatistics(t *testing.T) {
	s, _, _, err := exportRun(t, t.TempDir(), "../pcaps/rx/vos-dump-bulk.pcap")
	if err != nil {
		t.Fatal(err)
	}
	s2, _, _, err := exportRun(t, t.TempDir(), "../pcaps/ib/roce_rping.pcap")
	if err != nil {
		t.Fatal(err)
	}
	checks := readMeta(t, s2.Files()[2])
	if len(checks.RowGroups) == 0 || checks.NumRows == 0 {
		t.Fatalf("checks: %d rows", checks.NumRows)
	}
	for _, c := range checks.RowGroups[0].Columns {
		name, stats := c.MetaData.PathInSchema[0], c.MetaData.Statistics
		if bounds := len(stats.MinValue) != 0 || len(stats.MaxValue) != 0; bounds != (name != "check" && name != "capture") {
			t.Errorf("checks %s: bounds %q %q", name, stats.MinValue, stats.MaxValue)
		}
	}
	f, err := os.Open(s.Files()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	rg := pf.Metadata().RowGroups[0]
	for i, c := range rg.Columns {
		name := c.MetaData.PathInSchema[0]
		stats := c.MetaData.Statistics
		switch name {
		case "frame_number", "frame_time", "frame_len":
			if len(stats.MinValue) == 0 || len(stats.MaxValue) == 0 {
				t.Errorf("%s: no min/max in the column chunk", name)
			}
			ci := pf.ColumnIndexes()
			if len(ci) <= i || len(ci[i].MinValues) == 0 {
				t.Errorf("%s: no page index", name)
			}
		case "info", "src", "capture":
			if len(stats.MinValue) != 0 {
				t.Errorf("%s: bounds %q", name, stats.MinValue)
			}
		}
	}
	if n := pf.Metadata().RowGroups[0].NumRows; n != 370 {
		t.Errorf("%d rows", n)
	}
}

// readMeta is a file's footer.
func readMeta(t *testing.T, path string) *format.FileMetaData {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf.Metadata()
}

// TestFieldEncodings: -e integer columns are DELTA_BINARY_PACKED (a serial
// number, a new value each row, is not dictionary-coded).
func TestFieldEncodings(t *testing.T) {
	s, _, _, err := exportRun(t, t.TempDir(), "../pcaps/rx/vos-dump-bulk.pcap", "rx.serial", "rx.flags", "ip.src")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(s.Files()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]format.Encoding{"rx_serial": format.DeltaBinaryPacked, "rx_flags": format.DeltaBinaryPacked,
		"ip_src": format.RLEDictionary}
	for _, c := range pf.Metadata().RowGroups[0].Columns {
		name, md := c.MetaData.PathInSchema[0], c.MetaData
		if w, ok := want[name]; ok {
			if !slices.Contains(md.Encoding, w) {
				t.Errorf("%s: encodings %v, want %v", name, md.Encoding, w)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		t.Errorf("no columns %v", want)
	}
}

// TestInfoEncoding: Info is DELTA_BYTE_ARRAY where consecutive rows share
// their beginnings (an Rx call's packets in a row: 57% of the octets), else
// DELTA_LENGTH_BYTE_ARRAY (RoCE requests and ACKs interleaved: 8%), with or
// without -e columns; the values are the summary's either way
// (TestFramesAreTheSummary).
func TestInfoEncoding(t *testing.T) {
	for _, c := range []struct {
		file   string
		fields []string
		want   format.Encoding
	}{
		{"../pcaps/kernel/lossy_rxrpc.pcap", nil, format.DeltaByteArray},
		{"../pcaps/ib/roce_rping.pcap", nil, format.DeltaLengthByteArray},
		{"../pcaps/kernel/lossy_rxrpc.pcap", []string{"rx.seq"}, format.DeltaByteArray},
		{"../pcaps/ib/roce_rping.pcap", []string{"infiniband.bth.psn"}, format.DeltaLengthByteArray},
	} {
		s, _, _, err := exportRun(t, t.TempDir(), c.file, c.fields...)
		if err != nil {
			t.Fatal(err)
		}
		var got []format.Encoding
		for _, col := range readMeta(t, s.Files()[0]).RowGroups[0].Columns {
			if col.MetaData.PathInSchema[0] == "info" {
				got = col.MetaData.Encoding
			}
		}
		if !slices.Equal(got, []format.Encoding{c.want}) {
			t.Errorf("%s %v: info encodings %v, want %v", c.file, c.fields, got, c.want)
		}
	}
}
