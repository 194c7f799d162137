package ibcm

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// treeFields decodes one message and returns its fields as -T fields
// prints them.
func treeFields(t *testing.T, b []byte) map[string]string {
	t.Helper()
	f := feedOne(New(), b, 1)
	f.Data = b
	var tr dissect.Tree
	m := map[string]string{}
	for _, p := range f.PDUs {
		p.Tree(&tr, f)
	}
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		if n.F != nil && !n.IsExpert() && n.F.Type > dissect.TProtocol {
			v := string(dissect.AppendField(nil, n))
			if m[n.F.Abbrev] != "" {
				v = m[n.F.Abbrev] + ";" + v
			}
			m[n.F.Abbrev] = v
		}
	}
	return m
}

// TestREQAltPath decodes the REQ's alternate path (IBA 12.6.5, octets
// 120-163 of the MAD) under Wireshark's infiniband.cm.req.alt_* names.
func TestREQAltPath(t *testing.T) {
	req := mad(AttrREQ, 0x11, 0)
	copy(req[120:], []byte{0x12, 0x34, 0x56, 0x78})           // alt local / remote LID
	copy(req[124:], []byte{0xfe, 0x80, 15: 1})                // alt local GID
	copy(req[140:], []byte{0xfe, 0x80, 15: 2})                // alt remote GID
	copy(req[156:], []byte{0xab, 0xcd, 0xe0 | 0x1, 0x40 | 3}) // flow label 0xabcde, reserved 0x5, rate 3
	copy(req[160:], []byte{0x20, 0x40, 0x5a, 0x9d})           // tclass, hop limit, SL 5 subnet-local 1 res 2, ack timeout 0x13 res 5
	m := treeFields(t, req)
	want := map[string]string{
		"infiniband.cm.req.alt_locallid":     "4660",
		"infiniband.cm.req.alt_remotelid":    "22136",
		"infiniband.cm.req.alt_localgid":     "fe800000000000000000000000000001",
		"infiniband.cm.req.alt_remotegid":    "fe800000000000000000000000000002",
		"infiniband.cm.req.alt_flowlabel":    "0x000abcde",
		"infiniband.cm.req.alt_reserved0":    "0x00000005",
		"infiniband.cm.req.alt_pktrate":      "0x00000003",
		"infiniband.cm.req.alt_tfcclass":     "0x20",
		"infiniband.cm.req.alt_hoplim":       "0x40",
		"infiniband.cm.req.alt_sl":           "0x05",
		"infiniband.cm.req.alt_subnetlocal":  "0x01",
		"infiniband.cm.req.alt_reserved1":    "0x02;0x05",
		"infiniband.cm.req.alt_localacktout": "0x13",
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
}

// TestREQFlowLabelWiresharkWrong: the REQ's primary (and alternate) flow
// label is the top 20 bits of a 32-bit word, followed by 6 reserved bits
// and a 6-bit packet rate (IBA Vol 1, 12.6.5 REQ message contents; Linux
// include/rdma/ibta_vol1_c12.h: CM_REQ_PRIMARY_FLOW_LABEL is
// CM_FIELD32_LOC(struct cm_req_msg, 88, 20), CM_REQ_PRIMARY_PACKET_RATE
// CM_FIELD_BLOC(struct cm_req_msg, 91, 2, 6)).
// tshark 4.0.17 reads the word as 24 bits: on the real RDS/RoCE REQ (frame
// 5, word c3 96 f0 00) it shows label 0xc39, reserved 3, rate 3 where the
// spec gives label 0xc396f, reserved 0, rate 0.
func TestREQFlowLabelWiresharkWrong(t *testing.T) {
	const pcap = "../../pcaps/kernel/rds_rdma_roce.pcap"
	tbl, err := tsharktest.ReadTSV(pcap + ".tshark-fields.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ts := map[string]string{}
	for i, h := range tbl.Header {
		if i < len(tbl.Rows[5]) {
			ts[h] = tbl.Rows[5][i]
		}
	}
	if ts["infiniband.cm.req.prim_flowlabel"] != "0x00000c39" || ts["infiniband.cm.req.prim_pktrate"] != "0x00000003" {
		t.Fatalf("tshark's stored decode changed: label %q rate %q", ts["infiniband.cm.req.prim_flowlabel"], ts["infiniband.cm.req.prim_pktrate"])
	}
	got, err := tsharktest.Decode(tsharktest.Capture(t, pcap), dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := got[5]
	if l, res, rate := strings.Join(r["infiniband.cm.req.prim_flowlabel"], ";"), strings.Join(r["infiniband.cm.req.prim_reserved0"], ";"),
		strings.Join(r["infiniband.cm.req.prim_pktrate"], ";"); l != "0x000c396f" || res != "0x00000000" || rate != "0x00000000" {
		t.Errorf("rdx: label %s reserved %s rate %s, want 0x000c396f 0 0", l, res, rate)
	}
}
