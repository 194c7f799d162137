package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden SVGs in testdata/")

// The captures each kind is drawn from: real traffic with the data.
var kindCaptures = map[string]string{
	"io":     "../pcaps/kernel/nfs3_rdma_roce.pcap",                    // RoCE NFS: InfiniBand, NFS, TCP, IBCM
	"srt":    "../pcaps/kernel/nfs3_rdma_roce.pcap",                    // NFSv3 over RPC-over-RDMA
	"qp":     "../pcaps/kernel/lossy_nfs3_rdma_roce.pcap",              // NAKs, PSN gaps, retransmissions
	"rtt":    "../pcaps/rdp/lossy.pcap",                                // RDP with loss
	"checks": "../pcaps/iwarp/wiki_iwarp_connect__C00_M00_reject.pcap", // a bad TCP checksum
}

// svgDoc is what the tests read of an SVG: every text and path.
type svgDoc struct {
	texts []string
	paths []string // the d attributes
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	d := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse as XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = e.Name.Local
			}
			inText = e.Name.Local == "text"
			if e.Name.Local == "path" {
				for _, a := range e.Attr {
					if a.Name.Local == "d" {
						doc.paths = append(doc.paths, a.Value)
					}
				}
			}
		case xml.CharData:
			if inText {
				doc.texts = append(doc.texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return doc
}

func (d svgDoc) has(sub string) bool {
	for _, s := range d.texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestRenderKinds draws every kind from a real capture, as SVG and PNG,
// and looks at the pictures: the SVG's title, axis labels and legend, and
// lines with many vertices (the data); the PNG's size.
func TestRenderKinds(t *testing.T) {
	want := map[string][]string{
		"io":     {"IO graph: nfs3_rdma_roce.pcap, 4043 frames", "Frames per second (frames/s)", "Bytes per second (B/s)", "Time since the first frame (s)", "all frames", "infiniband", "nfs"},
		"srt":    {"Response times: nfs3_rdma_roce.pcap", "Response time (ms, log scale)", "Fraction of answers", "NFS v3 READ (10)", "NFS v3 WRITE (24)"},
		"qp":     {"InfiniBand QP timeline: lossy_nfs3_rdma_roce.pcap", "QP 0x11", "NAK (15)", "PSN gap (", "Time since the first frame (s)"},
		"rtt":    {"Round-trip time: lossy.pcap", "Round-trip time (ms)", "Window (packets or segments)", "RDP 198.51.100.2:4001 → 198.51.100.1:4000"},
		"checks": {"Check failures: wiki_iwarp_connect__C00_M00_reject.pcap, 1 of", "tcp.checksum (1 of 10 failed)", "Failures (per"},
	}
	if len(want) != len(Kinds()) {
		t.Fatalf("kinds %v, the test knows %d", Kinds(), len(want))
	}
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			file := kindCaptures[kind]
			var svg bytes.Buffer
			if err := Render(&svg, kind, []string{file}, Options{Format: "svg"}); err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, svg.Bytes())
			for _, w := range want[kind] {
				if !doc.has(w) {
					t.Errorf("no text %q in the SVG; texts: %q", w, doc.texts)
				}
			}
			// Data lines: paths with more vertices than a frame or a tick.
			long := 0
			for _, p := range doc.paths {
				if strings.Count(p, "L") >= 8 {
					long++
				}
			}
			if kind != "qp" && long == 0 {
				t.Errorf("no path with 8 or more vertices: no series drawn")
			}
			var pic bytes.Buffer
			if err := Render(&pic, kind, []string{file}, Options{Format: "png", Width: 640, Height: 400}); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&pic)
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 400 {
				t.Errorf("PNG is %dx%d, want 640x400", b.Dx(), b.Dy())
			}
		})
	}
}

// collect runs file through a collector of kind and returns it with the
// run's result.
func collect(t *testing.T, kind, file string, opt Options, more ...pipeline.Sink) (*Collector, pipeline.Result) {
	t.Helper()
	c, err := NewCollector(kind, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true, Out: io.Discard,
		Engine: dissect.Options{Checksums: kind == "checks"}, Sinks: append([]pipeline.Sink{c}, more...)})
	if err != nil {
		t.Fatal(err)
	}
	c.AddFile(file)
	return c, res
}

// TestIOCountsEveryFrame: the io lines hold every frame and byte once:
// the all-frames line sums to the capture's frames, and so do the
// protocol lines together; each line has a vertex per interval.
func TestIOCountsEveryFrame(t *testing.T) {
	const iv = 10 * time.Millisecond
	wire := &wireBytes{}
	c, res := collect(t, "io", kindCaptures["io"], Options{Interval: iv}, wire)
	k := c.k.(*ioKind)
	sum := func(rows []int) (frames, octets float64) {
		for _, r := range rows {
			for i := range k.b.n {
				frames += k.b.rate(r)[i] * iv.Seconds()
				octets += k.b.rows[r+1][i]
			}
		}
		return
	}
	lines := k.lines()
	all, allOctets := sum(lines[0].rows)
	var rows []int
	for _, l := range lines[1:] {
		rows = append(rows, l.rows...)
	}
	protos, protoOctets := sum(rows)
	if int(all+0.5) != int(res.Frames) || int(protos+0.5) != int(res.Frames) {
		t.Errorf("all frames line counts %.1f, protocol lines %.1f; the capture has %d frames", all, protos, res.Frames)
	}
	if int(allOctets) != wire.n || int(protoOctets) != wire.n {
		t.Errorf("all frames line counts %.0f octets, protocol lines %.0f; the frames have %d", allOctets, protoOctets, wire.n)
	}
	var svg bytes.Buffer
	if err := c.Write(&svg); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, svg.Bytes())
	// Two panels, each with a line per legend entry: 2*len(lines) paths
	// with a vertex per interval.
	n := 0
	for _, p := range doc.paths {
		if strings.Count(p, "L")+1 == k.b.n {
			n++
		}
	}
	if n != 2*len(lines) {
		t.Errorf("%d paths with %d vertices (one per %v interval), want %d (2 panels x %d lines)", n, k.b.n, iv, 2*len(lines), len(lines))
	}
}

// TestIOFilters draws a line per -Y filter, counting the frames each
// matches.
func TestIOFilters(t *testing.T) {
	c, res := collect(t, "io", "../pcaps/rx/pts-ops.pcap", Options{Filters: []string{"afs", "rx.type == 2"}})
	k := c.k.(*ioKind)
	var afsN, ackN float64
	for i := range k.b.n {
		afsN += k.b.rows[k.fRows[0]][i]
		ackN += k.b.rows[k.fRows[1]][i]
	}
	if afsN == 0 || ackN == 0 || afsN+ackN > float64(res.Frames) {
		t.Errorf("afs %v frames, rx ACKs %v, of %d", afsN, ackN, res.Frames)
	}
	var svg bytes.Buffer
	if err := c.Write(&svg); err != nil {
		t.Fatal(err)
	}
	if doc := parseSVG(t, svg.Bytes()); !doc.has("rx.type == 2") || !doc.has("afs") {
		t.Errorf("filter lines not in the legend: %q", doc.texts)
	}
	if _, err := NewCollector("io", Options{Filters: []string{"rx.nosuch == 1"}}); err == nil {
		t.Error("a bad -Y filter was taken")
	}
}

// TestSRTReusesTheEngine: srt draws exactly the answers -z rpc,srt
// counted (the engine's matching, not one of its own).
func TestSRTReusesTheEngine(t *testing.T) {
	for _, file := range []string{kindCaptures["srt"], "../pcaps/kernel/lossy_nfs3_rdma_iwarp.pcap",
		"../pcaps/kernel/nfs42_acl_rdma_roce.pcap", "../pcaps/kernel/nfs41_ops_synth.pcap", "../pcaps/kernel/nfs_rpc_synth.pcap"} {
		c, res := collect(t, "srt", file, Options{})
		var calls uint64
		for _, s := range res.Engine.Instance(oncrpc.Name).(*oncrpc.State).SRT() {
			calls += s.Count
		}
		k := c.k.(*srtKind)
		if calls == 0 || uint64(k.n) != calls {
			t.Errorf("%s: srt drew %d answers, -z rpc,srt counted %d", file, k.n, calls)
		}
	}
	// Rx/AFS: the 36 calls of -z rx,srt on pts-ops.pcap.
	c, _ := collect(t, "srt", "../pcaps/rx/pts-ops.pcap", Options{})
	if k := c.k.(*srtKind); k.n != 36 || len(k.ms["PR NameToID"]) != 13 {
		t.Errorf("pts-ops: %d answers, %d PR NameToID; -z rx,srt has 36 and 13", k.n, len(k.ms["PR NameToID"]))
	}
}

// wireBytes adds up the frames' lengths on the wire.
type wireBytes struct{ n int }

func (s *wireBytes) Start(*dissect.Engine) error             { return nil }
func (s *wireBytes) End(err error) error                     { return err }
func (s *wireBytes) Frame(f *dissect.Frame, _ *dissect.Tree) { s.n += f.WireLen }

// findingCount counts the frames' findings that match.
type findingCount struct {
	match func(*dissect.Finding) bool
	n     int
}

func (s *findingCount) Start(*dissect.Engine) error { return nil }
func (s *findingCount) End(err error) error         { return err }
func (s *findingCount) Frame(f *dissect.Frame, _ *dissect.Tree) {
	for i := range f.Findings {
		if s.match(&f.Findings[i]) {
			s.n++
		}
	}
}

// TestQPMarksTheEngineFindings: every PSN gap and NAK the InfiniBand
// dissector reported is a mark on the timeline.
func TestQPMarksTheEngineFindings(t *testing.T) {
	gaps := &findingCount{match: func(f *dissect.Finding) bool { return strings.HasPrefix(f.Msg, "PSN gap") }}
	naks := &findingCount{match: func(f *dissect.Finding) bool { return strings.HasPrefix(f.Msg, "NAK:") }}
	c, _ := collect(t, "qp", kindCaptures["qp"], Options{}, gaps, naks)
	k := c.k.(*qpKind)
	if gaps.n == 0 || k.count[evGap] != uint64(gaps.n) || k.count[evNAK] != uint64(naks.n) {
		t.Errorf("marks: %d gaps, %d NAKs; findings: %d gaps, %d NAKs", k.count[evGap], k.count[evNAK], gaps.n, naks.n)
	}
	if k.count[evNAK] != 15 { // lossy_README.md: 15 NAKs
		t.Errorf("%d NAKs, the capture has 15", k.count[evNAK])
	}
}

// TestRTTRx: Rx ACKs give RTT and window samples (AF_RXRPC capture).
func TestRTTRx(t *testing.T) {
	c, err := NewCollector("rtt", Options{Engine: dissect.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	da, err := dissect.ParseDecodeAs("udp.port==7100,rx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: "../pcaps/kernel/lossy_rxrpc.pcap"}, Quiet: true, Out: io.Discard,
		Engine: dissect.Options{DecodeAs: []dissect.DecodeAs{da}}, Sinks: []pipeline.Sink{c}}); err != nil {
		t.Fatal(err)
	}
	k := c.k.(*rttKind)
	var rtt, win int
	for name, s := range k.rtt {
		if !strings.HasPrefix(name, "Rx ") {
			t.Errorf("series %q", name)
		}
		rtt += s.points
	}
	for _, s := range k.win {
		win += s.points
	}
	if rtt == 0 || win == 0 {
		t.Errorf("%d RTT and %d window samples from Rx ACKs", rtt, win)
	}
}

// TestNoData: a capture without the protocol is an error wrapping
// ErrNoData, and nothing is written.
func TestNoData(t *testing.T) {
	for kind, file := range map[string]string{"qp": "../pcaps/rx/pts-ops.pcap", "srt": "../pcaps/ib/roce_write_bw.pcap",
		"rtt": "../pcaps/ib/roce_write_bw.pcap", "checks": "../pcaps/ib/ib2_erf.pcap"} {
		if kind == "checks" {
			continue // every capture here has some check; see TestRenderKinds
		}
		var b bytes.Buffer
		err := Render(&b, kind, []string{file}, Options{})
		if !errors.Is(err, ErrNoData) || b.Len() != 0 {
			t.Errorf("%s of %s: err %v, %d octets written", kind, file, err, b.Len())
		}
		if err != nil && !strings.Contains(err.Error(), filepath.Base(file)) {
			t.Errorf("the error does not name the file: %v", err)
		}
	}
}

// TestTruncated: a capture cut inside a record is drawn up to the cut, and
// the error is returned.
func TestTruncated(t *testing.T) {
	file := testpkt.CutCapture(t, kindCaptures["io"], "cut.pcap", 1_000_000)
	var b bytes.Buffer
	err := Render(&b, "io", []string{file}, Options{})
	if err == nil {
		t.Fatal("no error for a truncated capture")
	}
	doc := parseSVG(t, b.Bytes())
	if !doc.has("IO graph: cut.pcap") {
		t.Errorf("no picture of what was read: %q", doc.texts)
	}
}

// TestOptions: bad options are errors before any reading.
func TestOptions(t *testing.T) {
	for _, o := range []Options{{Format: "gif"}, {Width: 10}, {Height: MaxPixels + 1}, {Interval: -time.Second}} {
		if _, err := NewCollector("io", o); err == nil {
			t.Errorf("%+v taken", o)
		}
	}
	if _, err := NewCollector("pie", Options{}); err == nil {
		t.Error("kind pie taken")
	}
	if _, err := NewCollector("qp", Options{Filters: []string{"a", "b"}}); err == nil {
		t.Error("two filters for qp taken")
	}
	for name, want := range map[string]string{"a.svg": "svg", "B.PNG": "png", "c.jpg": ""} {
		if got, _ := FormatOf(name); got != want {
			t.Errorf("FormatOf(%s) = %q, want %q", name, got, want)
		}
	}
}

// TestBinsWiden: a given interval too fine for the capture widens, and
// the counts are kept.
func TestBinsWiden(t *testing.T) {
	b := newBins(time.Microsecond)
	r := b.row()
	for i := range int64(10) {
		b.add(r, i*int64(time.Second), 1) // 10 s at 1 µs: 10^7 intervals
	}
	total := 0.0
	for _, v := range b.rows[r] {
		total += v
	}
	if !b.widened || b.n > MaxBins || total != 10 {
		t.Errorf("widened %v, %d bins of %v, total %v", b.widened, b.n, time.Duration(b.iv), total)
	}
	a := newBins(0)
	r = a.row()
	a.add(r, 0, 1)
	a.add(r, int64(time.Hour), 1)
	if a.n > autoBins || a.iv%1000 != 0 {
		t.Errorf("automatic: %d bins of %d ns", a.n, a.iv)
	}
}

// TestGolden compares SVGs whose drawing is stable (gonum's SVG is
// deterministic for fixed fonts) with testdata/; -update rewrites them.
func TestGolden(t *testing.T) {
	for _, g := range []struct {
		name, kind, file string
		opt              Options
	}{
		{"io_pts-ops.svg", "io", "../pcaps/rx/pts-ops.pcap", Options{Interval: 5 * time.Millisecond, Width: 600, Height: 400}},
		{"checks_reject.svg", "checks", kindCaptures["checks"], Options{Interval: 20 * time.Microsecond, Width: 600, Height: 400}},
	} {
		var b bytes.Buffer
		if err := Render(&b, g.kind, []string{g.file}, g.opt); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", g.name)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from %s (go test ./plot -run TestGolden -update after an intended change)", g.name, path)
		}
	}
}

// TestQPCongestion: an ECN-marked RoCEv2 packet and a CNP (no capture in
// pcaps/ has either) are marks on their QP rows.
func TestQPCongestion(t *testing.T) {
	roce := func(src, dst [4]byte, bth ib.BTHFields, payload []byte, ce bool) []byte {
		b := bth.Encode(nil)
		b = append(b, payload...)
		b = append(b, 0, 0, 0, 0) // ICRC (not checked here)
		f := testpkt.UDP4(nil, src, dst, 49152, 4791, b)
		if ce {
			f[1] |= 3 // ECN: congestion experienced
		}
		return f
	}
	frames := [][]byte{
		roce(testpkt.Client, testpkt.Server, ib.BTHFields{Opcode: 0x04, PKey: 0xffff, DestQP: 0x22, PSN: 1}, make([]byte, 16), true),
		roce(testpkt.Server, testpkt.Client, ib.BTHFields{Opcode: ib.OpCNP, PKey: 0xffff, DestQP: 0x11, BECN: true}, make([]byte, 16), false),
		roce(testpkt.Client, testpkt.Server, ib.BTHFields{Opcode: 0x04, PKey: 0xffff, DestQP: 0x22, PSN: 2}, make([]byte, 16), false),
	}
	file := filepath.Join(t.TempDir(), "congestion.pcap")
	testpkt.WriteFrames(t, file, 228, 1e6, frames)
	c, _ := collect(t, "qp", file, Options{})
	k := c.k.(*qpKind)
	if k.count[evECN] != 1 || k.count[evCNP] != 1 || len(k.rows) != 2 {
		t.Errorf("%d ECN marks, %d CNPs on %d rows; want 1, 1 on 2", k.count[evECN], k.count[evCNP], len(k.rows))
	}
	var svg bytes.Buffer
	if err := c.Write(&svg); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, svg.Bytes())
	for _, w := range []string{"CNP (1)", "ECN CE / FECN / BECN (1)", "192.0.2.2 → 192.0.2.1 QP 0x11"} {
		if !doc.has(w) {
			t.Errorf("no %q in %q", w, doc.texts)
		}
	}
}

// TestFilterSelects: a -Y filter limits the other kinds to the frames it
// matches (here one QP of the capture).
func TestFilterSelects(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, "qp", []string{kindCaptures["qp"]}, Options{Filters: []string{"infiniband.bth.destqp == 0x1"}}); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b.Bytes())
	if !doc.has("QP 0x1") || doc.has("QP 0x11") || !doc.has("packets (2 QP directions)") {
		t.Errorf("rows: %q", doc.texts)
	}
}
