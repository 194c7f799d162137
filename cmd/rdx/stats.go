package main

import (
	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
)

func init() { verbs = append(verbs, verb(newCmdStats), verb(newCmdFlows)) }

// StatsOptions are the flags of `rdx stats` and `rdx flows`: rdx read -q
// with a set of -z tables, printing those that have rows.
type StatsOptions struct {
	IO     *iostreams.IO
	File   string
	Filter string
	Stats  []string // the tables the verb picked
	Format string   // text or json
	EngineFlags
}

func statVerb(io *iostreams.IO, use, short string, pick func(name string) bool, runF func(*StatsOptions) error) *cobra.Command {
	o := &StatsOptions{IO: io}
	cmd := &cobra.Command{
		Use:   use + " FILE",
		Short: short,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return nil // -d help needs no capture
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			o.File = args[0]
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
		Stats: o.Stats, SkipEmptyStats: true, StatsFormat: o.Format, Workers: nw,
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
