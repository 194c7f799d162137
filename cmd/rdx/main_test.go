package main

import (
	"os"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// TestMain runs every engine strict, also those the tested code builds
// itself: a dissector panic fails the test instead of becoming a finding.
// Then it removes the binary the subprocess tests built.
func TestMain(m *testing.M) {
	os.Setenv(dissect.StrictEnv, "1")
	code := m.Run()
	removeRdxBin()
	os.Exit(code)
}
