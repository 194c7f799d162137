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

// TestDataSummaryHead: Summary writes a DATA packet's name as a constant
// with " call " (the most common type, without typeSummary's copy): it must
// be typeSummary's name, with a channel, and for a jumbogram before its
// count.
func TestDataSummaryHead(t *testing.T) {
	if typeSummary[TypeData] != "DATA" {
		t.Fatalf("typeSummary[TypeData] = %q, Summary writes DATA", typeSummary[TypeData])
	}
	hdr := make(Header, HeaderLen)
	hdr[offType] = TypeData
	hdr[offCall+3] = 4
	hdr[offCID+3] = 3 // channel 3
	p := &Packet{hdr: hdr, seq: 1, ser: 2}
	if got, want := string(p.Summary(nil)), "DATA call 4 ch 3 seq 1 ser 2"; got != want {
		t.Errorf("DATA: %q, want %q", got, want)
	}
	p.nsub = 3
	if got, want := string(p.Summary(nil)), "DATA jumbogram 3 packets call 4 ch 3 seq 1-3 ser 2-4"; got != want {
		t.Errorf("jumbogram: %q, want %q", got, want)
	}
}
