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
