package dissect

import "testing"

// TestBaseOct: an octal field reads as Wireshark's BASE_OCT does, "0644" in
// the tree and the decimal value in fields (tshark -T fields prints 420).
func TestBaseOct(t *testing.T) {
	f := &Field{Abbrev: "test.mode", Name: "mode", Type: TUint32, Base: BaseOct}
	for _, c := range []struct {
		v            uint64
		disp, fields string
	}{{0o644, "mode: 0644", "420"}, {0, "mode: 0", "0"}, {0o5751, "mode: 05751", "3049"}} {
		n := &Node{F: f, U: c.v}
		if got := string(AppendDisplay(nil, n)); got != c.disp {
			t.Errorf("display %q, want %q", got, c.disp)
		}
		if got := string(AppendField(nil, n)); got != c.fields {
			t.Errorf("fields %q, want %q", got, c.fields)
		}
	}
	if BaseOct.String() != "BASE_OCT" {
		t.Errorf("BaseOct is %s", BaseOct)
	}
}
