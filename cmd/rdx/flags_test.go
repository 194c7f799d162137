package main

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// writes records each Write separately.
type writes struct{ got []string }

func (w *writes) Write(p []byte) (int, error) { w.got = append(w.got, string(p)); return len(p), nil }

// -l writes each frame out as it is printed (one frame per write, -j
// notwithstanding); without it the frames reach the terminal in one write.
func TestLineFlush(t *testing.T) {
	for _, lflag := range []bool{true, false} {
		io, _, _, errOut := iostreams.Test()
		w := &writes{}
		io.Out = w
		args := []string{"read", "-j", "2", "-c", "5", "../../pcaps/rx/bos-queries.pcap"}
		if lflag {
			args = append(args, "-l")
		}
		if code := run(io, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if lflag {
			if len(w.got) != 5 {
				t.Fatalf("-l: %d writes, want one per frame (5): %q", len(w.got), w.got)
			}
			for _, s := range w.got {
				if strings.Count(s, "\n") != 1 {
					t.Fatalf("-l: a write of %q, want one summary line", s)
				}
			}
		} else if len(w.got) != 1 {
			t.Fatalf("without -l: %d writes, want 1", len(w.got))
		}
	}
}

// -n and -N are accepted as tshark's (rdx resolves no names); -N checks its
// letters; -v and --version print the version.
func TestResolveAndVersionFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"read", "-n", "-c", "1", "../../pcaps/rx/bos-queries.pcap"}, 0, "127.0.0.1:44744"},
		{[]string{"read", "-N", "mnNtdv", "-c", "1", "../../pcaps/rx/bos-queries.pcap"}, 0, "127.0.0.1:44744"},
		{[]string{"read", "-N", "x", "-c", "1", "../../pcaps/rx/bos-queries.pcap"}, 2, ""},
		{[]string{"-v"}, 0, "rdx "},
		{[]string{"--version"}, 0, "rdx "},
	} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, tc.args); code != tc.code {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.code, errOut)
		}
		if !strings.Contains(out.String(), tc.out) {
			t.Errorf("%v: output %q lacks %q", tc.args, out, tc.out)
		}
	}
}
