package dissect_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
)

// frame.encap_type, ipv6.tclass and vlan.priority take Wireshark's types
// (FT_INT16, and masks of the 32-bit IPv6 first word and 16-bit TCI), so
// -T fields prints them as tshark does: the traffic class with eight hex
// digits, the priority and encapsulation in decimal.
func TestBaseFieldsAsTshark(t *testing.T) {
	v6 := ipv6UDP([]byte("rx!"))
	binary.BigEndian.PutUint32(v6, 6<<28|0xb8<<20|0x12345) // traffic class 0xb8 (EF), flow 0x12345
	eth := make([]byte, 14, 18+len(v6))
	binary.BigEndian.PutUint16(eth[12:], 0x8100)
	eth = binary.BigEndian.AppendUint16(eth, 5<<13|42) // priority 5, VLAN 42
	eth = binary.BigEndian.AppendUint16(eth, 0x86dd)
	eth = append(eth, v6...)
	eng := dissect.NewEngine(dissect.Options{})
	f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeEthernet, Data: eth})
	var tr dissect.Tree
	eng.BuildTree(&tr, f)
	got := map[string]string{}
	for i := range tr.Nodes {
		if n := &tr.Nodes[i]; n.F != nil {
			got[n.F.Abbrev] = string(dissect.AppendField(nil, n))
		}
	}
	for k, v := range map[string]string{"ipv6.tclass": "0x000000b8", "vlan.priority": "5", "vlan.id": "42", "frame.encap_type": "1"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (tshark)", k, got[k], v)
		}
	}
	for _, expr := range []string{"ipv6.tclass == 0xb8", "vlan.priority == 5", "frame.encap_type == 1", "frame.encap_type > -1"} {
		fl, err := filter.Compile(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if !fl.Match(&tr) {
			t.Errorf("%s does not match", expr)
		}
	}
	for _, c := range []struct {
		f    *dissect.Field
		want string
	}{{dissect.FFrameEncap, "FT_INT16"}} {
		if c.f.Type.String() != c.want {
			t.Errorf("%s is %s, want %s", c.f.Abbrev, c.f.Type, c.want)
		}
	}
}

// An FT_INT16 value is shown signed, as tshark shows frame.encap_type -1
// (unknown encapsulation).
func TestInt16Signed(t *testing.T) {
	n := dissect.Node{F: dissect.FFrameEncap, U: 0xffff}
	if got := string(dissect.AppendField(nil, &n)); got != "-1" {
		t.Errorf("-T fields %q, want -1", got)
	}
	if got := string(dissect.AppendDisplay(nil, &n)); got != "Encapsulation type: -1" {
		t.Errorf("tree %q, want \"Encapsulation type: -1\"", got)
	}
}
