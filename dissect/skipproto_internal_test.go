package dissect

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
)

// TestSkipProtoCounts: on every capture in pcaps/, a sparse tree that
// leaves out the frame, Ethernet and UDP subtrees (SkipProto) counts the
// nodes the whole tree has (so the MaxTreeNodes cut falls in the same
// place) and keeps the whole tree's nodes of the fields it wants: a node
// count passed to SkipProto that is off by one fails here.
func TestSkipProtoCounts(t *testing.T) {
	var files []string
	filepath.WalkDir("../pcaps", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.Contains(path, ".pcap") || strings.Contains(path, ".cap")) {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no captures under ../pcaps")
	}
	skipped := 0
	for _, path := range files {
		r, err := capture.Open(path)
		if err != nil {
			continue // a capture that is meant not to open
		}
		eng := NewEngine(Options{})
		var whole, sparse Tree
		var pkt capture.Packet
		for i := 0; i < 3000; i++ {
			if err := r.Next(&pkt); err != nil {
				if err != io.EOF {
					t.Logf("%s: %v", path, err)
				}
				break
			}
			f := eng.Decode(Packet{Num: uint64(i + 1), TimeNS: pkt.TimeNS, CapLen: pkt.CapLen, WireLen: pkt.WireLen,
				LinkType: pkt.LinkType, Iface: pkt.Iface, Data: pkt.Data})
			eng.BuildTree(&whole, f)
			// want one field of each protocol after the base layers (and
			// ip's or ipv6's source): frame, eth and udp are skipped
			var want FieldSet
			for k := range whole.Nodes {
				n := &whole.Nodes[k]
				switch {
				case n.F == nil || n.IsExpert() || n.F.Type == TProtocol:
				case n.F.Proto == "frame" || n.F.Proto == "eth" || n.F.Proto == "udp":
				default:
					want.Add(n.F)
				}
			}
			sparse.SetWant(&want)
			eng.BuildTree(&sparse, f)
			if sparse.count != whole.count {
				t.Fatalf("%s frame %d: sparse tree counted %d nodes, the whole tree %d", path, i+1, sparse.count, whole.count)
			}
			var kept []Node
			for _, n := range whole.Nodes {
				if n.F != nil && want.Has(n.F) {
					kept = append(kept, n)
				}
			}
			if len(kept) != len(sparse.Nodes) {
				t.Fatalf("%s frame %d: sparse tree kept %d nodes, the whole tree has %d of its fields", path, i+1, len(sparse.Nodes), len(kept))
			}
			for k := range kept {
				a, b := &kept[k], &sparse.Nodes[k]
				if a.F != b.F || a.U != b.U || a.S != b.S || string(a.B) != string(b.B) || a.Off != b.Off || a.Len != b.Len {
					t.Fatalf("%s frame %d: node %d is %s=%d in the sparse tree, %s=%d in the whole", path, i+1, k, b.F.Abbrev, b.U, a.F.Abbrev, a.U)
				}
			}
			if !whole.protosSkippable(&want) {
				continue
			}
			skipped++
		}
		r.Close()
	}
	if skipped == 0 {
		t.Fatal("no frame had a subtree to skip")
	}
}

// protosSkippable tells whether a tree wanting want skips a base subtree.
func (t *Tree) protosSkippable(want *FieldSet) bool {
	var s Tree
	s.SetWant(want)
	return !s.protos.Has(PFrame.Field) || !s.protos.Has(pEth.Field) || !s.protos.Has(PUDP.Field)
}
