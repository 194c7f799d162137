package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/render"
)

// ReadOptions are `rdx read`'s flags, named as tshark's.
type ReadOptions struct {
	IO         *iostreams.IO
	File       string
	Verbose    bool
	Hex        bool
	Format     string // text, json, jsonl, fields
	Fields     []string
	FieldOpts  []string
	Count      int
	Color      string
	SinglePass bool
	TwoPass    bool // -2
	Quiet      bool
	Filter     string
	Stats      []string // -z NAME
	Write      string   // -w FILE: frames that pass -Y, as pcapng
	Print      bool     // -P: print frames even when writing
	CPUProfile string
	MemProfile string
	Iface      string // live capture instead of File
	CapFilter  string
	EngineFlags
}

// EngineFlags are the engine's flags (-d, -o, --max-mem), shared by every
// verb that decodes.
type EngineFlags struct {
	DecodeAs []string
	Prefs    []string // -o NAME=VALUE protocol preferences
	Config   map[string]string
	MaxMem   string // --max-mem: the reassembly and tracking memory budget
	Workers  int    // -j: engines decoding in parallel, flows sharded among them
}

// workers is -j's value for pipeline.Config.Workers (0: every core).
func (e *EngineFlags) workers() (int, error) {
	switch {
	case e.Workers < 0:
		return 0, usageErr("-j %d: want a number of workers, 1 or more", e.Workers)
	case e.Workers == 0:
		return runtime.NumCPU(), nil
	}
	return e.Workers, nil
}

// tableHelp reports whether -d help asks for the list of hand-off tables
// (as -z help lists the -z tables): the verb prints it and stops.
func (e *EngineFlags) tableHelp() bool { return slices.Contains(e.DecodeAs, "help") }

func newCmdRead(io *iostreams.IO, runF func(*ReadOptions) error) *cobra.Command {
	o := &ReadOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "read [-r] FILE",
		Short: "Dissect a capture file (pcap, pcapng, gzip; - for stdin) like tshark -r",
		Example: `  rdx read pcaps/rx/bos-queries.pcap
  rdx read -V -r pcaps/rx/pts-ops.pcap -c 4
  rdx read -T fields -e frame.number -e rx.seq -E header=y FILE
  rdx read -d udp.port==4000,rx FILE`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			if slices.Contains(o.Stats, "help") { // as tshark -z help: no capture needed
				_, err := fmt.Fprintln(io.Out, strings.Join(pipeline.StatHelp(), "\n"))
				return err
			}
			if len(args) == 1 {
				if o.File != "" && o.File != args[0] {
					return usageErr("two capture files given (-r %s and %s)", o.File, args[0])
				}
				o.File = args[0]
			}
			if o.Iface != "" && o.File != "" {
				return usageErr("give a capture file or -i IFACE, not both")
			}
			if o.File == "" && o.Iface == "" {
				return usageErr("no capture file: use rdx read -r FILE (or - for standard input)")
			}
			if runF != nil {
				return runF(o)
			}
			return readRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.File, "read-file", "r", "", "capture file to read (- for standard input)")
	f.BoolVarP(&o.Verbose, "verbose", "V", false, "print the protocol tree of every frame")
	f.BoolVarP(&o.Hex, "hex", "x", false, "print a hex dump of every frame")
	f.StringVarP(&o.Format, "output-format", "T", "text", "output format: text, json, jsonl or fields")
	f.StringArrayVarP(&o.Fields, "field", "e", nil, "field to print with -T fields (repeatable)")
	f.StringArrayVarP(&o.FieldOpts, "field-option", "E", nil, "-T fields option: header=y, separator=/t|,|..., aggregator=X, quote=d|s|n")
	f.IntVarP(&o.Count, "count", "c", 0, "stop after N frames")
	f.StringVarP(&o.Write, "write-file", "w", "", "write the frames (those passing -Y) to a pcapng file (- for standard output)")
	f.BoolVarP(&o.Print, "print", "P", false, "print frames while writing with -w (as tshark -P)")
	f.StringArrayVarP(&o.Stats, "statistics", "z", nil, "print statistics at the end, e.g. -z rdp,conv (-z help lists them)")
	f.StringVarP(&o.Filter, "display-filter", "Y", "", "display filter, e.g. 'rx.type == ack && rx.reason == 8' (frames not matching are decoded but not shown)")
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule TABLE==KEY,PROTO, e.g. udp.port==7000,rx, tcp.port==4000-4010,mpa, rx.service==52,afs_vl or infiniband.destqp==0x11,rpcordma (-d help lists the tables)")
	addPrefFlags(f, &o.EngineFlags)
	f.StringVar(&o.Color, "color", "auto", "colour: auto (terminal and no NO_COLOR), always, never")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "decode every frame but print only the closing counts (as tshark -q)")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (for performance work)")
	_ = f.MarkHidden("cpuprofile")
	f.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile of what is held at the end (for memory work)")
	_ = f.MarkHidden("memprofile")
	f.BoolVar(&o.SinglePass, "single-pass", false, "one pass only, even for -V and JSON: requests do not show their reply frame")
	f.BoolVarP(&o.TwoPass, "two-pass", "2", false, "read the file twice, as tshark -2 (done anyway when the output shows a later frame: -V, JSON, -e/-Y naming a reply frame)")
	f.StringVarP(&o.Iface, "interface", "i", "", "dissect live traffic from IFACE (AF_PACKET; Ctrl-C stops)")
	f.StringVarP(&o.CapFilter, "capture-filter", "f", "", "capture filter for -i, e.g. \"udp port 7002\"")
	return cmd
}

// addPrefFlags adds -o NAME=VALUE (as tshark's -o) and the MPA shortcuts for
// streams whose Request/Reply is not in the capture.
func addPrefFlags(f *pflag.FlagSet, o *EngineFlags) {
	f.StringArrayVarP(&o.Prefs, "option", "o", nil, "protocol preference NAME=VALUE (also NAME:VALUE), e.g. mpa.crc=1")
	f.Var(prefFlag{o, "mpa.markers"}, "mpa-markers", "MPA decode-as without the handshake: markers on (1) or off (0)")
	f.Var(prefFlag{o, "mpa.crc"}, "mpa-crc", "MPA decode-as without the handshake: CRC on (1) or off (0)")
	f.IntVarP(&o.Workers, "jobs", "j", runtime.NumCPU(), "decode on N cores, each flow (IP, GID or LID pair) on one; output as with -j 1, which is the one-core path")
	f.StringVar(&o.MaxMem, "max-mem", "", "memory the process aims for (K, M, G; default 64M per -j worker); reassembly and tracking state get half of it, shared by the workers, and the oldest is dropped, with a finding, beyond that")
}

// prefFlag is a flag that stands for one -o preference.
type prefFlag struct {
	o   *EngineFlags
	key string
}

func (p prefFlag) String() string { return "" }
func (p prefFlag) Type() string   { return "0|1" }
func (p prefFlag) Set(v string) error {
	switch v {
	case "0", "1", "true", "false", "on", "off":
	default:
		return fmt.Errorf("want 1 or 0")
	}
	if v == "true" || v == "on" {
		v = "1"
	} else if v == "false" || v == "off" {
		v = "0"
	}
	p.o.Prefs = append(p.o.Prefs, p.key+"="+v)
	return nil
}

// engineOptions turns -d and -o into engine options for reading file.
func engineOptions(o *EngineFlags, file string) (dissect.Options, error) {
	eo := dissect.Options{Config: map[string]string{}, Source: file}
	if file == "-" {
		eo.Source = "<stdin>"
	}
	for k, v := range o.Config {
		eo.Config[k] = v
	}
	for _, d := range o.DecodeAs {
		da, err := dissect.ParseDecodeAs(d)
		if err != nil {
			return eo, &exitError{code: exitUsage, err: err}
		}
		eo.DecodeAs = append(eo.DecodeAs, da)
	}
	if o.MaxMem != "" {
		n, err := budget.ParseSize(o.MaxMem)
		if err != nil {
			return eo, usageErr("--max-mem: %v", err)
		}
		eo.MaxMem = budget.StateShare(n)
	} else if nw, err := o.workers(); err == nil && nw > 1 {
		// Each worker gets the one-worker default: split, 64M starved every
		// engine's tables on 2 cores (the Rx call tables of 64 flows evicted
		// 100,000 times and took 4x the CPU).
		eo.MaxMem = budget.StateShare(defaultMaxMem * int64(nw))
	}
	for _, kv := range o.Prefs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			k, v, ok = strings.Cut(kv, ":")
		}
		if !ok || k == "" {
			return eo, usageErr("-o %s: want NAME=VALUE", kv)
		}
		eo.Config[k] = v
	}
	return eo, nil
}

// defaultMaxMem is --max-mem for one worker: a process under 100 MB on any
// input (see budget.StateShare).
const defaultMaxMem = 64 << 20

// setMemoryLimit makes --max-mem the process's size too: a soft limit for
// Go's collector (without one the heap grows to twice the live data). share
// is the tables' part of it (budget.StateShare). GOMEMLIMIT, when set, wins.
func setMemoryLimit(share int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if share <= 0 {
		share = budget.StateShare(budget.DefaultLimit)
	}
	debug.SetMemoryLimit(budget.ProcessSize(share))
}

// writeHeapProfile writes what is live while eng (and so all its state) is
// still reachable.
func writeHeapProfile(name string, eng *dissect.Engine) {
	runtime.GC()
	if pf, err := os.Create(name); err == nil {
		_ = pprof.WriteHeapProfile(pf)
		pf.Close()
	}
	runtime.KeepAlive(eng)
}

func readRun(o *ReadOptions) error {
	if o.CPUProfile != "" {
		pf, err := os.Create(o.CPUProfile)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer pprof.StopCPUProfile()
	}
	eo, err := engineOptions(&o.EngineFlags, o.File)
	if err != nil {
		return err
	}
	setMemoryLimit(eo.MaxMem)
	nw, err := o.workers()
	if err != nil {
		return err
	}
	var style *render.Style
	if o.IO.SetColor(o.Color) {
		style = &render.Colors
	}
	return runPipeline(o.IO, pipeline.Config{
		Input:  pipeline.Input{File: o.File, Stdin: o.IO.In, Iface: o.Iface, CapFilter: o.CapFilter, ErrOut: o.IO.ErrOut},
		Engine: eo,
		Count:  o.Count, Filter: o.Filter, SinglePass: o.SinglePass, TwoPass: o.TwoPass,
		Print: pipeline.Print{Format: o.Format, Verbose: o.Verbose, Hex: o.Hex, Fields: o.Fields, FieldOpts: o.FieldOpts,
			Style: style},
		Quiet: o.Quiet,
		Write: o.Write, WriteOut: o.IO.Out, PrintToo: o.Print,
		Stats:   o.Stats,
		Workers: nw,
	}, o.MemProfile)
}

// runPipeline runs cfg on the terminal: SIGINT/SIGTERM end the input as
// its end would, output is flushed as it waits, and the closing counts go
// to standard error once frames were read.
func runPipeline(io *iostreams.IO, cfg pipeline.Config, memProfile string) error {
	intr := notifyInterrupt(io.ErrOut)
	defer intr.Release()
	out := newTimedOut(io.Out, 256<<10)
	defer out.Close()
	intr.OnGiveUp(func() { out.Flush() })
	cfg.Out, cfg.Stop = out, intr
	res, err := pipeline.Run(cfg)
	if memProfile != "" && res.Engine != nil {
		writeHeapProfile(memProfile, res.Engine)
	}
	printCounts(io, res, err)
	return err
}

// printCounts is the closing line every decoding verb prints once frames
// were read; an error before any frame (a missing file, a directory, a bad
// capture filter, a first record already bad) is the one line said.
func printCounts(io *iostreams.IO, res pipeline.Result, err error) {
	if !res.Ran || err != nil && res.Frames == 0 {
		return
	}
	fmt.Fprintf(io.ErrOut, "rdx: %d frames; findings: %d errors, %d warnings, %d notes\n",
		res.Frames, res.Errors, res.Warnings, res.Notes)
}
