package main

import (
	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() { verbs = append(verbs, newCmdStats, newCmdFlows) }

// statVerb is rdx read -q with a set of -z tables, printing those that
// have rows.
func statVerb(io *iostreams.IO, use, short string, pick func(name string) bool) *cobra.Command {
	o := &ReadOptions{IO: io, Quiet: true, SkipEmptyStats: true, Format: "text", Color: "never"}
	cmd := &cobra.Command{
		Use:   use + " FILE",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			for _, n := range dissect.NewEngine(dissect.Options{}).StatNames() {
				if pick(n) {
					o.Stats = append(o.Stats, n)
				}
			}
			return readRun(o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule, as for rdx read")
	f.StringVarP(&o.Filter, "display-filter", "Y", "", "count only frames passing this display filter")
	addPrefFlags(f, o)
	return cmd
}

func newCmdStats(io *iostreams.IO) *cobra.Command {
	return statVerb(io, "stats", "Print every statistics table that applies (response times, flows), like tshark -q -z",
		flows.IsStat)
}

func newCmdFlows(io *iostreams.IO) *cobra.Command {
	return statVerb(io, "flows", "Print the conversations (IP, TCP, UDP, InfiniBand QPs, RDP and Rx connections, RDS paths) of a capture",
		flows.IsFlow)
}
