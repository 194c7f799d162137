package ib

import (
	"testing"
	"unsafe"

	"github.com/rdx-project/rdx/internal/smallmap"
)

// TestCosts: the budget charge of an outstanding READ covers its struct
// and, at the spill table's peak, its slots there.
func TestCosts(t *testing.T) {
	if need := int64(unsafe.Sizeof(readReq{})) + smallmap.SpillCost[readKey, *readReq](); readCost < need {
		t.Errorf("readCost %d, an outstanding READ holds %d", readCost, need)
	}
}
