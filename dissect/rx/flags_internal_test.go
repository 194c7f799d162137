package rx

import "testing"

// TestAppendFlags: the flag table gives the summary's flag text for every
// octet, SLOW-START only on an ACK, nothing for none.
func TestAppendFlags(t *testing.T) {
	for _, c := range []struct {
		fl   uint8
		typ  uint8
		want string
	}{
		{0, TypeData, ""},
		{0, TypeAck, ""},
		{FlagClientInitiated, TypeData, " <CI>"},
		{0x05, TypeData, " <CI,LAST>"},
		{0x20, TypeData, " <JUMBO>"},
		{0x20, TypeAck, " <SLOW-START>"},
		{0xff, TypeAck, " <CI,REQ-ACK,LAST,MORE,FREE,SLOW-START,0x40,0x80>"},
		{0xff, TypeBusy, " <CI,REQ-ACK,LAST,MORE,FREE,JUMBO,0x40,0x80>"},
	} {
		if got := string(appendFlags([]byte("x"), c.fl, c.typ)); got != "x"+c.want {
			t.Errorf("appendFlags(%#x, type %d) = %q, want %q", c.fl, c.typ, got, "x"+c.want)
		}
	}
}
