package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/render"
)

func init() { verbs = append(verbs, verb(newCmdCheck)) }

// CheckOptions are `rdx check`'s flags.
type CheckOptions struct {
	IO        *iostreams.IO
	File      string
	Format    string // text or json
	Iface     string // live traffic instead of File
	CapFilter string
	Count     int
	EngineFlags
}

func newCmdCheck(io *iostreams.IO, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "check FILE | check -i IFACE",
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
errors.`,
		Example: `  rdx check pcaps/iwarp/iwarp_rping_crc.pcap
  rdx check -T json FILE
  rdx check -d tcp.port==4210,mpa FILE
  rdx check -i eth1 -f "tcp port 4210" -c 1000`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			if len(args) == 1 {
				o.File = args[0]
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
