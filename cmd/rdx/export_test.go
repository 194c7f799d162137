//go:build !lean

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/internal/progress"
)

func TestExportFlags(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var eo *ExportOptions
	if c := execCmd(newCmdExport(io, hook(&eo)), []string{"-w", "d", "--host", "h", "-e", "rx.seq", "-Y", "rx", "--flows",
		"--partition-by", "date,host", "-j", "3", "a.pcap", "b.pcap"}); c != 0 || eo == nil {
		t.Fatalf("export: exit %d", c)
	}
	if eo.Dir != "d" || eo.Host != "h" || !slices.Equal(eo.Fields, []string{"rx.seq"}) || eo.Filter != "rx" ||
		!slices.Equal(eo.Files, []string{"a.pcap", "b.pcap"}) || !eo.Flows || eo.Workers != 3 ||
		!slices.Equal(eo.Partition, []string{"date", "host"}) {
		t.Errorf("export parsed as %+v", eo)
	}
	for _, args := range [][]string{{"-w", "d"}, {"a.pcap"}} {
		if c := execCmd(newCmdExport(io, hook(&eo)), args); c != exitUsage {
			t.Errorf("%q: exit %d", args, c)
		}
	}
}

// TestExportFiles: several files in one run, each under its host; an
// unknown -e field, a second file of the same name and host, and an
// existing export are usage errors before anything is written; a
// truncated capture exits 2 after writing what was read.
func TestExportFiles(t *testing.T) {
	dir := t.TempDir()
	io, _, _, errOut := iostreams.Test()
	files := []string{"../../pcaps/rx/pts-ops.pcap", "../../pcaps/ib/roce_rping.pcap"}
	if c := run(io, append([]string{"export", "-w", dir}, files...)); c != 0 {
		t.Fatalf("exit %d: %s", c, errOut)
	}
	for _, p := range []string{"frames/host=pts-ops/pts-ops.pcap.parquet", "checks/host=roce_rping/roce_rping.pcap.parquet",
		"findings/host=roce_rping/roce_rping.pcap.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(errOut.String(), "pts-ops.pcap: 112 frames") {
		t.Errorf("stderr: %s", errOut)
	}

	for _, args := range [][]string{
		{"export", "-w", t.TempDir(), "-e", "rx.nosuch", files[0]},
		{"export", "-w", t.TempDir(), files[0], files[0]},
		{"export", "-w", dir, files[0]}, // exists
	} {
		io, _, _, errOut := iostreams.Test()
		if c := run(io, args); c != exitUsage {
			t.Errorf("%q: exit %d %s", args, c, errOut)
		}
	}
	if c := run(io, []string{"export", "-w", dir, "--overwrite", files[0]}); c != 0 {
		t.Errorf("--overwrite: exit %d", c)
	}

	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	os.WriteFile(cut, b[:len(b)-10], 0o666)
	io, _, _, errOut = iostreams.Test()
	if c := run(io, []string{"export", "-w", dir, cut}); c != exitUsage || !strings.Contains(errOut.String(), cut) {
		t.Errorf("truncated: exit %d: %s", c, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "frames/host=cut/cut.pcap.parquet")); err != nil {
		t.Errorf("nothing written of a truncated capture: %v", err)
	}
}

// TestExportOnePass: --calls and -e of fields a frame knows when decoded
// read once, so Info is `rdx read`'s (a request does not name its reply
// frame, which only a first pass over the whole capture knows).
func TestExportOnePass(t *testing.T) {
	dir := t.TempDir()
	io, _, _, errOut := iostreams.Test()
	if c := run(io, []string{"export", "--calls", "-e", "rpc.xid", "-w", dir, "../../pcaps/iwarp/nfs3_rdma_iwarp.pcap"}); c != 0 {
		t.Fatalf("exit %d: %s", c, errOut)
	}
	rows, err := parquet.ReadFile[struct {
		Info string `parquet:"info"`
	}](filepath.Join(dir, "frames/host=nfs3_rdma_iwarp/nfs3_rdma_iwarp.pcap.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3956 || rows[3].Info != "Call XID 0x7ef97127; PORTMAP V2 GETPORT Call" {
		t.Errorf("%d rows, frame 4's Info %q (a second pass names the reply frame)", len(rows), rows[3].Info)
	}
}

// TestExportParallel: -j 3 writes the same files, byte for byte, and the
// same lines as -j 1, also with a damaged capture among them (the others
// are exported all the same, exit 2); the status line is on a terminal
// only, and taken away before each line.
func TestExportParallel(t *testing.T) {
	files, _ := filepath.Glob("../../pcaps/rx/*.pcap")
	files = append(files, "../../pcaps/ib/roce_rping.pcap", "../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap")
	b, err := os.ReadFile("../../pcaps/rx/pts-ops.pcap")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	os.WriteFile(cut, b[:len(b)-10], 0o666)
	files = append(files[:3:3], append([]string{cut}, files[3:]...)...)

	old := progress.Every
	progress.Every = time.Millisecond
	defer func() { progress.Every = old }()
	export := func(j string, tty bool) (string, map[string][]byte) {
		dir := t.TempDir()
		io, _, _, errOut := iostreams.Test()
		io.SetTTY(false, tty)
		if c := run(io, append([]string{"export", "--calls", "--flows", "-j", j, "-w", dir}, files...)); c != exitUsage {
			t.Fatalf("-j %s: exit %d: %s", j, c, errOut)
		}
		out := map[string][]byte{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				out[strings.TrimPrefix(p, dir)] = b
			}
			return nil
		})
		return strings.ReplaceAll(errOut.String(), dir, "DIR"), out
	}
	lines1, files1 := export("1", false)
	lines3, files3 := export("3", true)
	if len(files1) != 5*len(files) {
		t.Errorf("%d files written of %d captures", len(files1), len(files))
	}
	for p, b := range files1 {
		if !bytes.Equal(files3[p], b) {
			t.Errorf("%s differs with -j 3", p)
		}
	}
	if len(files3) != len(files1) {
		t.Errorf("-j 3 wrote %d files, -j 1 %d", len(files3), len(files1))
	}
	if strings.Contains(lines1, "\r") || !strings.Contains(lines1, "cut.pcap") || !strings.Contains(lines1, "1 of 15 captures") {
		t.Errorf("-j 1 printed %q", lines1)
	}
	// the status line, each time taken away before a line
	status := regexp.MustCompile("\r\x1b\\[Kexport: [0-9]+% of [0-9.]+ [kMG]?B, [0-9]+ of 15 captures, [0-9]+ frames[^\r]*")
	if !status.MatchString(lines3) {
		t.Errorf("no status line on a terminal: %q", lines3)
	}
	if got := status.ReplaceAllString(lines3, ""); strings.ReplaceAll(got, "\r\x1b[K", "") != lines1 {
		t.Errorf("-j 3 on a terminal printed\n%q\n-j 1\n%q", lines3, lines1)
	}
}

// TestExportProtoStats: the dissectors' own flow counters (-z
// infiniband,flows, rpc,srt, rx,srt) are counted only for the flows
// table; without --flows the frames, findings and checks written are the
// same, byte for byte, and with it the flows table has the PSN gaps and
// NAKs of a lossy RoCE capture.
func TestExportProtoStats(t *testing.T) {
	if eo := (&ExportOptions{}).engineOptions(dissect.Options{}); !eo.NoProtoStats || eo.Conversations || eo.MaxMem != exportLimit {
		t.Errorf("without --flows: %+v", eo)
	}
	if eo := (&ExportOptions{Flows: true}).engineOptions(dissect.Options{MaxMem: 1 << 20}); eo.NoProtoStats || !eo.Conversations || eo.MaxMem != 1<<20 {
		t.Errorf("--flows: %+v", eo)
	}
	file := "../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap"
	export := func(args ...string) string {
		dir := t.TempDir()
		io, _, _, errOut := iostreams.Test()
		if c := run(io, append(append([]string{"export", "-w", dir}, args...), file)); c != 0 {
			t.Fatalf("%q: exit %d: %s", args, c, errOut)
		}
		return dir
	}
	without, with := export(), export("--flows")
	for _, table := range []string{"frames", "findings", "checks"} {
		p := filepath.Join(table, "host=lossy_nfs3_rdma_roce", "lossy_nfs3_rdma_roce.pcap.parquet")
		a, err := os.ReadFile(filepath.Join(without, p))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(with, p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs with --flows", table)
		}
	}
	rows, err := parquet.ReadFile[struct {
		Kind    string  `parquet:"kind"`
		PSNGaps *uint64 `parquet:"psn_gaps,optional"`
		NAKs    *uint64 `parquet:"naks,optional"`
	}](filepath.Join(with, "flows", "host=lossy_nfs3_rdma_roce", "lossy_nfs3_rdma_roce.pcap.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var gaps, naks uint64
	for _, r := range rows {
		if r.Kind == "qp" && r.PSNGaps != nil && r.NAKs != nil {
			gaps, naks = gaps+*r.PSNGaps, naks+*r.NAKs
		}
	}
	if gaps == 0 || naks == 0 {
		t.Errorf("flows table: %d PSN gaps, %d NAKs counted", gaps, naks)
	}
}
