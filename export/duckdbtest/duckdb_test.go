// Package duckdbtest queries what `rdx export` writes with DuckDB, a real
// engine. It is its own Go module because DuckDB needs cgo and rdx's own
// module stays cgo-free; run it with `make test-duckdb`.
package duckdbtest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// captures: Rx/AFS, iWARP, RoCE, native IB without IP, and an ICMP/ARP mix,
// as files of three hosts.
var captures = map[string]string{
	"../../pcaps/rx/vos-dump-bulk.pcap":                   "afs1",
	"../../pcaps/rx/bos-queries.pcap":                     "afs1",
	"../../pcaps/iwarp/nfs3_rdma_iwarp.pcap":              "nfs1",
	"../../pcaps/ib/roce_rping.pcap":                      "ib1",
	"../../pcaps/ib/infiniband_erf.pcap":                  "ib1",
	"../../pcaps/icmp/oferby+proxy__roce_icmpv6_arp.pcap": "ib1",
	"../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap":        "nfs1",
}

// rdx builds the command once per test run.
func rdx(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rdx")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/rdx")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // rdx itself never needs cgo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 { // 1: rdx check found failures
			t.Fatalf("rdx %v: %v\n%s", args, err, errOut.String())
		}
	}
	return out.String()
}

// TestDuckDBReadsTheExport exports every capture with `rdx export` (one
// run per host: --host) and holds DuckDB's answers against rdx's own: frames
// per capture as `rdx read` prints them, the Info column as its summary
// lines end, the check tallies of `rdx check -T json`, the hosts from the
// Hive partitions, the column types, and the README's queries.
func TestDuckDBReadsTheExport(t *testing.T) {
	bin := rdx(t)
	dir := t.TempDir()
	captures := maps.Clone(captures)
	captures[corrupt(t)] = "crc1"
	byHost := map[string][]string{}
	for f, h := range captures {
		byHost[h] = append(byHost[h], f)
	}
	// and again in date partitions: the At scale queries must answer the same
	dated := t.TempDir()
	for h, files := range byHost {
		run(t, bin, append([]string{"export", "--calls", "--flows", "-w", dir, "--host", h}, files...)...)
		run(t, bin, append([]string{"export", "--calls", "--flows", "--partition-by", "date,host", "-w", dated, "--host", h}, files...)...)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, v := range []string{"frames", "findings", "checks", "calls", "flows"} {
		q := "CREATE VIEW " + v + " AS SELECT * FROM read_parquet('" + filepath.Join(dir, v) + "/*/*.parquet', hive_partitioning = true)"
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	for file, host := range captures {
		name := filepath.Base(file)
		lines := strings.Split(strings.TrimSuffix(run(t, bin, "read", file), "\n"), "\n")
		var n int
		var h string
		if err := db.QueryRowContext(ctx, "SELECT count(*), any_value(host) FROM frames WHERE capture = ?", name).Scan(&n, &h); err != nil {
			t.Fatal(err)
		}
		if n != len(lines) || h != host {
			t.Errorf("%s: DuckDB counts %d frames of host %q, rdx read prints %d lines (host %s)", name, n, h, len(lines), host)
		}
		rows, err := db.QueryContext(ctx, "SELECT info FROM frames WHERE capture = ? ORDER BY frame_number", name)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; rows.Next(); i++ {
			var info string
			if err := rows.Scan(&info); err != nil {
				t.Fatal(err)
			}
			if i >= len(lines) || !strings.HasSuffix(lines[i], " "+info) {
				t.Fatalf("%s row %d: info %q", name, i, info)
			}
		}
		rows.Close()

		var report struct {
			Checks []struct {
				Check                   string
				Checked, Passed, Failed int
			}
		}
		if err := json.Unmarshal([]byte(run(t, bin, "check", "-T", "json", file)), &report); err != nil {
			t.Fatal(err)
		}
		for _, c := range report.Checks {
			if strings.HasSuffix(c.Check, ".checksum") {
				continue // IP/UDP/TCP checksums: only rdx check verifies them (tshark's validation preferences, off in read and export)
			}
			var passed, failed int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (ok), count(*) FILTER (NOT ok) FROM checks WHERE capture = ? AND "check" = ?`,
				name, c.Check).Scan(&passed, &failed); err != nil {
				t.Fatal(err)
			}
			if passed != c.Passed || failed != c.Failed {
				t.Errorf("%s %s: DuckDB %d passed %d failed, rdx check %d %d", name, c.Check, passed, failed, c.Passed, c.Failed)
			}
		}
	}

	// Response time per procedure in DuckDB is rdx's -z rpc,srt: per row
	// of that table a group of as many calls with the same minimum and
	// maximum (the table shows microseconds).
	const nfs = "../../pcaps/iwarp/nfs3_rdma_iwarp.pcap"
	type agg struct{ n, lo, hi int64 }
	var groups []agg
	rows, err := db.QueryContext(ctx, `SELECT count(*), min(response_time), max(response_time) FROM calls
		WHERE capture = ? GROUP BY rpc_program, rpc_programversion, rpc_procedure`, filepath.Base(nfs))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a agg
		if err := rows.Scan(&a.n, &a.lo, &a.hi); err != nil {
			t.Fatal(err)
		}
		groups = append(groups, a)
	}
	rows.Close()
	srtRows := 0
	for _, r := range statRows(t, bin, "stats", nfs, "rpc,srt") {
		n := r.int(3)
		lo, hi := r.dur(4), r.dur(6)
		srtRows++
		found := false
		for _, g := range groups {
			if g.n == n && abs(g.lo-lo) < 1000 && abs(g.hi-hi) < 1000 { // the table's unit is 1 µs or 1 ms/1000
				found = true
			}
		}
		if !found {
			t.Errorf("rpc,srt %v: no such group in DuckDB %v", r.cells, groups)
		}
	}
	if srtRows == 0 || srtRows != len(groups) {
		t.Errorf("%d rpc,srt rows, %d DuckDB groups", srtRows, len(groups))
	}

	// Rx response time per call in DuckDB is rdx's -z rx,srt, row for row:
	// calls, aborts, minimum and maximum.
	for _, rxf := range []string{"../../pcaps/rx/vos-dump-bulk.pcap", "../../pcaps/rx/bos-queries.pcap"} {
		got := map[string]string{}
		rows, err := db.QueryContext(ctx, `SELECT call, rx_serviceid, rx_server_port, count(*), count(rx_abort_code),
			min(response_time), max(response_time) FROM calls WHERE capture = ? AND protocol = 'rx' GROUP BY ALL`, filepath.Base(rxf))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var call string
			var svc, port, n, aborts, lo, hi int64
			if err := rows.Scan(&call, &svc, &port, &n, &aborts, &lo, &hi); err != nil {
				t.Fatal(err)
			}
			got[fmt.Sprintf("%s|%d|%d", call, svc, port)] = fmt.Sprintf("%d|%d|%d|%d", n, aborts, lo/1000, hi/1000)
		}
		rows.Close()
		want := map[string]string{}
		for _, r := range statRows(t, bin, "stats", rxf, "rx,srt") {
			want[r.str(0)+"|"+r.str(1)+"|"+r.str(2)] = r.str(3) + "|" + r.str(4) + "|" +
				strconv.FormatInt(r.dur(5)/1000, 10) + "|" + strconv.FormatInt(r.dur(7)/1000, 10)
		}
		if len(want) == 0 || !maps.Equal(got, want) {
			t.Errorf("%s: DuckDB's Rx calls %v, rx,srt %v", rxf, got, want)
		}
	}

	// PSN gaps and NAKs per QP in DuckDB are rdx's -z infiniband,flows.
	for _, ibf := range []string{"../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap", "../../pcaps/ib/roce_rping.pcap"} {
		got := map[string]string{}
		rows, err := db.QueryContext(ctx, `SELECT addr_a, addr_b, qp_b, psn_gaps, naks, cnps FROM flows
			WHERE capture = ? AND kind = 'qp'`, filepath.Base(ibf))
		if err != nil {
			t.Fatal(err)
		}
		gaps := int64(0)
		for rows.Next() {
			var a, b string
			var qp, g, naks, cnps int64
			if err := rows.Scan(&a, &b, &qp, &g, &naks, &cnps); err != nil {
				t.Fatal(err)
			}
			got[fmt.Sprintf("%s → %s|0x%06x", a, b, qp)] = fmt.Sprintf("%d|%d|%d", g, naks, cnps)
			gaps += g
		}
		rows.Close()
		want := map[string]string{}
		for _, r := range statRows(t, bin, "flows", ibf, "infiniband,flows") {
			want[r.str(0)+"|"+r.str(1)] = r.str(5) + "|" + r.str(9) + "|" + r.str(14)
		}
		if len(want) == 0 || !maps.Equal(got, want) {
			t.Errorf("%s: DuckDB's QPs %v, infiniband,flows %v", ibf, got, want)
		}
		if strings.Contains(ibf, "lossy") && gaps == 0 {
			t.Errorf("%s: no PSN gaps", ibf)
		}
	}

	atScale(t, ctx, db, bin, captures, dir, dated)

	// The types engines see (DuckDB's names for the Parquet types).
	want := map[string]string{"frame_number": "UBIGINT", "frame_time": "TIMESTAMP_NS", "src": "VARCHAR",
		"src_port": "USMALLINT", "frame_len": "UINTEGER", "info": "VARCHAR", "host": "VARCHAR", "capture": "VARCHAR"}
	rows, err = db.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE frames)")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c, typ string
		if err := rows.Scan(&c, &typ); err != nil {
			t.Fatal(err)
		}
		if w, ok := want[c]; ok && w != typ {
			t.Errorf("column %s: %s, want %s", c, typ, w)
		}
		delete(want, c)
	}
	rows.Close()
	if len(want) > 0 {
		t.Errorf("columns missing: %v", want)
	}

	// The README's queries run as printed there (with its directory): the
	// first counts every frame, the second every NFS call, the third finds
	// each failed check.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	qs := readmeQueries(t, string(readme))
	if len(qs) != 3 {
		t.Fatalf("%d sql blocks in the README's Export to Parquet", len(qs))
	}
	var all, nfsCalls, failed int64
	db.QueryRowContext(ctx, "SELECT count(*) FROM frames").Scan(&all)
	db.QueryRowContext(ctx, "SELECT count(*) FROM calls WHERE rpc_program = 100003").Scan(&nfsCalls)
	db.QueryRowContext(ctx, "SELECT count(*) FROM checks WHERE NOT ok").Scan(&failed)
	for i, want := range []int64{all, nfsCalls, failed} {
		q := strings.ReplaceAll(qs[i], "'out/", "'"+dir+"/")
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("README query: %v\n%s", err, q)
		}
		cols, _ := rows.Columns()
		var got int64
		for rows.Next() {
			v := make([]any, len(cols))
			for j := range v {
				v[j] = new(any)
			}
			if err := rows.Scan(v...); err != nil {
				t.Fatal(err)
			}
			switch i {
			case 0:
				got += (*v[2].(*any)).(int64) // frames
			case 1:
				got += (*v[3].(*any)).(int64) // calls
			default:
				got++
			}
		}
		rows.Close()
		if got != want || i < 2 && got == 0 {
			t.Errorf("README query %d: %d, want %d\n%s", i+1, got, want, q)
		}
	}
}

// readmeQueries are the sql blocks of the README's "Export to Parquet"
// section.
func readmeQueries(t *testing.T, readme string) []string {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "## Export to Parquet")
	if !ok {
		t.Fatal("README has no Export to Parquet section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var qs []string
	for {
		var q string
		if _, q, ok = strings.Cut(sec, "```sql\n"); !ok {
			return qs
		}
		q, sec, _ = strings.Cut(q, "```")
		qs = append(qs, q)
	}
}

// statRow is one row of a table of `rdx stats|flows -T json`.
type statRow struct {
	cols  []string
	cells []any
}

// statRows is the rows of the table named name in `rdx VERB -T json file`,
// none without that table
// (JSON, not the text table: its layout is for people).
func statRows(t *testing.T, bin, verb, file, name string) []statRow {
	t.Helper()
	var doc struct {
		Tables []struct {
			Name    string
			Columns []string
			Rows    [][]any
		}
	}
	if err := json.Unmarshal([]byte(run(t, bin, verb, "-T", "json", file)), &doc); err != nil {
		t.Fatalf("%s -T json %s: %v", verb, file, err)
	}
	for _, tb := range doc.Tables {
		if tb.Name == name {
			rows := make([]statRow, len(tb.Rows))
			for i, r := range tb.Rows {
				rows[i] = statRow{tb.Columns, r}
			}
			return rows
		}
	}
	return nil // no such table (no such traffic): the callers require rows where they expect them
}

// str is cell i as text (a number without decimals when it has none).
func (r statRow) str(i int) string {
	if f, ok := r.cells[i].(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(r.cells[i])
}

func (r statRow) int(i int) int64 { f, _ := r.cells[i].(float64); return int64(f) }

// dur is cell i in nanoseconds, by the unit its column names: "Min (ms)".
func (r statRow) dur(i int) int64 {
	f, _ := r.cells[i].(float64)
	switch c := r.cols[i]; {
	case strings.HasSuffix(c, "(ns)"):
		return int64(f)
	case strings.HasSuffix(c, "(µs)"):
		return int64(math.Round(f * 1e3))
	case strings.HasSuffix(c, "(ms)"):
		return int64(math.Round(f * 1e6))
	case strings.HasSuffix(c, "(s)"):
		return int64(math.Round(f * 1e9))
	}
	panic("column " + r.cols[i] + " names no unit")
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// corrupt is a copy of an iWARP capture with the last octet of every
// third record flipped: MPA CRC failures at known frames.
func corrupt(t *testing.T) string {
	b, err := os.ReadFile("../../pcaps/iwarp/iwarp_rping_crc.pcap")
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 {
		t.Fatal("not a little-endian pcap")
	}
	for off, i := 24, 0; off+16 <= len(b); i++ {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		if i%3 == 2 && n > 0 {
			b[off+16+n-1] ^= 0xff
		}
		off += 16 + n
	}
	p := filepath.Join(t.TempDir(), "crcbad.pcap")
	if err := os.WriteFile(p, b, 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// atScale runs the README's "At scale" DuckDB queries as printed there on
// both layouts (host; date,host) and holds their answers against rdx's own:
// the same rows from both, NFS calls as many as the calls table has, the
// top QPs as -z infiniband,flows ranks them, every CRC failure rdx check
// counts.
func atScale(t *testing.T, ctx context.Context, db *sql.DB, bin string, captures map[string]string, dirs ...string) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "\n## At scale\n")
	if !ok {
		t.Fatal("README has no At scale section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var qs []string
	for {
		var q string
		if _, q, ok = strings.Cut(sec, "```sql\n"); !ok {
			break
		}
		q, sec, _ = strings.Cut(q, "```")
		qs = append(qs, q)
	}
	if len(qs) != 3 {
		t.Fatalf("%d DuckDB queries in At scale", len(qs))
	}
	answers := make([][]string, len(qs))
	for di, dir := range dirs {
		for i, q := range qs {
			q = strings.ReplaceAll(q, "'out/", "'"+dir+"/")
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				t.Fatalf("At scale query %d: %v\n%s", i+1, err, q)
			}
			cols, _ := rows.Columns()
			var got []string
			for rows.Next() {
				v := make([]any, len(cols))
				for j := range v {
					v[j] = new(any)
				}
				if err := rows.Scan(v...); err != nil {
					t.Fatal(err)
				}
				var r []string
				for _, x := range v {
					r = append(r, fmt.Sprint(*x.(*any)))
				}
				got = append(got, strings.Join(r, "|"))
			}
			rows.Close()
			if di == 0 {
				answers[i] = got
			} else if !slices.Equal(got, answers[i]) {
				t.Errorf("At scale query %d: %s answers\n%s\n%s answers\n%s", i+1, dirs[0], strings.Join(answers[i], "\n"),
					dir, strings.Join(got, "\n"))
			}
		}
	}

	// 1: as many NFS calls as the calls table has
	var nfs int64
	db.QueryRowContext(ctx, "SELECT count(*) FROM calls WHERE protocol = 'rpc' AND rpc_program = 100003").Scan(&nfs)
	sum := int64(0)
	for _, r := range answers[0] {
		n, _ := strconv.ParseInt(strings.Split(r, "|")[4], 10, 64)
		sum += n
	}
	if sum != nfs || nfs == 0 {
		t.Errorf("At scale 1: %d calls, the calls table has %d", sum, nfs)
	}

	// 2: the QPs with PSN gaps or NAKs of every capture's -z
	// infiniband,flows, ranked as the query ranks them
	type qp struct {
		host, capture, src, dst, qp string
		gaps, naks                  int
	}
	var qps []qp
	for file, host := range captures {
		for _, r := range statRows(t, bin, "flows", file, "infiniband,flows") {
			src, dst, _ := strings.Cut(r.str(0), " → ")
			g, n := int(r.int(5)), int(r.int(9))
			if g+n > 0 {
				qps = append(qps, qp{host, filepath.Base(file), src, dst, r.str(1), g, n})
			}
		}
	}
	slices.SortFunc(qps, func(a, b qp) int {
		if a.gaps+a.naks != b.gaps+b.naks {
			return (b.gaps + b.naks) - (a.gaps + a.naks)
		}
		return strings.Compare(a.host+"|"+a.capture+"|"+a.src+"|"+a.dst+"|"+a.qp, b.host+"|"+b.capture+"|"+b.src+"|"+b.dst+"|"+b.qp)
	})
	qps = qps[:min(len(qps), 20)]
	var want []string
	for _, q := range qps {
		want = append(want, fmt.Sprintf("%s|%s|%s|%s|%s|%d|%d", q.host, q.capture, q.src, q.dst, q.qp, q.gaps, q.naks))
	}
	var got []string
	for _, r := range answers[1] {
		c := strings.Split(r, "|")
		got = append(got, strings.Join(append(c[:5:5], c[6], c[7]), "|"))
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("At scale 2:\n%s\n-z infiniband,flows ranks:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// 3: every failed CRC check rdx check counts, at the frames it names
	failed := 0
	for file, host := range captures {
		var report struct {
			Checks []struct {
				Check              string
				Failed             int
				FirstFailingFrames []uint64 `json:"first_failing_frames"`
			}
		}
		if err := json.Unmarshal([]byte(run(t, bin, "check", "-T", "json", file)), &report); err != nil {
			t.Fatal(err)
		}
		for _, c := range report.Checks {
			if !strings.HasSuffix(c.Check, "crc") {
				continue
			}
			failed += c.Failed
			for _, fr := range c.FirstFailingFrames {
				k := fmt.Sprintf("%s|%s|%d|", host, filepath.Base(file), fr)
				if !slices.ContainsFunc(answers[2], func(r string) bool { return strings.HasPrefix(r, k) && strings.Contains(r, "|"+c.Check+"|") }) {
					t.Errorf("At scale 3: no row of %s %s", k, c.Check)
				}
			}
		}
	}
	t.Logf("At scale: %d NFS calls in %d rows; %d QPs ranked, first %v; %d CRC failures", nfs, len(answers[0]), len(answers[1]),
		answers[1][:min(1, len(answers[1]))], failed)
	if failed == 0 || len(answers[2]) != failed {
		t.Errorf("At scale 3: %d rows, rdx check counts %d CRC failures:\n%s", len(answers[2]), failed, strings.Join(answers[2], "\n"))
	}
}

// TestDuckDBProtocolTables exports the per-protocol tables (--tables) of
// real captures and holds DuckDB's counts against `rdx read -T fields`:
// a row per occurrence of the protocol, and per value of a key column as
// many rows as -T fields prints that value (PSNs per QP, RPC procedures,
// Rx packet types, ...).
func TestDuckDBProtocolTables(t *testing.T) {
	bin := rdx(t)
	dir := t.TempDir()
	files := []string{"../../pcaps/rx/vos-dump-bulk.pcap", "../../pcaps/iwarp/nfs3_rdma_iwarp.pcap",
		"../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap", "../../pcaps/kernel/rds_tcp.pcap", "../../pcaps/rdp/lossy.pcap"}
	run(t, bin, append([]string{"export", "-w", dir, "--tables", "rx,rpc,rpcrdma,infiniband,rds,rdp,ddp,mpa"}, files...)...)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	cases := []struct{ table, proto, field string }{
		{"rx", "rx", "rx.type"},
		{"rx", "rx", "rx.callnumber"},
		{"rpc", "rpc", "rpc.procedure"},
		{"rpc", "rpc", "rpc.xid"},
		{"rpcrdma", "rpcordma", "rpcordma.flow_control"},
		{"rpcrdma", "rpcordma", "rpcordma.msg_type"},
		{"infiniband", "infiniband", "infiniband.bth.destqp"},
		{"infiniband", "infiniband", "infiniband.bth.opcode"},
		{"rds", "rds", "rds.sport"},
		{"rdp", "rdp", "rdp.seq"},
		{"ddp", "iwarp_ddp_rdmap", "iwarp_rdma.opcode"},
		{"mpa", "iwarp_mpa", "iwarp_mpa.ulpdulength"},
	}
	for _, c := range cases {
		q := "CREATE OR REPLACE VIEW " + c.table + " AS SELECT * FROM read_parquet('" + filepath.Join(dir, c.table) + "/*/*.parquet', hive_partitioning = true)"
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		total := 0
		for _, file := range files {
			// -T fields: the protocol's occurrences and the field's values
			want := map[uint64]int{}
			protos := 0
			for _, line := range strings.Split(run(t, bin, "read", "-T", "fields", "-E", "aggregator=|", "-e", c.proto, "-e", c.field, file), "\n") {
				p, v, _ := strings.Cut(line, "\t")
				if p != "" {
					protos += len(strings.Split(p, "|"))
				}
				if v == "" {
					continue
				}
				for _, s := range strings.Split(v, "|") {
					n, err := strconv.ParseUint(s, 0, 64)
					if err != nil {
						t.Fatalf("%s %s: %q", file, c.field, s)
					}
					want[n]++
				}
			}
			var rows int
			col := strings.ReplaceAll(c.field, ".", "_")
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+c.table+" WHERE capture = ?", filepath.Base(file)).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != protos {
				t.Errorf("%s %s: DuckDB %d rows, -T fields %d %s", filepath.Base(file), c.table, rows, protos, c.proto)
			}
			got := map[uint64]int{}
			r, err := db.QueryContext(ctx, "SELECT "+col+", count(*) FROM "+c.table+" WHERE capture = ? AND "+col+" IS NOT NULL GROUP BY ALL", filepath.Base(file))
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
				var v uint64
				var n int
				if err := r.Scan(&v, &n); err != nil {
					t.Fatal(err)
				}
				got[v] = n
			}
			r.Close()
			if !maps.Equal(got, want) {
				t.Errorf("%s %s.%s: DuckDB %v, -T fields %v", filepath.Base(file), c.table, col, got, want)
			}
			total += rows
		}
		if total == 0 {
			t.Errorf("%s: no rows in any capture", c.table)
		}
	}
	// the types engines see
	var typ string
	if err := db.QueryRowContext(ctx, "SELECT column_type FROM (DESCRIBE infiniband) WHERE column_name = 'infiniband_bth_psn'").Scan(&typ); err != nil || typ != "UINTEGER" {
		t.Errorf("infiniband_bth_psn: %s %v", typ, err)
	}
}

// TestDuckDBCalls: the calls table's RDS, RDP and RPC-over-RDMA rows in
// DuckDB: a row per pong rdx matched (rds.ping_rtt), per RDP connection of
// `rdx flows`' rdp,conv with its segments and data octets, and per
// RPC-over-RDMA reply the credits its header grants (as -T fields prints
// rpcordma.flow_control of the reply frame).
func TestDuckDBCalls(t *testing.T) {
	bin := rdx(t)
	dir := t.TempDir()
	const rdsf, rdpf, rdmaf = "../../pcaps/kernel/rds_tcp.pcap", "../../pcaps/rdp/lossy.pcap", "../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap"
	run(t, bin, "export", "--calls", "-w", dir, rdsf, rdpf, rdmaf)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE VIEW calls AS SELECT * FROM read_parquet('"+filepath.Join(dir, "calls")+"/*/*.parquet', hive_partitioning = true)"); err != nil {
		t.Fatal(err)
	}
	query := func(q string, args ...any) []string {
		t.Helper()
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out []string
		for rows.Next() {
			v := make([]any, len(cols))
			for j := range v {
				v[j] = new(any)
			}
			if err := rows.Scan(v...); err != nil {
				t.Fatal(err)
			}
			var r []string
			for _, x := range v {
				r = append(r, fmt.Sprint(*x.(*any)))
			}
			out = append(out, strings.Join(r, "|"))
		}
		return out
	}

	// RDS: a row per rds.ping_rtt, at its frame
	var want []string
	for _, line := range strings.Split(run(t, bin, "read", "-T", "fields", "-E", "aggregator=|", "-e", "frame.number", "-e", "rds.ping_frame", "-Y", "rds.ping_rtt", rdsf), "\n") {
		if fr, pings, ok := strings.Cut(line, "\t"); ok {
			for _, p := range strings.Split(pings, "|") {
				want = append(want, p+"|"+fr)
			}
		}
	}
	slices.Sort(want)
	got := query("SELECT request_frame, reply_frame FROM calls WHERE capture = ? AND protocol = 'rds' ORDER BY ALL", filepath.Base(rdsf))
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("RDS calls %v, -T fields %v", got, want)
	}

	// RDP: rdp,conv's connections
	want = nil
	conv := statRows(t, bin, "flows", rdpf, "rdp,conv")
	for k := 0; k+1 < len(conv); k += 2 {
		a, b := conv[k], conv[k+1]
		want = append(want, strings.Join([]string{a.str(0), strings.ReplaceAll(a.str(11), "-", "|"), a.str(2), b.str(2), a.str(3), b.str(3)}, "|"))
	}
	got = query(`SELECT rdp_a || ' → ' || rdp_b, request_frame, reply_frame, rdp_segments_ab, rdp_segments_ba, rdp_bytes_ab, rdp_bytes_ba
		FROM calls WHERE capture = ? AND protocol = 'rdp' ORDER BY request_frame`, filepath.Base(rdpf))
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("RDP calls %v, rdp,conv %v", got, want)
	}

	// RPC-over-RDMA: the credits of each reply's header
	fc := map[string]string{}
	for _, line := range strings.Split(run(t, bin, "read", "-T", "fields", "-e", "frame.number", "-e", "rpcordma.flow_control", "-Y", "rpcordma", rdmaf), "\n") {
		if fr, c, ok := strings.Cut(line, "\t"); ok && !strings.Contains(c, ",") {
			fc[fr] = c
		}
	}
	n := 0
	for _, r := range query("SELECT reply_frame, rdma_credits_granted FROM calls WHERE capture = ? AND rpc_transport = 'rdma'", filepath.Base(rdmaf)) {
		fr, c, _ := strings.Cut(r, "|")
		if w, ok := fc[fr]; ok {
			n++
			if c != w {
				t.Errorf("reply frame %s: credits %s, -T fields %s", fr, c, w)
			}
		}
	}
	if n == 0 {
		t.Error("no RPC-over-RDMA reply checked")
	}
}
