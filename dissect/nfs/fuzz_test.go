package nfs_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/internal/enginecheck"
)

var fuzzProgs = []struct{ prog, vers int }{{100003, 3}, {100003, 4}, {0x40000000, 1}, {100005, 3}, {100005, 1},
	{100021, 4}, {100021, 1}, {100000, 2}, {100000, 3}, {100000, 4}, {100227, 3}}

// FuzzPrograms decodes arbitrary bytes as the arguments and then the results
// of a procedure of every program rdx decodes.
func FuzzPrograms(f *testing.F) {
	for _, n := range []string{"getattr_reply", "readdirplus_reply", "create_call", "mnt_reply", "getacl_reply", "fsinfo_reply"} {
		b := fixture(f, n)
		f.Add(byte(0), byte(17), b[24:])
		f.Add(byte(0), byte(1), b[40:])
	}
	sess := fixed(make([]byte, 16))
	f.Add(byte(1), byte(1), xdrMsg("t", 1, 3, 53, sess, 9, 3, 17, 1, 22, fh4, 15, "file.txt"))
	f.Add(byte(1), byte(1), xdrMsg(0, "t", 3, 53, 0, sess, 9, 3, 17, 17, 0, 22, 0, 18, 0, 1, fixed(make([]byte, 12)), 1, uint64(1), uint64(2), 4, 0, 1, 2, 0, 0, 0, "who"))
	f.Add(byte(5), byte(2), xdrMsg([]byte{1}, 1, 1, "c", fh4, []byte("o"), 1, uint64(0), uint64(1), 0, 1))
	for i, m := range ops41Msgs() { // every NFSv4.1/4.2 operation and fattr4 attribute
		sel := byte(1)
		if i >= len(ops41()) {
			sel = 2
		}
		f.Add(sel, byte(1), m[0][40:])
		f.Add(sel, byte(1), m[1][24:])
	}
	f.Fuzz(func(t *testing.T, sel, proc byte, body []byte) {
		p := fuzzProgs[int(sel)%len(fuzzProgs)]
		st := rpcState()
		call := append(xdrMsg(callHdr(1, p.prog, p.vers, int(proc%24))...), body...)
		reply := append(xdrMsg(replyHdr(1)...), body...)
		for i, m := range [][]byte{call, reply} {
			fr := testFrame(dissect.Frame{Num: uint64(i + 1), Data: m})
			st.DissectMessage(fr, m, 0, &oncrpc.Context{DDP: [][]byte{{1}}})
			if len(fr.PDUs) == 0 {
				t.Fatalf("no RPC PDU for a %d-octet message", len(m))
			}
			enginecheck.PDUs(t, fr)
		}
	})
}

// A portmap DUMP reply cut inside an entry: the entry's node covers the
// octets there are, not 16 (found by FuzzPrograms).
func TestPortmapDumpCutShort(t *testing.T) {
	st := rpcState()
	call := xdrMsg(callHdr(1, 100000, 2, 4)...)
	reply := append(xdrMsg(replyHdr(1)...), xdrMsg(1, 100003, 3)...) // value follows, prog, vers; proto and port cut
	var sawMap bool
	for i, m := range [][]byte{call, reply} {
		fr := testFrame(dissect.Frame{Num: uint64(i + 1), Data: m})
		st.DissectMessage(fr, m, 0, nil)
		enginecheck.PDUs(t, fr)
		var tr dissect.Tree
		for _, p := range fr.PDUs {
			p.Tree(&tr, fr)
		}
		for _, n := range tr.Nodes {
			if n.F != nil && n.F.Abbrev == "portmap.map" {
				sawMap = true
				if int(n.Off)+int(n.Len) != len(m) {
					t.Errorf("portmap.map at %d length %d in %d octets", n.Off, n.Len, len(m))
				}
			}
		}
	}
	if !sawMap {
		t.Error("no portmap.map node")
	}
}
