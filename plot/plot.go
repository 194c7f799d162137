// Package plot draws pictures of captures, as Wireshark's IO graph and
// response-time charts do: packets and bytes over time, response time
// histograms, InfiniBand QP timelines, RDP and Rx windows and RTT, check
// failures over time. It runs the ordinary pipeline over the files and
// reads what the engine found in each frame (PDUs, findings, check results,
// the protocol tree); it never parses packet bytes itself. Pictures are
// drawn with gonum.org/v1/plot into SVG or PNG.
//
// Render is the whole job for the rdx plot verb and the HTML report; a
// Collector is the same work as a pipeline sink, for a caller that already
// runs a pipeline (rdx read -z io,stat,INTERVAL,plot=FILE).
package plot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all" // every protocol, as rdx has them
	"github.com/rdx-project/rdx/pipeline"
)

// Options say how a plot is made.
type Options struct {
	Format string // "svg" or "png" ("": svg)
	// Filters are display filters (-Y). For io each is a line of its own
	// (as Wireshark's IO graph lines); for the other kinds the first one
	// selects the frames counted.
	Filters []string
	// Interval is the width of a time bin (io, checks); 0 picks one that
	// gives at most about 200 bins.
	Interval time.Duration
	// Width and Height are the picture's size in pixels (at 96 dpi for
	// SVG, which is sized in points); 0: 900 by 560.
	Width, Height int
	// Engine is how the engine is set up (decode-as, preferences); its
	// Source is set per file.
	Engine dissect.Options
}

// Default picture size in pixels.
const (
	DefaultWidth  = 900
	DefaultHeight = 560
	// MaxPixels bounds either side of a picture (a PNG of 8192 by 8192 is
	// 256 MB of RGBA before encoding).
	MaxPixels = 8192
)

// ErrNoData is returned (wrapped, with what was missing) when the captures
// hold nothing the kind can draw: no picture is written.
var ErrNoData = errors.New("nothing to plot")

type kindInfo struct {
	name string
	desc string
	make func(o *Options) (kind, error)
}

var kinds = []kindInfo{
	{"io", "frames and bytes per second, per protocol or per -Y filter", newIO},
	{"srt", "response time histogram and CDF per procedure (Rx/AFS, ONC RPC, NFS, RPC-over-RDMA)", newSRT},
	{"qp", "InfiniBand per-QP timeline: PSN gaps, retransmissions, NAKs, CNPs, ECN marks", newQP},
	{"rtt", "RDP and Rx round-trip times and windows over time", newRTT},
	{"checks", "check failures (CRC, markers, checksums) over time", newChecks},
}

// Kinds lists the plot kinds.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// Describe says in a line what kind draws ("" when unknown).
func Describe(kind string) string {
	for _, k := range kinds {
		if k.name == kind {
			return k.desc
		}
	}
	return ""
}

// FormatOf is the picture format a file name asks for: "svg" or "png" by
// its extension, else an error.
func FormatOf(name string) (string, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".svg":
		return "svg", nil
	case ".png":
		return "png", nil
	}
	return "", fmt.Errorf("%s: the picture format comes from the extension: want .svg or .png", name)
}

// kind is one plot kind: it takes every frame of every file and then
// draws its panels.
type kind interface {
	// tree says whether frame needs the protocol tree.
	tree() bool
	// frame takes one frame; rel is its time since its file's first frame.
	frame(f *dissect.Frame, t *dissect.Tree, rel int64)
	// draw builds the panels, top to bottom; an error wrapping ErrNoData
	// when there is nothing to draw.
	draw(c *canvasInfo) ([][]*plot.Plot, error)
}

// Render runs files through the engine and writes kind's picture to w.
// When a file cannot be read to its end (a truncated capture), the frames
// before the bad record are drawn, the picture is written, and the error
// is returned. With nothing to draw, nothing is written and the error
// wraps ErrNoData.
func Render(w io.Writer, kind string, files []string, opt Options) error {
	if len(files) == 0 {
		return errors.New("plot: no capture files")
	}
	c, err := NewCollector(kind, opt)
	if err != nil {
		return err
	}
	var readErr error
	for _, file := range files {
		eo := opt.Engine
		eo.Source = file
		if kind == "checks" {
			eo.Checksums = true // IP, UDP and TCP checksums too, as rdx check
		}
		_, err := pipeline.Run(pipeline.Config{
			Input:  pipeline.Input{File: file, Stdin: os.Stdin}, // "-": standard input
			Engine: eo,
			Filter: c.filter,
			Quiet:  true,
			Out:    io.Discard,
			Sinks:  []pipeline.Sink{c},
		})
		c.files = append(c.files, file)
		if err != nil {
			if c.frames == 0 && len(files) == 1 {
				return err // nothing read: one error, no picture
			}
			readErr = errors.Join(readErr, err)
		}
	}
	if err := c.Write(w); err != nil {
		if readErr != nil {
			return errors.Join(readErr, err)
		}
		return err
	}
	return readErr
}

// Collector gathers one kind's data as a pipeline sink (its Frame sees the
// frames of a run) and writes the picture at the end (Write). Several runs,
// one per file, may feed one Collector.
type Collector struct {
	kindName string
	k        kind
	opt      Options
	filter   string // the first -Y for the kinds other than io
	files    []string
	frames   uint64
	first    int64 // the current file's first frame time
	started  bool
}

// NewCollector checks kind and opt and returns an empty collector.
func NewCollector(kind string, opt Options) (*Collector, error) {
	var ki *kindInfo
	for i := range kinds {
		if kinds[i].name == kind {
			ki = &kinds[i]
		}
	}
	if ki == nil {
		return nil, fmt.Errorf("plot: unknown kind %q (known: %s)", kind, strings.Join(Kinds(), ", "))
	}
	switch opt.Format {
	case "":
		opt.Format = "svg"
	case "svg", "png":
	default:
		return nil, fmt.Errorf("plot: format %q: want svg or png", opt.Format)
	}
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Height == 0 {
		opt.Height = DefaultHeight
	}
	if opt.Width < 100 || opt.Height < 100 || opt.Width > MaxPixels || opt.Height > MaxPixels {
		return nil, fmt.Errorf("plot: size %dx%d: each side must be 100 to %d pixels", opt.Width, opt.Height, MaxPixels)
	}
	if opt.Interval < 0 {
		return nil, fmt.Errorf("plot: interval %v: must not be negative", opt.Interval)
	}
	c := &Collector{kindName: kind, opt: opt}
	if kind != "io" && len(opt.Filters) > 0 {
		if len(opt.Filters) > 1 {
			return nil, fmt.Errorf("plot %s: one -Y filter selects the frames (several lines per filter are for io)", kind)
		}
		c.filter = opt.Filters[0]
	}
	var err error
	if c.k, err = ki.make(&c.opt); err != nil {
		return nil, err
	}
	return c, nil
}

// Filter is the display filter the run should apply for this kind ("" for
// io, whose filters are lines of their own).
func (c *Collector) Filter() string { return c.filter }

// Start implements pipeline.Sink: a run (a file) begins.
func (c *Collector) Start(*dissect.Engine) error {
	c.started = false
	return nil
}

// Frame implements pipeline.Sink.
func (c *Collector) Frame(f *dissect.Frame, t *dissect.Tree) {
	if !c.started {
		c.first, c.started = f.TimeNS, true
	}
	c.frames++
	rel := f.TimeNS - c.first
	if rel < 0 { // a frame stamped before the first: keep it at the start
		rel = 0
	}
	c.k.frame(f, t, rel)
}

// End implements pipeline.Sink.
func (c *Collector) End(err error) error { return err }

// NeedsTree implements pipeline.TreeSink.
func (c *Collector) NeedsTree() bool { return c.k.tree() }

// AddFile names a file the collector was fed (for the title), when a
// caller ran the pipeline itself.
func (c *Collector) AddFile(name string) { c.files = append(c.files, name) }

// Write draws the picture into w.
func (c *Collector) Write(w io.Writer) error {
	ci := &canvasInfo{opt: &c.opt, files: c.files, frames: c.frames}
	panels, err := c.k.draw(ci)
	if err != nil {
		return fmt.Errorf("plot %s of %s: %w", c.kindName, ci.fileNames(), err)
	}
	return writePanels(w, panels, &c.opt)
}

// canvasInfo is what a kind's draw may want to say in its titles.
type canvasInfo struct {
	opt    *Options
	files  []string
	frames uint64
}

// fileNames names the files for titles: one, or the first and how many more.
func (ci *canvasInfo) fileNames() string {
	switch len(ci.files) {
	case 0:
		return "the capture"
	case 1:
		return filepath.Base(ci.files[0])
	}
	return filepath.Base(ci.files[0]) + " and " + fmt.Sprint(len(ci.files)-1) + " more"
}

// top returns the keys of m with the largest values first (ties by name),
// at most n of them.
func top[V int | uint64 | int64](m map[string]V, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}
