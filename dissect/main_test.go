package dissect_test

import (
	"os"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// TestMain runs every engine strict: a dissector panic fails the test.
func TestMain(m *testing.M) {
	os.Setenv(dissect.StrictEnv, "1")
	os.Exit(m.Run())
}
