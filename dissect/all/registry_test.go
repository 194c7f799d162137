package all_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// registrySize is dissect.registrySize: the registry is made with room for
// that many fields so that it is not grown and rehashed while every run
// starts. Every dissector is linked here; when they register more, raise
// both.
const registrySize = 2048

func TestRegistryHasRoom(t *testing.T) {
	if n := len(dissect.Fields()); n > registrySize {
		t.Errorf("%d fields registered, dissect.registrySize is %d: raise it", n, registrySize)
	} else if n < registrySize/2 {
		t.Errorf("%d fields registered, dissect.registrySize %d is over twice that: lower it", n, registrySize)
	}
}
