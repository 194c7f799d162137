//go:build !lean

package main

import (
	"bufio"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/plot"
)

func init() { verbs = append(verbs, verbDef{"plot", verb(newCmdPlot)}) }

// PlotOptions are `rdx plot`'s flags.
type PlotOptions struct {
	IO       *iostreams.IO
	Kind     string
	Files    []string
	Out      string
	Filters  []string
	Interval time.Duration
	Width    int
	Height   int
	EngineFlags
}

func newCmdPlot(io *iostreams.IO, runF func(*PlotOptions) error) *cobra.Command {
	o := &PlotOptions{IO: io}
	var kinds []string
	for _, k := range plot.Kinds() {
		kinds = append(kinds, fmt.Sprintf("  %-7s %s", k, plot.Describe(k)))
	}
	cmd := &cobra.Command{
		Use:   plotUse,
		Short: plotShort,
		Long: `plot decodes the captures as rdx read does and draws what the engine found:

` + strings.Join(kinds, "\n") + `

The format comes from -o's extension (.svg or .png). Several files are
overlaid, each from its own first frame. A capture with nothing of the kind
is an error (exit 2) and writes no picture; a capture cut short is drawn up
to where it could be read, and the error is reported (exit 2).`,
		Example: `  rdx plot io pcaps/kernel/nfs3_rdma_roce.pcap -o io.svg
  rdx plot io -Y rpcordma -Y "infiniband.bth.opcode == 17" -i 100ms FILE -o io.png
  rdx plot srt pcaps/rx/pts-ops.pcap -o srt.svg
  rdx plot qp pcaps/kernel/lossy_nfs3_rdma_roce.pcap -o qp.png
  rdx plot rtt pcaps/rdp/lossy.pcap -o rtt.svg
  rdx plot checks pcaps/iwarp/wiki_iwarp_connect__C00_M00_reject.pcap -o checks.svg`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return nil
			}
			if len(args) < 2 {
				return usageErr("want a KIND (%s) and at least one capture file", strings.Join(plot.Kinds(), ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			o.Kind, o.Files = args[0], args[1:]
			if o.Out == "" {
				return usageErr("-o OUT.svg or -o OUT.png: where the picture goes")
			}
			if runF != nil {
				return runF(o)
			}
			return plotRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Out, "output", "o", "", "the picture file; .svg or .png")
	f.StringArrayVarP(&o.Filters, "display-filter", "Y", nil, "io: a line per filter (repeat -Y); other kinds: draw only frames matching it")
	f.DurationVarP(&o.Interval, "interval", "i", 0, "io, checks: time bin width, e.g. 100ms (default: about 200 bins)")
	f.IntVar(&o.Width, "width", plot.DefaultWidth, "picture width in pixels")
	f.IntVar(&o.Height, "height", plot.DefaultHeight, "picture height in pixels")
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule, as for rdx read")
	// -o is the picture here; rdx read's -o (preferences) is --option.
	f.StringArrayVar(&o.Prefs, "option", nil, "protocol preference NAME=VALUE, as rdx read -o")
	f.StringVar(&o.MaxMem, "max-mem", "", "memory the process aims for, as for rdx read")
	return cmd
}

func plotRun(o *PlotOptions) error {
	format, err := plot.FormatOf(o.Out)
	if err != nil {
		return usageErr("-o %v", err)
	}
	if !slices.Contains(plot.Kinds(), o.Kind) {
		return usageErr("unknown plot kind %q (known: %s)", o.Kind, strings.Join(plot.Kinds(), ", "))
	}
	eo, err := engineOptions(&o.EngineFlags, "")
	if err != nil {
		return err
	}
	setMemoryLimit(eo.MaxMem, 1)
	opt := plot.Options{Format: format, Filters: o.Filters, Interval: o.Interval, Width: o.Width, Height: o.Height, Engine: eo}
	if _, err := plot.NewCollector(o.Kind, opt); err != nil { // bad options: no file written
		return usageErr("%v", err)
	}
	return writePicture(o.IO, o.Out, func(w stdio.Writer) error { return plot.Render(w, o.Kind, o.Files, opt) })
}

// writePicture writes a picture to path through draw; when draw wrote
// nothing (nothing to draw, an unreadable capture), the file is removed.
// Any error exits 2 (input or usage); a picture drawn before a read error
// is kept.
func writePicture(io *iostreams.IO, path string, draw func(stdio.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return usageErr("%v", err)
	}
	w := &countingWriter{w: bufio.NewWriter(fh)}
	derr := draw(w)
	if derr != nil && w.n == 0 {
		fh.Close()
		os.Remove(path)
		return &exitError{code: exitUsage, err: derr}
	}
	err = errors.Join(w.w.Flush(), fh.Close())
	if err == nil && derr == nil {
		fmt.Fprintf(io.ErrOut, "rdx: wrote %s\n", path)
		return nil
	}
	if derr != nil && err == nil {
		fmt.Fprintf(io.ErrOut, "rdx: wrote %s with the frames read before the error\n", path)
	}
	return &exitError{code: exitUsage, err: errors.Join(derr, err)}
}

// countingWriter tells whether anything was written.
type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// zPlots takes the plot=FILE part off -z io,stat,INTERVAL,plot=FILE: the
// table is still printed, and a collector draws the IO graph of the same
// frames into FILE (at the interval of the table).
func zPlots(stats []string) (rest []string, plots []zPlot, err error) {
	for _, z := range stats {
		base, file, ok := strings.Cut(z, zPlotSep)
		if !ok {
			rest = append(rest, z)
			continue
		}
		if !strings.HasPrefix(base, "io,stat,") || file == "" {
			return nil, nil, usageErr("-z %s: plot=FILE goes with io,stat,INTERVAL (e.g. -z io,stat,0.1,plot=io.svg)", z)
		}
		ns, _, perr := dissect.ParseIOStat(base)
		if perr != nil {
			return nil, nil, usageErr("%v", perr)
		}
		format, ferr := plot.FormatOf(file)
		if ferr != nil {
			return nil, nil, usageErr("-z %s: %v", z, ferr)
		}
		c, cerr := plot.NewCollector("io", plot.Options{Format: format, Interval: time.Duration(ns)})
		if cerr != nil {
			return nil, nil, usageErr("-z %s: %v", z, cerr)
		}
		rest = append(rest, base)
		plots = append(plots, zPlot{file: file, c: c})
	}
	return rest, plots, nil
}

type zPlot struct {
	file string
	c    *plot.Collector
}

// addZPlots adds the -z plot collectors to cfg's sinks.
func addZPlots(cfg *pipeline.Config, plots []zPlot, in string) {
	for _, p := range plots {
		p.c.AddFile(in)
		cfg.Sinks = append(cfg.Sinks, p.c)
	}
}

// writeZPlots writes the -z pictures after the run; when the run failed
// (runErr), what was read is drawn and runErr alone is reported.
func writeZPlots(io *iostreams.IO, plots []zPlot, runErr error) error {
	var errs []error
	for _, p := range plots {
		err := writePicture(io, p.file, func(w stdio.Writer) error { return p.c.Write(w) })
		if err != nil && runErr == nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
