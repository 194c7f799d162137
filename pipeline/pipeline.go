// Package pipeline runs a capture source through a dissect.Engine and hands
// every frame to sinks: the printed summary, tree, JSON or fields, a pcapng
// -w file, the check tally and the -z tables. It is rdx read, check, stats
// and flows without the command line: cmd/rdx turns flags into a Config and
// calls Run, and tests call Run on captures directly.
//
// One Run is one or two passes over the input (two only when the output
// shows something a later frame taught, or -2 asks; see twoPasses), then
// the sinks' End in order. Frames reach sinks in frame order; a sink that
// needs the protocol tree says so (TreeSink) and gets it built once per
// frame for all of them. A bad record ends the run with an error after
// every frame before it reached the sinks, in one pass or two.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
	"github.com/rdx-project/rdx/internal/progress"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/render"
)

// Config is one run: where frames come from, how the engine is set up, and
// what is made of the frames.
type Config struct {
	Input  Input
	Engine dissect.Options
	// Out receives printed frames and the closing tables; it should be
	// buffered. When it has a Flush() error method, Run flushes it whenever a
	// live source has nothing ready and at the end (its error is reported).
	Out io.Writer
	// Stop, when set, ends reading early as the end of input would (SIGINT).
	Stop Stopper

	Count      int    // stop after N frames (0: all)
	Filter     string // display filter: frames not matching reach no sink
	SinglePass bool   // never read twice, even when a tree is shown (--single-pass)
	TwoPass    bool   // read twice even when nothing shown needs it (-2)

	Print Print // how frames are printed (validated even when Quiet)
	Quiet bool  // decode every frame, print none (-q)

	Write    string    // -w: frames passing the filter, as pcapng, to this file ("-": WriteOut)
	WriteOut io.Writer // where -w - goes (standard output, unbuffered)
	PrintToo bool      // -P: print frames while writing
	// WriteFormat is -F: pcapng (or ""), pcap (microseconds) or nsecpcap.
	WriteFormat string
	// WriteSink, with Write, takes the frames -w writes instead of a file
	// Run opens: rdx read over many files writes them all into one
	// (NewWriteSink), started and ended by the caller.
	WriteSink Sink

	Stats          []string // -z tables printed after the frames ("help" lists them)
	SkipEmptyStats bool     // leave out -z tables without rows
	// StatsMerged counts the -z tables but prints none: the caller merges
	// this run's engine with others' and prints them once (WriteStats).
	StatsMerged bool
	StatsFormat string        // "json": the -z tables as one JSON document (rdx stats/flows -T json)
	StatsStyle  *render.Style // the -z text tables' colours: header row, failure cells (nil: plain, as piped)

	// Check tallies every check (CRC, marker, ...) into Result.Checks and,
	// with a Format, prints the report at the end.
	Check *CheckReport

	// Sinks are more sinks (an exporter, a test), after the built-in ones.
	Sinks []Sink

	// Workers is how many engines decode, each the flows ShardKey hashes
	// to it (rdx -j N); 0 or 1 is one engine on the calling goroutine.
	// Some runs stay on one worker (parallel.go says which).
	Workers int
}

// Input is the capture source. A file can be read twice; standard input and
// a live interface only once.
type Input struct {
	File  string    // a capture file (pcap, pcapng, gzip); "-" reads Stdin
	Stdin io.Reader // for File "-"
	Iface string    // a live capture instead of File
	// CapFilter is the capture filter for Iface.
	CapFilter string
	// Snaplen is the octets Iface keeps of each packet (-s; 0: 262144).
	Snaplen int
	// ErrOut receives a live capture's start and kernel counters.
	ErrOut io.Writer
	// Open, when set, replaces File: it opens the frames afresh for each
	// pass (frames built in memory, a reader of the caller's), read as a
	// file is.
	Open func() (capture.Source, error)
	// Progress, when set, counts the octets read of File (or Stdin) and
	// the frames read, for a status line on a terminal.
	Progress *progress.Part
}

// Name is how findings and reports name the input.
func (in Input) Name() string {
	if in.Iface != "" {
		return "interface " + in.Iface
	}
	return in.File
}

func (in Input) rereadable() bool { return in.Open != nil || in.File != "-" && in.Iface == "" }

// Stopper ends a run early; cmd/rdx's SIGINT handler is one.
type Stopper interface {
	Stopped() bool         // cheap: asked once per frame
	Done() <-chan struct{} // closed on the stop (ends a wait for packets)
	Ack()                  // reading has stopped; the closing output follows
}

// StopFlagger is a Stopper whose Stopped is the load of a flag: the serial
// loop loads that itself, an interface call less per frame. StopFlag may
// return nil (then Stopped is asked).
type StopFlagger interface {
	StopFlag() *atomic.Bool
}

// Sink receives the frames a run shows.
type Sink interface {
	// Start is called once before the frames of the output pass.
	Start(e *dissect.Engine) error
	// Frame is called for every frame that passes the display filter, in
	// frame order. t is the frame's tree when the run builds trees, else
	// nil. f and t are only valid during the call; errors are kept for End.
	Frame(f *dissect.Frame, t *dissect.Tree)
	// End is called once after the last frame; err says why reading ended
	// early or why a sink before this one failed (nil when all went well).
	// A sink whose Start succeeded gets End even if a later Start failed.
	End(err error) error
}

// TreeSink is a sink that needs every frame's protocol tree.
type TreeSink interface {
	Sink
	NeedsTree() bool
}

// FieldSink is a TreeSink that reads only some fields of the tree: it
// adds them to set, and the trees then keep only those and what the other
// readers want (dissect.Tree.SetWant), unless one of them wants the whole
// tree (-V, JSON).
type FieldSink interface {
	TreeSink
	WantFields(set *dissect.FieldSet)
}

// Flusher is a sink that can write out what it buffers when a live source
// goes quiet.
type Flusher interface{ Flush() error }

// Result is what a run counted.
type Result struct {
	dissect.Counts        // findings by severity
	Frames         uint64 // frames decoded in the output pass
	// Ran is true once the output pass started: the counts are the run's.
	// False when Run stopped before (a usage error, -z help, an input
	// that could not be opened).
	Ran bool
	// Engine is the run's engine, for its tables and state after Run.
	Engine *dissect.Engine
	// Workers is how many engines decoded: Config.Workers, or 1 when the
	// run stayed on one (parallel.go lists when).
	Workers int
	// Checks is the check tally (Config.Check), one row per registered
	// check; ChecksFailed says whether any failed.
	Checks       []CheckRow
	ChecksFailed bool
}

// StatNames lists the -z tables.
func StatNames() []string { return dissect.NewEngine(dissect.Options{}).StatNames() }

// StatHelp is what -z help prints: the -z tables, with the forms that take
// a parameter (io,stat,INTERVAL).
func StatHelp() []string { return dissect.NewEngine(dissect.Options{}).StatHelp() }

// Check refuses what Run would refuse of cfg before reading its input (the
// output options, the display filter, -F, the -z names): a caller about to
// run cfg over many files says a usage error once.
func Check(cfg Config) error {
	if _, _, err := checkConfig(cfg); err != nil {
		return err
	}
	eng := dissect.NewEngine(dissect.Options{ZStats: cfg.Stats})
	known := eng.StatNames()
	for _, z := range cfg.Stats {
		if z != "help" && !slices.Contains(known, z) {
			if err := eng.CheckStat(z); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkConfig is the printer and display filter of cfg, or why cfg
// cannot run.
func checkConfig(cfg Config) (pr *printer, flt *filter.Filter, err error) {
	if pr, err = newPrinter(cfg); err != nil {
		return nil, nil, err
	}
	if cfg.Filter != "" {
		if flt, err = filter.Compile(cfg.Filter); err != nil {
			return nil, nil, err
		}
	}
	switch cfg.WriteFormat {
	case "", "pcapng", "pcap", "nsecpcap":
	default:
		return nil, nil, fmt.Errorf("-F %s: want pcapng, pcap or nsecpcap", cfg.WriteFormat)
	}
	return pr, flt, nil
}

// Run reads cfg.Input through a new engine and into the sinks. Errors are
// usage or input errors (bad options, unreadable input, a failed write);
// failed checks are not an error but Result.ChecksFailed. After a bad
// record the sinks have had every frame before it and their End, and the
// error names the file and frame.
func Run(cfg Config) (res Result, err error) {
	pr, flt, err := checkConfig(cfg)
	if err != nil {
		return res, err
	}
	var ck *checkSink
	if cfg.Check != nil {
		if ck, err = newCheckSink(cfg.Check, cfg.Input, cfg.Out, &res); err != nil {
			return res, err
		}
	}
	eo := cfg.Engine
	if eo.Source == "" && cfg.Input.File != "" { // findings name the file
		eo.Source = cfg.Input.File
		if eo.Source == "-" {
			eo.Source = "<stdin>"
		}
	}
	for _, z := range cfg.Stats {
		if strings.HasPrefix(z, "conv,") {
			eo.Conversations = true
		}
	}
	eo.ZStats = cfg.Stats
	eo.ZFilter = func(src string) (dissect.Matcher, error) { return filter.Compile(src) }
	nw := parallelWorkers(cfg)
	// tcp.stream and udp.stream count the whole capture's flows: shown on
	// -j workers, the reader numbers them (dissect.Engine.NumberStreams)
	// with an engine of its own and the whole budget.
	var numberer *dissect.Engine
	if nw > 1 && (flt != nil && flt.Global() || cfg.printing() && pr.shows(global)) {
		no := eo
		no.Conversations = false
		numberer = dissect.NewEngine(no)
	}
	whole := eo
	if nw > 1 && eo.MaxMem > 0 { // a budget given is shared; unset, each engine gets the default
		eo.MaxMem = workerShare(eo.MaxMem, nw)
	}
	eng := dissect.NewEngine(eo)
	if numberer == nil && nw > 1 && zGlobal(eng.ZMatchers()) { // a -z FILTER on tcp.stream...
		whole.Conversations, whole.ZStats = false, nil
		numberer = dissect.NewEngine(whole)
	}
	res.Engine, res.Workers = eng, nw
	if len(cfg.Stats) > 0 {
		known := eng.StatNames() // built afresh on each call: ask once
		for _, z := range cfg.Stats {
			if z == "help" {
				fmt.Fprintln(cfg.Out, strings.Join(eng.StatHelp(), "\n"))
				return res, flushOut(cfg.Out)
			}
			if !slices.Contains(known, z) {
				if err := eng.CheckStat(z); err != nil { // io,stat,INTERVAL
					return res, err
				}
			}
		}
	}

	// The sinks, in the order frames reach them and end. The printer is
	// always started and ended (a fields header, JSON's brackets) but sees
	// frames only when printing.
	var sinks, perFrame []Sink
	add := func(s Sink, frames bool) {
		sinks = append(sinks, s)
		if frames {
			perFrame = append(perFrame, s)
		}
	}
	if cfg.Write != "" && cfg.WriteSink != nil {
		add(cfg.WriteSink, true)
	} else if cfg.Write != "" {
		w := &pcapngSink{path: cfg.Write, stdout: cfg.WriteOut, format: cfg.WriteFormat}
		if cfg.Input.Iface != "" { // the file says how much of each packet it keeps
			w.snaplen = cfg.Input.Snaplen
		}
		if g, ok := cfg.Stop.(interface{ OnGiveUp(func()) }); ok {
			g.OnGiveUp(w.GiveUp) // cmd/rdx's interrupt: keep what was written
		}
		add(w, true)
	}
	add(pr, cfg.printing())
	if ck != nil {
		add(ck, true)
	}
	if len(cfg.Stats) > 0 && !cfg.StatsMerged { // reads the engine's tables at End only
		add(&statsSink{names: cfg.Stats, skipEmpty: cfg.SkipEmptyStats, format: cfg.StatsFormat, file: cfg.Input.File, out: cfg.Out,
			style: cfg.StatsStyle}, false)
	}
	for _, s := range cfg.Sinks {
		add(s, true)
	}
	// -z tables with a FILTER count a frame once its tree is built.
	zf := eng.NeedsTree()
	needTree := flt != nil || zf || (!cfg.Quiet && pr.needsTree())
	for _, s := range cfg.Sinks {
		if ts, ok := s.(TreeSink); ok && ts.NeedsTree() {
			needTree = true
		}
	}

	two, err := twoPasses(&cfg, pr, flt, eng.ZMatchers())
	if err != nil {
		return res, err
	}
	if err := checkWriteTarget(cfg); err != nil {
		return res, err
	}
	r := &runner{cfg: cfg, eng: eng, flt: flt, tree: needTree, zf: zf}
	want := treeWant(cfg, pr, flt)
	if want != nil && zf {
		eng.WantZ(want)
	}
	r.t.SetWant(want) // only what -T fields and -Y read
	if nw > 1 {
		if r.par, err = newParallel(cfg, eo, eng, nw); err != nil {
			return res, err
		}
		r.par.streams = numberer
		for _, w := range r.par.w {
			w.t.SetWant(want) // read only: the workers share it
		}
	}
	// The input is opened before any output: a missing or unreadable file
	// is one error, with no fields header, JSON bracket or -w file.
	if err := r.preopen(); err != nil {
		return res, err
	}
	defer r.closePre()
	if td, ok := r.pre.src.(interface{ TimeDigits() int }); ok { // the Time column's decimals
		pr.setDigits(td.TimeDigits())
		if r.par != nil {
			for _, w := range r.par.w {
				w.pr.setDigits(td.TimeDigits())
			}
		}
	}
	outPass := 0      // Frame.Pass: 0 for a single pass, 2 for the second of two
	var readErr error // a bad record met by the first pass
	if two {
		n1, err := r.pass(1, nil)
		if err != nil {
			// The output pass stops where this one failed and then
			// reports the same error: the frames before it are shown.
			readErr = err
			if r.cfg.Count == 0 || n1.frames < uint64(r.cfg.Count) {
				r.cfg.Count = int(n1.frames)
			}
		}
		r.rewind()
		outPass = 2
	}

	// The printer starts first: a fields header or JSON's "[" is out before
	// a -w file that cannot be created stops the run.
	if err := pr.Start(eng); err != nil {
		return res, err
	}
	for i, s := range sinks {
		if s == Sink(pr) {
			continue
		}
		if err := s.Start(eng); err != nil {
			for _, started := range sinks[:i] {
				if w, ok := started.(*pcapngSink); ok {
					w.discard = true // nothing was read: leave the target as it was
				}
				if started != Sink(pr) { // the printer's closing "]" is not for a run that did not start
					started.End(err)
				}
			}
			return res, err
		}
	}
	res.Ran = true
	var n passCounts
	if readErr == nil || r.cfg.Count > 0 { // Count 0 here: the first record was bad
		n, err = r.pass(outPass, perFrame)
	}
	if readErr != nil && err == nil {
		err = readErr
	}
	res.Frames, res.Counts = n.frames, n.Counts
	for _, f := range eng.TallyFindings() { // a -z table over its limit
		res.Counts.Add(f.Sev)
		if cfg.Input.ErrOut != nil {
			fmt.Fprintf(cfg.Input.ErrOut, "rdx: warning: %s\n", f.Msg)
		}
	}
	for _, s := range sinks {
		if e := s.End(err); e != nil && err == nil {
			err = e
		}
	}
	if ferr := flushOut(cfg.Out); ferr != nil && err == nil {
		err = fmt.Errorf("writing output: %w", ferr)
	}
	return res, err
}

// flushOut flushes Out when it buffers.
func flushOut(w io.Writer) error {
	if f, ok := w.(Flusher); ok {
		return f.Flush()
	}
	return nil
}

// runner is one run's reading state.
type runner struct {
	cfg  Config
	eng  *dissect.Engine
	flt  *filter.Filter
	tree bool
	zf   bool // -z tables with a FILTER: every frame of the output pass is counted with its tree
	t    dissect.Tree
	pre  *opened   // the input opened before the first pass (preopen)
	par  *parallel // -j N: the workers decode (parallel.go)
}

type opened struct {
	src  capture.Source
	stop func()
}

// preopen opens the input for the first pass, so an input that cannot be
// opened fails the run before any output.
func (r *runner) preopen() error {
	src, stop, err := r.cfg.Input.open()
	if err != nil {
		return err
	}
	r.pre = &opened{src, stop}
	return nil
}

// open opens the input for a pass: the first takes what preopen opened.
func (r *runner) open() (capture.Source, func(), error) {
	if o := r.pre; o != nil {
		r.pre = nil
		return o.src, o.stop, nil
	}
	return r.cfg.Input.open()
}

// closePre closes what preopen opened when no pass took it (a sink failed
// to start).
func (r *runner) closePre() {
	if o := r.pre; o != nil {
		r.pre = nil
		if o.stop != nil {
			o.stop()
		}
		o.src.Close()
	}
}

type passCounts struct {
	dissect.Counts
	frames uint64
}

// roomy says the heap has room for capture.Prefetch's wide ring: the
// engine's tables hold under a quarter of their budget. Tables that fill
// it bring the heap to the collector's memory limit, where every megabyte
// more costs collections: with the wide ring all along, 300,000 RDS/TCP
// connections (genrds -conns) took 85-92 collections instead of 61-65,
// and 3.0 s instead of 2.5.
func roomy(b *budget.Budget) bool { return b.Used() < b.Limit()/4 }

// pass reads the whole input once through the engine and hands every frame
// that passes the filter to sinks. It is the one place frames are decoded.
func (r *runner) pass(n int, sinks []Sink) (passCounts, error) {
	if r.par != nil {
		return r.par.pass(r, n, sinks)
	}
	src, stop, err := r.open()
	if err != nil {
		return passCounts{}, err
	}
	// Reading runs on the other core while this one decodes: a file in
	// batches; a live or piped source packet by packet, so each frame
	// shows as it arrives and a stop ends the wait for the next.
	var done <-chan struct{}
	if r.cfg.Stop != nil {
		done = r.cfg.Stop.Done()
	}
	var pf capture.Source
	ready := func() bool { return true }
	live := !r.cfg.Input.rereadable()
	if live {
		q := capture.NewQueue(src, stop, done)
		pf, ready = q, q.Ready
	} else {
		p, b := capture.NewPrefetch(src), r.eng.Budget()
		p.Widen(func() bool { return roomy(b) })
		pf = p
	}
	defer pf.Close()
	if _, ok := pf.(*capture.Prefetch); ok {
		// A batch's packets stay put until the next NextBatch, before
		// which refill reclaims; off (and reclaimed) before pf closes.
		r.eng.LendPackets(true)
		defer r.eng.LendPackets(false)
	}
	// Packets come a batch at a time (a file's Prefetch batch; one packet
	// of a live source) and are decoded with no call per packet. pkts[i:]
	// is what is left of the batch: the loop can leave after any frame and
	// pick up where it left off.
	var one [1]capture.Packet
	next := func() ([]capture.Packet, error) { err := pf.Next(&one[0]); return one[:], err }
	if b, ok := pf.(*capture.Prefetch); ok {
		next = b.NextBatch
	}
	var count uint64 // 0: no limit
	if r.cfg.Count > 0 {
		count = uint64(r.cfg.Count)
	}
	prog := r.cfg.Input.Progress
	fd := &feed{r: r, eng: r.eng, halt: r.cfg.Stop, count: count, sinks: sinks, emit: len(sinks) > 0 || r.zf && n != 1}
	fd.dp.Pass = n // one Packet, its fields set per frame
	if sf, ok := fd.halt.(StopFlagger); ok {
		fd.stop = sf.StopFlag()
	}
	c := &fd.c
	var readErr error
	// refill gets the next batch into fd.pkts; false at the end of the input.
	fd.refill = func() bool {
		if prog != nil {
			prog.SetFrames(c.frames) // an atomic store; the meter draws it
		}
		if live && !ready() {
			r.idle(sinks)
		}
		fd.eng.Reclaim() // the batch's memory goes back to the reader
		var err error
		if fd.pkts, err = next(); err != nil {
			fd.pkts = nil
			if !errors.Is(err, io.EOF) { // errors.Is only off the per-packet path
				readErr = err
			}
			return false
		}
		if count > 0 && uint64(len(fd.pkts)) > count-c.frames {
			fd.pkts = fd.pkts[:count-c.frames]
		}
		fd.i = 0
		return true
	}
	// One panic recovery for the whole loop, not one per frame
	// (Engine.Guard): a frame a dissector panicked on comes back from Guard
	// with its finding, is handed on here, and the loop resumes where it
	// left off (pkts[i:]).
	loop := fd.run
	for f := r.eng.Guard(loop); f != nil; f = r.eng.Guard(loop) {
		r.frame(c, f, sinks, n)
	}
	if prog != nil {
		prog.SetFrames(c.frames)
	}
	if readErr != nil {
		r.eng.Finish() // the tables that follow are of what was read
		return *c, readErr
	}
	if r.cfg.Stop != nil && r.cfg.Stop.Stopped() {
		r.cfg.Stop.Ack() // stopped reading: what follows prints what was read
	}
	r.eng.Finish()
	return *c, nil
}

// feed is pass's decode loop with its state in one struct: across the
// calls of the loop one pointer stays live, not the dozen captured values
// a closure would reload after every call.
type feed struct {
	r      *runner
	eng    *dissect.Engine
	halt   Stopper
	stop   *atomic.Bool     // halt's flag (StopFlagger), else nil
	pkts   []capture.Packet // what is left of the batch is pkts[i:]
	i      int
	count  uint64 // 0: no limit
	c      passCounts
	dp     dissect.Packet
	emit   bool
	sinks  []Sink
	refill func() bool
}

// run decodes frames until the input ends, count is reached or halt says
// stop; after a frame a dissector panicked on (Engine.Guard) it is called
// again and goes on from pkts[i:].
func (fd *feed) run() {
	for fd.count == 0 || fd.c.frames < fd.count {
		if fd.stop != nil {
			if fd.stop.Load() {
				return // as at the end of the input: the tables and counts follow
			}
		} else if fd.halt != nil && fd.halt.Stopped() {
			return
		}
		if fd.i >= len(fd.pkts) && !fd.refill() {
			return
		}
		pkt := &fd.pkts[fd.i]
		fd.i++
		fd.c.frames++
		dp := &fd.dp
		dp.Num, dp.TimeNS, dp.CapLen, dp.WireLen, dp.LinkType, dp.Iface, dp.Data = fd.c.frames, pkt.TimeNS, pkt.CapLen, pkt.WireLen, pkt.LinkType, pkt.Iface, pkt.Data
		f := fd.eng.DecodeRef(dp)
		for i := range f.Findings { // r.frame, inlined
			fd.c.Add(f.Findings[i].Sev)
		}
		if fd.emit {
			fd.r.emit(f, fd.sinks)
		}
	}
}

// frame counts a decoded frame's findings and hands it on (pass, for a
// frame Guard gives back).
func (r *runner) frame(c *passCounts, f *dissect.Frame, sinks []Sink, n int) {
	for i := range f.Findings {
		c.Add(f.Findings[i].Sev)
	}
	if len(sinks) > 0 || r.zf && n != 1 {
		r.emit(f, sinks)
	}
}

// rewind prepares the engines for the second pass.
func (r *runner) rewind() {
	if r.par != nil {
		r.par.rewind()
		return
	}
	r.eng.Rewind()
}

// emit builds the tree when the run needs it, applies the filter and hands
// the frame on.
func (r *runner) emit(f *dissect.Frame, sinks []Sink) {
	var t *dissect.Tree
	if r.tree {
		t = &r.t
		r.eng.BuildTree(t, f)
		if r.zf {
			r.eng.CountFiltered(f, t)
		}
		if r.flt != nil && !r.flt.Match(t) {
			return
		}
	}
	for _, s := range sinks {
		s.Frame(f, t)
	}
}

// idle writes out what is decoded when a live or piped source has nothing
// ready, so it shows at once rather than when a buffer fills.
func (r *runner) idle(sinks []Sink) {
	flushOut(r.cfg.Out)
	for _, s := range sinks {
		if f, ok := s.(Flusher); ok {
			f.Flush()
		}
	}
}

// open opens the input for one pass; stop (live captures) ends a blocked
// read.
func (in Input) open() (capture.Source, func(), error) {
	switch {
	case in.Open != nil:
		src, err := in.Open()
		return src, nil, err
	case in.Iface != "":
		l, err := openLive(in)
		if err != nil {
			return nil, nil, err
		}
		return l, l.Stop, nil
	case in.File == "-":
		src, err := capture.NewReader(in.Progress.Open(in.Stdin), "<stdin>")
		if err != nil {
			return nil, nil, err
		}
		return src, nil, nil
	default:
		var wrap func(io.Reader) io.Reader
		if in.Progress != nil {
			wrap = in.Progress.Open
		}
		src, err := capture.OpenWith(in.File, wrap)
		if err != nil {
			return nil, nil, err
		}
		return src, nil, nil
	}
}

// zGlobal reports whether a -z table's filter reads a field numbered over
// the whole capture (tcp.stream): -j workers then have the reader number
// them.
func zGlobal(ms []dissect.Matcher) bool {
	for _, m := range ms {
		if f, ok := m.(*filter.Filter); ok && f.Global() {
			return true
		}
	}
	return false
}
