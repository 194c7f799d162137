package oncrpc

import (
	"encoding/binary"
	"strings"
	"sync"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/enginecheck"
)

func callBytes(xid uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, xid)
	for _, v := range []uint32{0, 2, 100005, 3, 1, AuthSys, 24, 0, 2, 0x61620000, 0, 0, 0, 0, 0} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

func TestParseCallReplyAndTree(t *testing.T) {
	d := newState()
	f := testFrame(dissect.Frame{Num: 1})
	m := d.DissectMessage(f, callBytes(9), 0, nil)
	if m == nil || m.Prog != 100005 || m.cred.flavor != AuthSys || !m.bodyOK {
		t.Fatalf("call: %+v", m)
	}
	var tr dissect.Tree
	for _, p := range f.PDUs {
		p.Tree(&tr, f)
	}
	if len(tr.Nodes) < 10 {
		t.Fatalf("tree too small: %d", len(tr.Nodes))
	}
	f2 := testFrame(dissect.Frame{Num: 2, TimeNS: 5})
	r := binary.BigEndian.AppendUint32(nil, 9)
	for _, v := range []uint32{1, 0, 0, 0, 0} {
		r = binary.BigEndian.AppendUint32(r, v)
	}
	m2 := d.DissectMessage(f2, r, 0, nil)
	if m2 == nil || !m2.matched || m2.callFrame != 1 || m2.Proc != 1 {
		t.Fatalf("reply: %+v", m2)
	}
}

func BenchmarkSummary(b *testing.B) {
	d := newState()
	f := testFrame(dissect.Frame{Num: 1})
	d.DissectMessage(f, callBytes(9), 0, nil)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range f.PDUs {
			buf = p.Summary(buf[:0])
		}
	}
}

func FuzzONCRPC(f *testing.F) {
	f.Add(callBytes(1))
	f.Add(append([]byte{0, 0, 0, 1, 0, 0, 0, 1}, make([]byte, 16)...))
	f.Add(gssCall(0, 2))
	f.Add(gssCall(1, 1))
	f.Add(gssCall(0, 3))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := newState()
		fr := testFrame(dissect.Frame{Num: 1, Data: b})
		d.DissectMessage(fr, b, 0, nil)
		enginecheck.PDUs(t, fr)
		fr = testFrame(dissect.Frame{Num: 2, Data: b})
		d.record(fr, b, 0, true)
		enginecheck.PDUs(t, fr)
		heuristicTCP(b)
	})
}

// gssCall is an NFSv3 GETATTR call with an RPCSEC_GSS credential.
func gssCall(proc, svc uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x77)
	for _, v := range []uint32{0, 2, 100003, 3, 1, RPCSecGSS, 24, 1, proc, 5, svc, 4, 0xaabbccdd, RPCSecGSS, 4, 0x01020304,
		16, 5, 8, 1, 2, 4, 0x09090909} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

func TestGSSBodyAndSRT(t *testing.T) {
	d := newState()
	f := testFrame(dissect.Frame{Num: 1, TimeNS: 1000, Pass: 1})
	m := d.DissectMessage(f, gssCall(0, 2), 0, nil)
	if m == nil || !m.gss || m.gssSvc != 2 || !m.bodyOK || m.BodyOff() != m.gssOff+8 {
		t.Fatalf("integrity call: %+v", m)
	}
	r := binary.BigEndian.AppendUint32(nil, 0x77)
	for _, v := range []uint32{1, 0, 0, 0, 0, 8, 5, 0} {
		r = binary.BigEndian.AppendUint32(r, v)
	}
	f2 := testFrame(dissect.Frame{Num: 2, TimeNS: 4000, Pass: 1})
	m2 := d.DissectMessage(f2, r, 0, nil)
	if m2 == nil || !m2.matched || !m2.gss || m2.BodyOff() != 32 {
		t.Fatalf("integrity reply: %+v", m2)
	}
	// the same exchange in pass 2 is not counted again
	d.Rewind()
	d.DissectMessage(testFrame(dissect.Frame{Num: 1, TimeNS: 1000, Pass: 2}), gssCall(0, 2), 0, nil)
	d.DissectMessage(testFrame(dissect.Frame{Num: 2, TimeNS: 4000, Pass: 2}), r, 0, nil)
	s := d.SRT()
	if len(s) != 1 || s[0].Count != 1 || s[0].MinNS != 3000 || s[0].MaxNS != 3000 || s[0].AvgNS() != 3000 ||
		s[0].Procedure != "GETATTR" || s[0].Program != "NFS" {
		t.Fatalf("SRT %+v", s)
	}
	if p := d.DissectMessage(testFrame(dissect.Frame{Num: 3}), gssCall(0, 3), 0, nil); p == nil || p.bodyOK {
		t.Fatalf("privacy call: %+v", p)
	}
}

// A reply cut inside its verifier shows the verifier's words that are there:
// the node claimed 8 octets past the end (found by FuzzONCRPC).
func TestTruncatedVerifierTree(t *testing.T) {
	b := []byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x23, 0, 0, 0} // XID 1, reply, accepted, flavor 35, 3 of 4 length octets
	fr := testFrame(dissect.Frame{Num: 1, Data: b})
	newState().DissectMessage(fr, b, 0, nil)
	if len(fr.PDUs) != 1 {
		t.Fatalf("%d PDUs", len(fr.PDUs))
	}
	enginecheck.PDUs(t, fr)
	var tr dissect.Tree
	fr.PDUs[0].Tree(&tr, fr)
	for _, n := range tr.Nodes {
		if n.F == fVerf && (n.Off != 12 || n.Len != 7) {
			t.Errorf("verifier at %d length %d, want 12, 7", n.Off, n.Len)
		}
		if n.F == fAuthLen {
			t.Errorf("verifier length shown from %d octets", len(b)-16)
		}
	}
}

func replyBytes(xid uint32) []byte {
	r := binary.BigEndian.AppendUint32(nil, xid)
	for _, v := range []uint32{1, 0, 0, 0, 0} {
		r = binary.BigEndian.AppendUint32(r, v)
	}
	return r
}

// The call table is bounded: one call more than maxCalls drops the least
// recently made, says so, and only that one loses its reply.
func TestCallTableFull(t *testing.T) {
	d := newState()
	for i := 0; i <= maxCalls; i++ {
		f := &dissect.Frame{Num: uint64(i + 1)}
		d.DissectMessage(f, callBytes(uint32(i)), 0, nil)
		if i < maxCalls && len(f.Findings) != 0 {
			t.Fatalf("call %d: finding %q before the table is full", i, f.Findings[0].Msg)
		}
		if i == maxCalls {
			want := "RPC call table full (65536 outstanding calls): dropped the least recently made, RPC call XID 0x0 (program 100005)"
			if len(f.Findings) != 1 || !strings.HasPrefix(f.Findings[0].Msg, want) {
				t.Fatalf("findings %+v, want %q", f.Findings, want)
			}
		}
	}
	f := &dissect.Frame{Num: maxCalls + 2}
	if m := d.DissectMessage(f, replyBytes(0), 0, nil); m == nil || m.matched {
		t.Errorf("reply to the dropped call matched: %+v", m)
	}
	if m := d.DissectMessage(f, replyBytes(1), 0, nil); m == nil || !m.matched || m.callFrame != 2 {
		t.Errorf("reply to call 1 not matched to frame 2: %+v", m)
	}
}

// A reply more than callTimeout after its call is not matched to it.
func TestCallTimeout(t *testing.T) {
	d := newState()
	d.DissectMessage(&dissect.Frame{Num: 1}, callBytes(7), 0, nil)
	d.DissectMessage(&dissect.Frame{Num: 2}, callBytes(8), 0, nil)
	if m := d.DissectMessage(&dissect.Frame{Num: 3, TimeNS: callTimeout}, replyBytes(8), 0, nil); !m.matched {
		t.Error("reply at the timeout not matched")
	}
	if m := d.DissectMessage(&dissect.Frame{Num: 4, TimeNS: callTimeout + 1}, replyBytes(7), 0, nil); m.matched {
		t.Error("reply after the timeout matched")
	}
}

// tables is the engine whose hand-off tables (rpc.program) the test frames
// use.
var tables = sync.OnceValue(func() *dissect.Engine { return dissect.NewEngine(dissect.Options{}) })

// testFrame makes f a frame of the tables engine.
func testFrame(f dissect.Frame) *dissect.Frame {
	tables().Bind(&f)
	return &f
}
