package nfs_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// tsharkFieldsNFS is `tshark -G fields` of tshark 4.0.17 for the
// protocols of this package (nfs, nlm, mount, portmap, nfsacl), columns 1
// to 7: kind, name, abbreviation, type, protocol, display, mask.
const tsharkFieldsNFS = "testdata/tshark-4.0.17-G-fields.tsv"

// rdxOnly are the fields of these protocols tshark does not have, and why.
var rdxOnly = map[string]string{
	"nfs.data_ddp_length":  "READ data that went by RDMA: tshark looks for it inline",
	"nfs.fattr4.attr_vals": "the fattr4 values as bytes, above their decode",
	"nfs.opnode":           "the operation's node, spanning its bytes",
	"nfs.ops.undecoded":    "the operations rdx could not decode",
	"nfs.objects_to_keep":  "CB_RECALL_ANY's count (RFC 8881 §20.6), which tshark does not decode",
	"nfs.xattrval":         "GETXATTR's value (RFC 8276), which tshark does not decode",
	"portmap.map":          "a portmap DUMP entry's node",
	"portmap.rpcb.failure": "rpcbind v4 GETSTAT failure",
	"portmap.rpcb.taddr":   "rpcbind v4 GETVERSADDR/INDIRECT transport address",
	"portmap.rpcb.time":    "rpcbind GETTIME",
}

// TestFieldsAsTshark: every field rdx registers for these protocols has
// tshark's name, type, display base (integers) or bit width (bit fields)
// and mask, unless it is one of rdxOnly; so `-e`, `-Y` and `-T fields`
// mean the same as with tshark.
func TestFieldsAsTshark(t *testing.T) {
	fh, err := os.Open(tsharkFieldsNFS)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	ts := map[string][]string{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) >= 7 && c[0] == "F" {
			ts[c[2]] = c
		}
	}
	n := 0
	for _, f := range dissect.Fields() {
		switch f.Proto {
		case "nfs", "nlm", "mount", "portmap", "nfsacl":
		default:
			continue
		}
		if f.Type == dissect.TProtocol {
			continue
		}
		n++
		c, ok := ts[f.Abbrev]
		if !ok {
			if rdxOnly[f.Abbrev] == "" {
				t.Errorf("%s: not a tshark 4.0.17 field", f.Abbrev)
			}
			continue
		}
		if f.Name != c[1] || f.Type.String() != c[3] {
			t.Errorf("%s: rdx %q %s, tshark %q %s", f.Abbrev, f.Name, f.Type, c[1], c[3])
		}
		if strings.HasPrefix(c[3], "FT_UINT") || strings.HasPrefix(c[3], "FT_INT") {
			if c[5] != "" && f.Base.String() != c[5] {
				t.Errorf("%s: base %s, tshark %s", f.Abbrev, f.Base, c[5])
			}
		}
		if f.Type == dissect.TBool && f.Mask != 0 && strconv.Itoa(f.Bits) != c[5] {
			t.Errorf("%s: %d bits wide, tshark %s", f.Abbrev, f.Bits, c[5])
		}
		if m := "0x" + strconv.FormatUint(f.Mask, 16); m != c[6] {
			t.Errorf("%s: mask %s, tshark %s", f.Abbrev, m, c[6])
		}
	}
	if n < 300 {
		t.Errorf("only %d fields checked", n)
	}
}
