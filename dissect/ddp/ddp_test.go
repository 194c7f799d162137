package ddp

import (
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/internal/enginecheck"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

func seg(d *State, num uint64, dir tcp.Dir, b []byte) *dissect.Frame {
	return segIn(nil, d, num, dir, b)
}

// segIn is seg with frames of engine e (nil: none), whose tables the
// segments' hand-offs reach.
func segIn(e *dissect.Engine, d *State, num uint64, dir tcp.Dir, b []byte) *dissect.Frame {
	k, _ := tcp.NewFlowKey(netip.MustParseAddrPort("10.0.0.1:1"), netip.MustParseAddrPort("10.0.0.2:2"))
	f := &dissect.Frame{Num: num}
	if e != nil {
		e.Bind(f)
	}
	d.ULPDU(f, &mpa.ULPDU{Key: k, Dir: dir, Data: b, Off: -1})
	var tr dissect.Tree
	for _, p := range f.PDUs {
		p.Tree(&tr, f)
		p.Summary(nil)
	}
	return f
}

func TestReadMatchAndSend(t *testing.T) {
	d := New()
	rr := EncodeUntagged(nil, true, OpReadRequest, 0, 1, 1, 0,
		[]byte{0, 0, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0})
	if f := seg(d, 1, 0, rr); len(f.Findings) != 0 {
		t.Fatalf("read request: %+v", f.Findings)
	}
	f := seg(d, 2, 1, EncodeTagged(nil, true, OpReadResponse, 0x1234, 0x1000, make([]byte, 8)))
	if s := f.PDUs[0].(*Segment); s.reqIn != 1 || len(f.Findings) != 0 {
		t.Fatalf("response: reqIn %d %+v", s.reqIn, f.Findings)
	}
	var got []byte
	dissect.AddHeuristic(UntaggedTable.Name(), "test-send", func(_ dissect.Dissector, f *dissect.Frame, m *Message) bool {
		got = append([]byte(nil), m.Data...)
		return true
	})
	e := dissect.NewEngine(dissect.Options{})
	segIn(e, d, 3, 0, EncodeUntagged(nil, false, OpSend, 0, 0, 1, 0, []byte("hel")))
	segIn(e, d, 4, 0, EncodeUntagged(nil, true, OpSend, 0, 0, 1, 3, []byte("lo")))
	if string(got) != "hello" {
		t.Fatalf("send reassembly: %q", got)
	}
	// MSN 3 after 1: a message is missing; MO gap inside MSN 3.
	f = seg(d, 5, 0, EncodeUntagged(nil, false, OpSend, 0, 0, 3, 0, []byte("ab")))
	if len(f.Findings) != 1 {
		t.Errorf("msn gap: %+v", f.Findings)
	}
	f = seg(d, 6, 0, EncodeUntagged(nil, true, OpSend, 0, 0, 3, 9, []byte("cd")))
	if len(f.Findings) != 1 {
		t.Errorf("mo gap: %+v", f.Findings)
	}
}

func FuzzDDP(f *testing.F) {
	f.Add(EncodeTagged(nil, true, OpWrite, 1, 2, []byte("x")))
	f.Add(EncodeUntagged(nil, true, OpTerminate, 0, 2, 1, 0, []byte{0x12, 0x01, 0xe0, 0, 0, 46, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := New()
		for i, dir := range []tcp.Dir{0, 1, 0} {
			fr := seg(d, uint64(i+1), dir, b)
			enginecheck.PDUs(t, fr) // detached data: no node may claim frame octets
			if len(b) >= 6 && len(fr.PDUs) == 0 {
				t.Fatalf("%d octets gave no DDP PDU", len(b))
			}
		}
	})
}

// TestPlacement: a Read Response segment is handed to the iwarp_ddp.tagged
// table with the source STag/TO of its Read Request, advanced by its offset;
// -d iwarp_ddp.tagged==0x7,PROTO sends STag 7 to PROTO instead of the
// heuristics.
func TestPlacement(t *testing.T) {
	var got, forced []Placement
	dissect.AddHeuristic(TaggedTable.Name(), "test-placement", func(_ dissect.Dissector, _ *dissect.Frame, p *Placement) bool {
		got = append(got, *p)
		return true
	})
	dissect.AddHandler(TaggedTable.Name(), "test-stag", nil, func(_ dissect.Dissector, _ *dissect.Frame, p *Placement) bool {
		forced = append(forced, *p)
		return true
	})
	da, err := dissect.ParseDecodeAs("iwarp_ddp.tagged==0x7,test-stag")
	if err != nil {
		t.Fatal(err)
	}
	e := dissect.NewEngine(dissect.Options{DecodeAs: []dissect.DecodeAs{da}})
	d := New()
	// sink STag 0x1234 TO 0x1000, 16 octets, source STag 9 TO 0x5000
	segIn(e, d, 1, 0, EncodeUntagged(nil, true, OpReadRequest, 0, 1, 1, 0,
		[]byte{0, 0, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 16, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0x50, 0}))
	segIn(e, d, 2, 1, EncodeTagged(nil, false, OpReadResponse, 0x1234, 0x1000, make([]byte, 8)))
	segIn(e, d, 3, 1, EncodeTagged(nil, true, OpReadResponse, 0x1234, 0x1008, make([]byte, 8)))
	segIn(e, d, 4, 1, EncodeTagged(nil, true, OpWrite, 7, 0x42, []byte("abc")))
	segIn(e, d, 5, 1, EncodeTagged(nil, true, OpWrite, 8, 0x42, []byte("abc")))
	if len(got) != 3 || len(forced) != 1 || forced[0].STag != 7 || got[2].STag != 8 {
		t.Fatalf("%d placements by heuristic, %d by decode-as (%+v)", len(got), len(forced), forced)
	}
	got[2] = forced[0]
	if p := got[1]; !p.Matched || p.ReqFrame != 1 || p.SrcSTag != 9 || p.SrcTO != 0x5008 || p.STag != 0x1234 || p.TO != 0x1008 || !p.Last || p.Frame != 3 {
		t.Errorf("read response: %+v", p)
	}
	if p := got[2]; p.Opcode != OpWrite || p.Matched || p.STag != 7 || p.TO != 0x42 || string(p.Data) != "abc" {
		t.Errorf("write: %+v", p)
	}
}
