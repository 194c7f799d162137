package rpcrdma

import (
	"testing"
	"unsafe"

	"github.com/rdx-project/rdx/internal/smallmap"
)

// TestCosts: the budget charge of a pending call (on top of its octets)
// covers its struct and, at the spill table's peak, its slots there.
func TestCosts(t *testing.T) {
	if need := int64(unsafe.Sizeof(pending{})) + smallmap.SpillCost[pendKey, *pending](); pendingCost < need {
		t.Errorf("pendingCost %d, a pending call holds %d", pendingCost, need)
	}
}
