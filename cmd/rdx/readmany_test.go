package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// manyFiles are captures of several protocols (Rx, RoCE, iWARP, RDS) for
// rdx read over many files.
var manyFiles = []string{
	"../../pcaps/rx/pts-ops.pcap",
	"../../pcaps/ib/roce_rping.pcap",
	"../../pcaps/rx/udebug.pcap",
	"../../pcaps/iwarp/iwarp_rping.pcap",
	"../../pcaps/rx/bos-queries.pcap",
}

func runMany(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	code := run(io, args)
	return out.String(), errOut.String(), code
}

// TestReadManyPerFile: rdx read FILE... prints each file exactly as rdx
// read -r FILE prints it alone, in the order given, whatever -j is (1: one
// after the other; 2 and 5: files ahead of the one printing wait in their
// spools), for the summary, -V and -T fields; -r repeated is the same.
func TestReadManyPerFile(t *testing.T) {
	for _, mode := range [][]string{nil, {"-V"}, {"-T", "fields", "-e", "frame.number", "-e", "frame.time_relative", "-e", "_ws.col.Info"}} {
		var want strings.Builder
		for _, f := range manyFiles {
			out, errOut, code := runMany(t, append(append([]string{"read"}, mode...), f)...)
			if code != 0 {
				t.Fatalf("read %s: exit %d: %s", f, code, errOut)
			}
			want.WriteString(out)
		}
		for _, j := range []string{"1", "2", "5"} {
			out, errOut, code := runMany(t, append(append([]string{"read", "-j", j}, mode...), manyFiles...)...)
			if code != 0 {
				t.Fatalf("%v -j %s: exit %d: %s", mode, j, code, errOut)
			}
			if out != want.String() {
				t.Errorf("%v -j %s: output differs from the files read one by one (%d vs %d bytes)", mode, j, len(out), want.Len())
			}
			if !strings.Contains(errOut, "rdx: 299 frames;") {
				t.Errorf("%v -j %s: closing counts %q, want the files' 299 frames summed", mode, j, errOut)
			}
		}
		args := []string{"read", "-j", "2"}
		args = append(args, mode...)
		for _, f := range manyFiles {
			args = append(args, "-r", f)
		}
		if out, _, _ := runMany(t, args...); out != want.String() {
			t.Errorf("%v with -r repeated: output differs", mode)
		}
	}
}

// TestReadManyOneDocument: -T json over many files is one JSON array of
// every file's frames in order (each frame's object as the file alone
// prints it), -T fields -E header=y prints its header once, and a file
// without frames (a cut record at its start) adds nothing, whatever -j is.
func TestReadManyOneDocument(t *testing.T) {
	pts, err := os.ReadFile(manyFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap") // a pcap header and 6 octets of a record
	if err := os.WriteFile(cut, pts[:30], 0o644); err != nil {
		t.Fatal(err)
	}
	files := append([]string{cut}, manyFiles...)
	var want []json.RawMessage
	var rows []string
	for _, f := range manyFiles {
		out, errOut, code := runMany(t, "read", "-T", "json", f)
		if code != 0 {
			t.Fatalf("read -T json %s: exit %d: %s", f, code, errOut)
		}
		var one []json.RawMessage
		if err := json.Unmarshal([]byte(out), &one); err != nil {
			t.Fatalf("read -T json %s: %v", f, err)
		}
		want = append(want, one...)
		out, _, _ = runMany(t, "read", "-T", "fields", "-e", "frame.number", "-e", "ip.src", f)
		rows = append(rows, strings.Split(strings.TrimSuffix(out, "\n"), "\n")...)
	}
	for _, j := range []string{"1", "3"} {
		out, errOut, code := runMany(t, append([]string{"read", "-j", j, "-T", "json"}, files...)...)
		if code != 2 || !strings.Contains(errOut, "cut.pcap") {
			t.Errorf("-j %s: exit %d, %q; want 2 naming the cut file", j, code, errOut)
		}
		var got []json.RawMessage
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("-j %s: not one JSON document: %v\n%.300s", j, err, out)
		}
		if len(got) != len(want) || len(got) != 299 {
			t.Fatalf("-j %s: %d frames, want %d (299)", j, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("-j %s: frame object %d differs from its file's own", j, i)
			}
		}
		out, _, _ = runMany(t, append([]string{"read", "-j", j, "-T", "fields", "-e", "frame.number", "-e", "ip.src", "-E", "header=y"}, manyFiles...)...)
		if w := "frame.number\tip.src\n" + strings.Join(rows, "\n") + "\n"; out != w {
			t.Errorf("-j %s: -E header=y over many files:\n%.400s\nwant one header and every row:\n%.400s", j, out, w)
		}
	}
	if out, _, _ := runMany(t, "read", "-T", "json", cut, cut); out != "[\n]\n" {
		t.Errorf("no frames in any file: %q, want an empty array", out)
	}
}

// TestOrderedOutSpill: a file's output past spoolMem, held while the file
// before it prints, goes to a temporary file and comes out whole, in order.
func TestOrderedOutSpill(t *testing.T) {
	var out bytes.Buffer
	oo := newOrderedOut(&out, 3)
	big := bytes.Repeat([]byte("0123456789abcdef"), spoolMem/16+1000)
	oo.writer(2).Write([]byte("c"))
	oo.writer(1).Write(big)
	oo.writer(1).Write([]byte("tail"))
	oo.writer(0).Write([]byte("a"))
	if out.String() != "a" {
		t.Fatalf("head's output not written through: %q", out.String())
	}
	if oo.spools[1].f == nil {
		t.Fatal("output past spoolMem kept in memory")
	}
	for i := range 3 {
		if err := oo.done(i); err != nil {
			t.Fatal(err)
		}
	}
	want := "a" + string(big) + "tail" + "c"
	if out.String() != want {
		t.Errorf("got %d bytes, want %d in the files' order", out.Len(), len(want))
	}
}

// TestReadManyStatsAndWrite: -z tables are printed once after every
// file's frames, merged (the same table rdx stats prints over the files);
// -w writes every frame in the order given; a missing file is reported,
// the others read, exit 2; a usage error is said once.
func TestReadManyStatsAndWrite(t *testing.T) {
	out, errOut, code := runMany(t, append([]string{"read", "-q", "-z", "rx,srt", "-j", "3"}, manyFiles...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	stats, _, _ := runMany(t, append([]string{"stats", "-j", "1"}, manyFiles...)...)
	i := strings.Index(stats, "\nRx service response time")
	if i < 0 || !strings.HasPrefix(out, "\nRx service response time") || !strings.HasPrefix(stats[i:], out) {
		t.Errorf("merged -z rx,srt:\n%s\nwant rdx stats' table:\n%s", out, stats)
	}
	if strings.Count(out, "Rx service response time") != 1 {
		t.Errorf("the table is printed %d times, want once", strings.Count(out, "Rx service response time"))
	}

	w := filepath.Join(t.TempDir(), "all.pcapng")
	if _, errOut, code := runMany(t, append([]string{"read", "-j", "3", "-w", w}, manyFiles...)...); code != 0 {
		t.Fatalf("-w: exit %d: %s", code, errOut)
	}
	fields := []string{"read", "-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len", "-e", "frame.protocols"}
	got, _, _ := runMany(t, append(fields, w)...)
	var want strings.Builder
	for _, f := range manyFiles {
		o, _, _ := runMany(t, append(fields, f)...)
		want.WriteString(o)
	}
	if got != want.String() || strings.Count(got, "\n") != 299 {
		t.Errorf("-w file holds %d frames, not the files' 299 in order", strings.Count(got, "\n"))
	}

	out, errOut, code = runMany(t, "read", manyFiles[0], "nosuch.pcap", manyFiles[2])
	one, _, _ := runMany(t, "read", manyFiles[0])
	two, _, _ := runMany(t, "read", manyFiles[2])
	if code != 2 || out != one+two || !strings.Contains(errOut, "nosuch.pcap") || !strings.Contains(errOut, "1 of 3 captures") {
		t.Errorf("a missing file among three: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runMany(t, "read", "-T", "fields", manyFiles[0], manyFiles[2])
	if code != 2 || strings.Count(errOut, "needs at least one -e") != 1 {
		t.Errorf("usage error over two files: exit %d, stderr %q (want it once)", code, errOut)
	}
}

// TestManyFilesFrameRefs: in tables merged over many files (rdx stats,
// flows, read -z) every frame reference names its file (pts-ops.pcap:30),
// never a bare number that could be any file's; a conversation seen in two
// files spans them; one file's tables stay as they were.
func TestManyFilesFrameRefs(t *testing.T) {
	files := []string{"../../pcaps/rx/pts-ops.pcap", "../../pcaps/ib/roce_rping.pcap", "../../pcaps/rdp/clean.pcap",
		"../../pcaps/rdp/lossy.pcap", "../../pcaps/rx/bos-queries.pcap"}
	ref := regexp.MustCompile(`^[a-z_-]+\.pcap:\d+(-([a-z_-]+\.pcap:)?\d+)?$`)
	for _, verb := range []string{"stats", "flows"} {
		out, errOut, code := runMany(t, append([]string{verb, "-T", "json", "-j", "2"}, files...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", verb, code, errOut)
		}
		var d struct {
			Tables []struct {
				Name    string   `json:"name"`
				Columns []string `json:"columns"`
				Rows    [][]any  `json:"rows"`
			} `json:"tables"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tb := range d.Tables {
			j := slices.Index(tb.Columns, "Frames")
			if j < 0 || tb.Name == "tcp,analysis" { // its Frames is a count
				continue
			}
			for _, r := range tb.Rows {
				if s, _ := r[j].(string); s != "" {
					n++
					if !ref.MatchString(s) {
						t.Errorf("%s %s: frame reference %q does not name its file", verb, tb.Name, s)
					}
				}
			}
		}
		if n < 5 || verb == "flows" && n < 20 {
			t.Errorf("%s: %d frame references checked, want the conv, infiniband,flows and rdp,conv rows'", verb, n)
		}
	}
	out, _, _ := runMany(t, "read", "-q", "-z", "conv,udp", "-z", "conv,ip", "-z", "rdp,conv", files[0], files[2], files[3], files[4])
	for _, want := range []string{
		"| 127.0.0.1:52090 | 127.1.0.1:7002 | pts-ops.pcap:30-65 ",              // one file's
		"| 127.0.0.1    | 127.1.0.1    | pts-ops.pcap:1-bos-queries.pcap:100 |", // in both Rx files: spans them
		"| 198.51.100.2:4001 → 198.51.100.1:4000 | CLOSE-WAIT | clean.pcap:1-lossy.pcap:239 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("read -z over many files lacks %q:\n%s", want, out)
		}
	}
	one, _, _ := runMany(t, "read", "-q", "-z", "conv,udp", files[0])
	if !strings.Contains(one, "| 30-65 ") || strings.Contains(one, ".pcap:") {
		t.Errorf("one file's table changed:\n%s", one)
	}
}

// TestCheckMany: rdx check over many files prints one report, the files'
// tallies added up, each failing frame named with its file in the files'
// order (text and JSON); exit 1 on a failed check, 2 when a file is
// missing; -j does not change it.
func TestCheckMany(t *testing.T) {
	reject, crafted := "../../pcaps/iwarp/wiki_iwarp_connect__C00_M00_reject.pcap", "../../pcaps/crafted/base_fields.pcap"
	out, errOut, code := runMany(t, "check", "-j", "1", reject, crafted)
	if code != 1 || !strings.Contains(errOut, "rdx: 29 frames;") {
		t.Fatalf("exit %d, stderr %q; want 1 and the files' 29 frames", code, errOut)
	}
	for _, want := range []string{
		"| tcp.checksum  | tcp   |      23 |      9 |     14 |",
		// the frames wrap to fit 100 columns (render.wrapWide), in order
		"| tcp.checksum  | tcp   | wiki_iwarp_connect__C00_M00_reject.pcap:6 base_fields.pcap:4 |\n" +
			"|               |       | base_fields.pcap:5 base_fields.pcap:6 base_fields.pcap:7     |",
		"checks applied to 2 captures",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if out2, _, _ := runMany(t, "check", "-j", "2", reject, crafted); out2 != out {
		t.Errorf("-j 2 report differs from -j 1:\n%s", out2)
	}
	js, _, _ := runMany(t, "check", "-T", "json", reject, crafted)
	var d struct {
		Files  []string `json:"files"`
		Checks []struct {
			Check  string   `json:"check"`
			Frames []uint64 `json:"first_failing_frames"`
			Files  []string `json:"first_failing_files"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range d.Checks {
		if c.Check == "tcp.checksum" {
			found = true
			if !slices.Equal(c.Frames, []uint64{6, 4, 5, 6, 7}) || len(c.Files) != 5 || c.Files[0] != "wiki_iwarp_connect__C00_M00_reject.pcap" || c.Files[1] != "base_fields.pcap" {
				t.Errorf("tcp.checksum: frames %v in files %q", c.Frames, c.Files)
			}
		}
	}
	if !found || len(d.Files) != 2 {
		t.Errorf("JSON: files %q, tcp.checksum found %v", d.Files, found)
	}
	_, errOut, code = runMany(t, "check", reject, "nosuch.pcap")
	if code != 2 || !strings.Contains(errOut, "nosuch.pcap") {
		t.Errorf("a missing file: exit %d, stderr %q", code, errOut)
	}
	one, _, _ := runMany(t, "check", crafted)
	if strings.Contains(one, "base_fields.pcap:") {
		t.Errorf("one file's report names files in its frames:\n%s", one)
	}
}
