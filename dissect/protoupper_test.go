package dissect_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

var protoUpperRuns atomic.Int64

// The summary names a protocol by ProtoInfo.Upper (made once at
// registration) instead of capitalising Abbrev on every frame: it must be
// exactly the ASCII capitals of Abbrev, digits and punctuation kept.
func TestProtoUpper(t *testing.T) {
	// A name of its own each run: registering one twice panics (-count=2).
	n := protoUpperRuns.Add(1)
	abbrev, want := fmt.Sprintf("test-up%d.v2x", n), fmt.Sprintf("TEST-UP%d.V2X", n)
	p := dissect.RegisterProto(abbrev, "upper test", "")
	if p.Upper != want {
		t.Fatalf("Upper of %q = %q, want %q", p.Abbrev, p.Upper, want)
	}
	if got := dissect.LookupProto(abbrev); got == nil || got.Upper != p.Upper {
		t.Fatalf("LookupProto: %+v", got)
	}
}
