package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/active/synth"
	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() { verbs = append(verbs, verbDef{"synth", verb(newCmdSynth)}) }

// SynthOptions are `rdx synth`'s flags.
type SynthOptions struct {
	IO       *iostreams.IO
	Scenario string
	File     string
	Corrupt  string
	List     bool
	Build    synth.Options
	Markers  bool
	CRC      bool
}

func newCmdSynth(io *iostreams.IO, runF func(*SynthOptions) error) *cobra.Command {
	o := &SynthOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "synth SCENARIO -w FILE",
		Short: "Write a synthetic capture of a known conversation, clean or with one defect",
		Example: `  rdx synth --list
  rdx synth rx -w rx.pcapng
  rdx synth rx --corrupt jumbo-flag -w bad.pcapng && rdx read -V bad.pcapng
  rdx synth mpa --markers=false --size 4000 -w iwarp.pcapng
  rdx synth rdp --loss 0.3 --seed 7 --messages 50 -w rdp.pcapng`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.List {
				if len(args) == 0 {
					return usageErr("no scenario: use rdx synth SCENARIO -w FILE (rdx synth --list shows them)")
				}
				o.Scenario = args[0]
				o.Build.NoMarkers, o.Build.NoCRC = !o.Markers, !o.CRC
				o.Build.LossSet = cmd.Flags().Changed("loss")
				if err := synthKnobs(cmd, o.Scenario); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(o)
			}
			if o.List {
				return synthList(o)
			}
			return synthRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.File, "write", "w", "", "pcapng file to write (- for standard output)")
	f.StringVar(&o.Corrupt, "corrupt", "", "inject the named defect (see --list)")
	f.BoolVar(&o.List, "list", false, "list scenarios, their options and their --corrupt variants")
	// Scenario knobs: 0 means the scenario's default; --list says which
	// scenario reads which.
	f.IntVar(&o.Build.Messages, "messages", 0, "messages (calls, segments) to send (0: the scenario's default)")
	f.IntVar(&o.Build.Size, "size", 0, "octets per message (0: the scenario's default)")
	f.Float64Var(&o.Build.Loss, "loss", 0, "probability that a data segment is lost and retransmitted (rdp, rds-tcp, mpa; READ Responses in roce-nfs)")
	f.Int64Var(&o.Build.Seed, "seed", 1, "seed of the --loss draw: the same seed gives the same capture")
	f.BoolVar(&o.Markers, "markers", true, "MPA markers (mpa; --markers=false turns them off)")
	f.BoolVar(&o.CRC, "crc", true, "MPA CRCs (mpa; --crc=false turns them off)")
	cmd.ValidArgsFunction = completeScenarios
	return cmd
}

// synthKnobs refuses a scenario knob the scenario does not read, instead of
// silently writing a capture without what was asked for.
func synthKnobs(cmd *cobra.Command, scenario string) error {
	s, err := synth.Find(scenario)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	for _, knob := range []string{"messages", "size", "loss", "seed", "markers", "crc"} {
		if !cmd.Flags().Changed(knob) {
			continue
		}
		reads := false
		for _, op := range s.Options {
			reads = reads || strings.Contains(op.Flag, "--"+knob)
		}
		if !reads {
			return usageErr("scenario %s does not take --%s (rdx synth --list says which scenario reads what)", scenario, knob)
		}
	}
	return nil
}

func synthList(o *SynthOptions) error {
	w := o.IO.Out
	for _, s := range synth.Scenarios() {
		fmt.Fprintf(w, "%-11s %s\n", s.Name, s.Desc)
		for _, op := range s.Options {
			fmt.Fprintf(w, "  %-24s %s\n", op.Flag, op.Desc)
		}
		for _, v := range s.Variants {
			name := v.Name
			if v.Alias != "" {
				name += " (or " + v.Alias + ")"
			}
			fmt.Fprintf(w, "  --corrupt %-14s %s\n", name, v.Desc)
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
	o.Build.Corrupt = o.Corrupt
	// the status line on a terminal (not when the capture goes to it):
	// frames while they are built, then the share written
	prog, pio := newProgress(o.IO, o.File != "-" || !o.IO.IsStdoutTTY(), "synth")
	prog.Start()
	defer prog.Stop()
	if err := s.Check(o.Build); err != nil { // before a file is made
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
	// the frames are written as the scenario makes them (rds-tcp streams:
	// 1 GB of messages in about one message of memory)
	part := prog.Part(0)
	var n int64
	if err == nil {
		n, err = s.Emit(o.Build, func(p *capture.Packet) error {
			part.SetFrames(uint64(n + 1))
			n++
			return pw.WritePacket(p)
		})
	}
	prog.Stop()
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && f != nil {
		err = f.Close()
	}
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintf(pio.ErrOut, "rdx: wrote %d frames of scenario %s", n, s.Name)
	if o.Corrupt != "" {
		fmt.Fprintf(pio.ErrOut, " (defect %s)", o.Corrupt)
	}
	fmt.Fprintln(pio.ErrOut)
	return nil
}
