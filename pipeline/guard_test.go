package pipeline_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

// linkTypeGuardTest is LINKTYPE_USER0, which nothing else here dissects:
// the test's dissector takes it and panics on a frame whose first octet is
// 0xff.
const linkTypeGuardTest = 147

type guardPanicker struct{}

func (guardPanicker) Dissect(f *dissect.Frame, data []byte, off int) {
	if len(data) > 0 && data[0] == 0xff {
		panic("guard boom")
	}
}

func init() {
	dissect.RegisterDissector(&dissect.Registration{Name: "test-guard-panic", LinkTypes: []uint16{linkTypeGuardTest},
		New: func(*dissect.Engine) dissect.Dissector { return guardPanicker{} }})
}

// The -j1 loop decodes under one recovery (dissect.Engine.Guard): a frame
// a dissector panics on still gets its one error finding and its line, and
// the frames after it decode and print.
func TestPanicMidCapture(t *testing.T) {
	t.Setenv(dissect.StrictEnv, "") // what users get, although this test binary runs strict
	path := filepath.Join(t.TempDir(), "panic.pcap")
	testpkt.WriteFrames(t, path, linkTypeGuardTest, 1000, [][]byte{{1}, {0xff}, {1}, {0xff}, {0xff}, {1}})
	res, out := run(t, pipeline.Config{Input: pipeline.Input{File: path}, Workers: 1,
		Print: pipeline.Print{Verbose: true}})
	if res.Frames != 6 || res.Errors != 3 || res.Warnings+res.Notes != 0 {
		t.Errorf("%d frames, counts %+v; want 6 frames, 3 errors", res.Frames, res.Counts)
	}
	for _, n := range []string{"2", "4", "5"} {
		if c := strings.Count(out, "internal error in a dissector on frame "+n+" "); c != 1 {
			t.Errorf("frame %s: %d findings in the output, want 1", n, c)
		}
	}
	if c := strings.Count(out, "internal error in a dissector"); c != 3 {
		t.Errorf("%d internal-error findings in the output, want 3:\n%s", c, out)
	}
	if c := strings.Count(out, "Frame 6:"); c != 1 {
		t.Errorf("frame 6 printed %d times:\n%s", c, out)
	}
}

// guardTestPort is the UDP port the test's panicking dissector takes, so
// that its frames travel between several address pairs and spread over
// -j workers.
const guardTestPort = 4747

func init() {
	dissect.RegisterDissector(&dissect.Registration{Name: "test-guard-panic-udp",
		UDPPorts: []dissect.PortRange{{Lo: guardTestPort, Hi: guardTestPort}},
		New:      func(*dissect.Engine) dissect.Dissector { return guardPanicker{} }})
}

// The -j workers decode a batch under one recovery (Engine.Guard): a frame
// a dissector panics on gets its one error finding, the frames after it in
// the batch decode, and the output, times relative to the capture and to
// the frame before included, is -j1's.
func TestPanicWorkers(t *testing.T) {
	t.Setenv(dissect.StrictEnv, "") // what users get, although this test binary runs strict
	path := filepath.Join(t.TempDir(), "panic-j.pcap")
	var frames [][]byte
	panics := 0
	for i := 0; i < 200; i++ {
		payload := []byte{1}
		if i%7 == 3 || i%11 == 0 {
			payload[0] = 0xff
			panics++
		}
		src := [4]byte{198, 51, 100, byte(1 + i%8)} // eight pairs: both workers get frames
		frames = append(frames, testpkt.UDP4(nil, src, testpkt.Server, 1000, guardTestPort, payload))
	}
	// steps of 1 to 5 µs: each frame's time from the frame before is its own
	w, err := testpkt.CreatePcap(path, dissect.LinkTypeIPv4)
	if err != nil {
		t.Fatal(err)
	}
	ts := int64(0)
	for i, f := range frames {
		ts += int64(1+i%5) * 1000
		if err := w.Write(f, ts); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A worker resumes after a frame cut short from that frame's number,
	// and sets the time of the frame before for each frame it shows: in
	// rounds of 7 frames, cuts fall in every round and at their ends.
	fields := pipeline.Print{Format: "fields", Fields: []string{"frame.number", "frame.time_delta", "frame.time_relative", "_ws.expert.message"}}
	for _, c := range []struct {
		p     pipeline.Print
		round int
	}{{pipeline.Print{}, 0}, {pipeline.Print{Verbose: true}, 0}, {pipeline.Print{}, 7}, {fields, 7}, {fields, 0}} {
		p := c.p
		restore := pipeline.SetTestRound(c.round, 1<<20) // 0: the usual rounds
		res1, want := run(t, pipeline.Config{Input: pipeline.Input{File: path}, Workers: 1, Print: p})
		res2, got := run(t, pipeline.Config{Input: pipeline.Input{File: path}, Workers: 2, Print: p})
		if res2.Frames != 200 || res2.Errors != panics || res2.Counts != res1.Counts || res2.Workers != 2 {
			t.Errorf("-j2 %+v: %d frames on %d workers, counts %+v; want 200 frames, %d errors (-j1: %+v)",
				p, res2.Frames, res2.Workers, res2.Counts, panics, res1.Counts)
		}
		if got != want {
			t.Errorf("-j2 %+v output differs from -j1:\n%s", p, testpkt.DiffLines(got, want))
		}
		restore()
		if p.Verbose {
			if c := strings.Count(got, "internal error in a dissector on frame "); c != panics {
				t.Errorf("%d internal-error findings in the output, want %d", c, panics)
			}
			if !strings.Contains(got, "Frame 200:") {
				t.Error("frame 200 not printed")
			}
		}
	}
}

// Strict, a -j worker's dissector panic still leaves Guard (it is not
// handed on as a frame) and Run raises it in the calling goroutine, naming
// the frame, for both the printing and the -q paths.
func TestPanicWorkersStrict(t *testing.T) {
	t.Setenv(dissect.StrictEnv, "1")
	path := filepath.Join(t.TempDir(), "panic-strict.pcap")
	var frames [][]byte
	for i := 0; i < 40; i++ {
		payload := []byte{1}
		if i == 17 {
			payload[0] = 0xff
		}
		src := [4]byte{198, 51, 100, byte(1 + i%8)}
		frames = append(frames, testpkt.UDP4(nil, src, testpkt.Server, 1000, guardTestPort, payload))
	}
	testpkt.WriteFrames(t, path, dissect.LinkTypeIPv4, 1000, frames)
	for _, quiet := range []bool{false, true} {
		func() {
			defer func() {
				ie, ok := recover().(*dissect.InternalError)
				if !ok || ie.Frame != 18 {
					t.Errorf("quiet %v: recovered %+v, want an *InternalError on frame 18", quiet, ie)
				}
			}()
			run(t, pipeline.Config{Input: pipeline.Input{File: path}, Workers: 2, Quiet: quiet})
		}()
	}
}
