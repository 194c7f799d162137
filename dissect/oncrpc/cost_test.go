package oncrpc

import (
	"testing"
	"unsafe"

	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/internal/smallmap"
)

// TestCosts: the budget charge of an outstanding call covers what it
// holds, its matcher entry and, at the spill table's peak, its slots there.
func TestCosts(t *testing.T) {
	type p = flows.Pending[callKey, CallInfo]
	if need := int64(unsafe.Sizeof(p{})) + smallmap.SpillCost[callKey, *p](); callOverhead < need {
		t.Errorf("callOverhead %d, an outstanding call holds %d", callOverhead, need)
	}
}
