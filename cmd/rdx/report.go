//go:build !lean

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/plot"
	"github.com/rdx-project/rdx/render"
	"github.com/rdx-project/rdx/report"
)

func init() { verbs = append(verbs, verbDef{"report", verb(newCmdReport)}) }

// ReportOptions are `rdx report`'s flags.
type ReportOptions struct {
	IO     *iostreams.IO
	Files  []string
	Output string // -o: the HTML file ("-": standard output)
	EngineFlags
}

func newCmdReport(io *iostreams.IO, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{IO: io}
	cmd := &cobra.Command{
		Use:   reportUse,
		Short: reportShort,
		Long: `report reads each capture (in two passes, as rdx read -V does, and with the
checksums verified, as rdx check does) and writes one HTML page that loads
nothing from the network: for every file its
overview (frames, bytes, duration, first and last frame, link types, the
-z io,phs protocol hierarchy), the table rdx check prints, the tables rdx
stats and rdx flows print, and every finding (severity, frame, protocol,
message) linking to the frame's tree as rdx read -V prints it; the plots
(rdx plot io, srt, qp, rtt, checks) are drawn over all files together.
A page lists at most the first ` + fmt.Sprint(report.MaxFindings) + ` findings and ` + fmt.Sprint(report.MaxTreeFrames) + ` trees of a
file and says when it left some out. Here -o is the output file;
protocol preferences are --option NAME=VALUE. Exit status: 0 when the
page was written (findings do not change it: rdx check is for that),
2 on usage or input errors (a file with a bad record still gets its page,
of the frames before it). SIGINT stops the reading: the page is of
what was read.`,
		Example: `  rdx report pcaps/kernel/lossy_rds_tcp.pcap -o lossy.html
  rdx report a.pcap b.pcapng -o both.html
  rdx report -d tcp.port==4210,mpa FILE -o - > report.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			o.Files = args
			if o.Output == "" {
				return usageErr("no output: give -o REPORT.html (or -o - for standard output)")
			}
			if runF != nil {
				return runF(o)
			}
			return reportRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "the HTML file to write (- for standard output)")
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule, as for rdx read")
	f.StringArrayVar(&o.Prefs, "option", nil, "protocol preference NAME=VALUE, as rdx read -o")
	f.Var(prefFlag{&o.EngineFlags, "mpa.markers"}, "mpa-markers", "MPA decode-as without the handshake: markers on (1) or off (0)")
	f.Var(prefFlag{&o.EngineFlags, "mpa.crc"}, "mpa-crc", "MPA decode-as without the handshake: CRC on (1) or off (0)")
	f.StringVar(&o.MaxMem, "max-mem", "", "memory the process aims for (K, M, G; default 64M), as for rdx read")
	return cmd
}

// reportFigures draws the report's plots with the plot package, as rdx
// plot KIND FILE... -o OUT.svg does with the same engine setup; a kind
// with nothing to draw is a note on the page (plot.ErrNoData's message).
func reportFigures(eo dissect.Options) report.FigureFunc {
	return func(w io.Writer, kind string, files []string) error {
		return plot.Render(w, kind, files, plot.Options{Format: "svg", Engine: eo})
	}
}

func reportRun(o *ReportOptions) error {
	eo, err := engineOptions(&o.EngineFlags, "")
	if err != nil {
		return err
	}
	if err := checkReportTarget(o); err != nil {
		return err
	}
	// The page's file is made before the captures are read: a bad -o
	// fails at once, not after the reading.
	var tmp *os.File
	if o.Output != "-" {
		if t, err := filepath.EvalSymlinks(o.Output); err == nil {
			o.Output = t // a link's target is written, as -w writes it
		}
		if tmp, err = os.CreateTemp(filepath.Dir(o.Output), "."+filepath.Base(o.Output)+".rdx-*"); err != nil {
			return usageErr("-o %s: %v", o.Output, err)
		}
		defer os.Remove(tmp.Name()) // after the rename: nothing left to remove
		defer tmp.Close()
	}
	setMemoryLimit(eo.MaxMem, 1)
	intr := notifyInterrupt(o.IO.ErrOut)
	defer intr.Release()
	if tmp != nil {
		intr.OnGiveUp(func() { os.Remove(tmp.Name()) }) // no half page left behind
	}
	r, err := report.Build(o.Files, report.Options{Engine: eo, Figure: reportFigures(eo), Stop: intr})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if err := writeReport(o, tmp, r); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	for _, f := range r.Files {
		fmt.Fprintf(o.IO.ErrOut, "rdx: %s: %s; findings: %s, %s, %s\n", f.Name, render.Plural(f.Overview.Frames, "frame"),
			render.Plural(f.Overview.Errors, "error"), render.Plural(f.Overview.Warnings, "warning"), render.Plural(f.Overview.Notes, "note"))
	}
	if err := r.Err(); err != nil {
		return &exitError{code: exitUsage, err: err} // the page is written, of what was read
	}
	return nil
}

// checkReportTarget refuses an -o that is one of the captures: the page
// would replace it.
func checkReportTarget(o *ReportOptions) error {
	if o.Output == "-" {
		return nil
	}
	w, err := os.Stat(o.Output)
	if err != nil {
		return nil // not there yet: cannot be a capture
	}
	for _, f := range o.Files {
		if r, err := os.Stat(f); err == nil && os.SameFile(w, r) {
			return usageErr("-o %s: refusing to overwrite the capture %s", o.Output, f)
		}
	}
	return nil
}

// writeReport writes the page to standard output or to tmp, the file made
// beside -o, renamed onto it once whole: a failed write leaves no half page.
func writeReport(o *ReportOptions, tmp *os.File, r *report.Report) error {
	if tmp == nil {
		return r.WriteHTML(o.IO.Out)
	}
	if err := r.WriteHTML(tmp); err != nil {
		return fmt.Errorf("-o %s: %w", o.Output, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("-o %s: %w", o.Output, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("-o %s: %w", o.Output, err)
	}
	if err := os.Rename(tmp.Name(), o.Output); err != nil {
		return fmt.Errorf("-o %s: %w", o.Output, err)
	}
	return nil
}
