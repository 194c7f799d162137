// Package strict runs a test binary with every engine strict: a dissector
// panic fails the test instead of becoming the "internal error" finding
// users get (dissect.Options.Strict). Engines the tested code builds itself
// read RDX_STRICT, so the variable is set before any test runs.
package strict

import (
	"os"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// Main is a test package's TestMain: func TestMain(m *testing.M) { strict.Main(m) }.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run sets RDX_STRICT and runs the tests, for a TestMain with work of its own
// to do after them.
func Run(m *testing.M) int {
	os.Setenv(dissect.StrictEnv, "1")
	return m.Run()
}
