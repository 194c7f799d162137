package ib

import (
	"bytes"
	"strconv"
	"testing"
)

// TestExtHeaders encodes each header, decodes it back, and checks that every
// view refuses a short slice.
func TestExtHeaders(t *testing.T) {
	type row struct {
		name  string
		enc   []byte
		size  int
		valid func([]byte) bool
		check func(b []byte) bool
	}
	rows := []row{
		{"LRH", (&LRHFields{VL: 15, LVer: 0, SL: 3, LNH: 3, DLID: 0xC001, SLID: 7, PktLen: 0x123}).Encode(nil), LRHLen,
			func(b []byte) bool { return LRH(b).Valid() },
			func(b []byte) bool {
				h := LRH(b)
				return h.VL() == 15 && h.SL() == 3 && h.LNH() == 3 && h.DLID() == 0xC001 && h.SLID() == 7 && h.PktLen() == 0x123
			}},
		{"GRH", (&GRHFields{TClass: 0xAB, FlowLabel: 0x12345, PayLen: 60, NxtHdr: 0x1B, HopLmt: 64, SGID: [16]byte{0xfe, 0x80}, DGID: [16]byte{15: 1}}).Encode(nil), GRHLen,
			func(b []byte) bool { return GRH(b).Valid() },
			func(b []byte) bool {
				h := GRH(b)
				return h.IPVer() == 6 && h.TClass() == 0xAB && h.FlowLabel() == 0x12345 && h.PayLen() == 60 && h.NxtHdr() == 0x1B &&
					h.HopLmt() == 64 && h.SGID()[0] == 0xfe && h.DGID()[15] == 1
			}},
		{"BTH", (&BTHFields{Opcode: 0x0A, SE: true, MigReq: true, PadCnt: 3, PKey: 0x8001, FECN: true, BECN: true, DestQP: 0xABCDEF, AckReq: true, PSN: 0xFFFFFF}).Encode(nil), BTHLen,
			func(b []byte) bool { return BTH(b).Valid() },
			func(b []byte) bool {
				h := BTH(b)
				return h.Opcode() == 0x0A && h.SE() && h.MigReq() && h.PadCnt() == 3 && h.TVer() == 0 && h.PKey() == 0x8001 &&
					h.FECN() && h.BECN() && h.Resv6() == 0 && h.DestQP() == 0xABCDEF && h.AckReq() && h.Resv7() == 0 && h.PSN() == 0xFFFFFF
			}},
		{"RDETH", (&RDETHFields{EEContext: 0x123456}).Encode(nil), RDETHLen,
			func(b []byte) bool { return RDETH(b).Valid() }, func(b []byte) bool { return RDETH(b).EEContext() == 0x123456 }},
		{"DETH", (&DETHFields{QKey: 0x80010000, SrcQP: 1}).Encode(nil), DETHLen,
			func(b []byte) bool { return DETH(b).Valid() }, func(b []byte) bool { return DETH(b).QKey() == 0x80010000 && DETH(b).SrcQP() == 1 }},
		{"XRCETH", (&XRCETHFields{XRCSRQ: 0xFEDCBA}).Encode(nil), XRCETHLen,
			func(b []byte) bool { return XRCETH(b).Valid() }, func(b []byte) bool { return XRCETH(b).XRCSRQ() == 0xFEDCBA }},
		{"RETH", (&RETHFields{VA: 0x1122334455667788, RKey: 0x99, DMALen: 4096}).Encode(nil), RETHLen,
			func(b []byte) bool { return RETH(b).Valid() },
			func(b []byte) bool {
				r := RETH(b)
				return r.VA() == 0x1122334455667788 && r.RKey() == 0x99 && r.DMALen() == 4096
			}},
		{"AtomicETH", (&AtomicETHFields{VA: 8, RKey: 9, SwapAdd: 10, Compare: 11}).Encode(nil), AtomicETHLen,
			func(b []byte) bool { return AtomicETH(b).Valid() },
			func(b []byte) bool {
				a := AtomicETH(b)
				return a.VA() == 8 && a.RKey() == 9 && a.SwapAdd() == 10 && a.Compare() == 11
			}},
		{"AETH ACK", (&AETHFields{Syndrome: 0x1F, MSN: 5}).Encode(nil), AETHLen,
			func(b []byte) bool { return AETH(b).Valid() },
			func(b []byte) bool { a := AETH(b); return a.Kind() == AckKindACK && a.Value() == 31 && a.MSN() == 5 }},
		{"AETH RNR", (&AETHFields{Syndrome: 0x20 | 14, MSN: 6}).Encode(nil), AETHLen,
			func(b []byte) bool { return AETH(b).Valid() },
			func(b []byte) bool { a := AETH(b); return a.Kind() == AckKindRNRNAK && a.Value() == 14 }},
		{"AETH NAK", (&AETHFields{Syndrome: 0x60 | NAKRemoteAccess, MSN: 7}).Encode(nil), AETHLen,
			func(b []byte) bool { return AETH(b).Valid() },
			func(b []byte) bool {
				a := AETH(b)
				return a.Kind() == AckKindNAK && a.Value() == NAKRemoteAccess && NAKName(a.Value()) == "Remote Access Error"
			}},
		{"AtomicAckETH", (&AtomicAckETHFields{OrigData: 42}).Encode(nil), AtomicAckETHLen,
			func(b []byte) bool { return AtomicAckETH(b).Valid() }, func(b []byte) bool { return AtomicAckETH(b).OrigData() == 42 }},
		{"ImmDt", (&Uint32Fields{Value: 0xDEADBEEF}).Encode(nil), ImmDtLen,
			func(b []byte) bool { return ImmDt(b).Valid() }, func(b []byte) bool { return ImmDt(b).Value() == 0xDEADBEEF }},
		{"IETH", (&Uint32Fields{Value: 0x1234}).Encode(nil), IETHLen,
			func(b []byte) bool { return IETH(b).Valid() }, func(b []byte) bool { return IETH(b).RKey() == 0x1234 }},
		{"FETH", (&Uint32Fields{Value: 0x21}).Encode(nil), FETHLen,
			func(b []byte) bool { return FETH(b).Valid() },
			func(b []byte) bool { return FETH(b).PlacementType() == 1 && FETH(b).Selectivity() == 2 }},
	}
	for _, r := range rows {
		if len(r.enc) != r.size {
			t.Errorf("%s: encoded %d octets, want %d", r.name, len(r.enc), r.size)
			continue
		}
		if !r.valid(r.enc) || !r.check(r.enc) {
			t.Errorf("%s: round trip failed: % x", r.name, r.enc)
		}
		for n := 0; n < r.size; n++ {
			if r.valid(r.enc[:n]) {
				t.Errorf("%s: %d octets accepted as valid", r.name, n)
			}
		}
	}
}

func TestOpcodeTable(t *testing.T) {
	cases := []struct {
		op      uint8
		name    string
		tr      Transport
		ext     Ext
		payload bool
	}{
		{0x04, "SEND Only", RC, 0, true},
		{0x0B, "RDMA WRITE Only with Immediate", RC, ExtRETH | ExtImmDt, true},
		{0x12, "ATOMIC Acknowledge", RC, ExtAETH | ExtAtomicAckETH, false},
		{0x1C, "FLUSH", RC, ExtRETH | ExtFETH, false},
		{0x1D, "ATOMIC WRITE", RC, ExtRETH, true},
		{0x24, "SEND Only", UC, 0, true},
		{0x4C, "RDMA READ Request", RD, ExtRDETH | ExtDETH | ExtRETH, false},
		{0x51, "Acknowledge", RD, ExtRDETH | ExtAETH, false},
		{0x64, "SEND Only", UD, ExtDETH, true},
		{0x65, "SEND Only with Immediate", UD, ExtDETH | ExtImmDt, true},
		{0x81, "Congestion Notification", CNP, ExtCNP, false},
		{0xA4, "SEND Only", XRC, ExtXRCETH, true},
		{0xB1, "Acknowledge", XRC, ExtAETH, false},
		{0xB7, "SEND Only with Invalidate", XRC, ExtXRCETH | ExtIETH, true},
	}
	for _, c := range cases {
		o := Ops[c.op]
		if !o.Known || o.Name != c.name || o.Transport != c.tr || o.Ext != c.ext || o.Payload != c.payload {
			t.Errorf("opcode %#x: %+v", c.op, o)
		}
	}
	for _, op := range []uint8{0x15, 0x18, 0x2C, 0x31, 0x60, 0x80, 0x82, 0xC0, 0xE0, 0xFF} {
		if Ops[op].Known {
			t.Errorf("opcode %#x should be reserved", op)
		}
	}
	if ExtLen(ExtRDETH|ExtDETH|ExtRETH|ExtImmDt) != 32 {
		t.Errorf("ExtLen")
	}
	if opcodeNames[0x81] != "CNP Congestion Notification" || opcodeNames[0x0C] != "RC RDMA READ Request" || opcodeNames[0x15] != "" {
		t.Errorf("opcode value names: %q %q", opcodeNames[0x81], opcodeNames[0x0C])
	}
	_ = bytes.Equal
}

// TestAppendDec: the summary's decimal writer agrees with strconv at every
// digit count and at the ends of the range.
func TestAppendDec(t *testing.T) {
	vs := []uint32{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 1048576, 16777215, 99999999, 100000000, 4294967295}
	for v := uint32(1); v < 1e9; v = v*7 + 3 {
		vs = append(vs, v, v-1)
	}
	for p := uint32(10); p <= 1e9; p *= 10 { // where the digit count changes
		vs = append(vs, p-1, p, p+1)
	}
	for b := range 32 { // and where bits.Len32 does
		vs = append(vs, 1<<b, 1<<b-1)
	}
	for _, v := range vs {
		got := string(appendDec([]byte("x"), v))
		if want := "x" + strconv.FormatUint(uint64(v), 10); got != want {
			t.Errorf("appendDec(%d) = %q, want %q", v, got, want)
		}
	}
}

// TestHeaderLen: Header gives each extended header at its size (extLen),
// and a set of several headers, which has no size, an empty run.
func TestHeaderLen(t *testing.T) {
	p := &Packet{data: make([]byte, 64)}
	for i, e := range extOrder {
		p.exts, p.ext[i] = e, int16(i)
		if b := p.Header(e); len(b) != extLen(e) || &b[:1][0] != &p.data[i] {
			t.Fatalf("Header(%#x): %d octets at %p, want %d at offset %d", e, len(b), b, extLen(e), i)
		}
	}
	p.exts = ExtRETH | ExtImmDt
	if b := p.Header(ExtRETH | ExtImmDt); b == nil || len(b) != 0 {
		t.Fatalf("Header of two headers: %v (len %d), want empty", b, len(b))
	}
}
