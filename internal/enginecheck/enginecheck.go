// Package enginecheck asserts what must hold for every frame a
// dissect.Engine decodes, whatever the input, so fuzz targets can fail on
// more than a crash: the engine runs strict (a dissector panic is re-raised),
// no "internal error" finding or tree line appears (a recovered panic, should
// a path escape strict mode), decoding leaves the input alone, every offset
// and length lies within the frame, findings point at PDUs that exist, the
// tree shows every PDU the summary line counts, each under its own protocol
// node, and a second engine fed the same frames says exactly the same thing.
package enginecheck

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// Pair decodes every frame in two engines built alike and compares them.
// Both keep their state across Decode calls, so they stay in step as long as
// they see the same frames; a difference means decoding depends on something
// other than its input (map order, package-level state shared by engines).
type Pair struct {
	A, B *dissect.Engine

	ta, tb         dissect.Tree
	sa, sb, in, bb []byte
}

// NewPair builds the two engines with opts, strict.
func NewPair(opts dissect.Options) *Pair {
	opts.Strict = true
	return &Pair{A: dissect.NewEngine(opts), B: dissect.NewEngine(opts)}
}

// Decode dissects data as frame num of link type lt in both engines, builds
// and renders the summary and the tree, checks every invariant and returns
// engine A's frame (valid until the next Decode).
func (p *Pair) Decode(t testing.TB, num uint64, lt uint16, data []byte) *dissect.Frame {
	t.Helper()
	p.in = append(p.in[:0], data...)
	ts := int64(num) * 1000
	fa := p.A.Decode(dissect.Packet{Num: num, TimeNS: ts, LinkType: lt, Data: data})
	if !bytes.Equal(data, p.in) {
		t.Fatalf("frame %d (link type %d): decoding changed the input bytes", num, lt)
	}
	Frame(t, fa, data)
	p.sa = render.Summary(p.sa[:0], fa, 0, nil)
	p.A.BuildTree(&p.ta, fa)
	Tree(t, fa, &p.ta)
	treeHasPDUs(t, fa, &p.ta)

	fb := p.B.Decode(dissect.Packet{Num: num, TimeNS: ts, LinkType: lt, Data: data})
	p.sb = render.Summary(p.sb[:0], fb, 0, nil)
	if !bytes.Equal(p.sa, p.sb) {
		t.Fatalf("frame %d (link type %d): the same frames decoded twice give different summaries:\n%s%s", num, lt, p.sa, p.sb)
	}
	if len(fa.Findings) != len(fb.Findings) {
		t.Fatalf("frame %d: %d findings, then %d for the same frames", num, len(fa.Findings), len(fb.Findings))
	}
	for i := range fa.Findings {
		if a, b := fa.Findings[i], fb.Findings[i]; a != b {
			t.Fatalf("frame %d: finding %d is %+v, then %+v for the same frames", num, i, a, b)
		}
	}
	p.B.BuildTree(&p.tb, fb)
	if len(p.ta.Nodes) != len(p.tb.Nodes) {
		t.Fatalf("frame %d: %d tree nodes, then %d for the same frames", num, len(p.ta.Nodes), len(p.tb.Nodes))
	}
	for i := range p.ta.Nodes {
		a, b := &p.ta.Nodes[i], &p.tb.Nodes[i]
		p.sa = dissect.AppendDisplay(p.sa[:0], a)
		p.sb = dissect.AppendDisplay(p.sb[:0], b)
		if a.F != b.F || a.Off != b.Off || a.Len != b.Len || a.Depth != b.Depth || !bytes.Equal(p.sa, p.sb) {
			t.Fatalf("frame %d: tree node %d is %q, then %q for the same frames", num, i, p.sa, p.sb)
		}
	}
	p.bb = render.Verbose(p.bb[:0], &p.ta, nil)
	return fa
}

// Tree is engine A's tree of the last frame.
func (p *Pair) Tree() *dissect.Tree { return &p.ta }

// Finish flushes both engines (strict: a panic in a stream close fails).
func (p *Pair) Finish() {
	p.A.Finish()
	p.B.Finish()
}

// Frame checks a decoded frame against its input data.
func Frame(t testing.TB, f *dissect.Frame, data []byte) {
	t.Helper()
	if len(f.Data) != len(data) {
		t.Fatalf("frame %d: Data is %d octets, the input %d", f.Num, len(f.Data), len(data))
	}
	n := &f.Net
	in := func(what string, off, l int) {
		if off < 0 || l < 0 || off+l > len(data) {
			t.Fatalf("frame %d: %s at %d length %d lies outside the %d-octet frame", f.Num, what, off, l, len(data))
		}
	}
	if n.HasIP {
		in("IP header", n.L3Off, 0)
	}
	if n.HasL4 {
		in("transport header", n.L4Off, 0)
		if n.L4Off < n.L3Off {
			t.Fatalf("frame %d: transport header at %d before the IP header at %d", f.Num, n.L4Off, n.L3Off)
		}
	}
	if n.PayloadOff >= 0 && (n.HasL4 || n.PayloadLen > 0) {
		in("transport payload", n.PayloadOff, n.PayloadLen)
	}
	if n.HasL4 && !n.HasIP {
		t.Fatalf("frame %d: a transport layer without an IP layer", f.Num)
	}
	for i, p := range f.PDUs {
		if p == nil || p.Proto() == nil {
			t.Fatalf("frame %d: PDU %d is %v, or has no protocol", f.Num, i, p)
		}
	}
	for i := range f.Findings {
		fd := &f.Findings[i]
		if fd.PDU < -1 || fd.PDU >= len(f.PDUs) {
			t.Fatalf("frame %d: finding %q belongs to PDU %d of %d", f.Num, fd.Msg, fd.PDU, len(f.PDUs))
		}
		if fd.Sev < dissect.Note || fd.Sev > dissect.Error {
			t.Fatalf("frame %d: finding %q has severity %d", f.Num, fd.Msg, fd.Sev)
		}
		if fd.Msg == "" || fd.Proto == "" {
			t.Fatalf("frame %d: finding %+v without a message or a protocol", f.Num, *fd)
		}
		if strings.HasPrefix(fd.Msg, internalError) {
			t.Fatalf("frame %d: %s", f.Num, fd.Msg)
		}
	}
}

// Tree checks the tree BuildTree made for f: every node's bytes lie within
// the frame (or are marked as reassembled, Off -1), depths nest, and every
// node renders.
func Tree(t testing.TB, f *dissect.Frame, tr *dissect.Tree) {
	t.Helper()
	var buf [256]byte
	prev := int16(-1)
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		if n.Len < 0 || n.Off < -1 || n.Off >= 0 && int(n.Off)+int(n.Len) > len(f.Data) {
			t.Fatalf("frame %d: tree node %d %q at %d length %d lies outside the %d-octet frame",
				f.Num, i, dissect.AppendField(buf[:0], n), n.Off, n.Len, len(f.Data))
		}
		if n.Depth < 0 || n.Depth > prev+1 {
			t.Fatalf("frame %d: tree node %d %q at depth %d after depth %d", f.Num, i, dissect.AppendField(buf[:0], n), n.Depth, prev)
		}
		prev = n.Depth
		if n.F == nil && n.Label == "" {
			t.Fatalf("frame %d: tree node %d has neither a field nor a label", f.Num, i)
		}
		if n.F == nil && strings.HasPrefix(n.Label, "["+internalError) {
			t.Fatalf("frame %d: %s", f.Num, n.Label)
		}
		dissect.AppendDisplay(buf[:0], n)
	}
}

// PDUs checks what a dissector called directly (not through an engine) put
// in f, for fuzz targets of one protocol: Frame's checks against f.Data
// (the octets the dissector's offsets count in; nil when its data was
// detached, so every node must say Off -1), each PDU's summary the same
// when asked twice, and each PDU's tree within f.Data.
func PDUs(t testing.TB, f *dissect.Frame) {
	t.Helper()
	Frame(t, f, f.Data)
	var tr dissect.Tree
	var a, b []byte
	for i, p := range f.PDUs {
		a = p.Summary(a[:0])
		b = p.Summary(b[:0])
		if !bytes.Equal(a, b) {
			t.Fatalf("frame %d: PDU %d summary %q, then %q", f.Num, i, a, b)
		}
		tr.Reset()
		p.Tree(&tr, f)
		Tree(t, f, &tr)
		if len(tr.Nodes) == 0 || tr.Nodes[0].Depth != 0 || tr.Nodes[0].F != p.Proto().Field {
			t.Fatalf("frame %d: PDU %d (%s, summary %q) does not start its tree with its protocol node", f.Num, i, p.Proto().Field.Abbrev, a)
		}
	}
}

// internalError starts the finding and the tree line the engine makes of a
// recovered dissector panic (dissect/engine.go).
const internalError = "internal error"

// treeHasPDUs checks that the tree and the summary line agree on the PDUs:
// the summary is made from f.PDUs, and BuildTree must show each of them, in
// order, as a protocol node at depth 0 (unless MaxTreeNodes cut the tree).
func treeHasPDUs(t testing.TB, f *dissect.Frame, tr *dissect.Tree) {
	t.Helper()
	if tr.Cut() {
		return
	}
	i := 0
	for k := range tr.Nodes {
		n := &tr.Nodes[k]
		if i < len(f.PDUs) && n.Depth == 0 && n.F == f.PDUs[i].Proto().Field {
			i++
		}
	}
	if i != len(f.PDUs) {
		t.Fatalf("frame %d: the summary has %d PDUs, the tree shows the first %d (PDU %d, %s, has no protocol node)",
			f.Num, len(f.PDUs), i, i, f.PDUs[i].Proto().Field.Abbrev)
	}
}
