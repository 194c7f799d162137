package testpkt

import (
	"strings"
	"testing"
)

func TestDiffLines(t *testing.T) {
	if d := DiffLines("a\nb", "a\nb"); d != "" {
		t.Errorf("equal: %q", d)
	}
	if d := DiffLines("a\nx\nc", "a\nb"); d != "line 2: got \"x\", want \"b\"\nline 3: got \"c\", want \"\"\n" {
		t.Errorf("differ: %q", d)
	}
	long := strings.Repeat("x\n", 1000)
	if d := DiffLines(long, ""); len(d) > 2100 || !strings.HasSuffix(d, "...\n") {
		t.Errorf("not cut: %d octets", len(d))
	}
}
