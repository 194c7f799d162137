package nfs_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// The real NFSv4.2-over-RDMA captures of the kernel lab (RoCE and siw,
// pcaps/kernel/nfs42_acl_README.md): a READDIR of 300 entries, ACLs and
// ACCESS denied to a user. Every nfs.* field of tshark's stored decode is
// compared.

// nfs42Known: where rdx and tshark differ, and why; a wrong value still
// fails.
var nfs42Known = []tsharktest.Known{
	{Field: "nfs.attr*", Reason: "a fattr4 holding supported_attrs: rdx lists the bitmap's words before the values, Wireshark each " +
		"word when it reaches its attributes, so the nested bitmap's values come at another place; the same values",
		Match: sameValues},
	{Field: "nfs.stateid.*", Reason: "CLOSE reply of NFSv4.1: the server returns the special invalid stateid (RFC 8881 §18.2.4); " +
		"tshark shows only its bytes and a 'deprecated' warning citing RFC 7530 §16.2.5, rdx decodes it like any stateid",
		Match: func(n uint64, rdx, ts string) bool {
			return deprecated[n] && (ts == "" && rdx != "" || ts == "1" && rdx == "")
		}},
}

// deprecated are the frames of the capture being compared where tshark
// flags nfs.stateid.deprecated.
var deprecated map[uint64]bool

// sameValues matches when rdx and tshark show the same values in another
// order.
func sameValues(_ uint64, rdx, ts string) bool {
	a, b := strings.Split(rdx, ";"), strings.Split(ts, ";")
	if len(a) != len(b) {
		return false
	}
	n := map[string]int{}
	for i := range a {
		n[a[i]]++
		n[b[i]]--
	}
	for _, v := range n {
		if v != 0 {
			return false
		}
	}
	return true
}

func TestNFS42AgainstTshark(t *testing.T) {
	for _, c := range []string{"../../pcaps/kernel/nfs42_acl_rdma_roce.pcap", "../../pcaps/kernel/nfs42_acl_rdma_iwarp.pcap"} {
		known := make([]tsharktest.Known, 0, 16)
		tab, err := tsharktest.ReadTSV(c + ".tshark-fields.tsv")
		if err != nil {
			t.Fatal(err)
		}
		deprecated = map[uint64]bool{}
		for n, row := range tab.Rows {
			if tab.Get(row, "nfs.stateid.deprecated") != "" {
				deprecated[n] = true
			}
		}
		for _, h := range tab.Header { // Known names whole fields: spell out nfs.mode*
			for _, k := range nfs42Known {
				if p, ok := strings.CutSuffix(k.Field, "*"); ok && strings.HasPrefix(h, p) {
					k.Field = h
					known = append(known, k)
				} else if k.Field == h {
					known = append(known, k)
				}
			}
		}
		res := tsharktest.Compare(t, tsharktest.Capture(t, c), c+".tshark-fields.tsv", []string{"nfs."}, known, dissect.Options{})
		t.Logf("%s: %d values compared, %d equal, %d fields", c, res.Compared, res.Equal, len(res.Fields))
		for k, n := range res.Known {
			t.Logf("accepted: %d x %s", n, k)
		}
		for _, f := range []string{"nfs.access_supp_execute", "nfs.access_execute", "nfs.main_opcode", "nfs.entry_name",
			"nfs.cookie_verf4", "nfs.dircount", "nfs.sequence.flags.cb_path_down", "nfs.open_rflags.confirm", "nfs.write.data_length",
			// items 6 and 7: attributes past rdattr_error/filehandle, ACLs, EXCHANGE_ID, CREATE_SESSION, SECINFO_NO_NAME
			"nfs.fattr4.fileid", "nfs.fattr4_owner", "nfs.fhandle", "nfs.fattr4.layout_blksize", "nfs.fattr4_xattr_support",
			"nfs.num_aces", "nfs.ace_perm4", "nfs.aceflag4.id_group", "nfs.fattr4.aclsupport.allow_acl",
			"nfs.exchange_id.call_flags", "nfs.exchange_id.flags.confirmed_r", "nfs.nii_domain4", "nfs.majorid4", "nfs.scope",
			"nfs.create_session_flags", "nfs.maxreqsize4", "nfs.cb_program", "nfs.machinename4", "nfs.flavors.info",
			"nfs.secinfo.flavor"} {
			if !res.Fields[f] {
				t.Errorf("%s: %s not compared", c, f)
			}
		}
	}
}
