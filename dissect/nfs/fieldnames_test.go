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
	"portmap.map":          "a portmap DUMP entry's node",
	// NFSv4.1/4.2 values tshark 4.0.17 does not decode (RFC 8881, RFC 7862).
	"nfs.adb.block_size":                     "WRITE_SAME adb_block_size: tshark decodes app_data_block4 without adb_offset, its nfs.adb.* are 32-bit",
	"nfs.adb.block_count":                    "WRITE_SAME adb_block_count, length4 (64 bits; tshark's nfs.adb.block.count is 32)",
	"nfs.adb.reloff_blocknum":                "WRITE_SAME adb_reloff_blocknum, length4 (tshark's nfs.adb.block.reloff_num is 32 bits)",
	"nfs.adb.reloff_pattern":                 "WRITE_SAME adb_reloff_pattern, length4 (tshark's nfs.adb.pattern.reloff is 32 bits)",
	"nfs.adb.pattern":                        "WRITE_SAME adb_pattern",
	"nfs.fattr4.change_policy":               "fattr4 change_policy (no tshark decoder)",
	"nfs.fattr4.fs_locations_info.currency":  "fattr4 fs_locations_info (no tshark decoder)",
	"nfs.fattr4.fs_locations_info.flags":     "fattr4 fs_locations_info",
	"nfs.fattr4.fs_locations_info.info":      "fattr4 fs_locations_info",
	"nfs.fattr4.fs_locations_info.valid_for": "fattr4 fs_locations_info",
	"nfs.fattr4.fs_status.absent":            "fattr4 fs_status (no tshark decoder)",
	"nfs.fattr4.fs_status.age":               "fattr4 fs_status",
	"nfs.fattr4.fs_status.current":           "fattr4 fs_status",
	"nfs.fattr4.fs_status.source":            "fattr4 fs_status",
	"nfs.fattr4.fs_status.type":              "fattr4 fs_status",
	"nfs.fattr4.layout_alignment":            "fattr4 layout_alignment (no tshark decoder)",
	"nfs.fattr4.mode_set_masked.mask":        "fattr4 mode_set_masked (no tshark decoder)",
	"nfs.fattr4.retention.duration":          "fattr4 retention_get/retentevt_get (no tshark decoder)",
	"nfs.fattr4.retention.enable":            "fattr4 retention_set/retentevt_set (no tshark decoder)",
	"nfs.fattr4.retention_hold":              "fattr4 retention_hold (no tshark decoder)",
	"nfs.fattr4.threshold_item.values":       "mdsthreshold hint values past the four RFC 8881 defines",
	"nfs.fattr4.value":                       "the value of the last fattr4 attribute when no RFC defines it",
	"nfs.gddr_status":                        "GET_DIR_DELEGATION result (no tshark decoder)",
	"nfs.signal_deleg_avail":                 "GET_DIR_DELEGATION argument (no tshark decoder)",
	"nfs.will_signal_deleg_avail":            "GET_DIR_DELEGATION, LAYOUTGET, OPEN: the server will signal",
	"nfs.will_push_deleg":                    "WANT_DELEGATION/OPEN: the server will push a delegation",
	"nfs.mincount":                           "GETDEVICEINFO NFS4ERR_TOOSMALL's gdir_mincount",
	"nfs.notify_vals":                        "CB_NOTIFY/CB_NOTIFY_DEVICEID notify_vals (no tshark decoder)",
	"nfs.ssv":                                "SET_SSV (no tshark decoder)",
	"nfs.ssv.digest":                         "SET_SSV (no tshark decoder)",
	"nfs.wants_cancelled.contended":          "CB_WANTS_CANCELLED (no tshark decoder)",
	"nfs.wants_cancelled.resourced":          "CB_WANTS_CANCELLED (no tshark decoder)",
	"portmap.rpcb.failure":                   "rpcbind v4 GETSTAT failure",
	"portmap.rpcb.taddr":                     "rpcbind v4 GETVERSADDR/INDIRECT transport address",
	"portmap.rpcb.time":                      "rpcbind GETTIME",
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
