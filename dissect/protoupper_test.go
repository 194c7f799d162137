package dissect_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// The summary names a protocol by ProtoInfo.Upper (made once at
// registration) instead of capitalising Abbrev on every frame: it must be
// exactly the ASCII capitals of Abbrev, digits and punctuation kept.
func TestProtoUpper(t *testing.T) {
	p := dissect.RegisterProto("test-up.v2x", "upper test", "")
	if p.Upper != "TEST-UP.V2X" {
		t.Fatalf("Upper of %q = %q, want %q", p.Abbrev, p.Upper, "TEST-UP.V2X")
	}
	if got := dissect.LookupProto("test-up.v2x"); got == nil || got.Upper != p.Upper {
		t.Fatalf("LookupProto: %+v", got)
	}
}
