package pipeline_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/testpkt"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/pipeline"
)

// passSink records the Frame.Pass of the frames it is shown.
type passSink struct{ passes map[int]int }

func (s *passSink) Start(*dissect.Engine) error { s.passes = map[int]int{}; return nil }
func (s *passSink) Frame(f *dissect.Frame, _ *dissect.Tree) {
	s.passes[f.Pass]++
}
func (s *passSink) End(error) error { return nil }

// countingOpen opens file as Input.Open and counts the opens: one per pass.
func countingOpen(file string, opens *int) func() (capture.Source, error) {
	return func() (capture.Source, error) { *opens++; return capture.Open(file) }
}

// TestPassDecision: the file is read twice only when the output shows
// something a later frame taught (-V, JSON, a Later -e field or -Y filter)
// or -2 asks; --single-pass and one-shot inputs read once.
func TestPassDecision(t *testing.T) {
	const bos = "../pcaps/rx/bos-queries.pcap"
	for _, c := range []struct {
		name  string
		cfg   pipeline.Config
		twice bool
	}{
		{"summary", pipeline.Config{}, false},
		{"-q", pipeline.Config{Quiet: true}, false},
		{"-q -V", pipeline.Config{Quiet: true, Print: pipeline.Print{Verbose: true}}, false},
		{"-V", pipeline.Config{Print: pipeline.Print{Verbose: true}}, true},
		{"-T json", pipeline.Config{Print: pipeline.Print{Format: "json"}}, true},
		{"-T jsonl", pipeline.Config{Print: pipeline.Print{Format: "jsonl"}}, true},
		{"-V --single-pass", pipeline.Config{SinglePass: true, Print: pipeline.Print{Verbose: true}}, false},
		{"-T fields -e rx.seq", pipeline.Config{Print: pipeline.Print{Format: "fields", Fields: []string{"frame.number", "rx.seq", "afs.reqframe"}}}, false},
		{"-T fields -e afs.repframe", pipeline.Config{Print: pipeline.Print{Format: "fields", Fields: []string{"rx.seq", "afs.repframe"}}}, true},
		{"-T fields -e _ws.expert.message", pipeline.Config{Print: pipeline.Print{Format: "fields", Fields: []string{"_ws.expert.message"}}}, true},
		{"-Y rx.seq", pipeline.Config{Filter: "rx.seq == 1"}, false},
		{"-Y !afs.repframe", pipeline.Config{Filter: "rx && !(afs.repframe > 3)"}, true},
		{"-q -Y afs.repframe -z", pipeline.Config{Quiet: true, Filter: "afs.repframe", Stats: []string{"rx,srt"}}, true},
		{"-z", pipeline.Config{Quiet: true, Stats: []string{"rx,srt"}}, false},
		{"check", pipeline.Config{Quiet: true, Check: &pipeline.CheckReport{}}, false},
		{"-2", pipeline.Config{TwoPass: true}, true},
		{"-2 -q", pipeline.Config{TwoPass: true, Quiet: true}, true},
		{"-V -w: nothing printed", pipeline.Config{Write: filepath.Join(t.TempDir(), "w.pcapng"), Print: pipeline.Print{Verbose: true}}, false},
		{"-V -w -P", pipeline.Config{Write: filepath.Join(t.TempDir(), "p.pcapng"), PrintToo: true, Print: pipeline.Print{Verbose: true}}, true},
		{"-T fields -e afs.repframe --single-pass", pipeline.Config{SinglePass: true, Print: pipeline.Print{Format: "fields", Fields: []string{"afs.repframe"}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opens := 0
			rec := &passSink{}
			c.cfg.Input = pipeline.Input{Open: countingOpen(bos, &opens)}
			c.cfg.Sinks = []pipeline.Sink{rec}
			res, _ := run(t, c.cfg)
			want, pass := 1, 0
			if c.twice {
				want, pass = 2, 2
			}
			if opens != want {
				t.Errorf("read %d times, want %d", opens, want)
			}
			if res.Frames == 0 || len(rec.passes) > 1 || (len(rec.passes) == 1 && rec.passes[pass] == 0) {
				t.Errorf("frames %d shown in passes %v, want pass %d", res.Frames, rec.passes, pass)
			}
		})
	}
	// standard input can be read once: -2 says so, as tshark does
	in := pipeline.Input{File: "-", Stdin: strings.NewReader("")}
	if _, err := pipeline.Run(pipeline.Config{Input: in, TwoPass: true, Out: &bytes.Buffer{}}); err == nil || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("-2 on stdin: %v", err)
	}
	if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: bos}, TwoPass: true, SinglePass: true, Out: &bytes.Buffer{}}); err == nil {
		t.Error("-2 with --single-pass accepted")
	}
}

// TestOnePassFieldsSame: a -e field no later frame feeds prints the same in
// one pass as in two (so reading once changes nothing), and a Later one is
// what makes the difference: a request names its reply only after a first
// pass.
func TestOnePassFieldsSame(t *testing.T) {
	caps, _ := filepath.Glob("../pcaps/rx/*.pcap")
	caps = append(caps, "../pcaps/kernel/nfs3_rdma_roce.pcap")
	if len(caps) < 10 {
		t.Fatalf("captures missing: %v", caps)
	}
	var fields []string
	for _, f := range []string{"frame.number", "rx.cid", "rx.callnumber", "rx.seq", "rx.serial", "rx.type", "rx.flags",
		"rx.serviceid", "rx.abort_code", "afs.service", "afs.reqframe", "afs.time", "infiniband.bth.psn",
		"rpcordma.xid", "rpc.xid", "rpc.repframe", "rpc.time", "nfs.procedure_v3"} {
		if dissect.Lookup(f) == nil || dissect.Lookup(f).Later {
			t.Fatalf("%s: not a field, or marked Later", f)
		}
		fields = append(fields, f)
	}
	later := 0
	for _, c := range caps {
		p := pipeline.Print{Format: "fields", Fields: fields}
		_, one := run(t, pipeline.Config{Input: pipeline.Input{File: c}, Print: p})
		_, two := run(t, pipeline.Config{Input: pipeline.Input{File: c}, Print: p, TwoPass: true})
		if one != two || strings.Count(one, "\n") < 2 {
			t.Errorf("%s: one pass and two differ (or are empty):\n%s\n---\n%s", c, one, two)
		}
		rep := pipeline.Print{Format: "fields", Fields: []string{"afs.repframe"}}
		_, once := run(t, pipeline.Config{Input: pipeline.Input{File: c}, Print: rep, SinglePass: true})
		_, auto := run(t, pipeline.Config{Input: pipeline.Input{File: c}, Print: rep})
		if strings.Trim(once, "\n") != "" {
			t.Errorf("%s: afs.repframe in one pass: %q", c, once)
		}
		if strings.Trim(auto, "\n") != "" {
			later++
		}
	}
	if later < 5 {
		t.Errorf("afs.repframe shown on only %d captures: the Later field did not bring the second pass", later)
	}
}

// truncated writes the first n octets of a real capture: a file cut in the
// middle of frame 13.
func truncated(t *testing.T) string {
	return testpkt.CutCapture(t, "../pcaps/rx/vos-dump-bulk.pcap", "t.pcap", 5000)
}

// TestBadRecordEveryMode: a file cut short shows every frame before the bad
// record in every mode, one pass or two, with the tables of what was read,
// and then fails naming the file and the frame (as tshark, which shows 12
// frames of this file).
func TestBadRecordEveryMode(t *testing.T) {
	file := truncated(t)
	fields := pipeline.Print{Format: "fields", Fields: []string{"frame.number"}}
	for _, c := range []struct {
		name string
		cfg  pipeline.Config
		has  string // in the output
		rows int    // frames shown
	}{
		{"summary", pipeline.Config{}, "ACK REQUESTED call 2", 12},
		{"-V", pipeline.Config{Print: pipeline.Print{Verbose: true}}, "Frame 12:", 12},
		{"-T json", pipeline.Config{Print: pipeline.Print{Format: "json"}}, "\n]\n", 12},
		{"-T fields", pipeline.Config{Print: fields}, "\n12\n", 12},
		{"-T fields Later", pipeline.Config{Print: pipeline.Print{Format: "fields", Fields: []string{"frame.number", "afs.repframe"}}}, "\n12\t\n", 12},
		{"-Y", pipeline.Config{Filter: "rx.type == 2", Print: fields}, "3\n6\n9\n12\n", 4},
		{"-Y Later", pipeline.Config{Filter: "!afs.repframe", Print: fields}, "\n11\n12\n", 9},
		{"-2", pipeline.Config{TwoPass: true, Print: fields}, "\n12\n", 12},
		{"-z", pipeline.Config{Quiet: true, Stats: []string{"rx,srt"}}, "VOL TransCreate", 12},
		{"-z conv,udp", pipeline.Config{Quiet: true, Stats: []string{"conv,udp"}}, "127.1.0.1:7005", 12},
		{"check", pipeline.Config{Quiet: true, Check: &pipeline.CheckReport{Format: "text"}}, "checks applied to", 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			rec := &passSink{}
			c.cfg.Input, c.cfg.Out, c.cfg.Sinks = pipeline.Input{File: file}, &out, []pipeline.Sink{rec}
			res, err := pipeline.Run(c.cfg)
			if err == nil || !strings.Contains(err.Error(), "t.pcap: frame 13") {
				t.Fatalf("err %v, want one naming t.pcap and frame 13", err)
			}
			shown := 0
			for _, n := range rec.passes {
				shown += n
			}
			if !res.Ran || res.Frames != 12 || shown != c.rows || !strings.Contains(out.String(), c.has) {
				t.Errorf("ran %v, %d frames decoded, %d shown, output without %q:\n%s", res.Ran, res.Frames, shown, c.has, out.String())
			}
		})
	}
}

// TestBadFirstRecord: when the very first record is bad, two passes show
// nothing and fail as one pass does.
func TestBadFirstRecord(t *testing.T) {
	b, err := os.ReadFile("../pcaps/rx/vos-dump-bulk.pcap")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "first.pcap")
	os.WriteFile(p, b[:24+16+10], 0o644) // the file header, a record header, 10 of its octets
	for _, two := range []bool{false, true} {
		var out bytes.Buffer
		res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: p}, TwoPass: two, Out: &out, Print: pipeline.Print{Format: "json"}})
		if err == nil || !strings.Contains(err.Error(), "frame 1") || res.Frames != 0 || out.String() != "[\n]\n" {
			t.Errorf("two passes %v: err %v, %d frames, output %q", two, err, res.Frames, out.String())
		}
	}
}

// failSink fails to start, after the -w sink started.
type failSink struct{}

func (failSink) Start(*dissect.Engine) error         { return errors.New("no start") }
func (failSink) Frame(*dissect.Frame, *dissect.Tree) {}
func (failSink) End(error) error                     { return nil }

// TestWriteNeverDestroys: -w onto the input (itself, a symbolic link, a
// hard link) is refused and the input is intact; -w goes through a
// temporary file renamed at the end, so a run that fails leaves the old
// file as it was and no temporary file behind.
func TestWriteNeverDestroys(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile("../pcaps/rx/bos-queries.pcap")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.pcap")
	os.WriteFile(in, orig, 0o644)
	os.Symlink(in, filepath.Join(dir, "sym.pcap"))
	os.Link(in, filepath.Join(dir, "hard.pcap"))
	for _, c := range [][2]string{{in, in}, {in, "sym.pcap"}, {in, "hard.pcap"}, {"sym.pcap", in}} {
		src, dst := filepath.Join(dir, filepath.Base(c[0])), filepath.Join(dir, filepath.Base(c[1]))
		_, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: src}, Write: dst, Out: &bytes.Buffer{}})
		if err == nil || !strings.Contains(err.Error(), "refusing to overwrite the input") {
			t.Errorf("-w %s reading %s: %v", dst, src, err)
		}
		if b, _ := os.ReadFile(in); !bytes.Equal(b, orig) {
			t.Fatalf("-w %s reading %s changed the input", dst, src)
		}
	}

	out := filepath.Join(dir, "out.pcapng")
	os.WriteFile(out, []byte("precious"), 0o644)
	_, err = pipeline.Run(pipeline.Config{Input: pipeline.Input{File: in}, Write: out, Out: &bytes.Buffer{}, Sinks: []pipeline.Sink{failSink{}}})
	if err == nil {
		t.Fatal("a sink that failed to start did not fail the run")
	}
	if b, _ := os.ReadFile(out); string(b) != "precious" {
		t.Errorf("a run that never started replaced the -w file: %q", b)
	}
	// a good run replaces it whole, through a symbolic link to it too
	link := filepath.Join(dir, "link.pcapng")
	os.Symlink(out, link)
	res, _ := run(t, pipeline.Config{Input: pipeline.Input{File: in}, Write: link})
	n := 0
	src, err := capture.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var p capture.Packet
	for src.Next(&p) == nil {
		n++
	}
	src.Close()
	if uint64(n) != res.Frames || n == 0 {
		t.Errorf("-w wrote %d frames of %d", n, res.Frames)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced, not its target: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".rdx-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
