package main

import (
	"os"
	"testing"

	"github.com/rdx-project/rdx/internal/strict"
)

// TestMain runs every engine strict, also those the tested code builds
// itself: a dissector panic fails the test instead of becoming a finding.
// Then it removes the binary the subprocess tests built.
func TestMain(m *testing.M) {
	code := strict.Run(m)
	removeRdxBin()
	os.Exit(code)
}
