package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
	"github.com/rdx-project/rdx/internal/iostreams"
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
	DecodeAs   []string
	Color      string
	SinglePass bool
	Quiet      bool
	Filter     string
	Stats      []string // -z NAME
	// SkipEmptyStats leaves out -z tables without rows (stats and flows verbs).
	SkipEmptyStats bool
	Write          string   // -w FILE: frames that pass -Y, as pcapng
	Print          bool     // -P: print frames even when writing
	Prefs          []string // -o NAME=VALUE protocol preferences
	CPUProfile     string
	MemProfile     string
	Config         map[string]string
	Iface          string // live capture instead of File (capture_live.go)
	CapFilter      string
	MaxMem         string // --max-mem: the reassembly and tracking memory budget

	intr *interrupt // SIGINT/SIGTERM ends the pass as the end of input would
	idle func()     // called when a live or piped source has nothing ready
}

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
			if slices.Contains(o.DecodeAs, "help") { // as -z help: list and stop
				return writeTables(io.Out)
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
	addPrefFlags(f, o)
	f.StringVar(&o.Color, "color", "auto", "colour: auto (terminal and no NO_COLOR), always, never")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "decode every frame but print only the closing counts (as tshark -q)")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (for performance work)")
	_ = f.MarkHidden("cpuprofile")
	f.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile of what is held at the end (for memory work)")
	_ = f.MarkHidden("memprofile")
	f.BoolVar(&o.SinglePass, "single-pass", false, "one pass only: requests do not show their reply frame")
	f.StringVarP(&o.Iface, "interface", "i", "", "dissect live traffic from IFACE (AF_PACKET; Ctrl-C stops)")
	f.StringVarP(&o.CapFilter, "capture-filter", "f", "", "capture filter for -i, e.g. \"udp port 7002\"")
	return cmd
}

// addPrefFlags adds -o NAME=VALUE (as tshark's -o) and the MPA shortcuts for
// streams whose Request/Reply is not in the capture.
func addPrefFlags(f *pflag.FlagSet, o *ReadOptions) {
	f.StringArrayVarP(&o.Prefs, "option", "o", nil, "protocol preference NAME=VALUE (also NAME:VALUE), e.g. mpa.crc=1")
	f.Var(prefFlag{o, "mpa.markers"}, "mpa-markers", "MPA decode-as without the handshake: markers on (1) or off (0)")
	f.Var(prefFlag{o, "mpa.crc"}, "mpa-crc", "MPA decode-as without the handshake: CRC on (1) or off (0)")
	f.StringVar(&o.MaxMem, "max-mem", "256M", "memory the process aims for (K, M, G); reassembly and tracking state get 25/32 of it, and the oldest is dropped, with a finding, beyond that")
}

// prefFlag is a flag that stands for one -o preference.
type prefFlag struct {
	o   *ReadOptions
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

// engineOptions turns -d and -o into engine options.
func engineOptions(o *ReadOptions) (dissect.Options, error) {
	eo := dissect.Options{Config: map[string]string{}, Source: o.File}
	if o.File == "-" {
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
	eo, err := engineOptions(o)
	if err != nil {
		return err
	}
	setMemoryLimit(eo.MaxMem)
	var fw *render.Fields
	switch o.Format {
	case "text", "json", "jsonl":
		if len(o.Fields) > 0 {
			return usageErr("-e needs -T fields")
		}
	case "fields":
		if len(o.Fields) == 0 {
			return usageErr("-T fields needs at least one -e FIELD")
		}
		var fo render.FieldsOpts
		for _, e := range o.FieldOpts {
			if err := fo.ParseE(e); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
		}
		var err error
		if fw, err = render.NewFields(o.Fields, fo); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	default:
		return usageErr("-T %s: want text, json, jsonl or fields", o.Format)
	}
	var style *render.Style
	if o.IO.SetColor(o.Color) {
		style = &render.Colors
	}
	var flt *filter.Filter
	if o.Filter != "" {
		var err error
		if flt, err = filter.Compile(o.Filter); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	needTree := (!o.Quiet && (o.Verbose || o.Format != "text")) || flt != nil
	o.intr = notifyInterrupt(o.IO.ErrOut)
	defer o.intr.Release()

	for _, z := range o.Stats {
		if strings.HasPrefix(z, "conv,") {
			eo.Conversations = true
		}
	}
	eng := dissect.NewEngine(eo)
	if o.MemProfile != "" {
		defer writeHeapProfile(o.MemProfile, eng)
	}
	for _, z := range o.Stats {
		if z == "help" {
			fmt.Fprintln(o.IO.Out, strings.Join(eng.StatNames(), "\n"))
			return nil
		}
		if !slices.Contains(eng.StatNames(), z) {
			return usageErr("-z %s: unknown statistics (known: %s)", z, strings.Join(eng.StatNames(), ", "))
		}
	}
	// Two passes when a tree is shown and the input can be read again, so a
	// request can name the frame of its reply (as tshark -2 does).
	outPass := 0 // Frame.Pass: 0 for a single pass, 2 for the second of two
	if needTree && !o.SinglePass && o.File != "-" && o.Iface == "" {
		if _, err := pass(o, eng, 1, nil); err != nil {
			return err
		}
		eng.Rewind()
		outPass = 2
	}

	out := newTimedOut(o.IO.Out, 256<<10)
	defer out.Close()
	o.intr.OnGiveUp(func() { out.Flush() })
	var (
		buf   []byte
		tree  dissect.Tree
		first = true
	)
	if fw != nil && fw.Opts.Header {
		out.Write(fw.Header(nil))
	}
	if o.Format == "json" {
		out.WriteString("[\n")
	}
	var wr *frameWriter
	if o.Write != "" {
		var err error
		if wr, err = newFrameWriter(o); err != nil {
			return err
		}
		defer wr.close()
	}
	// A live or piped source: what is decoded shows as soon as the source
	// has nothing more ready, not when a buffer fills.
	o.idle = func() {
		out.Flush()
		if wr != nil {
			wr.flush()
		}
	}
	printing := !o.Quiet && (o.Write == "" || o.Print)
	emit := func(f *dissect.Frame) {
		buf = buf[:0]
		if needTree {
			eng.BuildTree(&tree, f)
			if flt != nil && !flt.Match(&tree) {
				return
			}
		}
		if wr != nil {
			wr.write(f)
		}
		if !printing {
			return
		}
		switch o.Format {
		case "text":
			if o.Verbose {
				if !first {
					buf = append(buf, '\n')
				}
				buf = render.Verbose(buf, &tree, style)
			} else {
				start, _ := eng.Times()
				buf = render.Summary(buf, f, start, style)
			}
			if o.Hex {
				if o.Verbose {
					buf = append(buf, '\n')
				}
				buf = render.Hex(buf, f.Data)
				if !o.Verbose {
					buf = append(buf, '\n')
				}
			}
		case "json":
			if !first {
				buf = append(buf, ",\n"...)
			}
			buf = render.JSON(buf, &tree, f.TimeNS, true)
		case "jsonl":
			buf = render.JSON(buf, &tree, f.TimeNS, false)
			buf = append(buf, '\n')
		case "fields":
			buf = fw.Row(buf, &tree)
		}
		first = false
		out.Write(buf)
	}
	if o.Quiet && wr == nil {
		emit = nil
	}
	counts, err := pass(o, eng, outPass, emit)
	if wr != nil && err == nil {
		err = wr.close()
	}
	if o.Format == "json" {
		if !first {
			out.WriteString("\n")
		}
		out.WriteString("]\n")
	}
	for _, z := range o.Stats {
		if t := eng.Stat(z); err == nil && (!o.SkipEmptyStats || t != nil && len(t.Rows) > 0) {
			writeStat(out, t)
		}
	}
	if ferr := out.Close(); ferr != nil && err == nil {
		err = &exitError{code: exitUsage, err: fmt.Errorf("writing output: %w", ferr)}
	}
	fmt.Fprintf(o.IO.ErrOut, "rdx: %d frames; findings: %d errors, %d warnings, %d notes\n",
		counts.frames, counts.Errors, counts.Warnings, counts.Notes)
	return err
}

type passCounts struct {
	dissect.Counts
	frames uint64
}

// pass reads the whole input once through the engine and calls emit (if not
// nil) for every frame.
func pass(o *ReadOptions, eng *dissect.Engine, n int, emit func(*dissect.Frame)) (passCounts, error) {
	var c passCounts
	var src capture.Source
	var err error
	if o.Iface != "" {
		src, err = openLiveRead(o)
	} else if o.File == "-" {
		src, err = capture.NewReader(o.IO.In, "<stdin>")
	} else {
		src, err = capture.Open(o.File)
	}
	if err != nil {
		return c, &exitError{code: exitUsage, err: err}
	}
	// Reading runs on the other core while this one decodes: a file in
	// batches; a live or piped source packet by packet, so each frame
	// shows as it arrives and a signal ends the wait for the next.
	var pf capture.Source
	ready := func() bool { return true }
	switch {
	case o.Iface != "":
		q := capture.NewQueue(src, src.(*liveRead).Stop, o.intr.Done())
		pf, ready = q, q.Ready
	case o.File == "-":
		q := capture.NewQueue(src, nil, o.intr.Done())
		pf, ready = q, q.Ready
	default:
		pf = capture.NewPrefetch(src)
	}
	defer pf.Close()
	var one capture.Packet
	next := func() (*capture.Packet, error) { err := pf.Next(&one); return &one, err }
	if r, ok := pf.(interface {
		NextRef() (*capture.Packet, error)
	}); ok {
		next = r.NextRef // no copy of each packet's description
	}
	for o.Count <= 0 || c.frames < uint64(o.Count) {
		if o.intr.Stopped() {
			break // as at the end of the input: the tables and counts follow
		}
		if o.idle != nil && !ready() {
			o.idle()
		}
		pkt, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c, &exitError{code: exitUsage, err: err}
		}
		c.frames++
		f := eng.Decode(dissect.Packet{Num: c.frames, TimeNS: pkt.TimeNS, CapLen: pkt.CapLen, WireLen: pkt.WireLen, LinkType: pkt.LinkType, Iface: pkt.Iface, Data: pkt.Data, Pass: n})
		for i := range f.Findings {
			c.Add(f.Findings[i].Sev)
		}
		if emit != nil {
			emit(f)
		}
	}
	if o.intr.Stopped() {
		o.intr.Ack() // stopped reading: what follows prints what was read
	}
	eng.Finish()
	return c, nil
}

// writeStat prints a -z table after the frames, as tshark does.
func writeStat(w io.Writer, t *dissect.StatTable) {
	if t == nil {
		return
	}
	fmt.Fprintf(w, "\n%s\n", t.Title)
	tb := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAlignment(tw.AlignLeft), tablewriter.WithHeaderAutoFormat(tw.Off))
	tb.Header(t.Header)
	for _, r := range t.Rows {
		_ = tb.Append(r)
	}
	if len(t.Rows) == 0 {
		fmt.Fprintln(w, "(none)")
		return
	}
	_ = tb.Render()
}

// frameWriter writes frames to a pcapng file, one interface per link type
// met (a pcapng file can mix them), for -w.
type frameWriter struct {
	f      *os.File
	bw     *bufio.Writer
	w      *capture.PcapngWriter
	ifaces map[uint16]int
	closed bool
	err    error
}

func newFrameWriter(o *ReadOptions) (*frameWriter, error) {
	fw := &frameWriter{ifaces: map[uint16]int{}}
	var out io.Writer = o.IO.Out
	if o.Write != "-" {
		f, err := os.Create(o.Write)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		fw.f, out = f, f
	}
	fw.bw = bufio.NewWriterSize(out, 1<<20)
	w, err := capture.NewPcapngWriter(fw.bw)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	fw.w = w
	return fw, nil
}

func (fw *frameWriter) write(f *dissect.Frame) {
	if fw.err != nil {
		return
	}
	id, ok := fw.ifaces[f.LinkType]
	if !ok {
		if id, fw.err = fw.w.AddInterface(f.LinkType, capture.MaxRecord, ""); fw.err != nil {
			return
		}
		fw.ifaces[f.LinkType] = id
	}
	fw.err = fw.w.WritePacket(&capture.Packet{Data: f.Data, TimeNS: f.TimeNS, CapLen: f.CapLen, WireLen: f.WireLen,
		LinkType: f.LinkType, Iface: id})
}

// flush writes out the frames buffered so far.
func (fw *frameWriter) flush() {
	if fw.err == nil && !fw.closed {
		fw.err = fw.bw.Flush()
	}
}

func (fw *frameWriter) close() error {
	if fw.closed {
		return fw.err
	}
	fw.closed = true
	if err := fw.bw.Flush(); err != nil && fw.err == nil {
		fw.err = err
	}
	if fw.f != nil {
		if err := fw.f.Close(); err != nil && fw.err == nil {
			fw.err = err
		}
	}
	if fw.err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("writing the -w file: %w", fw.err)}
	}
	return nil
}
