package iwarp

import (
	"testing"

	"github.com/rdx-project/rdx/internal/strict"
)

func TestMain(m *testing.M) { strict.Main(m) }
