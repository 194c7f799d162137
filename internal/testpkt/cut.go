package testpkt

import (
	"os"
	"path/filepath"
	"testing"
)

// CutCapture writes the first n octets of the capture src to a file name
// in a fresh temporary directory and returns its path: a capture that
// ends inside a record, for tests of what every mode prints before it.
func CutCapture(t testing.TB, src, name string, n int) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if n > len(b) {
		t.Fatalf("%s has %d octets, fewer than the %d to keep", src, len(b), n)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b[:n], 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
