package rdp

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

func seg(hf HeaderFields, data []byte, mut func([]byte)) []byte {
	b := hf.Encode(nil, data)
	Seal(b, noAddr, noAddr) // no IP here: v2 sums the bare segment
	if mut != nil {
		mut(b)
	}
	return b
}

func TestHeaderView(t *testing.T) {
	v1 := seg(HeaderFields{Flags: FlagSYN, Version: 1, SrcPort: 2, DstPort: 65, Seq: 100, MaxOutstanding: 8, MaxSegment: 1024, SDM: true}, nil, nil)
	h := Header(v1)
	if !h.Valid() || h.Version() != 1 || h.Flags() != FlagSYN || h.HLen() != 12 || h.HLenOctets() != 24 ||
		h.SrcPort() != 2 || h.DstPort() != 65 || h.Seq() != 100 || h.DataLen() != 0 ||
		!h.HasSynOptions() || h.MaxOutstanding() != 8 || h.MaxSegment() != 1024 || !h.SDM() || h.Checksum() != 0x51419080 {
		t.Errorf("v1 SYN view wrong: % x", v1)
	}
	v2 := seg(HeaderFields{Flags: FlagACK | FlagEAK, Version: 2, SrcPort: 4000, DstPort: 1025, Seq: 7, Ack: 0x01020304, Eacks: []uint32{9, 11}}, []byte("xy"), nil)
	h = Header(v2)
	if h.Version() != 2 || h.SrcPort() != 4000 || h.DstPort() != 1025 || h.DataLen() != 2 || h.Seq() != 7 ||
		h.Ack() != 0x01020304 || h.HLen() != 13 || h.EackCount() != 2 || h.Eack(0) != 9 || h.Eack(1) != 11 ||
		h.CksumLen() != 2 || h.PortLen() != 2 {
		t.Errorf("v2 EACK view wrong: % x", v2)
	}
	// EackCount never reads beyond the bytes present.
	if n := Header(v2[:20]).EackCount(); n != 0 {
		t.Errorf("truncated EACK list: count %d", n)
	}
}

// Malformed rows: each must raise a finding containing want (and no panic).
func TestMalformed(t *testing.T) {
	ack1 := HeaderFields{Flags: FlagACK, Version: 1, SrcPort: 2, DstPort: 65, Seq: 5, Ack: 4}
	ack2 := HeaderFields{Flags: FlagACK, Version: 2, SrcPort: 1024, DstPort: 1025, Seq: 5, Ack: 4}
	syn := HeaderFields{Flags: FlagSYN, Version: 1, SrcPort: 2, DstPort: 65, Seq: 1, MaxOutstanding: 4, MaxSegment: 512}
	rows := []struct {
		name string
		b    []byte
		want string // "" = no findings at all
		sum  string // summary prefix
	}{
		{"good v1", seg(ack1, []byte("abc"), nil), "", "ACK seq 5 ack 4 len 3"},
		{"good v2", seg(ack2, []byte("abcd"), nil), "", "ACK seq 5 ack 4 len 4"},
		{"good syn", seg(syn, nil, nil), "", "SYN seq 1 max_out 4 max_seg 512"},
		{"short", []byte{0x41, 9, 2, 65, 0, 0}, "truncated RDP header: 6 of 18", "RDP truncated header"},
		{"empty", nil, "truncated RDP header: 0 of 18", "RDP truncated header"},
		{"hlen below min", seg(ack1, nil, func(b []byte) { b[1] = 8 }), "header length 8 below the minimum", "ACK"},
		{"hlen zero", seg(ack1, nil, func(b []byte) { b[1] = 0 }), "below the minimum", "ACK"},
		{"hlen beyond", seg(ack1, nil, func(b []byte) { b[1] = 40 }), "header length 40 (80 octets) beyond the packet (18 octets)", "ACK"},
		{"dlen beyond", seg(HeaderFields{Flags: FlagACK, Version: 1, SrcPort: 2, DstPort: 65, DataLen: 100, SetDataLen: true}, []byte("abc"), nil),
			"data length 100 beyond the packet (3 octets after the header)", "ACK"},
		{"trailing", append(seg(ack1, []byte("abc"), nil), 0, 0), "2 octets after the data length 3", "ACK"},
		{"version 0", seg(ack1, nil, func(b []byte) { b[0] &^= VerMask }), "unknown RDP version 0", "RDP version 0"},
		{"version 3", seg(ack1, nil, func(b []byte) { b[0] |= VerMask }), "unknown RDP version 3", "RDP version 3"},
		{"eack without ack", seg(HeaderFields{Flags: FlagEAK, Version: 2, SrcPort: 1024, DstPort: 1025, Eacks: []uint32{3}}, nil, nil), "EACK without ACK", "EACK"},
		{"eack odd list", seg(HeaderFields{Flags: FlagACK | FlagEAK, Version: 1, SrcPort: 2, DstPort: 65, HLen: 10, SetDataLen: true}, []byte{1, 2}, nil),
			"EACK list of 2 octets is not a positive multiple of 4", "EACK"},
		{"eack empty", seg(HeaderFields{Flags: FlagACK | FlagEAK, Version: 1, SrcPort: 2, DstPort: 65}, nil, nil),
			"EACK list of 0 octets", "EACK"},
		{"syn without options", seg(HeaderFields{Flags: FlagSYN, Version: 1, SrcPort: 2, DstPort: 65, HLen: 9}, nil, nil), "SYN without options", "SYN seq 0"},
		{"syn with data", seg(syn, []byte("x"), nil), "SYN carries data", "SYN"},
		{"syn rst", seg(HeaderFields{Flags: FlagSYN | FlagRST, Version: 1, SrcPort: 2, DstPort: 65, MaxOutstanding: 1, MaxSegment: 9}, nil, nil), "SYN combined with RST", "SYN RST"},
		{"rst data", seg(HeaderFields{Flags: FlagRST, Version: 1, SrcPort: 2, DstPort: 65}, []byte("x"), nil), "RST or NUL segment carries data", "RST"},
		{"nul data", seg(HeaderFields{Flags: FlagNUL, Version: 2, SrcPort: 1024, DstPort: 1025}, []byte("x"), nil), "RST or NUL segment carries data", "NUL"},
		{"unused bit", seg(ack1, nil, func(b []byte) { b[0] |= FlagUnused }), "unused flag bit", "ACK"},
		{"port 0", seg(HeaderFields{Flags: FlagACK, Version: 1, DstPort: 65}, nil, nil), "port 0 is invalid", "ACK"},
		{"var area no eack", seg(HeaderFields{Flags: FlagACK, Version: 1, SrcPort: 2, DstPort: 65, HLen: 11, SetDataLen: true}, []byte{0, 0, 0, 0}, nil),
			"neither SYN nor EACK", "ACK"},
		{"bad v1 checksum", seg(ack1, []byte("abc"), func(b []byte) { b[17] ^= 1 }), "bad checksum: computed 0x", "ACK seq 5 ack 4 len 3 [bad checksum]"},
		{"bad v2 checksum", seg(ack2, []byte("abc"), func(b []byte) { b[16] = 0x12; b[17] = 0x34 }), ", wire 0x1234", "ACK seq 5 ack 4 len 3 [bad checksum]"},
	}
	for _, r := range rows {
		d := New()
		f := &dissect.Frame{Num: 1, CapLen: len(r.b), WireLen: len(r.b)}
		d.Dissect(f, r.b, 0)
		if len(f.PDUs) != 1 {
			t.Fatalf("%s: %d PDUs", r.name, len(f.PDUs))
		}
		var msgs []string
		for _, fd := range f.Findings {
			msgs = append(msgs, fd.Msg)
		}
		all := strings.Join(msgs, " | ")
		if r.want == "" && len(msgs) != 0 || !strings.Contains(all, r.want) {
			t.Errorf("%s: findings %q, want %q", r.name, all, r.want)
		}
		if s := string(f.PDUs[0].Summary(nil)); !strings.HasPrefix(s, r.sum) {
			t.Errorf("%s: summary %q, want prefix %q", r.name, s, r.sum)
		}
		var tr dissect.Tree
		f.PDUs[0].Tree(&tr, f) // must not panic on any row
	}
}
