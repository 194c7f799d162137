package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/active/synth"
	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() { verbs = append(verbs, newCmdSynth) }

// SynthOptions are `rdx synth`'s flags.
type SynthOptions struct {
	IO       *iostreams.IO
	Scenario string
	File     string
	Corrupt  string
	List     bool
}

func newCmdSynth(io *iostreams.IO) *cobra.Command {
	o := &SynthOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "synth SCENARIO -w FILE",
		Short: "Write a synthetic capture of a known conversation, clean or with one defect",
		Example: `  rdx synth --list
  rdx synth rx -w rx.pcapng
  rdx synth rx --corrupt jumbo-flag -w bad.pcapng && rdx read -V bad.pcapng`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.List {
				return synthList(o)
			}
			if len(args) == 0 {
				return usageErr("no scenario: use rdx synth SCENARIO -w FILE (rdx synth --list shows them)")
			}
			o.Scenario = args[0]
			return synthRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.File, "write", "w", "", "pcapng file to write (- for standard output)")
	f.StringVar(&o.Corrupt, "corrupt", "", "inject the named defect (see --list)")
	f.BoolVar(&o.List, "list", false, "list scenarios and their --corrupt variants")
	return cmd
}

func synthList(o *SynthOptions) error {
	w := o.IO.Out
	for _, s := range synth.Scenarios() {
		fmt.Fprintf(w, "%-11s %s\n", s.Name, s.Desc)
		for _, v := range s.Variants {
			fmt.Fprintf(w, "  --corrupt %-14s %s\n", v.Name, v.Desc)
			for _, f := range v.Findings {
				fmt.Fprintf(w, "      expect %s\n", f)
			}
		}
	}
	return nil
}

func synthRun(o *SynthOptions) error {
	s, err := synth.Find(o.Scenario)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	pkts, err := s.Build(o.Corrupt)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if o.File == "" {
		return usageErr("no output file: use -w FILE")
	}
	out := o.IO.Out
	var f *os.File
	if o.File != "-" {
		if f, err = os.Create(o.File); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer f.Close()
		out = f
	}
	bw := bufio.NewWriter(out)
	pw, err := capture.NewPcapngWriter(bw)
	if err == nil {
		_, err = pw.AddInterface(capture.LinkEthernet, capture.DefaultSnaplen, "synth")
	}
	for i := range pkts {
		if err != nil {
			break
		}
		err = pw.WritePacket(&pkts[i])
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && f != nil {
		err = f.Close()
	}
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintf(o.IO.ErrOut, "rdx: wrote %d frames of scenario %s", len(pkts), s.Name)
	if o.Corrupt != "" {
		fmt.Fprintf(o.IO.ErrOut, " (defect %s)", o.Corrupt)
	}
	fmt.Fprintln(o.IO.ErrOut)
	return nil
}
