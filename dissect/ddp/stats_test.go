package ddp_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/internal/tsharktest"
	"github.com/rdx-project/rdx/pipeline"
)

// statsRun decodes path in one engine and returns it, for its tables.
func statsRun(t *testing.T, path string) *dissect.Engine {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	if err := testpkt.Each(path, func(p dissect.Packet) error { eng.Decode(p); return nil }); err != nil {
		t.Fatal(err)
	}
	return eng
}

func rowsOf(tb *dissect.StatTable) string {
	var s []string
	for _, r := range tb.Rows {
		s = append(s, strings.Join(r, " | "))
	}
	return strings.Join(s, "\n")
}

// TestStatTableMatchesTshark: -z iwarp,stat on every iWARP capture with a
// stored tshark decode equals the count made from that decode: per RDMAP
// opcode, the DDP segments, those with the Last flag, and the octets after
// the DDP header (MPA's ULPDU length less 14 tagged or 18 untagged).
func TestStatTableMatchesTshark(t *testing.T) {
	tsvs, _ := filepath.Glob("../../pcaps/iwarp/*.tshark-fields.tsv")
	lossy, _ := filepath.Glob("../../pcaps/kernel/*iwarp*.tshark-fields.tsv")
	tsvs = append(tsvs, lossy...)
	if len(tsvs) < 14 {
		t.Fatalf("tshark TSVs missing: %v", tsvs)
	}
	compared := 0
	for _, tsv := range tsvs {
		pcap := strings.TrimSuffix(tsv, ".tshark-fields.tsv")
		t.Run(filepath.Base(pcap), func(t *testing.T) {
			tab, err := tsharktest.ReadTSV(tsv)
			if err != nil {
				t.Fatal(err)
			}
			type count struct{ segs, msgs, octets uint64 }
			by := map[int]*count{}
			for _, row := range tab.Rows {
				ops := strings.Split(tab.Get(row, "iwarp_rdma.opcode"), ";")
				if ops[0] == "" {
					continue
				}
				last := strings.Split(tab.Get(row, "iwarp_ddp.last_flag"), ";")
				tagged := strings.Split(tab.Get(row, "iwarp_ddp.tagged_flag"), ";")
				ulpdu := strings.Split(tab.Get(row, "iwarp_mpa.ulpdulength"), ";")
				if len(last) != len(ops) || len(tagged) != len(ops) || len(ulpdu) != len(ops) {
					t.Fatalf("frame %s: %d opcodes, %d last flags, %d tagged flags, %d ULPDU lengths", row[0], len(ops), len(last), len(tagged), len(ulpdu))
				}
				for i, o := range ops {
					op, err1 := strconv.ParseUint(o, 0, 8)
					n, err2 := strconv.Atoi(ulpdu[i])
					if err1 != nil || err2 != nil {
						t.Fatalf("frame %s: opcode %q, ULPDU length %q", row[0], o, ulpdu[i])
					}
					c := by[int(op)]
					if c == nil {
						c = &count{}
						by[int(op)] = c
					}
					c.segs++
					if last[i] == "1" {
						c.msgs++
					}
					hdr := ddp.UntaggedLen
					if tagged[i] == "1" {
						hdr = ddp.TaggedLen
					}
					c.octets += uint64(n - hdr)
				}
			}
			var want []string
			for _, op := range slices.Sorted(maps.Keys(by)) {
				c := by[op]
				want = append(want, strings.Join([]string{opName(op), strconv.FormatUint(c.msgs, 10), strconv.FormatUint(c.segs, 10), strconv.FormatUint(c.octets, 10)}, " | "))
			}
			st := statsRun(t, pcap).Stat("iwarp,stat")
			got := rowsOf(st)
			if known, ok := statKnown[filepath.Base(pcap)]; ok {
				// tshark decodes a part of what rdx does: no count of
				// tshark's is above rdx's
				if got == strings.Join(want, "\n") {
					t.Errorf("tshark now agrees (%s): drop the exception", known)
				}
				for _, r := range st.Rows {
					op := slices.Index(opNames, r[0])
					c := by[op]
					if c == nil {
						c = &count{}
					}
					delete(by, op)
					for i, v := range []uint64{c.msgs, c.segs, c.octets} {
						if n, _ := strconv.ParseUint(r[1+i], 10, 64); n < v {
							t.Errorf("%s: rdx counts %d, tshark %d (column %d)", r[0], n, v, i+1)
						}
					}
				}
				for op := range by {
					t.Errorf("tshark decodes %s, rdx not at all", opNames[op])
				}
				t.Logf("tshark decodes less, as expected: %s", known)
				return
			}
			if got != strings.Join(want, "\n") {
				t.Errorf("iwarp,stat\n%s\ntshark's decode counts\n%s", got, strings.Join(want, "\n"))
			}
			if len(want) > 0 {
				compared++
			}
		})
	}
	if compared < 10 {
		t.Errorf("only %d captures compared", compared)
	}
}

// statKnown: captures where tshark's decode misses FPDUs that rdx finds,
// and why (each shown in the named test).
var statKnown = map[string]string{
	"synth_markers_tshark_fails.pcap":                "tshark misplaces MPA markers in multi-FPDU segments and across the sequence wrap (RFC 5044 §4.3) and drops those FPDUs (dissect/mpa TestTsharkFields)",
	"wiki_iwarp_rdma__read_write_long_run_mrkr.pcap": "tshark reads markers at RFC 5044 §4.3 positions where the sender used the legacy rule, loses FPDU alignment and never resyncs (dissect/mpa TestTsharkFields)",
	"lossy_nfs3_rdma_iwarp.pcap":                     "tshark does not reassemble MPA across TCP loss and reordering: the NFS READ of 1 MiB that completed (lab: read1M=ok) comes in RDMA Writes of at least 1 MiB in rdx, under 0.75 MiB in tshark (TestLossyWritesComplete)",
}

var opNames = []string{"Write", "Read Request", "Read Response", "Send", "Send with Invalidate", "Send with SE",
	"Send with SE and Invalidate", "Terminate", "Immediate Data", "Immediate Data with SE", "Atomic Request", "Atomic Response"}

func opName(op int) string {
	if op < len(opNames) {
		return opNames[op]
	}
	return "opcode " + strconv.Itoa(op)
}

// TestLossyWritesComplete backs statKnown's lossy entry: on the lossy
// iWARP capture the NFS READ of 1 MiB completed, so the server's RDMA
// Writes carried at least 1 MiB; rdx counts that, tshark's decode less.
func TestLossyWritesComplete(t *testing.T) {
	const path = "../../pcaps/kernel/lossy_nfs3_rdma_iwarp.pcap"
	tab, err := tsharktest.ReadTSV(path + ".tshark-fields.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var tshark uint64
	for _, row := range tab.Rows {
		ops := strings.Split(tab.Get(row, "iwarp_rdma.opcode"), ";")
		ulpdu := strings.Split(tab.Get(row, "iwarp_mpa.ulpdulength"), ";")
		for i, o := range ops {
			if o == "0x00" && i < len(ulpdu) {
				n, _ := strconv.Atoi(ulpdu[i])
				tshark += uint64(n - ddp.TaggedLen)
			}
		}
	}
	var rdx uint64
	for _, r := range statsRun(t, path).Stat("iwarp,stat").Rows {
		if r[0] == "Write" {
			rdx, _ = strconv.ParseUint(r[3], 10, 64)
		}
	}
	if rdx < 1<<20 || tshark >= 1<<20 {
		t.Errorf("RDMA Write payload: rdx %d, tshark %d; the 1 MiB READ completed", rdx, tshark)
	}
	t.Logf("RDMA Write payload: rdx %d, tshark %d octets", rdx, tshark)
}

// TestReadSRT: -z iwarp,srt counts every Read Request and the time to its
// last Read Response segment. iwarp_read_bw (perftest ib_read_bw, 5 reads
// of 4096 octets) and the NFS WRITE of 1 MiB in nfs3_rdma_iwarp and in its
// lossy twin (the server pulls the data with 4 Reads; the lab's write1M
// finished) are answered in full; a second pass (-2) counts them once.
func TestReadSRT(t *testing.T) {
	for _, c := range []struct {
		path      string
		reads     string
		byteCount string
	}{
		{"../../pcaps/iwarp/iwarp_read_bw.pcap", "5", "20480"},
		{"../../pcaps/iwarp/nfs3_rdma_iwarp.pcap", "4", "1048576"},
		{"../../pcaps/kernel/lossy_nfs3_rdma_iwarp.pcap", "4", "1048576"},
	} {
		tb := statsRun(t, c.path).Stat("iwarp,srt")
		if len(tb.Rows) != 1 {
			t.Fatalf("%s: %d rows", c.path, len(tb.Rows))
		}
		r := tb.Rows[0]
		lo, err1 := time.ParseDuration(r[4])
		hi, err2 := time.ParseDuration(r[6])
		if r[1] != c.reads || r[2] != c.reads || r[3] != c.byteCount || err1 != nil || err2 != nil || lo <= 0 || lo > hi {
			t.Errorf("%s: %q, want %s reads answered, %s octets, min <= max", c.path, r, c.reads, c.byteCount)
		}
		run := func(two bool) string {
			var out strings.Builder
			if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: c.path}, Out: &out, Quiet: true, TwoPass: two,
				Stats: []string{"iwarp,stat", "iwarp,srt"}}); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		if one, two := run(false), run(true); one != two || !strings.Contains(one, "| RDMA Read ") {
			t.Errorf("%s: two passes\n%s\none pass\n%s", c.path, two, one)
		}
	}
}
