package dissect

import (
	"math"
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
}

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

func (t *Tree) add(n Node) {
	if t == nil || t.cut {
		return
	}
	if len(t.Nodes) >= MaxTreeNodes {
		t.cutAt(n.F)
		return
	}
	n.Depth = t.depth
	if t.detached {
		n.Off = -1
	} else {
		n.Off += t.base
	}
	t.Nodes = append(t.Nodes, n)
}

// cutAt ends the tree with an expert node naming the protocol and the field
// that would have been node MaxTreeNodes+1.
func (t *Tree) cutAt(f *Field) {
	t.cut = true
	msg := "tree cut at " + strconv.Itoa(MaxTreeNodes) + " nodes in "
	if t.proto != nil {
		msg += t.proto.Abbrev
	}
	if f != nil && f != t.proto {
		msg += ", at field " + f.Abbrev
	}
	msg += ": the rest of this frame's tree is not shown"
	t.Nodes = append(t.Nodes, Node{F: fExpert, Depth: min(t.depth, 1), Off: -1, Label: msg,
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
	t.add(Node{F: p.Field, Off: int32(off), Len: int32(n), Label: label})
	t.depth = 1
}

// Uint adds an integer (or boolean, frame number, time) field.
func (t *Tree) Uint(f *Field, off, n int, v uint64) {
	t.add(Node{F: f, Off: int32(off), Len: int32(n), U: v})
}

// Int adds a signed integer field.
func (t *Tree) Int(f *Field, off, n int, v int64) {
	t.add(Node{F: f, Off: int32(off), Len: int32(n), U: uint64(v)})
}

// Float adds a floating-point field.
func (t *Tree) Float(f *Field, off, n int, v float64) {
	t.add(Node{F: f, Off: int32(off), Len: int32(n), U: math.Float64bits(v)})
}

// UintLabel adds an integer field whose display text is label.
func (t *Tree) UintLabel(f *Field, off, n int, v uint64, label string) {
	t.add(Node{F: f, Off: int32(off), Len: int32(n), U: v, Label: label})
}

// String adds a string field.
func (t *Tree) String(f *Field, off, n int, s string) {
	t.add(Node{F: f, Off: int32(off), Len: int32(n), S: s})
}

// Bytes adds a bytes or address field.
func (t *Tree) Bytes(f *Field, off, n int, b []byte) {
	t.add(Node{F: f, Off: int32(off), Len: int32(n), B: b})
}

// Text adds a label without a field.
func (t *Tree) Text(off, n int, label string) {
	t.add(Node{Off: int32(off), Len: int32(n), Label: label})
}

// Flags adds a bit-field value with one boolean child per field in bits (each
// with its Mask); the children are added at the same offset.
func (t *Tree) Flags(f *Field, off, n int, v uint64, label string, bits ...*Field) {
	t.add(Node{F: f, Off: int32(off), Len: int32(n), U: v, Label: label})
	t.Open()
	for _, b := range bits {
		t.add(Node{F: b, Off: int32(off), Len: int32(n), U: v})
	}
	t.Close()
}

// Finding adds a finding's expert node (under the current protocol).
func (t *Tree) Finding(fd *Finding) {
	t.add(Node{F: fExpert, Off: -1, Label: fd.Msg, U: uint64(fd.Sev)<<8 | uint64(fd.Group), B: nil, S: findingField(fd)})
}

func findingField(fd *Finding) string {
	if fd.Field != nil {
		return fd.Field.Abbrev
	}
	return ""
}

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
