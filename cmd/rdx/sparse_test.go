package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

// goldenCaptures lists the capture of every golden case once.
func goldenCaptures(t *testing.T) []string {
	var caps []string
	for _, args := range goldenCases(t) {
		for _, a := range args {
			if (strings.HasSuffix(a, ".pcap") || strings.HasSuffix(a, ".gz") || strings.HasSuffix(a, ".pcapng")) &&
				!slices.Contains(caps, a) {
				caps = append(caps, a)
			}
		}
	}
	slices.Sort(caps)
	if len(caps) < 30 {
		t.Fatalf("only %d golden captures", len(caps))
	}
	return caps
}

// sparseFieldFrames is how many frames of a capture get the per-field
// checks (a sparse tree and three filters per field of the frame); every
// frame gets the all-fields and per-protocol checks.
const sparseFieldFrames = 1500

// TestSparseTreeSameAsWhole: on every golden capture, a sparse tree (what
// -T fields and -Y build) holds exactly the whole tree's nodes of the fields
// it wants, in order and with the same values, so rows and filter verdicts
// cannot differ. Wanted sets: every field (labels off), each protocol's
// fields in the frame, each single field of the frame; and for each field
// of a frame, presence, absence and equality with its first value filter
// the sparse tree as they filter the whole one.
func TestSparseTreeSameAsWhole(t *testing.T) {
	var all dissect.FieldSet
	for _, f := range dissect.Fields() {
		all.Add(f)
	}
	all.AddExpert()
	for _, c := range goldenCaptures(t) {
		t.Run(filepath.Base(c), func(t *testing.T) {
			eng := dissect.NewEngine(dissect.Options{})
			var whole, sparse dissect.Tree
			whole.TraceSpans()
			checked := 0
			for pass := 1; pass <= 2; pass++ {
				err := testpkt.Each(c, func(p dissect.Packet) error {
					p.Pass = pass
					f := eng.Decode(p)
					if pass == 1 {
						return nil
					}
					eng.BuildTree(&whole, f)
					if err := whole.SpanError(); err != nil {
						t.Fatalf("frame %d: %v", p.Num, err)
					}
					check := func(what string, set *dissect.FieldSet) {
						sparse.SetWant(set)
						eng.BuildTree(&sparse, f)
						if err := sameKept(&whole, &sparse, set); err != nil {
							t.Fatalf("frame %d, sparse tree of %s: %v", p.Num, what, err)
						}
						// skipped protocols and spans count what they leave out
						if sparse.Counted() != whole.Counted() {
							t.Fatalf("frame %d, sparse tree of %s: counted %d nodes, the whole tree %d", p.Num, what, sparse.Counted(), whole.Counted())
						}
						checked++
					}
					check("every field", &all)
					byProto := map[string]*dissect.FieldSet{}
					var seen []*dissect.Field
					for i := range whole.Nodes {
						n := &whole.Nodes[i]
						if n.F == nil || n.IsExpert() || slices.Contains(seen, n.F) {
							continue
						}
						seen = append(seen, n.F)
						s := byProto[n.F.Proto]
						if s == nil {
							s = &dissect.FieldSet{}
							byProto[n.F.Proto] = s
						}
						s.Add(n.F)
					}
					for name, s := range byProto {
						check("protocol "+name, s)
					}
					if p.Num > sparseFieldFrames {
						return nil
					}
					for _, fl := range seen {
						var one dissect.FieldSet
						one.Add(fl)
						check(fl.Abbrev, &one)
						for _, src := range filtersOn(&whole, fl) {
							flt, err := filter.Compile(src)
							if err != nil {
								t.Fatal(err)
							}
							var want dissect.FieldSet
							flt.Want(&want)
							sparse.SetWant(&want)
							eng.BuildTree(&sparse, f)
							if got, exp := flt.Match(&sparse), flt.Match(&whole); got != exp {
								t.Fatalf("frame %d: -Y %s is %v on the sparse tree, %v on the whole one", p.Num, src, got, exp)
							}
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				eng.Rewind()
			}
			if checked == 0 {
				t.Fatal("no frame checked")
			}
		})
	}
}

// filtersOn is presence, absence and equality with the first value of fl
// in the whole tree w.
func filtersOn(w *dissect.Tree, fl *dissect.Field) []string {
	out := []string{fl.Abbrev, "!" + fl.Abbrev}
	if fl.Type == dissect.TProtocol || fl.Type == dissect.TNone {
		return out
	}
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.F != fl {
			continue
		}
		v := string(dissect.AppendField(nil, n))
		switch fl.Type {
		case dissect.TUint8, dissect.TUint16, dissect.TUint24, dissect.TUint32, dissect.TUint64,
			dissect.TInt16, dissect.TInt32, dissect.TInt64, dissect.TFrameNum, dissect.TBool,
			dissect.TIPv4, dissect.TIPv6:
			if v == "" {
				return out
			}
		default:
			v = strconv.Quote(v)
		}
		return append(out, fl.Abbrev+" == "+v)
	}
	return out
}

// sameKept checks that sparse holds the nodes of whole whose fields set
// has, in order, with the same values (a finding's node with its message).
func sameKept(whole, sparse *dissect.Tree, set *dissect.FieldSet) error {
	j := 0
	for i := range whole.Nodes {
		w := &whole.Nodes[i]
		if !set.Has(w.F) {
			continue
		}
		if j >= len(sparse.Nodes) {
			return fmt.Errorf("node %d (%s) is missing", i, w.F.Abbrev)
		}
		s := &sparse.Nodes[j]
		j++
		if s.F != w.F || s.U != w.U || s.S != w.S || !bytes.Equal(s.B, w.B) || w.IsExpert() && s.Label != w.Label ||
			s.Off != w.Off || s.Len != w.Len || s.Depth != w.Depth {
			return fmt.Errorf("node %d: %s %d %q %x %q, whole tree: %s %d %q %x %q", i,
				s.F.Abbrev, s.U, s.S, s.B, s.Label, w.F.Abbrev, w.U, w.S, w.B, w.Label)
		}
	}
	if j != len(sparse.Nodes) {
		return fmt.Errorf("%d nodes more than the whole tree's (first: %s)", len(sparse.Nodes)-j, sparse.Nodes[j].F.Abbrev)
	}
	return nil
}

// alwaysTree is a sink that asks for the whole tree, which makes a run
// build it as before sparse trees.
type alwaysTree struct{}

func (alwaysTree) Start(*dissect.Engine) error         { return nil }
func (alwaysTree) Frame(*dissect.Frame, *dissect.Tree) {}
func (alwaysTree) End(error) error                     { return nil }
func (alwaysTree) NeedsTree() bool                     { return true }

// TestSparseRunSameAsWhole: through the pipeline, every golden's -T fields
// columns and a few display filters print the same from sparse trees as
// from whole ones.
func TestSparseRunSameAsWhole(t *testing.T) {
	filters := []string{"", "_ws.expert", "!rx && frame.number > 3", "rx.type == 1 or rpc.xid", "infiniband.bth.psn >= 5 || tcp.srcport",
		"rds.len > 0 and not iwarp_ddp.tagged", `frame.protocols contains "ip"`}
	for name, args := range goldenCases(t) {
		if !strings.HasSuffix(name, ".fields") {
			continue
		}
		var fields, eopts []string
		c := ""
		for i := 0; i < len(args); i++ {
			switch {
			case args[i] == "-e":
				fields = append(fields, args[i+1])
				i++
			case args[i] == "-E":
				eopts = append(eopts, args[i+1])
				i++
			case strings.HasPrefix(args[i], "../"):
				c = args[i]
			}
		}
		if c == "" || len(fields) == 0 {
			t.Fatalf("%s: no capture or fields in %q", name, args)
		}
		t.Run(name, func(t *testing.T) {
			for _, flt := range filters {
				out := func(sinks ...pipeline.Sink) string {
					var b bytes.Buffer
					_, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: c}, Out: &b, Filter: flt,
						Print: pipeline.Print{Format: "fields", Fields: fields, FieldOpts: eopts}, Sinks: sinks})
					if err != nil {
						t.Fatal(err)
					}
					return b.String()
				}
				sparse, whole := out(), out(alwaysTree{})
				if sparse != whole {
					t.Errorf("-Y %q: sparse trees print\n%s\nwhole trees\n%s", flt, firstDiff(sparse, whole), whole[:min(len(whole), 300)])
				}
				if flt == "" && strings.Count(whole, "\n") < 3 {
					t.Errorf("only %q printed", whole)
				}
			}
		})
	}
}
