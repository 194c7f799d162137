package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rdx-project/rdx/capture"
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
	Files      []string // every capture named (-r, repeatable, and arguments): more than one are read in parallel
	Verbose    bool
	Hex        bool
	Format     string // text, json, jsonl, fields
	Fields     []string
	FieldOpts  []string
	Count      int
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
	TimeFormat string // -t
	Seconds    string // -u s|hms
	NoResolve  bool   // -n: accepted; rdx resolves no names
	Resolve    string // -N FLAGS: accepted, checked; rdx resolves no names
	LineFlush  bool   // -l: write every frame out as it is printed
	WriteFmt   string // -F: the -w file's format
	Snaplen    int    // -s: octets kept of each packet of -i
	ListIfaces bool   // -D
	Only       string // -O PROTO[,PROTO...]
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

// prefHelp reports whether -o help asks for the list of preferences.
func (e *EngineFlags) prefHelp() bool { return slices.Contains(e.Prefs, "help") }

// writePrefs lists the -o preferences, their values and what they do.
func writePrefs(w io.Writer) error {
	for _, p := range dissect.Prefs() {
		if _, err := fmt.Fprintf(w, "%s\t%s\t%s\n", p.Name, strings.Join(p.Values, "|"), p.Desc); err != nil {
			return err
		}
	}
	return nil
}

func newCmdRead(io *iostreams.IO, runF func(*ReadOptions) error) *cobra.Command {
	o := &ReadOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "read [-r] FILE...",
		Short: "Dissect capture files (pcap, pcapng, gzip; - for stdin) like tshark -r",
		Long: `read dissects a capture file as tshark -r does.

Over several files (arguments, or -r repeated) each is read by its own
engine, -j N files at once (default one per core), and printed in the
order given, each exactly as rdx read -r FILE prints it alone (its own
frame numbers, times, -c and -T json array). The -z tables and the
closing counts are printed once, at the end, merged over the files: a
frame in them is named with its file (pts-ops.pcap:12). -w writes every
file's frames into one file, in the order given. A damaged or missing
file is reported and the others are read all the same (exit status 2).`,
		Example: `  rdx read pcaps/rx/bos-queries.pcap
  rdx read -q -z conv,udp pcaps/rx/*.pcap
  rdx read -V -r pcaps/rx/pts-ops.pcap -c 4
  rdx read -T fields -e frame.number -e rx.seq -E header=y FILE
  rdx read -d udp.port==4000,rx FILE`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.tableHelp() {
				return writeTables(io.Out)
			}
			if o.prefHelp() {
				return writePrefs(io.Out)
			}
			if o.ListIfaces {
				return listInterfaces(io.Out)
			}
			if slices.Contains(o.Stats, "help") { // as tshark -z help: no capture needed
				_, err := fmt.Fprintln(io.Out, strings.Join(pipeline.StatHelp(), "\n"))
				return err
			}
			o.Files = append(o.Files, args...)
			if len(o.Files) > 0 {
				o.File = o.Files[0]
			}
			if o.Iface != "" && o.File != "" {
				return usageErr("give a capture file or -i IFACE, not both")
			}
			if o.File == "" && o.Iface == "" {
				return usageErr("no capture file: use rdx read -r FILE (or - for standard input)")
			}
			if err := o.checkFlags(cmd.Flags()); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return readRun(o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.Files, "read-file", "r", nil, "capture file to read (- for standard input); repeat it, or give more arguments, to read several")
	f.BoolVarP(&o.Verbose, "verbose", "V", false, "print the protocol tree of every frame")
	f.BoolVarP(&o.Hex, "hex", "x", false, "print a hex dump of every frame (-T json: tshark's \"_raw\" members, [hex, offset, length, bitmask, type])")
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
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "decode every frame but print only the closing counts (as tshark -q)")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (for performance work)")
	_ = f.MarkHidden("cpuprofile")
	f.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile of what is held at the end (for memory work)")
	_ = f.MarkHidden("memprofile")
	f.BoolVar(&o.SinglePass, "single-pass", false, "one pass only, even for -V and JSON: requests do not show their reply frame")
	f.BoolVarP(&o.TwoPass, "two-pass", "2", false, "read the file twice, as tshark -2 (done anyway when the output shows a later frame: -V, JSON, -e/-Y naming a reply frame)")
	f.StringVarP(&o.Iface, "interface", "i", "", "dissect live traffic from IFACE (AF_PACKET; Ctrl-C stops)")
	f.StringVarP(&o.CapFilter, "capture-filter", "f", "", "capture filter for -i, e.g. \"udp port 7002\"")
	f.StringVarP(&o.TimeFormat, "time-format", "t", "r", "Time column: r (since the first frame), a/ad/adoy (local time, date, year/day), u/ud/udoy (UTC), d (since the previous frame), dd (since the previous shown frame), e (epoch); decimals as the capture's timestamps")
	f.StringVarP(&o.Seconds, "seconds-format", "u", "s", "relative and delta times as s (seconds) or hms (1h 2m 3.000000s)")
	f.StringVarP(&o.WriteFmt, "write-format", "F", "pcapng", "-w file format: pcapng, pcap (microseconds, one link type) or nsecpcap")
	f.IntVarP(&o.Snaplen, "snapshot-length", "s", capture.DefaultSnaplen, "with -i: octets to keep of each packet")
	f.BoolVarP(&o.ListIfaces, "list-interfaces", "D", false, "list the interfaces -i can capture on, and exit")
	f.StringVarP(&o.Only, "only-protocols", "O", "", "with -V, the full tree only of these protocols (comma-separated, e.g. rx,afs); the others show their one line")
	f.BoolVarP(&o.NoResolve, "no-resolve", "n", false, "no name resolution (as tshark -n; rdx never resolves names: addresses and ports print as numbers)")
	f.StringVarP(&o.Resolve, "resolve", "N", "", "name resolution flags of tshark (mnNtdv): accepted, and nothing is resolved")
	f.BoolVarP(&o.LineFlush, "line-buffered", "l", false, "write every frame out as soon as it is printed (as tshark -l; decodes on one core)")
	addReadCompletions(cmd)
	return cmd
}

// checkFlags refuses combinations and values rdx would otherwise ignore.
func (o *ReadOptions) checkFlags(f *pflag.FlagSet) error {
	switch {
	case o.CapFilter != "" && o.File != "":
		return usageErr("-f %q: a capture filter is for -i; to select frames of a file use -Y (tshark refuses it too)", o.CapFilter)
	case f.Changed("count") && o.Count == 0:
		return usageErr("-c 0: the packet count is zero (leave -c out to read every frame)")
	case o.Count < 0:
		return usageErr("-c %d: the packet count is negative", o.Count)
	case f.Changed("snapshot-length") && o.Iface == "":
		return usageErr("-s %d: the snapshot length is for -i (a file's frames were cut when captured)", o.Snaplen)
	case o.Snaplen <= 0 || o.Snaplen > capture.DefaultSnaplen:
		return usageErr("-s %d: want 1..%d", o.Snaplen, capture.DefaultSnaplen)
	case f.Changed("write-format") && o.Write == "":
		return usageErr("-F %s: says the format of a -w file, and there is no -w", o.WriteFmt)
	case o.Verbose && o.Format == "fields":
		return usageErr("-V prints the protocol tree and -T fields prints columns: give one of them")
	}
	return nil
}

// listInterfaces prints the interfaces as tshark -D does: "N. name", with
// "(Loopback)" after a loopback one.
func listInterfaces(w io.Writer) error {
	ifs, err := net.Interfaces()
	if err != nil {
		return usageErr("listing interfaces: %v", err)
	}
	for i, ifc := range ifs {
		note := ""
		if ifc.Flags&net.FlagLoopback != 0 {
			note = " (Loopback)"
		}
		if _, err := fmt.Fprintf(w, "%d. %s%s\n", i+1, ifc.Name, note); err != nil {
			return err
		}
	}
	return nil
}

// checkResolve checks -N's letters as tshark does; rdx resolves none.
func checkResolve(flags string) error {
	for _, c := range flags {
		if !strings.ContainsRune("mnNtdvsg", c) {
			return usageErr("-N %s: %q is not a name resolution flag (want letters of mnNtdvsg)", flags, c)
		}
	}
	return nil
}

// addPrefFlags adds -o NAME=VALUE (as tshark's -o) and the MPA shortcuts for
// streams whose Request/Reply is not in the capture.
func addPrefFlags(f *pflag.FlagSet, o *EngineFlags) {
	f.StringArrayVarP(&o.Prefs, "option", "o", nil, "protocol preference NAME=VALUE (also NAME:VALUE), e.g. mpa.crc=1")
	f.Var(prefFlag{o, "mpa.markers"}, "mpa-markers", "MPA decode-as without the handshake: markers on (1) or off (0)")
	f.Var(prefFlag{o, "mpa.crc"}, "mpa-crc", "MPA decode-as without the handshake: CRC on (1) or off (0)")
	f.IntVarP(&o.Workers, "jobs", "j", runtime.NumCPU(), "decode on N cores, each flow (IP, GID or LID pair) on one; output as with -j 1, which is the one-core path (a large file whose first frames are nearly all of one worker's flows runs on one)")
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
	} // else 0: every engine, each -j worker's too, gets budget.DefaultLimit
	for _, kv := range o.Prefs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			k, v, ok = strings.Cut(kv, ":")
		}
		if !ok || k == "" {
			return eo, usageErr("-o %s: want NAME=VALUE", kv)
		}
		if err := dissect.CheckPref(k, v); err != nil {
			return eo, usageErr("-o %s: %v", kv, err)
		}
		eo.Config[k] = v
	}
	return eo, nil
}

// setMemoryLimit makes --max-mem the process's size too: a soft limit for
// Go's collector (without one the heap grows to twice the live data). share
// is the tables' part of it (budget.StateShare); 0, not given, is the
// default of each of the workers' engines. GOMEMLIMIT, when set, wins.
// Under the limit the collector runs at gcPercent (GOGC, when set, wins),
// but not before the process holds half the limit (see firstGC).
func setMemoryLimit(share int64, workers int) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if share <= 0 {
		share = budget.DefaultLimit * int64(max(workers, 1))
	}
	limit := budget.ProcessSize(share)
	gen := gcGen.Add(1) // a cleanup of an earlier call changes nothing now
	if os.Getenv("GOGC") != "" {
		debug.SetMemoryLimit(limit)
		return
	}
	// Until the first collection only a limit of firstGC starts one; once
	// it is done, the collector paces by gcPercent under the whole limit
	// (raised first: the old one must not start another collection).
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstGC(limit))
	runtime.AddCleanup(new(gcSentinel), func(gen uint64) {
		if gcGen.Load() == gen {
			debug.SetMemoryLimit(limit)
			debug.SetGCPercent(gcPercent)
		}
	}, gen)
}

// gcPercent lets the heap grow to 3 times the live data, not Go's 2, before
// a collection: the memory limit above still bounds it, so the peak on any
// input is that of the limit, as before (300,000 RDS/TCP connections
// from genrds -conns, which fill the tables: 82 MB at -j1 and 129 MB at
// -j2 with 100, 84 and 126 with 200), while a run whose tables fill slowly
// collects less often: 1M Rx packets (read -q) 1 collection instead of 3
// at -j1, 2 instead of 4 at -j2, at the same maxrss.
const gcPercent = 200

// firstGC is how much memory a process of the given limit holds before its
// first collection: half of it, what its tables may hold (32 MB with the
// defaults at -j1, 64 MB at -j2). Go's own first goal is 4 MB times
// GOGC/100 plus the globals (11 MB here), and rdx's live data alone reaches
// that on most big inputs (rx64, roce1-1m -j2, rds100m: 9-10 MB live of
// 10-12 MB at the one collection each made; at -j2 the heap then grows to
// 25 MB, nearly all live), so that collection freed almost nothing and cost
// 60 ms of CPU of a 350 ms rx64 read -q -j1, a third of it the 1,300 page
// faults of its first scan of gopacket's 5 MB of enum tables. rdx
// allocates little per frame, so a heap that reaches firstGC is mostly
// tables, which the collections after it find at their usual pace.
func firstGC(limit int64) int64 { return limit / 2 }

// gcGen counts setMemoryLimit's calls; gcSentinel is garbage from the
// start, so its cleanup runs after the first collection that follows.
var gcGen atomic.Uint64

type gcSentinel struct {
	_ *byte // not a tiny allocation, whose cleanup might never run
	_ [16]byte
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
	if len(o.Files) > 1 {
		return readMany(o)
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
	cfg, plots, err := readConfig(o, eo, nw)
	if err != nil {
		return err
	}
	m, rio := newProgress(o.IO, o.showProgress(), "read")
	m.Rounds("pass")
	m.Start()
	defer m.Stop()
	cfg.Input = pipeline.Input{File: o.File, Stdin: o.IO.In, Iface: o.Iface, CapFilter: o.CapFilter, Snaplen: o.Snaplen, ErrOut: rio.ErrOut,
		Progress: m.Part(fileSize(o.File))}
	addZPlots(&cfg, plots, cfg.Input.Name())
	// nothing reads a dissector's -z table after this run (not even a
	// -z plot sink): skip their per-frame counting
	cfg.Engine.NoProtoStats = len(cfg.Stats) == 0 && len(cfg.Sinks) == 0
	err = runPipeline(rio, cfg, o.MemProfile, o.LineFlush)
	return errors.Join(err, writeZPlots(rio, plots, err))
}

// showProgress says whether a status line is drawn while files are read
// (on a terminal): not with -q, nor when the frames print to that
// terminal (it would be drawn among them).
func (o *ReadOptions) showProgress() bool {
	printsFrames := o.Write == "" || o.Write == "-" || o.Print
	return !o.Quiet && o.Iface == "" && (!o.IO.IsStdoutTTY() || !printsFrames)
}

// readConfig is o's run of one capture with engine options eo on nw
// workers, its Input left to the caller, and the -z plots asked for.
func readConfig(o *ReadOptions, eo dissect.Options, nw int) (pipeline.Config, []zPlot, error) {
	if err := checkResolve(o.Resolve); err != nil {
		return pipeline.Config{}, nil, err
	}
	if o.LineFlush {
		nw = 1 // -j's rounds would hold frames back
	}
	var only []string
	if o.Only != "" {
		only = strings.Split(o.Only, ",")
		o.Verbose = true // as tshark: -O implies -V
	}
	tf, err := render.ParseTimeFormat(o.TimeFormat)
	if err != nil {
		return pipeline.Config{}, nil, usageErr("%v", err)
	}
	var hms bool
	switch o.Seconds {
	case "s", "":
	case "hms":
		hms = true
	default:
		return pipeline.Config{}, nil, usageErr("-u %s: want s or hms", o.Seconds)
	}
	stats, plots, err := zPlots(o.Stats) // -z io,stat,INTERVAL,plot=FILE (plot.go)
	if err != nil {
		return pipeline.Config{}, nil, err
	}
	return pipeline.Config{
		Engine: eo,
		Count:  o.Count, Filter: o.Filter, SinglePass: o.SinglePass, TwoPass: o.TwoPass,
		Print: pipeline.Print{Format: o.Format, Verbose: o.Verbose, Hex: o.Hex, Fields: o.Fields, FieldOpts: o.FieldOpts,
			Style: o.IO.Style(), Time: tf, HMS: hms, Only: only, LineFlush: o.LineFlush},
		Quiet: o.Quiet,
		Write: o.Write, WriteOut: o.IO.Out, PrintToo: o.Print, WriteFormat: o.WriteFmt,
		Stats: stats, StatsStyle: o.IO.Style(),
		Workers: nw,
	}, plots, nil
}

// runPipeline runs cfg on the terminal: SIGINT/SIGTERM end the input as
// its end would, output is flushed as it waits, and the closing counts go
// to standard error once frames were read.
// flushEach (-l) writes every Write out at once.
func runPipeline(io *iostreams.IO, cfg pipeline.Config, memProfile string, flushEach bool) error {
	intr := notifyInterrupt(io.ErrOut)
	defer intr.Release()
	out := newTimedOut(io.Out, 256<<10)
	defer out.Close()
	intr.OnGiveUp(func() { out.Flush() })
	cfg.Out, cfg.Stop = out, intr
	if flushEach {
		cfg.Out = flushingOut{out}
	}
	res, err := pipeline.Run(cfg)
	if memProfile != "" && res.Engine != nil {
		writeHeapProfile(memProfile, res.Engine)
	}
	printCounts(io, res, err)
	return err
}

// flushingOut writes out every Write (-l): the printer writes each frame
// with one call on one worker.
type flushingOut struct{ *timedOut }

func (f flushingOut) Write(p []byte) (int, error) {
	n, err := f.timedOut.Write(p)
	if err == nil {
		err = f.Flush()
	}
	return n, err
}

// printCounts is the closing line every decoding verb prints once frames
// were read; an error before any frame (a missing file, a directory, a bad
// capture filter, a first record already bad) is the one line said.
func printCounts(io *iostreams.IO, res pipeline.Result, err error) {
	if !res.Ran || err != nil && res.Frames == 0 {
		return
	}
	fmt.Fprintf(io.ErrOut, "rdx: %s; findings: %s, %s, %s\n", render.Plural(res.Frames, "frame"),
		render.Plural(res.Errors, "error"), render.Plural(res.Warnings, "warning"), render.Plural(res.Notes, "note"))
}
