package icmp_test

import (
	"testing"

	"github.com/rdx-project/rdx/internal/strict"
)

// TestMain runs every engine strict: a dissector panic fails the test.
func TestMain(m *testing.M) { strict.Main(m) }
