package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// rdx plot writes the picture in the format of -o's extension, at the
// size asked.
func TestPlotVerb(t *testing.T) {
	dir := t.TempDir()
	pngFile, svgFile := filepath.Join(dir, "io.png"), filepath.Join(dir, "srt.svg")
	io, _, _, errOut := iostreams.Test()
	if code := run(io, []string{"plot", "io", "../../pcaps/rx/pts-ops.pcap", "-o", pngFile, "--width", "500", "--height", "300", "-i", "10ms"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(pngFile)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 500 || r.Dy() != 300 {
		t.Errorf("%dx%d, want 500x300", r.Dx(), r.Dy())
	}
	io, _, _, errOut = iostreams.Test()
	if code := run(io, []string{"plot", "srt", "-o", svgFile, "../../pcaps/rx/pts-ops.pcap", "../../pcaps/rx/bos-queries.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err = os.ReadFile(svgFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, new(struct{})); err != nil {
		t.Errorf("SVG does not parse: %v", err)
	}
	if !bytes.Contains(b, []byte("pts-ops.pcap and 1 more")) || !bytes.Contains(b, []byte("PR NameToID")) || !bytes.Contains(b, []byte("BOS ")) {
		t.Errorf("the SVG does not name both files' calls")
	}
}

// Nothing to draw, bad kinds, formats and filters: exit 2, no file left.
func TestPlotVerbErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", "qp", "../../pcaps/rx/pts-ops.pcap", "-o", "OUT.svg"}, "nothing to plot: no InfiniBand packets"},
		{[]string{"plot", "pie", "../../pcaps/rx/pts-ops.pcap", "-o", "OUT.svg"}, `unknown plot kind "pie"`},
		{[]string{"plot", "io", "../../pcaps/rx/pts-ops.pcap", "-o", "OUT.gif"}, "want .svg or .png"},
		{[]string{"plot", "io", "../../pcaps/rx/pts-ops.pcap", "-o", "OUT.svg", "-Y", "rx.nosuch"}, "rx.nosuch"},
		{[]string{"plot", "io", "../../pcaps/rx/pts-ops.pcap"}, "-o OUT.svg"},
		{[]string{"plot", "io"}, "at least one capture"},
		{[]string{"plot", "io", "../../pcaps/rx/nosuch.pcap", "-o", "OUT.svg"}, "nosuch.pcap"},
	} {
		out := filepath.Join(dir, "out")
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = strings.Replace(a, "OUT", out, 1)
		}
		io, _, _, errOut := iostreams.Test()
		if code := run(io, args); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
		if m, _ := filepath.Glob(out + "*"); len(m) > 0 {
			t.Errorf("%v left %v", c.args, m)
		}
	}
}

// A truncated capture: the frames read are drawn, the error says where
// reading stopped, exit 2.
func TestPlotVerbTruncated(t *testing.T) {
	cut := testpkt.CutCapture(t, "../../pcaps/kernel/nfs3_rdma_roce.pcap", "cut.pcap", 500_000)
	out := filepath.Join(t.TempDir(), "io.svg")
	io, _, _, errOut := iostreams.Test()
	if code := run(io, []string{"plot", "io", cut, "-o", out}); code != 2 || !strings.Contains(errOut.String(), "cut.pcap") ||
		!strings.Contains(errOut.String(), "wrote "+out+" with the frames read before the error") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte("IO graph: cut.pcap")) {
		t.Errorf("no picture of the frames read: %v", err)
	}
}

// -z io,stat,INTERVAL,plot=FILE prints the io,stat table as -z
// io,stat,INTERVAL does and draws the same frames into FILE.
func TestZIOStatPlot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "io.svg")
	io, _, stdout, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-q", "-z", "io,stat,0.01,plot=" + out, "../../pcaps/rx/pts-ops.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	io2, _, plain, _ := iostreams.Test()
	run(io2, []string{"read", "-q", "-z", "io,stat,0.01", "../../pcaps/rx/pts-ops.pcap"})
	if stdout.String() != plain.String() || !strings.Contains(stdout.String(), "Interval") {
		t.Errorf("the table differs with plot=:\n%s\nwithout:\n%s", stdout, plain)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("IO graph: pts-ops.pcap, 112 frames, 10 ms intervals")) {
		t.Errorf("the picture's title is not there")
	}
	for _, bad := range []string{"io,phs,plot=x.svg", "io,stat,0.01,plot=x.gif", "io,stat,0.01,plot="} {
		io, _, _, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", "-z", bad, "../../pcaps/rx/pts-ops.pcap"}); code != 2 {
			t.Errorf("-z %s: exit %d %s", bad, code, errOut)
		}
	}
}

// rdx report draws its figures with the plot package: the kinds with data
// are SVG images, the others say why not.
func TestReportFigures(t *testing.T) {
	page := filepath.Join(t.TempDir(), "r.html")
	io, _, _, errOut := iostreams.Test()
	if code := run(io, []string{"report", "../../pcaps/rx/pts-ops.pcap", "-o", page}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// io, srt, rtt (Rx ACKs) and checks (UDP checksums); not qp
	if n := bytes.Count(b, []byte("data:image/svg")); n != 4 {
		t.Errorf("%d SVG figures in the page, want 4", n)
	}
	if !bytes.Contains(b, []byte("nothing to plot: no InfiniBand packets")) {
		t.Errorf("the qp figure's note is missing")
	}
}
