package pipeline_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rdx-project/rdx/active/synth"
	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/internal/strict"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

func TestMain(m *testing.M) { strict.Main(m) }

// run calls the library the way a verb does, without cobra.
func run(t *testing.T, cfg pipeline.Config) (pipeline.Result, string) {
	t.Helper()
	var out bytes.Buffer
	cfg.Out = &out
	res, err := pipeline.Run(cfg)
	if err != nil {
		t.Fatalf("Run(%s): %v", cfg.Input.File, err)
	}
	return res, out.String()
}

func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGoldens: the library alone prints what `rdx read` printed into the
// goldens, in one pass (summary) and in two (-V, -T fields: requests name
// their reply frames, which only the second pass knows).
func TestGoldens(t *testing.T) {
	const pts = "../pcaps/rx/pts-ops.pcap"
	res, got := run(t, pipeline.Config{Input: pipeline.Input{File: pts}})
	if want := golden(t, "pts-ops.summary"); got != want {
		t.Errorf("summary differs from the golden:\n%s", got)
	}
	if !res.Ran || res.Frames != uint64(strings.Count(got, "\n")) {
		t.Errorf("Result %+v for %d lines", res, strings.Count(got, "\n"))
	}
	_, got = run(t, pipeline.Config{Input: pipeline.Input{File: pts}, Count: 12, Print: pipeline.Print{Verbose: true}})
	if want := golden(t, "pts-ops.verbose"); got != want {
		t.Errorf("-V differs from the golden:\n%s", got)
	}
	fields := []string{"frame.number", "rx.cid", "rx.callnumber", "rx.seq", "rx.serial", "rx.type", "rx.flags", "rx.serviceid",
		"rx.reason", "rx.abort_code", "afs.service", "afs.reqframe", "afs.repframe", "afs.time", "_ws.expert.message"}
	_, got = run(t, pipeline.Config{Input: pipeline.Input{File: pts},
		Print: pipeline.Print{Format: "fields", Fields: fields, FieldOpts: []string{"header=y"}}})
	if want := golden(t, "pts-ops.fields"); got != want {
		t.Errorf("-T fields differs from the golden:\n%s", got)
	}
	if !strings.Contains(got, "\t") || strings.Count(got, "\n") < 10 {
		t.Errorf("fields output too small:\n%s", got)
	}
	// Standard input is read once: the reply frame column stays empty.
	f, err := os.Open(pts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, once := run(t, pipeline.Config{Input: pipeline.Input{File: "-", Stdin: f},
		Print: pipeline.Print{Format: "fields", Fields: []string{"frame.number", "afs.repframe"}}})
	_, twice := run(t, pipeline.Config{Input: pipeline.Input{File: pts},
		Print: pipeline.Print{Format: "fields", Fields: []string{"frame.number", "afs.repframe"}}})
	if once == twice || strings.Count(once, "\n") != strings.Count(twice, "\n") {
		t.Errorf("stdin (one pass) and file (two passes) agree on afs.repframe:\n%s", once)
	}
}

// recorder is a sink of a test's own: what a new output (an exporter)
// would see.
type recorder struct {
	tree    bool
	started bool
	nums    []uint64
	trees   int // frames that came with a tree
	endErr  error
	ended   int
}

func (r *recorder) Start(e *dissect.Engine) error { r.started = e != nil; return nil }
func (r *recorder) Frame(f *dissect.Frame, t *dissect.Tree) {
	r.nums = append(r.nums, f.Num)
	if t != nil && len(t.Nodes) > 0 {
		r.trees++
	}
}
func (r *recorder) End(err error) error { r.endErr, r.ended = err, r.ended+1; return nil }
func (r *recorder) NeedsTree() bool     { return r.tree }

// TestSinkAndFilter: a sink plugged into Config.Sinks sees exactly the
// frames passing the display filter, in order, with their tree when it
// asks for one, and ends once; -q prints nothing meanwhile.
func TestSinkAndFilter(t *testing.T) {
	in := pipeline.Input{File: "../pcaps/rx/pts-ops.pcap"}
	all := &recorder{}
	res, out := run(t, pipeline.Config{Input: in, Quiet: true, Sinks: []pipeline.Sink{all}})
	if out != "" || !all.started || all.ended != 1 || uint64(len(all.nums)) != res.Frames || all.trees != 0 {
		t.Fatalf("quiet run: out %q, sink %+v, %d frames", out, all, res.Frames)
	}
	for i, n := range all.nums {
		if n != uint64(i+1) {
			t.Fatalf("frame %d numbered %d", i+1, n)
		}
	}
	some := &recorder{tree: true}
	_, out = run(t, pipeline.Config{Input: in, Quiet: true, Filter: "rx.type == 2", Sinks: []pipeline.Sink{some}})
	if out != "" || len(some.nums) == 0 || len(some.nums) >= len(all.nums) || some.trees != len(some.nums) {
		t.Fatalf("filtered: %d of %d frames, %d trees", len(some.nums), len(all.nums), some.trees)
	}
	// The same frames as the printed summary of the filter selects.
	_, sum := run(t, pipeline.Config{Input: in, Filter: "rx.type == 2"})
	if n := strings.Count(sum, "\n"); n != len(some.nums) {
		t.Errorf("summary shows %d frames, sink saw %d", n, len(some.nums))
	}
}

// TestWriteRoundTrip: -w writes the frames passing the filter, which read
// back as the same count.
func TestWriteRoundTrip(t *testing.T) {
	in := pipeline.Input{File: "../pcaps/kernel/nfs3_rdma_roce.pcap"}
	w := filepath.Join(t.TempDir(), "out.pcapng")
	sel := &recorder{}
	_, out := run(t, pipeline.Config{Input: in, Filter: "frame.number <= 9", Write: w, Sinks: []pipeline.Sink{sel}})
	if out != "" || len(sel.nums) != 9 {
		t.Fatalf("-w printed %q, selected %d frames", out, len(sel.nums))
	}
	if got := testpkt.ReadAll(t, w); len(got) != 9 {
		t.Fatalf("read back %d frames", len(got))
	}
}

// TestCheckTally: the check sink counts every MPA CRC of a clean capture
// as passed; with one CRC octet flipped, exactly that frame fails and
// Result says so (rdx check's exit status 1).
func TestCheckTally(t *testing.T) {
	const crc = "../pcaps/iwarp/iwarp_rping_crc.pcap"
	row := func(res pipeline.Result, name string) pipeline.CheckRow {
		i := slices.IndexFunc(res.Checks, func(r pipeline.CheckRow) bool { return r.Check == name })
		if i < 0 {
			t.Fatalf("no %s row in %+v", name, res.Checks)
		}
		return res.Checks[i]
	}
	withCRC := &crcFrames{}
	res, out := run(t, pipeline.Config{Input: pipeline.Input{File: crc}, Quiet: true, Check: &pipeline.CheckReport{},
		Sinks: []pipeline.Sink{withCRC}})
	r := row(res, "mpa.crc")
	if out != "" || res.ChecksFailed || r.Checked == 0 || r.Passed != r.Checked || len(withCRC.nums) == 0 {
		t.Fatalf("clean capture: %+v, failed %v, out %q", r, res.ChecksFailed, out)
	}
	// Flip the last octet of the first frame whose segment ends in an FPDU
	// (its CRC): only that frame's CRC fails.
	pkts := testpkt.ReadAll(t, crc)
	bad := withCRC.nums[0]
	pkts[bad-1].Data[len(pkts[bad-1].Data)-1] ^= 0x5a
	path := filepath.Join(t.TempDir(), "bad.pcap")
	writePcap(t, path, pkts, 1)
	res, out = run(t, pipeline.Config{Input: pipeline.Input{File: path}, Check: &pipeline.CheckReport{Format: "text"}})
	r = row(res, "mpa.crc")
	if !res.ChecksFailed || r.Failed != 1 || !slices.Equal(r.Frames, []uint64{bad}) {
		t.Fatalf("flipped CRC of frame %d: %+v", bad, r)
	}
	if !strings.Contains(out, "mpa.crc") || !strings.Contains(out, "checks applied to "+path) {
		t.Errorf("report:\n%s", out)
	}
}

// crcFrames notes the frames carrying an MPA CRC check.
type crcFrames struct{ nums []uint64 }

func (c *crcFrames) Start(*dissect.Engine) error { return nil }
func (c *crcFrames) End(error) error             { return nil }
func (c *crcFrames) Frame(f *dissect.Frame, _ *dissect.Tree) {
	for _, r := range f.Checks {
		if r.Check.Name == "mpa.crc" {
			c.nums = append(c.nums, f.Num)
			return
		}
	}
}

// writePcap writes pkts k times over, each copy later in time.
func writePcap(t testing.TB, path string, pkts []capture.Packet, k int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := capture.NewPcapWriter(f, pkts[0].LinkType, capture.MaxRecord, true)
	if err != nil {
		t.Fatal(err)
	}
	span := pkts[len(pkts)-1].TimeNS - pkts[0].TimeNS + 1e9
	for i := range k {
		for _, p := range pkts {
			p.TimeNS += int64(i) * span
			if err := w.WritePacket(&p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStatsAndErrors: -z tables follow the frames; unknown tables, bad
// filters, bad formats and unreadable input are errors before or during
// the run, and Ran tells the caller whether counts exist.
func TestStatsAndErrors(t *testing.T) {
	in := pipeline.Input{File: "../pcaps/rx/pts-ops.pcap"}
	_, out := run(t, pipeline.Config{Input: in, Quiet: true, Stats: []string{"rx,srt"}})
	if !strings.HasPrefix(out, "\n") || !strings.Contains(out, "+--") {
		t.Errorf("-z rx,srt:\n%s", out)
	}
	_, help := run(t, pipeline.Config{Input: in, Stats: []string{"help"}})
	if !slices.Equal(strings.Fields(help), pipeline.StatHelp()) {
		t.Errorf("-z help: %q", help)
	}
	for _, c := range []struct {
		cfg  pipeline.Config
		err  string
		ran  bool
		outs bool
	}{
		{pipeline.Config{Input: in, Stats: []string{"nosuch"}}, "-z nosuch: unknown statistics", false, false},
		{pipeline.Config{Input: in, Filter: "rx.type =="}, "", false, false},
		{pipeline.Config{Input: in, Print: pipeline.Print{Format: "yaml"}}, "-T yaml", false, false},
		{pipeline.Config{Input: in, Print: pipeline.Print{Fields: []string{"rx.seq"}}}, "-e needs -T fields", false, false},
		{pipeline.Config{Input: in, Check: &pipeline.CheckReport{Format: "xml"}}, "-T xml", false, false},
		// opened before any output: one error, no counts (issue 14)
		{pipeline.Config{Input: pipeline.Input{File: "../pcaps/nosuch.pcap"}}, "nosuch.pcap", false, false},
		{pipeline.Config{Input: pipeline.Input{File: "../pcaps/nosuch.pcap"}, Print: pipeline.Print{Format: "json"}}, "nosuch.pcap", false, false},
		{pipeline.Config{Input: in, Write: filepath.Join(t.TempDir(), "no", "dir.pcapng")}, "dir.pcapng", false, false},
	} {
		var out bytes.Buffer
		c.cfg.Out = &out
		res, err := pipeline.Run(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.err) || res.Ran != c.ran || (out.Len() > 0) != c.outs {
			t.Errorf("%+v: err %v, ran %v, out %q", c.cfg, err, res.Ran, out.String())
		}
	}
}

// TestNoAllocPerFrame: the summary, check and stats runs allocate nothing
// per frame beyond what decoding itself does (-q, the same engine work):
// reading a capture ten times over instead of once costs each mode the same
// extra allocations as -q. (Decoding's own are the dissectors' benchmarks'
// business: a real capture opens calls and streams, which allocate.)
func TestNoAllocPerFrame(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector (go test -race)")
	}
	// No collection while counting: a collection empties sync.Pools, whose
	// refills would count as the run's.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	type input struct {
		one, ten string
		extra    float64 // frames ten has beyond one
		synth    bool
	}
	var inputs []input
	for _, capf := range []string{"../pcaps/rx/bos-queries.pcap", "../pcaps/kernel/nfs3_rdma_roce.pcap"} {
		pkts := testpkt.ReadAll(t, capf)
		dir := t.TempDir()
		in := input{one: filepath.Join(dir, "one.pcap"), ten: filepath.Join(dir, "ten.pcap")}
		k := max(1, 2000/len(pkts))
		writePcap(t, in.one, pkts, k)
		writePcap(t, in.ten, pkts, 10*k)
		in.extra = float64(9 * k * len(pkts))
		inputs = append(inputs, in)
	}
	// Synthesized RoCEv2 NFS, 200 and 2000 calls: clean traffic whose
	// decoding allocates nothing per frame either.
	one, n1 := synthCapture(t, "roce-nfs", 200)
	ten, n10 := synthCapture(t, "roce-nfs", 2000)
	inputs = append(inputs, input{one, ten, float64(n10 - n1), true})
	for _, in := range inputs {
		one, ten, extra, capf := in.one, in.ten, in.extra, in.one
		grow := func(cfg pipeline.Config) float64 {
			mallocs := func(path string) float64 {
				c := cfg
				c.Input, c.Out = pipeline.Input{File: path}, discard{}
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				before := ms.Mallocs
				if _, err := pipeline.Run(c); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&ms)
				return float64(ms.Mallocs - before)
			}
			mallocs(one) // warm what is set up once per process
			return mallocs(ten) - mallocs(one)
		}
		var stats []string // rdx stats's tables (conversations are counted by the engine when asked: flows/)
		for _, n := range pipeline.StatNames() {
			if flows.IsStat(n) { // not expert: a message new to the table is a new row
				stats = append(stats, n)
			}
		}
		decode := grow(pipeline.Config{Quiet: true})
		// Tables that grow by doubling allocate now and then: well under one
		// allocation per hundred frames.
		if in.synth && decode/extra > 0.01 {
			t.Errorf("%s: decoding allocates %.4f per frame", capf, decode/extra)
		}
		for name, cfg := range map[string]pipeline.Config{
			"summary":    {},
			"check":      {Quiet: true, Check: &pipeline.CheckReport{}},
			"stats":      {Quiet: true, Stats: stats},
			"-z io,phs":  {Quiet: true, Stats: []string{"io,phs"}},
			"-z io,stat": {Quiet: true, Stats: []string{"io,stat,100"}}, // few rows: a row per interval is built at the end
			// -j 2: rounds and batches are reused, the rendered output too
			"summary -j 2": {Workers: 2},
			"check -j 2":   {Quiet: true, Check: &pipeline.CheckReport{}, Workers: 2},
		} {
			// One allocation per frame shows as 1.0; a copied capture's
			// repeated PSNs make InfiniBand findings whose count drifts by a
			// few hundredths between runs of the same decode.
			g := grow(cfg)
			if in.synth && g/extra > 0.01 {
				t.Errorf("%s %s: %.4f allocations per frame", capf, name, g/extra)
			}
			if per := (g - decode) / extra; per > 0.1 {
				t.Errorf("%s %s: %.4f allocations per frame beyond decoding's", capf, name, per)
			}
		}
	}
}

// discard is an Out that keeps nothing (and allocates nothing).
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// packets is a capture.Source over frames in memory.
type packets struct {
	p []capture.Packet
	i int
}

func (s *packets) Next(p *capture.Packet) error {
	if s.i == len(s.p) {
		return io.EOF
	}
	*p = s.p[s.i]
	s.i++
	return nil
}
func (s *packets) Close() error { return nil }

// TestOpenInput: frames built in memory run through Input.Open exactly as
// the same frames written to a file, in both passes of -V.
func TestOpenInput(t *testing.T) {
	s, err := synth.Find("roce-nfs")
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := s.BuildWith(synth.Options{Messages: 20})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "roce.pcap")
	writePcap(t, path, pkts, 1)
	opens := 0
	mem := pipeline.Input{Open: func() (capture.Source, error) { opens++; return &packets{p: pkts}, nil }}
	v := pipeline.Print{Verbose: true}
	res, fromMem := run(t, pipeline.Config{Input: mem, Print: v, Engine: dissect.Options{Source: path}})
	_, fromFile := run(t, pipeline.Config{Input: pipeline.Input{File: path}, Print: v})
	if fromMem != fromFile || opens != 2 || res.Frames != uint64(len(pkts)) || !strings.Contains(fromMem, "rpcordma") {
		t.Errorf("in memory (%d opens, %d frames) and from a file differ:\n%s", opens, res.Frames, firstLines(fromMem, 20))
	}
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], "\n")
}

// TestCheckExplained: a RoCE capture whose IPv4 addresses were rewritten
// after the ICRCs were computed fails every ICRC, but the ib dissector
// explains all but the first of each flow and size (one constant
// difference: rewritten addresses); the report counts and shows that.
func TestCheckExplained(t *testing.T) {
	pkts := testpkt.ReadAll(t, "../pcaps/ib/roce_rc_pingpong.pcap")
	for i := range pkts {
		d := pkts[i].Data
		if len(d) > 42 && d[23] == 17 && d[36] == 0x12 && d[37] == 0xb7 { // UDP to 4791
			copy(d[26:29], []byte{198, 51, 100})
			copy(d[30:33], []byte{198, 51, 100})
		}
	}
	path := filepath.Join(t.TempDir(), "rewritten.pcap")
	writePcap(t, path, pkts, 1)
	res, out := run(t, pipeline.Config{Input: pipeline.Input{File: path}, Check: &pipeline.CheckReport{Format: "text"}})
	i := slices.IndexFunc(res.Checks, func(r pipeline.CheckRow) bool { return r.Check == "infiniband.icrc" })
	r := res.Checks[i]
	if r.Failed != 30 || r.Explained != 26 || !strings.Contains(r.Explanation, "likely rewritten addresses") {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(out, "infiniband.icrc: 26 of 30 failures explained, e.g. frame ") {
		t.Errorf("report:\n%s", out)
	}
}

// treeSpy records what kind of tree a sink that does not ask for one is
// handed: the fields it holds and whether it shows labels.
type treeSpy struct {
	fields map[string]bool
	labels bool
	frames int
}

func (s *treeSpy) Start(*dissect.Engine) error { s.fields = map[string]bool{}; return nil }
func (s *treeSpy) Frame(_ *dissect.Frame, t *dissect.Tree) {
	s.frames++
	if t == nil {
		return
	}
	s.labels = s.labels || t.Labels()
	for _, n := range t.Nodes {
		if n.F != nil {
			s.fields[n.F.Abbrev] = true
		}
	}
}
func (s *treeSpy) End(error) error { return nil }

// TestSparseTrees: -T fields and -Y build trees holding only the fields
// they read (and the protocol a filter names alone); -V, JSON and a sink
// that asks for the tree get the whole tree.
func TestSparseTrees(t *testing.T) {
	in := pipeline.Input{File: "../pcaps/rx/pts-ops.pcap"}
	for _, c := range []struct {
		name   string
		cfg    pipeline.Config
		fields []string // only these fields, the first at least; nil: the whole tree
	}{
		{"fields", pipeline.Config{Print: pipeline.Print{Format: "fields", Fields: []string{"rx.seq", "_ws.expert.message"}}},
			[]string{"rx.seq", "_ws.expert"}},
		{"filter", pipeline.Config{Filter: "rx && rx.type == 1"}, []string{"rx", "rx.type"}},
		{"quiet filter -w", pipeline.Config{Quiet: true, Filter: "udp.srcport > 1", Write: filepath.Join(t.TempDir(), "w.pcapng")},
			[]string{"udp.srcport"}},
		{"fields and filter", pipeline.Config{Filter: "ip.src", Print: pipeline.Print{Format: "fields", Fields: []string{"rx.callnumber"}}},
			[]string{"rx.callnumber", "ip.src"}},
		{"-V", pipeline.Config{Filter: "rx.seq", Print: pipeline.Print{Verbose: true}}, nil},
		{"json", pipeline.Config{Print: pipeline.Print{Format: "json"}}, nil},
		{"tree sink", pipeline.Config{Print: pipeline.Print{Format: "fields", Fields: []string{"rx.seq"}},
			Sinks: []pipeline.Sink{&recorder{tree: true}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			spy := &treeSpy{}
			cfg := c.cfg
			cfg.Input, cfg.Sinks = in, append(cfg.Sinks, spy)
			run(t, cfg)
			var got []string
			for f := range spy.fields {
				got = append(got, f)
			}
			slices.Sort(got)
			if c.fields == nil {
				if !spy.labels || len(got) < 20 {
					t.Errorf("whole tree expected: labels %v, fields %q", spy.labels, got)
				}
				return
			}
			ok := slices.Contains(got, c.fields[0]) // the others may not occur (no findings)
			for _, f := range got {
				ok = ok && slices.Contains(c.fields, f)
			}
			if spy.labels || !ok || spy.frames == 0 {
				t.Errorf("%d frames, labels %v, fields %q; want %q", spy.frames, spy.labels, got, c.fields)
			}
		})
	}
}

// flagStopper is a Stopper with a stop flag (pipeline.StopFlagger), as
// cmd/rdx's SIGINT handler: its Stopped must not be what the loop asks.
type flagStopper struct {
	flag  atomic.Bool
	asked int
	acked bool
}

func (s *flagStopper) Stopped() bool          { s.asked++; return s.flag.Load() }
func (s *flagStopper) Done() <-chan struct{}  { return nil }
func (s *flagStopper) Ack()                   { s.acked = true }
func (s *flagStopper) StopFlag() *atomic.Bool { return &s.flag }

// stopAt is a sink that raises a flagStopper's flag at frame n.
type stopAt struct {
	recorder
	n    uint64
	stop *flagStopper
}

func (s *stopAt) Frame(f *dissect.Frame, t *dissect.Tree) {
	s.recorder.Frame(f, t)
	if f.Num == s.n {
		s.stop.flag.Store(true)
	}
}

// TestStopFlag: the serial loop loads a StopFlagger's flag before every
// frame instead of calling Stopped: raised during frame 5, the run ends
// after it, as with Stopped.
func TestStopFlag(t *testing.T) {
	st := &flagStopper{}
	sink := &stopAt{n: 5, stop: st}
	res, _ := run(t, pipeline.Config{Input: pipeline.Input{File: "../pcaps/rx/pts-ops.pcap"}, Quiet: true, Stop: st,
		Sinks: []pipeline.Sink{sink}})
	if res.Frames != 5 || len(sink.nums) != 5 || !st.acked {
		t.Errorf("stopped at frame 5: %d frames read, sink saw %d, acked %v", res.Frames, len(sink.nums), st.acked)
	}
	if st.asked >= 5 { // the run's end asks once
		t.Errorf("Stopped asked %d times: the loop called it per frame instead of loading the flag", st.asked)
	}
}
