package rx

import (
	"encoding/binary"
	"strconv"
	"testing"
)

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

// TestDataLine: a DATA packet's summary (appendDataLine's stores for the
// plain ones, the general path for the rest) is the text the parts spell,
// for every flag octet and numbers around each digit count, appended after
// text already in the buffer with and without room.
func TestDataLine(t *testing.T) {
	nums := []uint32{0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 12345, 99999, 100000, 999999,
		1000000, 9999999, 10000000, 87654321, 99999999, 100000000, 4294967295}
	u := func(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
	for fl := range 256 {
		for i, call := range nums {
			seq, ser := nums[(i+fl)%len(nums)], nums[(i*7+fl/3)%len(nums)]
			hdr := make(Header, HeaderLen)
			hdr[offType] = TypeData
			binary.BigEndian.PutUint32(hdr[offCall:], call)
			ch := uint32(fl % 5 / 4) // a channel but 0 now and then
			binary.BigEndian.PutUint32(hdr[offCID:], ch)
			p := &Packet{hdr: hdr, seq: seq, ser: ser, flags: uint8(fl), retrans: i%9 == 8}
			want := "DATA call " + u(call)
			if ch != 0 {
				want += " ch " + u(ch)
			}
			want += " seq " + u(seq) + " ser " + u(ser)
			if fl != 0 {
				want += string(formatFlags(nil, uint8(fl), TypeData))
			}
			if p.retrans {
				want += " [retransmission]"
			}
			for _, dst := range [][]byte{nil, []byte("x; "), append(make([]byte, 0, 300), "abc"...)} {
				pre := string(dst)
				if got := string(p.Summary(dst)); got != pre+want {
					t.Fatalf("flags %#x: %q, want %q", fl, got, pre+want)
				}
			}
		}
	}
}
