package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/render"
)

func init() { verbs = append(verbs, verbDef{"check", verb(newCmdCheck)}) }

// CheckOptions are `rdx check`'s flags.
type CheckOptions struct {
	IO        *iostreams.IO
	File      string
	Files     []string // every capture named: more than one are checked in parallel, the report merged
	Format    string   // text or json
	Iface     string   // live traffic instead of File
	CapFilter string
	Count     int
	EngineFlags
}

func newCmdCheck(io *iostreams.IO, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "check FILE... | check -i IFACE",
		Short: "Run every validation (CRCs, markers, checksums) over a capture and tabulate the results",
		Long: `check decodes the whole capture once and counts, for every check a protocol
registered (mpa.crc, mpa.marker, infiniband.icrc, ...), how many PDUs it ran
on, how many passed and failed, and the first failing frames. With -i it
checks live traffic instead (as rdx read -i; stop with -c N or Ctrl-C, the
table is printed at the end). The IPv4 header, UDP and TCP checksums are
verified too (tshark's ip/udp/tcp "validate checksum" preferences), except
where they cannot be: a snapped packet, an IP fragment, UDP over IPv4 sent
without a checksum, or a checksum left to the NIC (checksum offload: the
field holds only the pseudo-header's sum, as Linux sends it to the card);
the report counts those as not checked. Exit status: 0 when nothing failed,
1 when a check failed or any error finding was made, 2 on usage or input
errors.

Over several files each is checked by its own engine, -j N files at once
(default one per core), and one report is printed, the files' tallies
added up; a failing frame is named with its file (pts-ops.pcap:12; in
JSON first_failing_files beside first_failing_frames). A damaged or
missing file is reported and the others are checked all the same (exit
status 2).`,
		Example: `  rdx check pcaps/iwarp/iwarp_rping_crc.pcap
  rdx check -T json FILE
  rdx check -d tcp.port==4210,mpa FILE
  rdx check -i eth1 -f "tcp port 4210" -c 1000`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			if len(args) > 0 {
				o.File, o.Files = args[0], args
			}
			if o.Iface != "" && o.File != "" {
				return usageErr("give a capture file or -i IFACE, not both")
			}
			if o.File == "" && o.Iface == "" {
				return usageErr("no capture: use rdx check FILE or rdx check -i IFACE")
			}
			if runF != nil {
				return runF(o)
			}
			return checkRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Format, "output-format", "T", "text", "output format: text or json")
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule, e.g. tcp.port==4210,mpa")
	addPrefFlags(f, &o.EngineFlags)
	f.StringVarP(&o.Iface, "interface", "i", "", "check live traffic from IFACE (AF_PACKET; -c N or Ctrl-C stops)")
	f.StringVarP(&o.CapFilter, "capture-filter", "f", "", "capture filter for -i, e.g. \"tcp port 4210\"")
	f.IntVarP(&o.Count, "count", "c", 0, "stop after N frames")
	return cmd
}

func checkRun(o *CheckOptions) error {
	if o.Format != "text" && o.Format != "json" {
		return usageErr("-T %s: want text or json", o.Format)
	}
	if len(o.Files) > 1 {
		return checkMany(o)
	}
	eo, err := engineOptions(&o.EngineFlags, o.File)
	if err != nil {
		return err
	}
	eo.Checksums = true // tshark's ip/udp/tcp.check_checksum on
	nw, err := o.workers()
	if err != nil {
		return err
	}
	setMemoryLimit(eo.MaxMem, nw)
	intr := notifyInterrupt(o.IO.ErrOut)
	defer intr.Release()
	out := newTimedOut(o.IO.Out, 64<<10)
	defer out.Close()
	in := pipeline.Input{File: o.File, Stdin: o.IO.In, Iface: o.Iface, CapFilter: o.CapFilter, ErrOut: o.IO.ErrOut}
	res, err := pipeline.Run(pipeline.Config{Input: in, Engine: eo, Out: out, Stop: intr, Count: o.Count, Quiet: true,
		Check: &pipeline.CheckReport{Format: o.Format, Style: o.IO.Style()}, Workers: nw})
	printCounts(o.IO, res, err)
	if err != nil {
		return err // after the tally of what was read: an input error wins over failed checks
	}
	switch {
	case res.ChecksFailed:
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: checks failed", in.Name())}
	case res.Errors > 0: // a malformed or bad PDU fails check as a failed check does
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: %s", in.Name(), render.Plural(res.Errors, "error finding"))}
	}
	return nil
}

// checkMany is rdx check over several files: each file is checked by its
// own engine, nw at once, and the tallies are added up in the files' order
// (so the first failing frames are the first files'), each frame tagged
// with its file; one report, one closing count.
func checkMany(o *CheckOptions) error {
	nw, eos, err := manyEngines(&o.EngineFlags, o.Files)
	if err != nil {
		return err
	}
	prog, parts, pio := newFilesProgress(o.IO, "check", o.Files)
	defer prog.Stop()
	errOut := pio.ErrOut
	intr := notifyInterrupt(errOut)
	defer intr.Release()
	var total pipeline.Result
	var errs []error
	eachFile(len(o.Files), nw, intr, func(i int) (pipeline.Result, error) {
		eo := eos[i]
		eo.Checksums = true // tshark's ip/udp/tcp.check_checksum on
		eo.NoProtoStats = true
		return pipeline.Run(pipeline.Config{
			Input:  pipeline.Input{File: o.Files[i], Stdin: o.IO.In, ErrOut: errOut, Progress: parts[i]},
			Engine: eo, Out: io.Discard, Stop: intr, Count: o.Count, Quiet: true,
			Check: &pipeline.CheckReport{}, Workers: 1, // the tally only: printed once, merged
		})
	}, func(i int, r pipeline.Result, err error) {
		if err != nil {
			fmt.Fprintf(errOut, "rdx: %s: %v\n", o.Files[i], err)
			errs = append(errs, err)
		}
		if !r.Ran {
			return
		}
		addCounts(&total, r)
		pipeline.TagChecks(r.Checks, i)
		if total.Checks == nil {
			total.Checks = r.Checks
		} else {
			pipeline.MergeChecks(total.Checks, r.Checks)
		}
		prog.Items(i+1, len(o.Files), "captures")
	})
	prog.Stop()
	if total.Checks != nil {
		out := newTimedOut(o.IO.Out, 64<<10)
		err := pipeline.WriteChecks(out, &pipeline.CheckReport{Format: o.Format, Style: o.IO.Style()}, o.Files, &total)
		if e := out.Close(); err == nil {
			err = e
		}
		if err != nil {
			return err
		}
	}
	printCounts(o.IO, total, nil)
	switch {
	case len(errs) > 0: // an input error wins over failed checks, as for one file
		return unreadCaptures(len(errs), len(o.Files), "the report holds")
	case total.ChecksFailed:
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: checks failed", render.Plural(len(o.Files), "capture"))}
	case total.Errors > 0:
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: %s", render.Plural(len(o.Files), "capture"), render.Plural(total.Errors, "error finding"))}
	}
	return nil
}
