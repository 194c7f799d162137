package rds

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ibcm"
)

// RDS/IB private data in the RDMA CM REQ (after the CMA header) and REP
// (Linux struct rds_ib_connect_private, IPv4, and rds6_ib_connect_private).

var (
	fCMSaddr  = dissect.Register(&dissect.Field{Abbrev: "rds.cm.saddr", Name: "Originating address", Type: dissect.TIPv4, Desc: "dp_saddr of the RDS/IB connect private data"})
	fCMDaddr  = dissect.Register(&dissect.Field{Abbrev: "rds.cm.daddr", Name: "Destination address", Type: dissect.TIPv4})
	fCMSaddr6 = dissect.Register(&dissect.Field{Abbrev: "rds.cm.saddr6", Name: "Originating address", Type: dissect.TIPv6, Desc: "rds6_ib_connect_private (protocol 4.1)"})
	fCMDaddr6 = dissect.Register(&dissect.Field{Abbrev: "rds.cm.daddr6", Name: "Destination address", Type: dissect.TIPv6})
	fCMMajor  = dissect.Register(&dissect.Field{Abbrev: "rds.cm.protocol_major", Name: "Protocol major version", Type: dissect.TUint8})
	fCMMinor  = dissect.Register(&dissect.Field{Abbrev: "rds.cm.protocol_minor", Name: "Protocol minor version", Type: dissect.TUint8})
	fCMMask   = dissect.Register(&dissect.Field{Abbrev: "rds.cm.protocol_minor_mask", Name: "Supported minor versions", Type: dissect.TUint16, Base: dissect.BaseHex, Desc: "bit n: x.n supported"})
	fCMTos    = dissect.Register(&dissect.Field{Abbrev: "rds.cm.tos", Name: "Type of service", Type: dissect.TUint8, Desc: "dp_reserved1 octet 0 in newer kernels"})
	fCMAckSeq = dissect.Register(&dissect.Field{Abbrev: "rds.cm.ack_seq", Name: "Acknowledged sequence", Type: dissect.TUint64, Desc: "when reconnecting: last sequence received on the old connection"})
	fCMCredit = dissect.Register(&dissect.Field{Abbrev: "rds.cm.credit", Name: "Initial credits", Type: dissect.TUint32, Desc: "send credits offered; 0 disables flow control"})
	checkCM   = dissect.RegisterCheck("rds.cm.version", "rds", "RDS/IB connect private data: protocol major 3 or 4, minor mask covering the minor")
)

func init() {
	cons := &ibcm.Consumer{Name: "rds", Summary: cmSummary, Tree: cmTree, Check: cmCheck}
	dissect.AddHandler(ibcm.ServiceIDs.Name(), "rds", []dissect.KeyRange{
		{Lo: ibcm.ServiceID(ibcm.RDMAPSTCP, CMPort), Hi: ibcm.ServiceID(ibcm.RDMAPSTCP, CMPort)},
		{Lo: ibcm.ServiceID(ibcm.RDMAPSTCP, CMPortOld), Hi: ibcm.ServiceID(ibcm.RDMAPSTCP, CMPortOld)},
	}, func(_ dissect.Dissector, _ *dissect.Frame, c *ibcm.Connection) bool {
		c.Consumer = cons
		return true
	})
}

// cmLayout finds the common part of the private data: at 8 (IPv4 block) or
// 32 (IPv6 block); -1 when neither holds a plausible major version.
func cmLayout(b []byte) int {
	switch {
	case len(b) >= 28 && (b[8] == 3 || b[8] == 4):
		return 8
	case len(b) >= 52 && (b[32] == 3 || b[32] == 4):
		return 32
	}
	return -1
}

func cmApplies(attr uint16) bool { return attr == ibcm.AttrREQ || attr == ibcm.AttrREP }

func cmSummary(dst []byte, attr uint16, b []byte) []byte {
	if !cmApplies(attr) {
		return dst
	}
	c := cmLayout(b)
	if c < 0 {
		return append(dst, "RDS (no private data)"...)
	}
	dst = append(dst, "RDS "...)
	dst = strconv.AppendUint(dst, uint64(b[c]), 10)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, uint64(b[c+1]), 10)
	if a := binary.BigEndian.Uint64(b[c+8:]); a != 0 {
		dst = append(dst, " ack_seq="...)
		dst = strconv.AppendUint(dst, a, 10)
	}
	dst = append(dst, " credit="...)
	return strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(b[c+16:])), 10)
}

func cmTree(t *dissect.Tree, attr uint16, b []byte, off int) {
	if !cmApplies(attr) {
		return
	}
	c := cmLayout(b)
	if c < 0 {
		return
	}
	t.Text(off, c+20, "RDS/IB connect private data")
	t.Open()
	defer t.Close()
	if c == 8 {
		t.Bytes(fCMSaddr, off, 4, b[0:4])
		t.Bytes(fCMDaddr, off+4, 4, b[4:8])
	} else {
		t.Bytes(fCMSaddr6, off, 16, b[0:16])
		t.Bytes(fCMDaddr6, off+16, 16, b[16:32])
	}
	t.Uint(fCMMajor, off+c, 1, uint64(b[c]))
	t.Uint(fCMMinor, off+c+1, 1, uint64(b[c+1]))
	t.Uint(fCMMask, off+c+2, 2, uint64(binary.BigEndian.Uint16(b[c+2:])))
	t.Uint(fCMTos, off+c+4, 1, uint64(b[c+4]))
	t.Uint(fCMAckSeq, off+c+8, 8, binary.BigEndian.Uint64(b[c+8:]))
	t.Uint(fCMCredit, off+c+16, 4, uint64(binary.BigEndian.Uint32(b[c+16:])))
}

func cmCheck(f *dissect.Frame, pdu int, attr uint16, b []byte) {
	if !cmApplies(attr) {
		return
	}
	c := cmLayout(b)
	if c < 0 {
		if attr == ibcm.AttrREQ || len(b) < 10 || b[8] != 0 { // a REP may say "no information" with major 0
			f.AddFinding(pdu, dissect.Warn, dissect.GroupProtocol, nil, findingsProto, "RDS/IB connect private data without protocol major 3 or 4")
			f.Checked(checkCM, pdu, false)
		}
		return
	}
	minor, mask := b[c+1], binary.BigEndian.Uint16(b[c+2:])
	ok := minor < 16 && mask&(1<<minor) != 0
	if !ok {
		f.AddFinding(pdu, dissect.Warn, dissect.GroupProtocol, fCMMask, findingsProto,
			"RDS/IB minor version "+strconv.Itoa(int(minor))+" not in the minor mask 0x"+strconv.FormatUint(uint64(mask), 16))
	}
	f.Checked(checkCM, pdu, ok)
}
