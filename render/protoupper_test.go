package render

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

type upperPDU struct {
	p *dissect.ProtoInfo
	s string
}

func (u upperPDU) Proto() *dissect.ProtoInfo          { return u.p }
func (u upperPDU) Summary(dst []byte) []byte          { return append(dst, u.s...) }
func (u upperPDU) Tree(*dissect.Tree, *dissect.Frame) {}

// appendInfo names each protocol that follows another by its registered
// capitals (ProtoInfo.Upper), and still capitalises a ProtoInfo made
// without RegisterProto (Upper empty).
func TestInfoProtoNames(t *testing.T) {
	a := dissect.RegisterProto("test-info-a", "A", "")
	b := dissect.RegisterProto("test-info-b2", "B", "")
	bare := &dissect.ProtoInfo{Abbrev: "bare-x"}
	var f dissect.Frame
	f.AddPDU(upperPDU{a, "first"})
	f.AddPDU(upperPDU{b, "second"})
	f.AddPDU(upperPDU{bare, "third"})
	got := string(appendInfo(nil, &f))
	want := "first; TEST-INFO-B2 second; BARE-X third"
	if !strings.Contains(got, want) {
		t.Fatalf("appendInfo = %q, want %q", got, want)
	}
}
