package dissect_test

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// A test-only dissector on UDP port 11 whose tree adds one node per
// element of a hostile count, as a COMPOUND of a million operations does.
type loopPDU struct{ n int }

var (
	pLoop   = dissect.RegisterProto("test-loop", "test loop", "")
	fLoopOp = dissect.Register(&dissect.Field{Abbrev: "test-loop.op", Name: "Op", Type: dissect.TUint32})
)

func (loopPDU) Proto() *dissect.ProtoInfo { return pLoop }
func (loopPDU) Summary(dst []byte) []byte { return append(dst, "loop"...) }
func (p loopPDU) Tree(t *dissect.Tree, f *dissect.Frame) {
	t.Proto(pLoop, 0, 0, "")
	for i := 0; i < p.n; i++ {
		t.Uint(fLoopOp, -1, 0, uint64(i))
		t.Open()
		t.Text(-1, 0, "detail")
		t.Close()
	}
}

type looper struct{}

func (looper) Dissect(f *dissect.Frame, data []byte, off int) {
	f.AddPDU(loopPDU{n: int(binary.BigEndian.Uint32(data))})
}

func init() {
	dissect.RegisterDissector(&dissect.Registration{Name: "test-loop", UDPPorts: []dissect.PortRange{{Lo: 11, Hi: 11}},
		New: func(*dissect.Engine) dissect.Dissector { return looper{} }})
}

// One frame's tree holds at most MaxTreeNodes nodes, then one expert node
// naming where it was cut; the next frame's tree starts over.
func TestTreeCap(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	frame := func(n uint32) []byte {
		u := make([]byte, 12)
		binary.BigEndian.PutUint16(u[0:], 40000)
		binary.BigEndian.PutUint16(u[2:], 11)
		binary.BigEndian.PutUint16(u[4:], 12)
		binary.BigEndian.PutUint32(u[8:], n)
		return ipv4(17, 1, 0, false, u)
	}
	var tr dissect.Tree
	p := frame(1 << 20)
	eng.BuildTree(&tr, eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: p}))
	if len(tr.Nodes) != dissect.MaxTreeNodes+1 || !tr.Cut() {
		t.Fatalf("%d nodes, cut %v", len(tr.Nodes), tr.Cut())
	}
	last := tr.Nodes[len(tr.Nodes)-1]
	sev, _, _, msg := last.ExpertParts()
	if !last.IsExpert() || sev != dissect.Warn || last.Depth != 1 ||
		!strings.HasPrefix(msg, "tree cut at 65536 nodes in test-loop") || !strings.HasSuffix(msg, ": the rest of this frame's tree is not shown") {
		t.Errorf("last node %+v: %q", last, msg)
	}
	for i := 1; i < len(tr.Nodes); i++ { // the depths still form a tree
		if tr.Nodes[i].Depth > tr.Nodes[i-1].Depth+1 {
			t.Fatalf("node %d at depth %d after depth %d", i, tr.Nodes[i].Depth, tr.Nodes[i-1].Depth)
		}
	}
	p = frame(100)
	eng.BuildTree(&tr, eng.Decode(dissect.Packet{Num: 2, LinkType: dissect.LinkTypeIPv4, Data: p}))
	if tr.Cut() || len(tr.Nodes) < 200 || strings.Contains(tr.Nodes[len(tr.Nodes)-1].Label, "tree cut") {
		t.Errorf("a small tree after a cut one: %d nodes, cut %v", len(tr.Nodes), tr.Cut())
	}
	var nilTree *dissect.Tree // nil takes every call, Proto included
	nilTree.Proto(pLoop, 0, 0, "")
}

// A sparse tree counts the nodes it does not keep: it is cut where the
// whole tree is, keeps the same nodes of its fields before the cut, and
// keeps the cut's finding node only when findings are wanted.
func TestSparseTreeCap(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	u := make([]byte, 12)
	binary.BigEndian.PutUint16(u[0:], 40000)
	binary.BigEndian.PutUint16(u[2:], 11)
	binary.BigEndian.PutUint16(u[4:], 12)
	binary.BigEndian.PutUint32(u[8:], 1<<20)
	f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: ipv4(17, 1, 0, false, u)})
	var whole, sparse dissect.Tree
	eng.BuildTree(&whole, f)
	ops := 0
	for _, n := range whole.Nodes {
		if n.F == fLoopOp {
			ops++
		}
	}
	for _, expert := range []bool{false, true} {
		var set dissect.FieldSet
		set.Add(fLoopOp)
		if expert {
			set.AddExpert()
		}
		sparse.SetWant(&set)
		eng.BuildTree(&sparse, f)
		want := ops
		if expert {
			want++
		}
		if !sparse.Cut() || len(sparse.Nodes) != want || ops >= dissect.MaxTreeNodes/2 || ops < dissect.MaxTreeNodes/2-100 {
			t.Fatalf("findings %v: %d nodes, cut %v; the whole tree has %d ops", expert, len(sparse.Nodes), sparse.Cut(), ops)
		}
		if last := sparse.Nodes[len(sparse.Nodes)-1]; last.IsExpert() != expert || sparse.Nodes[0].F != fLoopOp {
			t.Errorf("findings %v: last node %+v", expert, last)
		}
		if sparse.Labels() || !sparse.Wants(fLoopOp) || sparse.Wants(pLoop.Field) {
			t.Errorf("sparse tree: labels %v, wants op %v, wants proto %v", sparse.Labels(), sparse.Wants(fLoopOp), sparse.Wants(pLoop.Field))
		}
	}
	sparse.SetWant(nil) // whole again
	eng.BuildTree(&sparse, f)
	if len(sparse.Nodes) != len(whole.Nodes) || !sparse.Labels() {
		t.Errorf("SetWant(nil): %d nodes, the whole tree %d", len(sparse.Nodes), len(whole.Nodes))
	}
}

// The Tree type promises that a nil *Tree takes every call: a decoder walks
// the same bytes with and without a tree. Every exported method is called on
// a nil tree (found by reflection, so a method added later is covered too),
// with non-nil pointer arguments so that only the receiver is nil.
func TestNilTreeTakesEveryCall(t *testing.T) {
	var nilTree *dissect.Tree
	v := reflect.ValueOf(nilTree)
	if v.NumMethod() < 15 {
		t.Fatalf("only %d methods on *Tree: reflection is not seeing them", v.NumMethod())
	}
	for i := 0; i < v.NumMethod(); i++ {
		name := v.Type().Method(i).Name
		m := v.Method(i)
		mt := m.Type()
		args := make([]reflect.Value, 0, mt.NumIn())
		for j := 0; j < mt.NumIn(); j++ {
			at := mt.In(j)
			if mt.IsVariadic() && j == mt.NumIn()-1 {
				break // no variadic arguments
			}
			if at.Kind() == reflect.Pointer {
				args = append(args, reflect.New(at.Elem())) // e.g. &ProtoInfo{}, &Field{}
			} else {
				args = append(args, reflect.Zero(at))
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("(*Tree)(nil).%s panics: %v", name, r)
				}
			}()
			m.Call(args)
		}()
	}
	// Proto with a real protocol, the call every decoder makes first.
	nilTree.Proto(pLoop, 0, 4, "label")
	if nilTree.Cut() || nilTree.Depth() != 0 {
		t.Errorf("nil tree: cut %v depth %d", nilTree.Cut(), nilTree.Depth())
	}
}
