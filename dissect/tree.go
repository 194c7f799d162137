package dissect

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// Node is one line of the protocol tree: a field with its value and where its
// bytes are, or a text label. Children follow their parent at Depth+1.
type Node struct {
	F     *Field
	Depth int16
	Off   int32 // offset in the frame's bytes; -1 when the bytes came from reassembly
	Len   int32
	U     uint64 // integer, boolean, time and frame-number values
	S     string // string values
	B     []byte // bytes and address values (aliases frame or reassembly buffers)
	Label string // text-only node (F == nil), or a display override for F's value
}

// Tree is a frame's protocol tree, a flat list of nodes in display order. It is
// built only when an output mode asks for it (-V, -T json, -T fields); the
// summary, check and stats paths never touch it.
//
// A nil *Tree takes every call and keeps nothing, so a decoder that walks
// the same bytes for a summary (no tree) and for the tree needs no guard
// at each node: one missed guard crashed the NFS summary path on input the
// fuzzer found.
type Tree struct {
	Nodes    []Node
	depth    int16
	base     int32 // added to offsets given to the Add methods
	detached bool
	cut      bool   // MaxTreeNodes was reached: further nodes are dropped
	proto    *Field // the protocol being added, for the cut message
	// count is the nodes the whole tree would hold: the cap (and so the
	// cut) falls where it falls in the whole tree even when want keeps
	// only some of them.
	count  int
	sparse bool // only nodes of fields in want are stored
	// want[id] tells whether the field of that id is kept: a byte a
	// field (the tree's own, from a FieldSet), one load where the set's
	// bits took a shift and a bit test on every node a dissector adds
	want []bool
	// protos holds the protocols (their ProtoInfo.Field) with a field in
	// want: the others' subtrees may be left out (SkipProto). The tree's
	// own: SetWant computes it.
	protos FieldSet
	expert bool // a sparse tree keeps findings (SetWant)
	lastAt int  // count when the latest stored node was added (Last)
	// where the cut fell, for its finding node: added by finish, so that
	// keep stays small enough to be inlined
	cutF     *Field
	cutDepth int16
	// skipSpan[s.id] is true for a Span none of whose fields a sparse
	// tree keeps (SetWant computes it).
	skipSpan []bool
	// spanLog, when not nil (tests), records where every span started in
	// a whole tree, for SpanCheck.
	spanLog []spanAt
	// udp4 is what the sparse tree keeps of a fast-path UDP frame's
	// Ethernet, IPv4 and UDP headers (SetWant), for Engine.layersTree.
	udp4 basePlan
	// baseUDP4: a fast-path UDP frame without findings may take
	// addBaseUDP4 (SetWant computes it: the plan is ok, and the tree
	// keeps no frame field and no findings)
	baseUDP4 bool
}

// basePlan is the nodes a sparse tree keeps of headers whose nodes do not
// depend on their values: the Ethernet, IPv4 and UDP headers of a frame
// fastUDP4 took (Ethernet at 0, IPv4 without options, UDP at 34). It is
// read off a whole tree the engine's own builders made of such headers
// (planUDP4): which node each kept one is, its depth, offset and length,
// and that its value is none (a protocol node) or the header's bytes at
// its offset (addresses). A frame then gets these nodes straight, and the
// count of the rest, with no walk of the three headers' code. ok is false
// when the tree keeps a node of another kind (a number, a string, a
// finding): those headers are then walked as usual.
type basePlan struct {
	ok    bool
	total int // nodes the whole tree has of the headers
	last  *Field
	nodes []planNode
}

// planNode is one kept node of a basePlan.
type planNode struct {
	f      *Field
	at     int // its index among the headers' nodes
	depth  int16
	off, n int
	bytes  bool // its value is the frame's bytes at off
}

// addUDP4 adds the nodes of the udp4 plan for frame bytes d (at least the
// headers' length), with the counts and depths the walk would have given;
// it reports false, adding nothing, when the walk must be done instead.
func (t *Tree) addUDP4(d []byte) bool {
	if t == nil {
		return false
	}
	p := &t.udp4
	if !p.ok || t.expert || t.cut || t.count+p.total >= MaxTreeNodes {
		return false
	}
	start := t.count
	for i := range p.nodes {
		pn := &p.nodes[i]
		t.count, t.depth = start+pn.at+1, pn.depth
		nd := t.add(pn.f, pn.off, pn.n)
		if pn.bytes {
			nd.B = d[pn.off : pn.off+pn.n]
		}
	}
	t.count, t.depth, t.proto = start+p.total, 1, p.last
	return true
}

// mayBaseUDP4 tells whether addBaseUDP4 may take a frame (baseUDP4).
func (t *Tree) mayBaseUDP4() bool { return t != nil && t.baseUDP4 }

// addBaseUDP4 is SkipProto of the frame's subtree (frameN nodes, no
// findings among them) and then addUDP4, for a frame the tree has no
// node of before: it reports false, adding nothing, unless both would
// succeed.
func (t *Tree) addBaseUDP4(frameN int, d []byte) bool {
	if !t.baseUDP4 || !t.udp4.ok || t.cut || t.count+frameN+t.udp4.total >= MaxTreeNodes {
		return false
	}
	t.count += frameN
	return t.addUDP4(d)
}

// Span is a run of nodes a dissector always adds together and in this
// order, with Open and Close balanced and nothing conditional inside: a
// sparse tree that keeps none of its fields counts its nodes and the
// dissector skips the code that adds them (SkipSpan). It is the
// SkipProto of a part of a protocol: -T fields and -Y read a few fields,
// and walking the rest of a header cost most of a -T fields row.
type Span struct {
	id     int
	fields []*Field
	alts   []spanAlt
}

// spanAlt is another field node i of a span may be (one of two by a
// value the header holds).
type spanAlt struct {
	i int
	f *Field
}

// Alt lets node i of s be of field f instead; s is returned.
func (s *Span) Alt(i int, f *Field) *Span {
	regMu.Lock()
	s.alts = append(s.alts, spanAlt{i, f})
	regMu.Unlock()
	return s
}

// allows tells whether node i of s may be of field f.
func (s *Span) allows(i int, f *Field) bool {
	if i >= len(s.fields) {
		return false
	}
	if s.fields[i] == f {
		return true
	}
	for _, a := range s.alts {
		if a.i == i && a.f == f {
			return true
		}
	}
	return false
}

var spans []*Span // by id; guarded by regMu

// NewSpan declares a span of the fields fs, one per node, in the order the
// dissector adds them (SpanCheck verifies it on whole trees).
func NewSpan(fs ...*Field) *Span {
	regMu.Lock()
	defer regMu.Unlock()
	s := &Span{id: len(spans), fields: fs}
	spans = append(spans, s)
	return s
}

// SkipSpan reports whether the tree leaves out span s: a sparse tree that
// keeps none of its fields, not near the cap (there the nodes are added
// for the cut to fall where it falls in the whole tree). It then counts
// s's nodes as added.
func (t *Tree) SkipSpan(s *Span) bool {
	if t == nil {
		return false
	}
	if uint(s.id) < uint(len(t.skipSpan)) && t.skipSpan[s.id] && !t.cut && t.count+len(s.fields) < MaxTreeNodes {
		t.count += len(s.fields)
		return true
	}
	if t.spanLog != nil { // a whole tree (no skipSpan) under test
		t.spanLog = append(t.spanLog, spanAt{s, len(t.Nodes), t.depth})
	}
	return false
}

// TraceSpans makes a whole tree record where its spans start, for
// SpanError (tests).
func (t *Tree) TraceSpans() {
	if t != nil {
		t.spanLog = make([]spanAt, 0, 8)
	}
}

// SpanError checks the spans of a whole tree built after TraceSpans: each
// span's nodes are its fields in order, the first at the depth the span
// started at. Tests compare Counted of sparse and whole trees to check
// that no node follows them unannounced.
func (t *Tree) SpanError() error {
	if t == nil || t.sparse || t.cut {
		return nil
	}
	for _, sa := range t.spanLog {
		for i := range sa.s.fields {
			k := sa.at + i
			if k >= len(t.Nodes) {
				return fmt.Errorf("span of %s: node %d of %d missing", sa.s.fields[0].Abbrev, i, len(sa.s.fields))
			}
			n := &t.Nodes[k]
			if !sa.s.allows(i, n.F) {
				name := "a text node"
				if n.F != nil {
					name = n.F.Abbrev
				}
				return fmt.Errorf("span of %s: node %d is %s, not %s", sa.s.fields[0].Abbrev, i, name, sa.s.fields[i].Abbrev)
			}
			if i == 0 && n.Depth != sa.depth {
				return fmt.Errorf("span of %s starts at depth %d, not %d", sa.s.fields[0].Abbrev, n.Depth, sa.depth)
			}
		}
	}
	return nil
}

// Counted is the nodes the whole tree holds or would hold (tests).
func (t *Tree) Counted() int {
	if t == nil {
		return 0
	}
	return t.count
}

// spanAt is where a span started: the index of its first node and the
// depth before it.
type spanAt struct {
	s     *Span
	at    int
	depth int16
}

// FieldSet is a set of fields by registration index: what a sparse tree
// keeps (-T fields -e, the fields a -Y filter names). It is read-only once
// given to a tree, so trees on several goroutines may share one.
type FieldSet struct{ bits []uint64 }

// Add puts f in the set.
func (s *FieldSet) Add(f *Field) {
	if f == nil {
		return
	}
	w := f.id >> 6
	for len(s.bits) <= w {
		s.bits = append(s.bits, 0)
	}
	s.bits[w] |= 1 << (f.id & 63)
}

// Has tells whether f is in the set.
func (s *FieldSet) Has(f *Field) bool {
	if f == nil {
		return false
	}
	w := f.id >> 6
	return w < len(s.bits) && s.bits[w]&(1<<(f.id&63)) != 0
}

// AddExpert puts the finding node in the set: what the _ws.expert.* fields
// of a -T fields row are read from.
func (s *FieldSet) AddExpert() { s.Add(fExpert) }

// SetWant makes the tree sparse: only nodes of fields in s are stored, and
// every other node costs a count and a compare (no copy, no growth). A
// dissector may then skip building display labels (Labels) and values of
// fields the tree does not keep (Wants). nil makes it whole again. The
// count of nodes and so the MaxTreeNodes cut are those of the whole tree.
func (t *Tree) SetWant(s *FieldSet) {
	if t == nil {
		return
	}
	t.sparse, t.want, t.expert = s != nil, t.want[:0], false
	clear(t.protos.bits)
	t.skipSpan = t.skipSpan[:0]
	if s != nil {
		for i, w := range s.bits {
			for ; w != 0; w &= w - 1 {
				id := i<<6 | bits.TrailingZeros64(w)
				for len(t.want) <= id {
					t.want = append(t.want, false)
				}
				t.want[id] = true
			}
		}
		t.expert = t.has(fExpert)
		regMu.Lock()
		for i, w := range s.bits {
			for ; w != 0; w &= w - 1 {
				if id := i<<6 | bits.TrailingZeros64(w); id < len(fields) {
					if p := protos[fields[id].Proto]; p != nil {
						t.protos.Add(p.Field)
					}
				}
			}
		}
		for _, sp := range spans {
			skip := true
			for _, f := range sp.fields {
				skip = skip && !t.has(f)
			}
			for _, a := range sp.alts {
				skip = skip && !t.has(a.f)
			}
			t.skipSpan = append(t.skipSpan, skip)
		}
		regMu.Unlock()
	}
	t.udp4 = planUDP4(t, t.udp4.nodes[:0])
	t.baseUDP4 = t.sparse && t.udp4.ok && !t.expert && !t.protos.Has(PFrame.Field)
}

// SkipProto reports whether a sparse tree may leave out the subtree of
// protocol p, which holds nodes nodes: it keeps none of p's fields and no
// findings. It then counts them as added, so the cap (MaxTreeNodes) falls
// where it falls in the whole tree; near the cap it says no, and the
// subtree is built for the cut to fall inside it. The caller must pass
// the exact count its subtree would add (TestSkipProtoCounts checks them
// on every capture).
func (t *Tree) SkipProto(p *ProtoInfo, nodes int) bool {
	if t == nil || !t.sparse || t.expert || t.cut || t.count+nodes >= MaxTreeNodes || t.protos.Has(p.Field) {
		return false
	}
	t.count += nodes
	return true
}

// Wants tells whether the tree keeps nodes of f: a dissector checks it
// before computing an expensive value (a string it builds) of f.
func (t *Tree) Wants(f *Field) bool {
	return t != nil && (!t.sparse || t.has(f))
}

func (t *Tree) has(f *Field) bool {
	return f != nil && uint(f.id) < uint(len(t.want)) && t.want[f.id]
}

// Labels tells whether nodes' display labels are shown: false for a nil
// or sparse tree, whose readers (-T fields, -Y) use values only (a
// field's text, a protocol's name, a finding's message), so a dissector
// may leave a label it would have to format empty.
func (t *Tree) Labels() bool { return t != nil && !t.sparse }

// MaxTreeNodes caps the nodes of one frame's tree; the rest are dropped and
// one expert node says where the tree was cut. It is one node per 4 octets
// of the largest record rdx reads (capture.MaxRecord, 256 KiB), and no
// protocol has fields that small on average, so only a reassembled message
// with a hostile element count (an NFS COMPOUND of a million operations)
// reaches it. 65536 nodes take about 6 MB; an uncapped tree grew by over a
// gigabyte for one such frame.
const MaxTreeNodes = 1 << 16

// Reset empties the tree, keeping its storage.
func (t *Tree) Reset() {
	if t == nil {
		return
	}
	t.Nodes = t.Nodes[:0]
	t.depth = 0
	t.base = 0
	t.detached = false
	t.cut = false
	t.proto = nil
	t.count = 0
	t.lastAt = 0
	t.cutF = nil
	if t.spanLog != nil {
		t.spanLog = t.spanLog[:0]
	}
}

// Cut reports whether nodes were dropped because the tree reached
// MaxTreeNodes (a dissector may stop walking a huge element list then).
func (t *Tree) Cut() bool { return t != nil && t.cut }

// SetBase makes the offsets passed to Add* relative to base in the frame.
// detached marks bytes that do not lie in the frame (a reassembled buffer);
// their nodes get Off -1.
func (t *Tree) SetBase(base int, detached bool) {
	if t == nil {
		return
	}
	t.base = int32(base)
	t.detached = detached
}

// Base reports the current base offset and whether it is detached.
func (t *Tree) Base() (int, bool) {
	if t == nil {
		return 0, true
	}
	return int(t.base), t.detached
}

// keep counts a node of field f and tells whether to store it: the
// methods that add nodes ask it before building the node.
func (t *Tree) keep(f *Field) bool {
	if t == nil {
		return false
	}
	if t.count >= MaxTreeNodes { // cut here; finish adds the finding node
		if !t.cut {
			t.cut, t.cutF, t.cutDepth = true, f, t.depth
		}
		return false
	}
	t.count++
	return !t.sparse || t.has(f)
}

// add stores a node keep said yes to, of field f at off (relative to the
// base) and n octets long, and returns it for the caller to set its value:
// a Node is 12 words, and passing one by value copied it twice. Not
// inlined: in a sparse tree the methods' fast path is keep alone.
//
//go:noinline
func (t *Tree) add(f *Field, off, n int) *Node {
	o := int32(off) + t.base
	if t.detached {
		o = -1
	}
	l := len(t.Nodes)
	if l == cap(t.Nodes) {
		t.Nodes = slices.Grow(t.Nodes, 1)
	}
	t.Nodes = t.Nodes[:l+1]
	nd := &t.Nodes[l]
	*nd = Node{F: f, Depth: t.depth, Off: o, Len: int32(n)}
	t.lastAt = t.count
	return nd
}

// Last is the index in Nodes of the node added last, or -1 when that node
// was not stored (a sparse tree, the cap): for a dissector that fixes up
// a group node's length once it knows its end.
func (t *Tree) Last() int {
	if t == nil || t.cut || t.lastAt != t.count || len(t.Nodes) == 0 {
		return -1
	}
	return len(t.Nodes) - 1
}

// finish ends a cut tree with an expert node naming the protocol and the
// field that would have been node MaxTreeNodes+1 (BuildTree calls it).
// Small enough to be inlined: an uncut tree, every frame's, costs no call.
func (t *Tree) finish() {
	if t != nil && t.cut && t.cutF != nil {
		t.finishCut()
	}
}

// finishCut is finish for a cut tree.
func (t *Tree) finishCut() {
	if !t.Wants(fExpert) {
		return
	}
	f := t.cutF
	t.cutF = nil // once
	msg := "tree cut at " + strconv.Itoa(MaxTreeNodes) + " nodes in "
	if t.proto != nil {
		msg += t.proto.Abbrev
	}
	if f != textField && f != t.proto {
		msg += ", at field " + f.Abbrev
	}
	msg += ": the rest of this frame's tree is not shown"
	t.Nodes = append(t.Nodes, Node{F: fExpert, Depth: min(t.cutDepth, 1), Off: -1, Label: msg,
		U: uint64(Warn)<<8 | uint64(GroupUndecoded)})
}

// Open makes the following nodes children of the last one added.
func (t *Tree) Open() {
	if t != nil {
		t.depth++
	}
}

// Close ends the innermost Open.
func (t *Tree) Close() {
	if t != nil && t.depth > 0 {
		t.depth--
	}
}

// Depth is the depth the next node will get.
func (t *Tree) Depth() int {
	if t == nil {
		return 0
	}
	return int(t.depth)
}

// Proto adds a protocol node at depth 0 and opens it. label may be empty (the
// protocol's name is shown) or a one-line description.
func (t *Tree) Proto(p *ProtoInfo, off, n int, label string) {
	if t == nil {
		return
	}
	t.depth = 0
	if !t.cut {
		t.proto = p.Field
	}
	if t.keep(p.Field) {
		t.add(p.Field, off, n).Label = label
	}
	t.depth = 1
}

// Uint adds an integer (or boolean, frame number, time) field.
func (t *Tree) Uint(f *Field, off, n int, v uint64) {
	if t.keep(f) {
		t.add(f, off, n).U = v
	}
}

// Int adds a signed integer field.
func (t *Tree) Int(f *Field, off, n int, v int64) {
	if t.keep(f) {
		t.add(f, off, n).U = uint64(v)
	}
}

// Float adds a floating-point field.
func (t *Tree) Float(f *Field, off, n int, v float64) {
	if t.keep(f) {
		t.add(f, off, n).U = math.Float64bits(v)
	}
}

// UintLabel adds an integer field whose display text is label.
func (t *Tree) UintLabel(f *Field, off, n int, v uint64, label string) {
	if t.keep(f) {
		nd := t.add(f, off, n)
		nd.U, nd.Label = v, label
	}
}

// String adds a string field.
func (t *Tree) String(f *Field, off, n int, s string) {
	if t.keep(f) {
		t.add(f, off, n).S = s
	}
}

// Bytes adds a bytes or address field.
func (t *Tree) Bytes(f *Field, off, n int, b []byte) {
	if t.keep(f) {
		t.add(f, off, n).B = b
	}
}

// Text adds a label without a field.
func (t *Tree) Text(off, n int, label string) {
	if t.keep(textField) {
		t.add(nil, off, n).Label = label
	}
}

// Flags adds a bit-field value with one boolean child per field in bits (each
// with its Mask); the children are added at the same offset.
func (t *Tree) Flags(f *Field, off, n int, v uint64, label string, bits ...*Field) {
	if t.keep(f) {
		nd := t.add(f, off, n)
		nd.U, nd.Label = v, label
	}
	t.Open()
	for _, b := range bits {
		if t.keep(b) {
			t.add(b, off, n).U = v
		}
	}
	t.Close()
}

// Finding adds a finding's expert node (under the current protocol).
func (t *Tree) Finding(fd *Finding) {
	if t.keep(fExpert) {
		nd := t.add(fExpert, -1, 0)
		nd.Label, nd.U, nd.S = fd.Msg, uint64(fd.Sev)<<8|uint64(fd.Group), findingField(fd)
	}
}

func findingField(fd *Finding) string {
	if fd.Field != nil {
		return fd.Field.Abbrev
	}
	return ""
}

// textField stands for text nodes (no field) in keep: never wanted by a
// sparse tree.
var textField = &Field{id: -1 << 20}

// Expert fields, with tshark's names so `-e _ws.expert.message` works as there.
// They are Later: a second pass words some findings with what a later frame
// showed (an ICRC error explained by the same difference further on).
var (
	fExpert      = Register(&Field{Abbrev: "_ws.expert", Name: "Expert Info", Type: TNone, Later: true})
	FExpertMsg   = Register(&Field{Abbrev: "_ws.expert.message", Name: "Message", Type: TString, Later: true})
	FExpertSev   = Register(&Field{Abbrev: "_ws.expert.severity", Name: "Severity level", Type: TString, Later: true})
	FExpertGroup = Register(&Field{Abbrev: "_ws.expert.group", Name: "Group", Type: TString, Later: true})
	FExpertField = Register(&Field{Abbrev: "_ws.expert.field", Name: "Field", Type: TString, Later: true, Desc: "abbreviation of the field a finding is about (rdx)"})
)

// IsExpert tells whether n is a finding's node; its parts are in ExpertParts.
func (n *Node) IsExpert() bool { return n.F == fExpert }

// ExpertParts unpacks a finding node.
func (n *Node) ExpertParts() (sev Severity, g Group, field, msg string) {
	return Severity(n.U >> 8), Group(n.U & 0xff), n.S, n.Label
}
