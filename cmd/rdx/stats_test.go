package main

import (
	"encoding/json"
	"slices"
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
