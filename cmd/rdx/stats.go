package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
)

func init() {
	verbs = append(verbs, verbDef{"stats", verb(newCmdStats)}, verbDef{"flows", verb(newCmdFlows)})
}

// StatsOptions are the flags of `rdx stats` and `rdx flows`: rdx read -q
// with a set of -z tables, printing those that have rows.
type StatsOptions struct {
	IO     *iostreams.IO
	File   string
	Files  []string // all of them: more than one are read in parallel and their tables merged
	Verb   string   // stats or flows
	Filter string
	Stats  []string // the tables the verb picked
	Format string   // text or json
	EngineFlags
}

func statVerb(io *iostreams.IO, use, short string, pick func(name string) bool, runF func(*StatsOptions) error) *cobra.Command {
	o := &StatsOptions{IO: io, Verb: use}
	cmd := &cobra.Command{
		Use:   use + " FILE...",
		Short: short,
		Long: short + `.

Over several files each is read by its own engine, -j N files at once
(default one per core; flows do not cross files), and the tables printed
are the engines' merged as -j merges a capture's workers: a conversation
seen in two files is one row with both files' counts; frame numbers in
them are each file's own. A damaged or missing file is reported and the
others are counted all the same (exit status 2).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return nil // -d help needs no capture
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			o.File, o.Files = args[0], args
			for _, n := range pipeline.StatNames() {
				if pick(n) {
					o.Stats = append(o.Stats, n)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return statsRun(o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule, as for rdx read")
	f.StringVarP(&o.Filter, "display-filter", "Y", "", "count only frames passing this display filter")
	f.StringVarP(&o.Format, "output-format", "T", "text", "output format: text or json (the tables' columns and rows, numbers as numbers)")
	addPrefFlags(f, &o.EngineFlags)
	return cmd
}

func statsRun(o *StatsOptions) error {
	if o.Format != "text" && o.Format != "json" {
		return usageErr("-T %s: want text or json", o.Format)
	}
	if len(o.Files) > 1 {
		return statsMany(o)
	}
	eo, err := engineOptions(&o.EngineFlags, o.File)
	if err != nil {
		return err
	}
	nw, err := o.workers()
	if err != nil {
		return err
	}
	setMemoryLimit(eo.MaxMem, nw)
	return runPipeline(o.IO, pipeline.Config{
		Input:  pipeline.Input{File: o.File, Stdin: o.IO.In, ErrOut: o.IO.ErrOut},
		Engine: eo, Filter: o.Filter, Quiet: true,
		Stats: o.Stats, SkipEmptyStats: true, StatsFormat: o.Format, StatsStyle: o.IO.Style(), Workers: nw,
	}, "", false)
}

func newCmdStats(io *iostreams.IO, runF func(*StatsOptions) error) *cobra.Command {
	return statVerb(io, "stats", "Print every statistics table that applies (response times, flows), like tshark -q -z",
		flows.IsStat, runF)
}

func newCmdFlows(io *iostreams.IO, runF func(*StatsOptions) error) *cobra.Command {
	return statVerb(io, "flows", "Print the conversations (IP, TCP, UDP, InfiniBand QPs, RDP and Rx connections, RDS paths) of a capture",
		flows.IsFlow, runF)
}

// mergeRun adds r, one file's run, to all (the engine the files' tables
// are merged into, nil before the first) and its counts to total.
func mergeRun(all *dissect.Engine, total *pipeline.Result, r pipeline.Result, file int) *dissect.Engine {
	if !r.Ran || r.Engine == nil {
		return all
	}
	addCounts(total, r)
	r.Engine.TagFrames(file) // frames in the tables say which file they are in
	if all == nil {
		return r.Engine
	}
	all.Merge(r.Engine)
	return all
}

// addCounts adds r's frames and findings to total (the closing counts of
// many files).
func addCounts(total *pipeline.Result, r pipeline.Result) {
	if !r.Ran {
		return
	}
	total.Ran = true
	total.Frames += r.Frames
	total.Errors += r.Errors
	total.Warnings += r.Warnings
	total.Notes += r.Notes
}

// statsMany is rdx stats|flows over several files: nw workers take the
// files in order, one engine each (with one file's budget), and the
// engines are merged in the files' order as each is done, so the tables
// are the same whatever -j is. At most 2*nw engines wait to be merged.
func statsMany(o *StatsOptions) error {
	nw, eos, err := manyEngines(&o.EngineFlags, o.Files)
	if err != nil {
		return err
	}
	// the status line on a terminal (export's): captures done, frames,
	// position in all the files; errOut erases it before each line printed
	prog, parts, pio := newFilesProgress(o.IO, o.Verb, o.Files)
	defer prog.Stop()
	errOut := pio.ErrOut
	intr := notifyInterrupt(errOut)
	defer intr.Release()
	var all *dissect.Engine
	var total pipeline.Result
	var errs []error
	eachFile(len(o.Files), nw, intr, func(i int) (pipeline.Result, error) {
		// the tables are counted by the engine and printed once, merged
		return pipeline.Run(pipeline.Config{
			Input:  pipeline.Input{File: o.Files[i], Stdin: o.IO.In, ErrOut: errOut, Progress: parts[i]},
			Engine: eos[i], Filter: o.Filter, Quiet: true, Stop: intr,
			Stats: o.Stats, SkipEmptyStats: true, Out: io.Discard, Workers: 1,
		})
	}, func(i int, r pipeline.Result, err error) {
		if err != nil {
			fmt.Fprintf(errOut, "rdx: %s: %v\n", o.Files[i], err)
			errs = append(errs, err)
		}
		all = mergeRun(all, &total, r, i)
		prog.Items(i+1, len(o.Files), "captures")
	})
	prog.Stop()
	if all != nil {
		for _, f := range all.MergeFindings() { // tables the merge took past their limits
			fmt.Fprintf(o.IO.ErrOut, "rdx: %s: %s\n", f.Proto, f.Msg)
		}
		out := newTimedOut(o.IO.Out, 256<<10)
		err := pipeline.WriteStatsStyled(out, all, o.Stats, true, o.Format, o.IO.Style(), o.Files...)
		if e := out.Close(); err == nil {
			err = e
		}
		if err != nil {
			return err
		}
	}
	printCounts(o.IO, total, nil)
	if len(errs) > 0 {
		return unreadCaptures(len(errs), len(o.Files), "the tables holds")
	}
	return nil
}
