package nfs_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/nfs"
	"github.com/rdx-project/rdx/dissect/oncrpc"
)

// malformedOf dissects msg and returns the nfs findings of group Malformed.
func malformedOf(t *testing.T, msg []byte) ([]string, *dissect.Frame) {
	t.Helper()
	f := testFrame(dissect.Frame{Num: 1})
	if rpcState().DissectMessage(f, msg, 0, &oncrpc.Context{Transport: "tcp"}) == nil {
		t.Fatal("not RPC")
	}
	var out []string
	for _, fd := range f.Findings {
		if fd.Proto == "nfs" && fd.Group == dissect.GroupMalformed {
			out = append(out, fd.Msg)
		}
	}
	return out, f
}

// TestCompoundAbsurdCounts: a COMPOUND whose tag length or operation count
// cannot fit in the message is a malformed finding, not silence, and its
// decode stops there; one of more than maxOps operations decodes maxOps.
func TestCompoundAbsurdCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"tag length 0xFFFFFFF0", xdrMsg(append(callHdr(1, 100003, 4, 1), 0xFFFFFFF0, 0, 1, 22)...), "COMPOUND tag length 4294967280"},
		{"op count 0xFFFFFFF0", xdrMsg(append(callHdr(2, 100003, 4, 1), "t", 1, 0xFFFFFFF0, 22, fh4)...), "COMPOUND claims 4294967280 operations"},
	} {
		got, f := malformedOf(t, tc.msg)
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%s: findings %q, want one starting %q", tc.name, got, tc.want)
		}
		var sum []byte
		for _, p := range f.PDUs {
			sum = p.Summary(sum) // must not loop over the claimed count
		}
	}
	// 100000 operations that are all there (PUTROOTFH, no arguments)
	items := append(callHdr(3, 100003, 4, 1), "", 0, 100000)
	for i := 0; i < 100000; i++ {
		items = append(items, 24)
	}
	msg := xdrMsg(items...)
	got, f := malformedOf(t, msg)
	if len(got) != 1 || !strings.Contains(got[0], "only the first 1024") {
		t.Fatalf("findings %q", got)
	}
	var tr dissect.Tree
	for _, p := range f.PDUs {
		p.Tree(&tr, f)
	}
	ops := 0
	for i := range tr.Nodes {
		if tr.Nodes[i].F != nil && tr.Nodes[i].F.Abbrev == "nfs.opcode" {
			ops++
		}
	}
	if ops != nfs.MaxOps {
		t.Errorf("%d operations in the tree, want %d", ops, nfs.MaxOps)
	}
}
