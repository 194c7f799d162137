package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// TestParallelWorkers: the runs listed in parallel.go stay on one worker.
func TestParallelWorkers(t *testing.T) {
	file := Input{File: "x.pcap"}
	for _, c := range []struct {
		cfg  Config
		want int
	}{
		{Config{Input: file}, 1},
		{Config{Input: file, Workers: 1}, 1},
		{Config{Input: file, Workers: 4}, 4},
		{Config{Input: file, Workers: 1000}, maxWorkers},
		{Config{Input: Input{Open: file.Open}, Workers: 3}, 3},
		{Config{Input: Input{Iface: "eth0"}, Workers: 4}, 1},
		{Config{Input: Input{File: "-"}, Workers: 4}, 1},
		{Config{Input: file, Workers: 4, Sinks: []Sink{&statsSink{}}}, 1},
		{Config{Input: file, Workers: 4, Stats: []string{"rx,srt"}}, 4},
	} {
		if got := parallelWorkers(c.cfg); got != c.want {
			t.Errorf("%+v: %d workers, want %d", c.cfg, got, c.want)
		}
	}
}

// TestMergeChecks: worker tallies add up, the first failing frames of all
// workers are the run's first five, the earliest explanation wins.
func TestMergeChecks(t *testing.T) {
	dst := []CheckRow{{Checked: 5, Passed: 3, Failed: 2, Frames: []uint64{3, 9}, Explained: 1, Explanation: "frame 9: x", explFrame: 9}}
	src := []CheckRow{{Checked: 7, Passed: 2, Failed: 5, Frames: []uint64{1, 4, 10, 11, 12}, Explained: 1, Explanation: "frame 4: y", explFrame: 4}}
	mergeChecks(dst, src)
	d := dst[0]
	if d.Checked != 12 || d.Passed != 5 || d.Failed != 7 || d.Explained != 2 ||
		!slices.Equal(d.Frames, []uint64{1, 3, 4, 9, 10}) || d.Explanation != "frame 4: y" {
		t.Errorf("merged %+v", d)
	}
	mergeChecks(dst, []CheckRow{{}})
	if dst[0].Explanation != "frame 4: y" || len(dst[0].Frames) != 5 {
		t.Errorf("merging an empty tally changed %+v", dst[0])
	}
}

// TestSmallRounds: rounds of 7 frames and 5000 octets (a RoCE capture's
// frames are up to 4 KiB, so many end on octets) print the same fields,
// filtered summary and check report with 3 workers as with one. (-V shows
// udp.stream, numbered over the whole capture, so it runs on one worker.)
func TestSmallRounds(t *testing.T) {
	testRound.frames, testRound.bytes = 7, 5000
	defer func() { testRound.frames, testRound.bytes = 0, 0 }()
	for _, cfg := range []Config{
		{Filter: "infiniband.bth.opcode != 17 && !rpc"},
		{Print: Print{Format: "fields", Fields: []string{"frame.number", "infiniband.bth.psn", "rpc.xid", "rpc.repframe", "frame.time_delta"}}},
		{Quiet: true, Check: &CheckReport{Format: "json"}},
	} {
		var outs [2]bytes.Buffer
		for i, j := range []int{1, 3} {
			c := cfg
			c.Input, c.Out, c.Workers = Input{File: "../pcaps/kernel/nfs3_rdma_roce.pcap"}, &outs[i], j
			res, err := Run(c)
			if err != nil || res.Workers != j {
				t.Fatalf("-j %d: %v, %d workers", j, err, res.Workers)
			}
		}
		if outs[0].Len() < 1000 || !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
			t.Errorf("%+v: -j 3 printed %d octets, -j 1 %d, or they differ", cfg.Print, outs[1].Len(), outs[0].Len())
		}
	}
}

// smallBuf reads a capture held in memory but says its Len is 0, as a
// tiny input would: the Reader's buffer is then 4 KiB instead of 1 MiB.
type smallBuf struct{ *bytes.Reader }

func (smallBuf) Len() int { return 0 }

// TestWorkersLentBuffers: the -j reader hands out views of its read
// buffers (capture.Reader.TakeBuffered), which rounds keep until they are
// free. With a 4 KiB read buffer and rounds of 7 frames and 5000 octets
// every round spans buffers and every buffer is reused many times over a
// 3.5 MB capture: a buffer read into again while a worker or the merger
// still decodes or writes a view of it would change the output.
func TestWorkersLentBuffers(t *testing.T) {
	testRound.frames, testRound.bytes = 7, 5000
	defer func() { testRound.frames, testRound.bytes = 0, 0 }()
	const path = "../pcaps/kernel/nfs3_rdma_roce.pcap"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (capture.Source, error) { return capture.NewReader(smallBuf{bytes.NewReader(data)}, path) }
	wfile := filepath.Join(t.TempDir(), "w.pcapng")
	for _, cfg := range []Config{
		{},
		{Print: Print{Format: "fields", Fields: []string{"frame.number", "infiniband.bth.psn", "rpc.xid", "frame.time_delta"}}},
		{Quiet: true, Check: &CheckReport{Format: "json"}},
		{Write: wfile},
	} {
		var outs [2]bytes.Buffer
		var files [2][]byte
		for i, j := range []int{1, 3} {
			c := cfg
			c.Input, c.Out, c.Workers = Input{Open: open}, &outs[i], j
			res, err := Run(c)
			if err != nil || res.Workers != j {
				t.Fatalf("-j %d: %v, %d workers", j, err, res.Workers)
			}
			if c.Write != "" {
				if files[i], err = os.ReadFile(wfile); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) || !bytes.Equal(files[0], files[1]) || outs[0].Len()+len(files[0]) < 1000 {
			t.Errorf("%+v: -j 3 printed %d octets and wrote %d, -j 1 %d and %d, or they differ", cfg.Print, outs[1].Len(), len(files[1]), outs[0].Len(), len(files[0]))
		}
	}
}

// The rounds' output buffers are made when a batch first renders: a run
// that shows nothing (-q) does not carry 2 x roundsInFlight of them (6 MB
// at -j 2) in a heap the tables may fill to the collector's limit. A run
// that prints makes each once, with room for a summary line per frame.
func TestRoundOutLazy(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	p, err := newParallel(Config{Input: Input{File: "x.pcap"}, Quiet: true, Workers: 2}, dissect.Options{}, eng, 2)
	if err != nil {
		t.Fatal(err)
	}
	for range roundsInFlight {
		rd := <-p.free
		for i, b := range rd.b {
			if cap(b.out) != 0 || b.outCap < p.frames/2*outPerFrame {
				t.Fatalf("batch %d: output buffer of %d octets before any frame, room for %d when it renders", i, cap(b.out), b.outCap)
			}
		}
	}
	var out bytes.Buffer
	if _, err := Run(Config{Input: Input{File: "../pcaps/kernel/nfs3_rdma_roce.pcap"}, Out: &out, Workers: 2}); err != nil || out.Len() < 1000 {
		t.Fatalf("-j 2 summary: %v, %d octets", err, out.Len())
	}
}

// A run that prints gets the small rounds: its rounds in flight (packets
// and rendered text the merger reads from the other core) stay in the
// caches; with rounds of 8192, -j 2 summary lines took 40% more CPU. A run
// that prints nothing keeps the large rounds (fewer wake-ups).
func TestRoundFramesPrinting(t *testing.T) {
	big, small := roundFrames(2, false), roundFrames(2, true)
	if big <= small || small > 1024 {
		t.Fatalf("rounds: %d frames without printing, %d printing", big, small)
	}
	eng := dissect.NewEngine(dissect.Options{})
	for _, c := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"-q", Config{Quiet: true}, big},
		{"-q -Y", Config{Quiet: true, Filter: "rx.type == 1"}, big},
		{"-w only", Config{Write: "x.pcapng"}, big},
		{"summary", Config{}, small},
		{"-Y summary", Config{Filter: "rx.type == 1"}, small},
		{"-T fields", Config{Print: Print{Format: "fields", Fields: []string{"ip.src"}}}, small},
		{"-V", Config{Print: Print{Verbose: true}}, small},
		{"-w -P", Config{Write: "x.pcapng", PrintToo: true}, small},
	} {
		c.cfg.Input, c.cfg.Workers = Input{File: "x.pcap"}, 2
		p, err := newParallel(c.cfg, dissect.Options{}, eng, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.frames != c.want {
			t.Errorf("%s: rounds of %d frames, want %d", c.name, p.frames, c.want)
		}
	}
}

// A round's copies of records start small (a pcap file's rounds copy only
// the record cut by the end of each read buffer), grow as needed, and
// stay intact when the copies after them move data to a larger array.
func TestRoundKeepGrows(t *testing.T) {
	var rd round
	small := rd.keep([]byte("cut record"))
	if string(small) != "cut record" || cap(rd.data) > dataStart || cap(rd.data) >= roundBytes/8 {
		t.Fatalf("first copy %q, data of %d octets", small, cap(rd.data))
	}
	var kept [][]byte
	for i := range 40 {
		kept = append(kept, rd.keep(bytes.Repeat([]byte{byte(i)}, 1000+i)))
	}
	for i, k := range kept {
		if len(k) != 1000+i || cap(k) != len(k) || k[0] != byte(i) || k[len(k)-1] != byte(i) {
			t.Fatalf("copy %d: %d octets, cap %d, first %d", i, len(k), cap(k), k[0])
		}
	}
	if string(small) != "cut record" {
		t.Fatalf("first copy now %q", small)
	}
	big := rd.keep(make([]byte, roundBytes+1)) // a record larger than a round
	if len(big) != roundBytes+1 {
		t.Fatalf("large record: %d octets", len(big))
	}
}

// A batch's output doubles when it runs short of room, not by Go's quarter
// steps (each a copy, the old array garbage).
func TestOutRoomDoubles(t *testing.T) {
	out := make([]byte, 0, 64<<10)
	if got := outRoom(out); cap(got) != cap(out) {
		t.Fatalf("room enough: grown to %d", cap(got))
	}
	out = out[:cap(out)-100]
	got := outRoom(out)
	if cap(got) < 2*cap(out) || len(got) != len(out) || &got[0] == &out[0] {
		t.Fatalf("%d of %d used: now %d of %d", len(out), cap(out), len(got), cap(got))
	}
}

// A run of directRun octets or more the merger writes from the worker's
// batch; what smaller runs put in the printer's buffer before it goes out
// first. One flow's long runs of frames with single frames of other flows
// between them print the same at -j 2 and -j 3 as at -j 1.
func TestWorkersDirectRuns(t *testing.T) {
	var frames [][]byte
	for k := range 24 {
		lone := [4]byte{198, 51, 100, byte(10 + k%8)}
		frames = append(frames, testpkt.UDP4(nil, lone, testpkt.Server, 1000, 4747, []byte{byte(k)}))
		for range 250 {
			frames = append(frames, testpkt.UDP4(nil, [4]byte{198, 51, 100, 1}, testpkt.Server, 1000, 4747, []byte{1, 2, 3}))
		}
	}
	path := filepath.Join(t.TempDir(), "runs.pcap")
	testpkt.WriteFrames(t, path, dissect.LinkTypeIPv4, 1000, frames)
	in := Input{File: path}
	var want bytes.Buffer
	if _, err := Run(Config{Input: in, Out: &want, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if want.Len()/24 < directRun {
		t.Fatalf("%d octets of output: the long runs do not reach directRun", want.Len())
	}
	for _, j := range []int{2, 3} {
		var got bytes.Buffer
		res, err := Run(Config{Input: in, Out: &got, Workers: j})
		if err != nil || res.Workers != j {
			t.Fatalf("-j %d: %v, %d workers", j, err, res.Workers)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("-j %d: %d octets differ from -j 1's %d", j, got.Len(), want.Len())
		}
	}
}

// readRounds runs parallel.read on frames (an IPv4 capture) with the given
// workers, standing in for them and for the merger (direct: the last worker
// done with a round frees it; else each marks its batch done and the merger
// frees the round once all are), and returns the parallel, how many rounds
// each worker got and what read returned.
func readRounds(t *testing.T, frames [][]byte, workers int, direct bool) (*parallel, []int, uint64, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rounds.pcap")
	testpkt.WriteFrames(t, path, dissect.LinkTypeIPv4, 1000, frames)
	cfg := Config{Input: Input{File: path}, Quiet: true, Workers: workers}
	p, err := newParallel(cfg, dissect.Options{}, dissect.NewEngine(dissect.Options{}), workers)
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := cfg.Input.open()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int, len(p.w))
	done := make(chan struct{})
	for i, w := range p.w {
		w.in = make(chan *round, roundsInFlight)
		go func() {
			defer func() { done <- struct{}{} }()
			for rd := range w.in {
				got[i]++
				if direct && rd.pending.Add(-1) == 0 {
					p.free <- rd
				} else if !direct {
					rd.b[i].done <- struct{}{}
				}
			}
		}()
	}
	order := make(chan *round, roundsInFlight)
	go func() { // the merger's part: every batch done, then the round is free
		for rd := range order {
			for _, b := range rd.b {
				<-b.done
			}
			p.free <- rd
		}
	}()
	var ord chan<- *round = order
	if direct {
		ord = nil
	}
	n, err := p.read(&runner{cfg: cfg}, src, ord, direct, false, 1)
	src.Close()
	close(order)
	for _, w := range p.w {
		close(w.in)
	}
	for range p.w {
		<-done
	}
	return p, got, n, err
}

// The reader maps in the packets of each fresh round it takes once a round
// was sent full (the input is large), of frames or of octets, not before: a
// small input's rounds map nothing, and a recycled round, filled before, is
// not mapped again.
func TestRoundsMapped(t *testing.T) {
	defer func() { testRound.frames, testRound.bytes = 0, 0 }()
	for _, c := range []struct{ n, bytes, want int }{
		{63, 1 << 20, 0},
		{20 * 64, 1 << 20, roundsInFlight - 1},
		{400, 1000, roundsInFlight - 1}, // records of 45 octets: rounds of 22 frames
	} {
		testRound.frames, testRound.bytes = 64, c.bytes
		frames := make([][]byte, c.n)
		for i := range frames {
			frames[i] = testpkt.UDP4(nil, testpkt.Client, testpkt.Server, uint16(1000+i%5), 4747, []byte{byte(i)})
		}
		p, _, n, err := readRounds(t, frames, 2, true)
		if err != nil || n != uint64(c.n) || p.mapped != c.want {
			t.Errorf("%d frames: read %d (%v), %d rounds mapped in, want %d", c.n, n, err, p.mapped, c.want)
		}
	}
}

// A round goes only to the workers with frames in it: one flow wakes one
// worker, and the round is free once that one is done with it. With
// printing (not direct), the others' batches are done at once, so the
// merger does not wait for them.
func TestRoundsToPresentWorkers(t *testing.T) {
	testRound.frames, testRound.bytes = 64, 1<<20
	defer func() { testRound.frames, testRound.bytes = 0, 0 }()
	const n = 20 * 64
	frames := make([][]byte, n)
	for i := range frames {
		frames[i] = testpkt.UDP4(nil, testpkt.Client, testpkt.Server, 1000, 4747, []byte{byte(i)}) // one flow
	}
	for _, direct := range []bool{true, false} {
		_, got, rn, err := readRounds(t, frames, 3, direct)
		rounds, busy := 0, 0
		for _, g := range got {
			rounds += g
			if g > 0 {
				busy++
			}
		}
		if err != nil || rn != n || busy != 1 || rounds != n/64 {
			t.Errorf("direct %v: read %d (%v); rounds per worker %v, want all %d to one", direct, rn, err, got, n/64)
		}
	}
}
