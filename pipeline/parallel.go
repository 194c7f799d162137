package pipeline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sync/atomic"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
	"github.com/rdx-project/rdx/internal/prefault"
	"github.com/rdx-project/rdx/render"
)

// Flow-sharded reading (Config.Workers > 1, rdx -j N). One goroutine reads
// the input (it is the prefetch: decoding never waits for a read), numbers the frames and sends each
// to worker dissect.ShardKey % N (through a dissect.ShardCache), so all state of a flow lives in one
// worker's engine. Frames travel in rounds of up to roundFrames frames: a
// round holds their packets (a pcap file's are views of the reader's
// buffers, capture.Reader.TakeBuffered: the round keeps the buffers the
// reader moved on from until it is free again, and rounds are freed in
// order) and the worker of each. Every worker goes through the round and
// decodes its frames in frame order with its own engine, rendering every
// shown frame (summary, -V, JSON, fields, -x) into its batch; the calling
// goroutine takes the rounds in order and writes each run of consecutive
// frames of one worker (each frame, when something goes between frames or
// -w writes them) from that worker's batch, so the output is byte for byte
// that of one worker. What needs the
// frames before (frame numbers, the first and previous frame's time, -c, a
// stop) the reader provides; what goes between frames (JSON's commas, -V's
// blank lines) and -w's pcapng interfaces the merger does. At the end each
// worker's engine finishes, the check tallies add up and worker 0's engine
// takes the others' statistics (dissect.Engine.Merge) for the -z tables.
//
// Runs that stay on one worker (parallelWorkers):
//   - a live interface or standard input: frames show as they arrive, and
//     rounds would hold them back;
//   - Config.Sinks: a caller's sink sees frames from one engine and may not
//     be safe to call from a worker;
//   - -t dd with a display filter: a frame's time counts from the
//     previous frame shown, which another worker may have decided;
//   - a file of 8 MiB or more whose first 4,096 frames go 13/16 or more to
//     one worker (skewed): one flow, or one that carries nearly all.
//
// A field numbered over the whole capture (dissect.Field.Global:
// tcp.stream, udp.stream; so every -V and JSON tree) would count only a
// worker's own flows: when the output shows one, the reader numbers every
// frame's conversations with an engine of its own (parallel.streams,
// dissect.Engine.NumberStreams) and the round carries the numbers to the
// worker, whose engine shows them instead of its own.

const (
	// roundsInFlight bounds the rounds read but not yet written: the reader
	// waits for a free one. Every round goes to all workers at once, so the
	// depth that keeps them busy does not grow with their number; memory is
	// about this many times roundBytes and a round's rendered output.
	roundsInFlight = 6
	// roundBytes is the packet octets a round holds (views of the
	// reader's buffers, or copies in data, allocated once): a frame that
	// does not fit starts the next round, so jumbo frames make rounds of
	// fewer frames, not larger ones.
	roundBytes = 2 << 20
	// outPerFrame is the rendered output a batch starts with room for per
	// frame (a summary line); -V grows it once.
	outPerFrame = 64
	// directRun: a run of this much output the merger writes from the
	// worker's batch, not copied into the printer's buffer first (one flow
	// makes a round one run).
	directRun = 16 << 10
	// mergeLag is the most rounds the merger takes at once (pass).
	mergeLag = roundsInFlight / 2
	// outSlack: with less room than this left before a frame, a batch's
	// output doubles (outRoom). Rendering would grow it by a quarter at a
	// time (Go's append), each step a copy and the old array garbage: the
	// rounds in flight of RoCE summary lines (200 octets a frame) made
	// 4.5 MB of it at -j 2.
	outSlack = 4 << 10
)

// roundFrames is the most frames a round carries. Every round wakes each
// of its workers and the merger: long ago, with -q -j 2, rounds of 8192
// frames took about 15% less CPU in all than rounds of 1024 (measured on 1M
// Rx packets). Now rounds of 2048 take about 10% less than 8192 (task-clock
// medians of 15 alternated runs, 325 against 365 ms; 1024: about as 2048,
// 3072: as 8192): the six rounds in flight let the reader run up to 40,000
// frames (6 MB) ahead of the workers, whose reads of the packets then miss
// the caches; with 2048 it is 1.5 MB.
// A run that prints keeps every shown frame's text until the merger writes
// the round, and the merger reads it from the other core: its rounds are
// of 512 frames per worker, so the rounds in flight (their packets and
// text) stay in the caches. With rounds of 8192, -j 2 summary lines of 1M
// Rx packets took 40% more CPU and 23 MB more memory, and -T fields
// (rounds of 1024) took more CPU at -j 2 than at -j 1 in any case.
func roundFrames(workers int, printing bool) int {
	if printing {
		return min(max(1024, 512*workers), 8192)
	}
	return min(max(2048, 1024*workers), 16384)
}

// batchFrames is the frames a batch starts with room for: twice a fair
// share of the round, so only a skewed round grows it.
func batchFrames(round, workers int) int {
	return min(round, 2*round/workers+16)
}

// parallelWorkers is the number of workers cfg runs on: Config.Workers, or
// one when the run is of a kind listed above or its file is skewed.
func parallelWorkers(cfg Config) int {
	switch {
	case cfg.Workers <= 1,
		!cfg.Input.rereadable(),
		len(cfg.Sinks) > 0,
		cfg.Print.Time == render.TimeDeltaDisplayed && cfg.Filter != "":
		return 1
	}
	n := min(cfg.Workers, maxWorkers)
	if skewed(cfg, n) {
		return 1
	}
	return n
}

// A large file whose first frames nearly all go to one worker runs on one
// (skewed): the other workers would idle while every frame still paid the
// hand-off between cores. One RoCE flow (a QP pair and its READs) took
// 0.60 s at -j 2 against 0.49 s at -j 1, one RDS/TCP connection 14% longer
// (make bench). The output is the same either way.
const (
	// skewMinSize: smaller files are not looked at first (a run of them
	// takes milliseconds, and the -j equality tests' captures in pcaps/
	// stay on the workers they ask for).
	skewMinSize = 8 << 20
	// skewBytes and skewFrames bound what is keyed: the frames in the
	// first 128 KiB (~900 Rx frames, ~300 RoCE ones), at most 4,096. A
	// reader of the whole file would map in a 1 MiB buffer, ~2.5 ms of
	// page faults on a run that may stay on the workers.
	skewBytes  = 128 << 10
	skewFrames = 4096
	// skewMinFrames: fewer (jumbo frames) decide nothing.
	skewMinFrames = 64
)

// skewed reports whether at least 13/16 of the frames at the start of
// cfg's file go to one of nw workers: then -j costs more than it saves.
// Each frame's worker is the one read picks (shards).
// A file that cannot be read here is left to the run to report.
func skewed(cfg Config, nw int) bool {
	in := cfg.Input
	if in.Open != nil || in.Iface != "" || in.File == "" || in.File == "-" {
		return false
	}
	// Stat before Open: opening a named pipe would wait for its writer,
	// and closing it then would cut the writer off before the run.
	if st, err := os.Stat(in.File); err != nil || !st.Mode().IsRegular() || st.Size() < skewMinSize {
		return false
	}
	f, err := os.Open(in.File)
	if err != nil {
		return false
	}
	defer f.Close()
	src, err := capture.NewReader(head{io.NewSectionReader(f, 0, skewBytes)}, in.File)
	if err != nil {
		return false
	}
	var keys dissect.ShardCache
	var per [maxWorkers]int
	var pkt capture.Packet
	sh := newShards(nw)
	n := 0
	for ; n < skewFrames && src.Next(&pkt) == nil; n++ {
		per[sh.of(keys.Key(pkt.LinkType, pkt.Data))]++
	}
	return n >= skewMinFrames && slices.Max(per[:nw])*16 >= n*13
}

// shards picks a frame's worker of n from its shard key: the key modulo n,
// which for a power of two is its low bits (mask), without a division a
// frame.
type shards struct{ n, mask uint64 }

func newShards(n int) shards {
	s := shards{n: uint64(n)}
	if n&(n-1) == 0 {
		s.mask = s.n - 1
	}
	return s
}

func (s shards) of(key uint64) uint64 {
	if s.mask != 0 {
		return key & s.mask
	}
	return key % s.n
}

// head is the start of a file, its length told (Len) so that the capture
// reader's buffer is that small.
type head struct{ *io.SectionReader }

func (h head) Len() int { return int(h.Size()) }

// testRound, when set by a test, makes rounds this small: many rounds in
// flight, the reader waiting for free ones, frames that do not fit.
var testRound struct{ frames, bytes int }

// maxWorkers bounds -j (a round names a frame's worker in one octet; more
// engines than cores only cost memory).
const maxWorkers = 64

// workerShare is each worker engine's part of the memory budget.
func workerShare(total int64, workers int) int64 { return total / int64(workers) }

// frameOut is what a worker made of a frame: its output ends at out[end].
type frameOut struct {
	end   int
	shown bool // passed the display filter
}

// batch is what a worker made of its frames of a round. A run is
// consecutive frames of the round that are the worker's (round.ids): with
// nothing between frames and no -w the merger writes a run's output at
// once, else frame by frame.
type batch struct {
	runs []int      // where each run's output ends, when the merger takes runs
	res  []frameOut // each frame's, when the merger takes frame by frame
	// out is made (outCap) when the batch first renders: a run that shows
	// nothing (-q, check, -z) would carry it in the heap for nothing, and
	// when the tables fill the heap to the collector's limit every MB of
	// that is more collections.
	out    []byte
	outCap int
	done   chan struct{} // the worker finished the batch
	pan    any           // a panic the worker recovered, raised again by the merger
}

// round is up to roundFrames consecutive frames.
type round struct {
	pkts    []capture.Packet        // in frame order
	ids     []uint8                 // the worker of each frame
	order   []uint8                 // the worker of each run of frames, in frame order
	streams []dissect.StreamNumbers // each frame's when parallel.streams numbers them, else empty
	b       []*batch
	num     uint64 // the number of the frame before the first
	first   int64  // the capture's first frame time
	prev    int64  // the time of the frame before the first
	// data holds copies of the frames the reader's Next returned (a record
	// cut by the end of a read buffer, every pcapng record); bufs the
	// read buffers the reader moved on from while this round took views
	// of them (capture.Reader.Retired), given back when the round is
	// taken again. held is the octets of the views.
	data []byte
	bufs [][]byte
	held int
	// taken: the reader filled the round before (prefault.First maps a
	// fresh round's pkts in once a round before was sent full: rounds of
	// 8192 frames took 768 faults on 1M Rx frames without).
	taken bool
	// present has bit i set when worker i has frames in the round: only
	// those get it (one flow wakes one worker, not all of them).
	present uint64
	// pending counts the workers not done with the round when nothing is
	// written per frame: the last one frees it (the merger has no part).
	pending atomic.Int32
}

// dataStart is the room round.data starts with. From a pcap file data holds
// only the record cut by the end of each read buffer, a few a round: made
// at roundBytes (2 MiB) at once, the rounds in flight took 12 MB of heap
// for a few KB of records, which counts towards the collector's goal. A
// pcapng file's rounds grow it to what they need, at most about roundBytes
// (read starts the next round before that), and keep it.
const dataStart = 16 << 10

// keep copies a record into the round's data and returns the copy. When
// data grows, the copies before stay where they are: nothing writes the
// old array again.
func (rd *round) keep(rec []byte) []byte {
	if rd.data == nil {
		rd.data = make([]byte, 0, max(dataStart, len(rec)))
	}
	off := len(rd.data)
	rd.data = append(rd.data, rec...)
	return rd.data[off:len(rd.data):len(rd.data)]
}

// outRoom returns out with at least outSlack octets free: doubled when
// it has less.
func outRoom(out []byte) []byte {
	if cap(out)-len(out) < outSlack {
		return slices.Grow(out, cap(out))
	}
	return out
}

// worker is one engine and what renders its frames.
type worker struct {
	eng    *dissect.Engine
	pr     *printer
	flt    *filter.Filter
	ck     *checkSink
	res    Result // the check rows ck tallies
	t      dissect.Tree
	counts dissect.Counts
	in     chan *round
	idx    int
	dead   bool // panicked: later batches are skipped
	// outGrown is the largest output buffer of the worker's batches.
	outGrown int
	pan      any // what it panicked with
}

// parallel is the -j state of a run; its engines live across passes.
type parallel struct {
	w       []*worker
	streams *dissect.Engine // numbers tcp.stream and udp.stream for the workers, when shown; else nil
	free    chan *round
	frames  int // roundFrames: the round is full
	bytes   int // roundBytes
	keys    dissect.ShardCache
	mapped  int // rounds whose packets' pages read mapped in (prefault.First)
}

// newParallel makes n workers: eng (the run's engine, which ends up with
// the merged statistics) and n-1 more from eo.
func newParallel(cfg Config, eo dissect.Options, eng *dissect.Engine, n int) (*parallel, error) {
	p := &parallel{free: make(chan *round, roundsInFlight), frames: roundFrames(n, cfg.printing()), bytes: roundBytes}
	if testRound.frames > 0 {
		p.frames, p.bytes = testRound.frames, testRound.bytes
	}
	for i := range n {
		w := &worker{eng: eng, idx: i}
		if i > 0 {
			w.eng = dissect.NewEngine(eo)
		}
		var err error
		if w.pr, err = newPrinter(cfg); err != nil {
			return nil, err
		}
		w.pr.eng = w.eng // the summary's time column: DecodeShard keeps the capture's first time
		// -t dd runs here only without a display filter (parallelWorkers):
		// the previous shown frame is the previous frame.
		w.pr.allShown = true
		if cfg.Filter != "" {
			if w.flt, err = filter.Compile(cfg.Filter); err != nil {
				return nil, err
			}
		}
		if cfg.Check != nil {
			if w.ck, err = newCheckSink(cfg.Check, cfg.Input, io.Discard, &w.res); err != nil {
				return nil, err
			}
		}
		p.w = append(p.w, w)
	}
	for range roundsInFlight {
		// data is allocated on first use: a pcap file seldom needs it
		rd := &round{pkts: make([]capture.Packet, 0, p.frames), ids: make([]uint8, 0, p.frames), order: make([]uint8, 0, p.frames), b: make([]*batch, n)}
		bf := batchFrames(p.frames, n)
		for i := range rd.b {
			// res and runs grow in the first rounds (runs are as many as
			// frames only when flows alternate frame by frame)
			rd.b[i] = &batch{outCap: bf * outPerFrame, done: make(chan struct{}, 1)}
		}
		p.free <- rd
	}
	return p, nil
}

// rewind prepares every engine for the second pass.
func (p *parallel) rewind() {
	for _, w := range p.w {
		w.eng.Rewind()
	}
	if p.streams != nil {
		p.streams.Rewind() // numbered afresh, as the workers' engines do
	}
}

// pass is runner.pass on the workers: the same frames, counts and sinks'
// calls in the same order. sinks is a subset of the built-in per-frame
// sinks (parallelWorkers keeps the others on one worker).
func (p *parallel) pass(r *runner, n int, sinks []Sink) (passCounts, error) {
	var c passCounts
	var pcap *pcapngSink
	var pr *printer
	var ck *checkSink
	for _, s := range sinks {
		switch s := s.(type) {
		case *pcapngSink:
			pcap = s
		case *printer:
			pr = s
		case *checkSink:
			ck = s
		default:
			return c, fmt.Errorf("pipeline: sink %T cannot run on -j workers", s) // parallelWorkers keeps them on one
		}
	}
	src, _, err := r.open() // stop is for live sources, which stay on one worker
	if err != nil {
		return c, err
	}
	// The reading goroutine is the prefetch: it takes every packet into a
	// round anyway, so capture.Prefetch's goroutine would be a second one.
	defer src.Close()

	// With nothing to write per frame (-q, check, -z) the workers free the
	// rounds themselves: one hand-over less per round.
	direct := pr == nil && pcap == nil
	var between []byte // what pr.sep puts between two frames
	if pr != nil {
		between = separator(pr)
	}
	runs := pr != nil && pcap == nil && len(between) == 0
	order := make(chan *round, cap(p.free))
	var readErr error
	var frames uint64
	done := make([]chan struct{}, len(p.w))
	for i, w := range p.w {
		w.in = make(chan *round, cap(p.free))
		done[i] = make(chan struct{})
		go w.run(r, p, n, len(sinks) > 0 || r.zf && n != 1, pr != nil, direct, runs, done[i])
	}
	go func() {
		frames, readErr = p.read(r, src, order, direct, runs, n)
		close(order)
		for _, w := range p.w {
			close(w.in)
		}
	}()

	// Merge: the rounds in order, each run of frames from its worker's
	// batch.
	var fake dissect.Frame
	// cur is each worker's place in its batch of the round: the runs and
	// frames taken and where its next output starts. Indexed by
	// id&(maxWorkers-1), which is the id: no bounds check.
	var cur [maxWorkers]struct{ start, run, i int }
	merge := func(rd *round) {
		clear(cur[:len(rd.b)])
		if runs {
			// run by run, as the reader listed them: no look at the frames
			buf := pr.buf
			for _, w := range rd.order {
				c, b := &cur[w&(maxWorkers-1)], rd.b[w]
				end := b.runs[c.run]
				c.run++
				if run := b.out[c.start:end]; len(run) >= directRun {
					// written from the batch: one copy less
					if len(buf) > 0 {
						pr.out.Write(buf)
						buf = buf[:0]
					}
					pr.out.Write(run)
					pr.first = false
				} else {
					buf = append(buf, run...)
				}
				c.start = end
			}
			pr.buf = buf
		}
		ids := rd.ids
		for i := 0; i < len(ids) && !runs; {
			w := ids[i]
			j := i + 1
			for j < len(ids) && ids[j] == w {
				j++
			}
			c, b := &cur[w&(maxWorkers-1)], rd.b[w]
			for ; i < j; i++ {
				fo := b.res[c.i]
				if fo.shown {
					if pcap != nil {
						pk := &rd.pkts[i]
						fake.Num, fake.Data, fake.TimeNS, fake.CapLen, fake.WireLen, fake.LinkType, fake.Iface = rd.num+uint64(i)+1, pk.Data, pk.TimeNS, pk.CapLen, pk.WireLen, pk.LinkType, pk.Iface
						pcap.Frame(&fake, nil)
					}
					if pr != nil { // one write per round
						if pr.first {
							pr.first = false
						} else {
							pr.buf = append(pr.buf, between...)
						}
						pr.buf = append(pr.buf, b.out[c.start:fo.end]...)
					}
				}
				c.start = fo.end
				c.i++
			}
		}
		if runs && len(pr.buf) > 0 {
			pr.first = false // nothing between frames: only End's JSON cares
		}
		if pr != nil && len(pr.buf) > 0 {
			pr.out.Write(pr.buf)
			pr.buf = pr.buf[:0]
		}
	}
	// The merger takes up to mergeLag rounds that are read already and
	// waits for the last of them first: workers finish their rounds in
	// order, so the ones before are done by then (mostly), and it wakes
	// once for them all, not once a round; the reader, waiting for free
	// rounds, then wakes once for them too.
	wait := func(rd *round) {
		for _, b := range rd.b {
			<-b.done
		}
	}
	q := make([]*round, 0, mergeLag)
	for open := true; open; {
		rd, ok := <-order
		if !ok {
			break
		}
		q = append(q[:0], rd)
	take:
		for len(q) < mergeLag {
			select {
			case rd, ok := <-order:
				if !ok {
					open = false
					break take
				}
				q = append(q, rd)
			default:
				break take
			}
		}
		last := q[len(q)-1]
		wait(last)
		for _, rd := range q {
			if rd != last {
				wait(rd)
			}
			for _, b := range rd.b { // raised in frame order, after the output before
				if b.pan != nil {
					panic(b.pan)
				}
			}
			merge(rd)
			p.free <- rd
		}
	}
	for _, d := range done {
		<-d
	}
	for _, w := range p.w {
		if w.pan != nil { // direct: no batch carried it
			panic(w.pan)
		}
	}
	c.frames = frames
	for _, w := range p.w {
		c.Errors += w.counts.Errors
		c.Warnings += w.counts.Warnings
		c.Notes += w.counts.Notes
		w.counts = dissect.Counts{}
	}
	if readErr == nil && r.cfg.Stop != nil && r.cfg.Stop.Stopped() {
		r.cfg.Stop.Ack()
	}
	// After a read error too: the tally and tables are of what was read.
	if ck != nil {
		for _, w := range p.w {
			mergeChecks(ck.res.Checks, w.res.Checks)
		}
	}
	// Once, after the output pass: what a first pass counted (response
	// times) stays in each engine through Rewind, as in one engine.
	if n != 1 {
		for _, w := range p.w[1:] {
			p.w[0].eng.Merge(w.eng)
		}
	}
	return c, readErr
}

// frameTime is a frame's time as the engine shows it: an ERF record's own.
func frameTime(pk *capture.Packet) int64 {
	if pk.LinkType == dissect.LinkTypeERF {
		return dissect.FrameTimeNS(pk.LinkType, pk.Data, pk.CapLen, pk.WireLen, pk.TimeNS)
	}
	return pk.TimeNS
}

// separator is what pr.sep puts between two frames (after the first, it
// puts the same every time).
func separator(pr *printer) []byte {
	first := pr.first
	pr.first = false
	s := pr.sep(nil)
	pr.first = first
	return s
}

// read is the reading goroutine: it numbers the frames, puts each in the
// current round with its worker (and, when the merger takes runs, lists the
// runs' workers) and sends full rounds on, to the workers
// and (in order) to the merger. It stops as runner.pass does: at the end,
// an error, -c or a stop.
func (p *parallel) read(r *runner, src capture.Source, order chan<- *round, direct, runs bool, pass int) (uint64, error) {
	sh := newShards(len(p.w))
	count := uint64(math.MaxUint64)
	if r.cfg.Count > 0 {
		count = uint64(r.cfg.Count)
	}
	var num uint64
	var first, prev int64
	var rd *round
	// A pcap file hands over every whole record in its read buffer at
	// once, as views (capture.Reader.TakeBuffered); other records come one
	// Next at a time, copied into the round.
	rdr, bulk := src.(*capture.Reader)
	// full: a round was sent full (every round sent before the last is),
	// so the input is large and the next fresh rounds will likely fill too
	// (prefault.First).
	full := false
	send := func() {
		full = true
		rd.first = first
		if bulk {
			rd.bufs = rdr.Retired(rd.bufs)
		}
		if direct {
			rd.pending.Store(int32(bits.OnesCount64(rd.present)))
		} else {
			order <- rd
		}
		for i, w := range p.w {
			if rd.present&(1<<i) != 0 {
				w.in <- rd
			} else if !direct { // nothing of its: the merger need not wait for it
				rd.b[i].done <- struct{}{}
			}
		}
		rd = nil
	}
	start := func() {
		rd = <-p.free // waits while roundsInFlight rounds are being worked on
		// No view of its buffers is in use any more: rounds are freed
		// in order (the merger's order, or each worker's).
		if bulk {
			rdr.Reuse(rd.bufs)
		}
		clear(rd.bufs)
		rd.pkts, rd.ids, rd.order, rd.streams, rd.data, rd.bufs, rd.held, rd.present = rd.pkts[:0], rd.ids[:0], rd.order[:0], rd.streams[:0], rd.data[:0], rd.bufs[:0], 0, 0
		rd.num, rd.prev = num, prev
		if prefault.First(rd.pkts, &rd.taken, full) {
			p.mapped++
		}
		for _, b := range rd.b {
			b.runs, b.res, b.out, b.pan = b.runs[:0], b.res[:0], b.out[:0], nil
		}
	}
	var err error
	var pkt capture.Packet // one: the interface call makes it escape
	stop, prog := r.cfg.Stop, r.cfg.Input.Progress
	for num < count {
		if stop != nil && stop.Stopped() {
			break
		}
		if rd == nil {
			start()
		}
		k := len(rd.pkts)
		if bulk {
			lim := p.frames
			if left := count - num; left < uint64(lim-k) {
				lim = k + int(left)
			}
			var took int
			rd.pkts, took = rdr.TakeBuffered(rd.pkts, lim, p.bytes-rd.held-len(rd.data))
			rd.held += took
		}
		if len(rd.pkts) == k {
			if err = src.Next(&pkt); err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				break
			}
			if k > 0 && rd.held+len(rd.data)+len(pkt.Data) > p.bytes { // starts the next round
				send()
				start()
				k = 0
			}
			pkt.Data = rd.keep(pkt.Data)
			rd.pkts = append(rd.pkts, pkt)
		}
		if num == 0 {
			first = frameTime(&rd.pkts[0])
			rd.prev = first // the first frame's previous is itself
		}
		pkts, ids := rd.pkts, rd.ids[:len(rd.pkts)] // within its capacity, roundFrames
		// locals, not the closures' num or p's fields, in the loop
		keys, streams, before := &p.keys, p.streams, num-uint64(k)
		var present uint64
		for i := k; i < len(pkts) && i < len(ids); i++ {
			pk := &pkts[i]
			key, ok := keys.Cached(pk.LinkType, pk.Data) // inlined: most frames
			if !ok {
				key = keys.Key(pk.LinkType, pk.Data)
			}
			w := sh.of(key)
			ids[i] = uint8(w)
			present |= 1 << (w & (maxWorkers - 1)) // w < maxWorkers: no check for a shift past 63
			if streams != nil {
				dp := dissect.Packet{Num: before + uint64(i) + 1, TimeNS: pk.TimeNS, CapLen: pk.CapLen, WireLen: pk.WireLen,
					LinkType: pk.LinkType, Iface: pk.Iface, Data: pk.Data, Pass: pass}
				streams.NumberStreams(&dp)
				rd.streams = append(rd.streams, dp.Streams)
			}
		}
		num += uint64(len(pkts) - k)
		rd.ids, rd.present = ids, rd.present|present
		if runs { // the merger takes runs: their workers, in frame order
			last := uint8(maxWorkers) // no worker's: a round starts a run
			if k > 0 {
				last = ids[k-1]
			}
			for _, w := range ids[k:] {
				if w != last {
					rd.order = append(rd.order, w)
					last = w
				}
			}
		}
		prev = frameTime(&rd.pkts[len(rd.pkts)-1])
		if prog != nil {
			prog.SetFrames(num)
		}
		if len(rd.pkts) >= p.frames || rd.held+len(rd.data) >= p.bytes {
			send()
		}
	}
	if rd != nil {
		if len(rd.pkts) > 0 {
			send()
		} else {
			p.free <- rd // never blocks: it has room for every round
		}
	}
	return num, err
}

// run is a worker's goroutine for one pass: it decodes its frames of every
// round, then finishes its engine as runner.pass does (after a read error
// too: the tables that follow are of what was read).
func (w *worker) run(r *runner, p *parallel, pass int, emit, print, direct, runs bool, done chan<- struct{}) {
	defer close(done)
	// A round's packets stay put until the worker says it is done with
	// them: reassembly may keep references until then (Engine.Reclaim).
	w.eng.LendPackets(true)
	for rd := range w.in {
		b := rd.b[w.idx]
		if !w.dead {
			w.batch(r, b, rd, pass, emit, print, runs, !direct && !runs)
			if !w.dead {
				w.eng.Reclaim()
			}
		}
		if !direct {
			b.done <- struct{}{}
		} else if rd.pending.Add(-1) == 0 {
			p.free <- rd // never blocks: it has room for every round
		}
	}
	if !w.dead {
		w.eng.LendPackets(false) // rounds reclaimed; Finish reads no packet
		w.eng.Finish()
	}
}

// batch decodes and renders the worker's frames of a round: runs says the
// merger takes each run's output, res each frame's. The frames decode under
// one recovery for the batch (Engine.Guard), not one each: a frame a
// dissector panicked on comes back from Guard with its finding and is
// handed on where the loop left off, as runner.pass does at -j1. Any other
// panic (strict mode, or a bug in rendering) is handed to the merger to
// raise in the calling goroutine.
func (w *worker) batch(r *runner, b *batch, rd *round, pass int, emit, print, runs, res bool) {
	defer func() {
		if v := recover(); v != nil {
			b.pan, w.pan, w.dead = v, v, true
		}
	}()
	if print && b.out == nil {
		// as large as the worker's batches grew before: each of the
		// rounds in flight would otherwise grow its own in the same steps
		b.out = make([]byte, 0, max(b.outCap, w.outGrown))
	}
	if print {
		defer func() { w.outGrown = max(w.outGrown, cap(b.out)) }()
	}
	me, ids, pkts := uint8(w.idx), rd.ids, rd.pkts
	pkts = pkts[:len(ids)]
	first, numbered := rd.first, len(rd.streams) > 0
	eng, tree := w.eng, r.tree
	// The capture's first time once for the batch: decoding keeps it (-z
	// io,stat counts from it). The time of the frame before, which only the
	// tree and the printer read, is set for the frames handed on.
	eng.ShardTimes(first, rd.prev)
	// cut, when set, is a frame Guard handed back: the loop resumes by
	// handing it on instead of decoding it.
	var cut *dissect.Frame
	loop := func() {
		f, k := cut, 0
		if f != nil {
			k = int(f.Num - rd.num - 1) // DecodeRef set Num before any dissector ran
		}
		cut = nil
		dp := dissect.Packet{Pass: pass} // one, its fields set per frame
		for {
			if f == nil {
				for k < len(ids) && ids[k] != me { // the other workers' frames
					k++
				}
				if k >= len(ids) {
					return
				}
				pk := &pkts[k]
				dp.Num, dp.TimeNS, dp.CapLen, dp.WireLen = rd.num+uint64(k)+1, pk.TimeNS, pk.CapLen, pk.WireLen
				dp.LinkType, dp.Iface, dp.Data = pk.LinkType, pk.Iface, pk.Data
				if numbered {
					dp.Streams = rd.streams[k]
				}
				f = eng.DecodeRef(&dp)
			}
			for j := range f.Findings {
				w.counts.Add(f.Findings[j].Sev)
			}
			shown := false
			if emit {
				p := rd.prev
				if k > 0 {
					p = frameTime(&pkts[k-1])
				}
				eng.ShardTimes(first, p)
				var t *dissect.Tree
				shown = true
				if tree {
					t = &w.t
					eng.BuildTree(t, f)
					if r.zf {
						eng.CountFiltered(f, t)
					}
					shown = w.flt == nil || w.flt.Match(t)
				}
				if shown {
					if print {
						b.out = w.pr.body(outRoom(b.out), f, t)
					}
					if w.ck != nil {
						w.ck.Frame(f, t)
					}
				}
			}
			if res {
				b.res = append(b.res, frameOut{end: len(b.out), shown: shown})
			}
			k++
			if runs && (k == len(ids) || ids[k] != me) {
				b.runs = append(b.runs, len(b.out))
			}
			f = nil
		}
	}
	for cut = eng.Guard(loop); cut != nil; cut = eng.Guard(loop) {
	}
}
