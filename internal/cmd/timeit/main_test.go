package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// line runs args through run and returns its status and the fields it wrote.
func line(t *testing.T, args ...string) (int, []string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "t")
	code := run(out, args)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v: no line written: %v", args, err)
	}
	return code, strings.Fields(string(b))
}

func TestTimeitWallAndStatus(t *testing.T) {
	code, f := line(t, "sh", "-c", "sleep 0.2; exit 3")
	if code != 3 {
		t.Errorf("status %d, want the command's 3", code)
	}
	if len(f) != 4 {
		t.Fatalf("line %q, want wall user sys maxrss", f)
	}
	wall, err := strconv.ParseFloat(f[0], 64)
	if err != nil || wall < 0.2 || wall > 5 {
		t.Errorf("wall %q for a 0.2 s sleep", f[0])
	}
	if rss, err := strconv.Atoi(f[3]); err != nil || rss <= 0 {
		t.Errorf("peak RSS %q", f[3])
	}
}

func TestTimeitCountsChildrenCPU(t *testing.T) {
	// the shell's child burns the CPU: wait4's rusage must include it
	_, f := line(t, "sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done & wait")
	u, err := strconv.ParseFloat(f[1], 64)
	if err != nil || u < 0.05 {
		t.Errorf("user CPU %q: the child's loop was not counted", f[1])
	}
}

func TestTimeitSignalAndMissing(t *testing.T) {
	if code, _ := line(t, "sh", "-c", "kill -9 $$"); code != 128+9 {
		t.Errorf("killed by SIGKILL: status %d, want 137", code)
	}
	if code := run(filepath.Join(t.TempDir(), "t"), []string{"/nonexistent/cmd"}); code != 2 {
		t.Errorf("missing command: status %d, want 2", code)
	}
}
