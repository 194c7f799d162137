package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rdx stats prints the tables that apply and no empty ones; rdx flows the
// conversations. -z conv,udp counts both directions of each conversation.
func TestStatsAndFlows(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"stats", "../../pcaps/kernel/nfs3_rdma_roce.pcap"}); code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errOut)
	}
	s := out.String()
	for _, want := range []string{"ONC RPC service response time", "| NFS     |       3 | WRITE       |    24 |", "InfiniBand flows"} {
		if !strings.Contains(s, want) {
			t.Errorf("stats lacks %q", want)
		}
	}
	if strings.Contains(s, "(none)") || strings.Contains(s, "RDP connections") || strings.Contains(s, "Rx service") {
		t.Errorf("stats printed a table that does not apply:\n%s", s)
	}
	io, _, out, errOut = iostreams.Test()
	if code := run(io, []string{"flows", "../../pcaps/rx/pts-ops.pcap"}); code != 0 {
		t.Fatalf("flows: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "| 127.0.0.1:52090 | 127.1.0.1:7002 |      24 |  4292 |      12 |  2544 | 30-65   |") {
		t.Errorf("flows:\n%s", out)
	}
	if strings.Contains(out.String(), "response time") {
		t.Error("flows printed a response-time table")
	}
}

// TestStatsFlowsJSON: rdx stats and rdx flows -T json print their tables as
// one JSON document, numbers as numbers and durations in the unit their
// column names; a -T they do not know is a usage error.
func TestStatsFlowsJSON(t *testing.T) {
	type doc struct {
		File   string `json:"file"`
		Tables []struct {
			Name    string   `json:"name"`
			Columns []string `json:"columns"`
			Rows    [][]any  `json:"rows"`
		} `json:"tables"`
	}
	for _, c := range []struct{ verb, file, table, col string }{
		{"stats", "../../pcaps/rx/vos-dump-bulk.pcap", "rx,srt", "Max (ms)"},
		{"flows", "../../pcaps/ib/roce_rping.pcap", "infiniband,flows", "Packets"},
	} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, []string{c.verb, "-T", "json", c.file}); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.verb, code, errOut)
		}
		var d doc
		if err := json.Unmarshal(out.Bytes(), &d); err != nil {
			t.Fatalf("%s: %v:\n%s", c.verb, err, out)
		}
		found := false
		for _, tb := range d.Tables {
			if tb.Name != c.table {
				continue
			}
			j := slices.Index(tb.Columns, c.col)
			if j < 0 || len(tb.Rows) == 0 {
				t.Fatalf("%s %s: columns %q, %d rows", c.verb, c.table, tb.Columns, len(tb.Rows))
			}
			if v, ok := tb.Rows[0][j].(float64); !ok || v <= 0 {
				t.Errorf("%s %s %s: %#v, want a positive number", c.verb, c.table, c.col, tb.Rows[0][j])
			}
			found = true
		}
		if !found || d.File != c.file {
			t.Errorf("%s: file %q, no table %s:\n%s", c.verb, d.File, c.table, out)
		}
		io, _, _, _ = iostreams.Test()
		if code := run(io, []string{c.verb, "-T", "xml", c.file}); code != 2 {
			t.Errorf("%s -T xml: exit %d, want 2", c.verb, code)
		}
	}
}

// TestStatsManyFiles: rdx stats and flows over several files count what
// each file alone counts, added up: the frames and findings of the closing
// line, the protocol hierarchy's frames and bytes per protocol, Rx calls
// and aborts per call; a conversation in two files is one row with both
// counts. The output is the same with -j 1 and -j 3.
func TestStatsManyFiles(t *testing.T) {
	files := []string{"../../pcaps/rx/bos-queries.pcap", "../../pcaps/rx/pts-ops.pcap", "../../pcaps/kernel/rds_tcp.pcap",
		"../../pcaps/rx/bos-queries.pcap"}
	type doc struct {
		Files  []string `json:"files"`
		Tables []struct {
			Name string  `json:"name"`
			Rows [][]any `json:"rows"`
		} `json:"tables"`
	}
	// run is rdx stats (with stats, the tables to count) -T json over files
	runStats := func(stats []string, jobs string, files ...string) (doc, string) {
		t.Helper()
		io, _, out, errOut := iostreams.Test()
		o := &StatsOptions{IO: io, File: files[0], Files: files, Verb: "stats", Stats: stats, Format: "json"}
		o.Workers, _ = strconv.Atoi(jobs)
		if err := statsRun(o); err != nil {
			t.Fatalf("%v: %v", files, err)
		}
		var d doc
		if err := json.Unmarshal(out.Bytes(), &d); err != nil {
			t.Fatalf("%v: %v\n%s", files, err, out)
		}
		return d, errOut.String()
	}
	stats := []string{"io,phs", "rx,srt", "conv,udp"}
	// sums is a table's numeric cells added up per key (the first cells
	// up to nkey), of every document
	sums := func(name string, nkey int, ds ...doc) map[string][]float64 {
		m := map[string][]float64{}
		for _, d := range ds {
			for _, tb := range d.Tables {
				if tb.Name != name {
					continue
				}
				for _, r := range tb.Rows {
					k := fmt.Sprint(r[:nkey]...)
					if m[k] == nil {
						m[k] = make([]float64, len(r)-nkey)
					}
					for j, c := range r[nkey:] {
						if f, ok := c.(float64); ok {
							m[k][j] += f
						}
					}
				}
			}
		}
		return m
	}
	var alone []doc
	frames, notes := 0, 0
	for _, f := range files {
		d, line := runStats(stats, "1", f)
		alone = append(alone, d)
		var n, e, w, nn int
		if _, err := fmt.Sscanf(line, "rdx: %d frames; findings: %d errors, %d warnings, %d notes", &n, &e, &w, &nn); err != nil {
			t.Fatalf("%s: %q", f, line)
		}
		frames, notes = frames+n, notes+nn
	}
	all, line := runStats(stats, "3", files...)
	if want := fmt.Sprintf("rdx: %d frames; findings: 0 errors, 0 warnings, %d notes\n", frames, notes); line != want {
		t.Errorf("closing line %q, want %q", line, want)
	}
	if !slices.Equal(all.Files, files) {
		t.Errorf("files %v", all.Files)
	}
	for _, c := range []struct {
		name string
		nkey int
		cols []int // the cells that add up (of those after the key)
	}{{"io,phs", 1, []int{0, 1}}, {"rx,srt", 3, []int{0, 1}}, {"conv,udp", 2, []int{0, 1, 2, 3}}} {
		got, want := sums(c.name, c.nkey, all), sums(c.name, c.nkey, alone...)
		if len(want) == 0 || len(got) != len(want) {
			t.Errorf("%s: %d rows, the files alone %d", c.name, len(got), len(want))
		}
		for k, w := range want {
			for _, j := range c.cols {
				if g := got[k]; g == nil || g[j] != w[j] {
					t.Errorf("%s %s: %v, the files alone add up to %v", c.name, k, got[k], w)
					break
				}
			}
		}
	}
	// a conversation of two files (bos-queries twice) is one row, twice the packets
	if r := sums("conv,udp", 2, all); len(r) != len(sums("conv,udp", 2, alone[:3]...)) {
		t.Errorf("conv,udp: %d rows, want one per conversation", len(r))
	}
	one, _ := runStats(stats, "1", files...)
	if a, b := fmt.Sprint(one), fmt.Sprint(all); a != b {
		t.Errorf("-j 1 and -j 3 differ:\n%s\n%s", a, b)
	}

	// rdx flows too: pts-ops.pcap's conversation is one row with twice
	// its packets when the file is given twice
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"flows", "-j", "2", files[1], files[1]}); code != 0 {
		t.Fatalf("flows: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "| 127.0.0.1:52090 | 127.1.0.1:7002 |      48 |  8584 |      24 |  5088 |") {
		t.Errorf("flows over the file twice:\n%s", out)
	}

	// a missing file among them: reported, the others counted, exit 2
	io, _, out, errOut = iostreams.Test()
	if code := run(io, []string{"stats", files[0], "no-such.pcap", files[1]}); code != 2 {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "no-such.pcap") || !strings.Contains(out.String(), "PR NewUser") || !strings.Contains(out.String(), "BOS GetLog") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}
