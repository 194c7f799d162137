package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// TestRdpGolden checks `rdx read` on the RDP sample captures (made by
// active/rdp's TestGenerateCaptures) against golden/rdp-NAME.summary;
// -update rewrites them.
func TestRdpGolden(t *testing.T) {
	caps, _ := filepath.Glob("../../pcaps/rdp/*.pcap")
	if len(caps) < 2 {
		t.Fatalf("want the clean and lossy captures in pcaps/rdp, found %v", caps)
	}
	for _, c := range caps {
		name := "rdp-" + strings.TrimSuffix(filepath.Base(c), ".pcap") + ".summary"
		t.Run(name, func(t *testing.T) {
			io, _, out, errOut := iostreams.Test()
			if code := run(io, []string{"read", "--color", "never", c}); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			path := filepath.Join("../../golden", name)
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from %s\n%s", path, firstDiff(out.String(), string(want)))
			}
		})
	}
}
