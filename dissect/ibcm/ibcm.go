// Package ibcm dissects InfiniBand Communication Management MADs (IBA
// chapter 12) as they appear on QP1 of RoCE and InfiniBand: the 24-octet MAD
// header, the CM messages' fields needed to reach their private data (REQ,
// REP, RTU, REJ, DREQ, DREP, MRA), the RDMA CM header (struct cma_hdr: IP
// version, source port and addresses) at the start of a REQ's private data,
// and — through registered consumers such as RDS — the private data of the
// protocol the RDMA CM service ID names. Field names are Wireshark's
// (infiniband.mad.*, infiniband.cm.*) where it has them.
package ibcm

import (
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// Name is the registration name.
const Name = "ibcm"

// Sizes.
const (
	MADLen       = 256
	MADHdrLen    = 24
	ClassCM      = 0x07
	CMAHdrLen    = 36     // struct cma_hdr
	RDMAPSTCP    = 0x0106 // RDMA CM port space of TCP-like services
	RDMAPSUDP    = 0x0111
	SIDPrefix    = 0x0000000001000000 // RDMA CM service IDs: 0x00000000_01_PS(8)_port(16)
	maxComms     = 4096               // connections tracked; beyond, the least recently active is dropped with a finding
	commOverhead = 128                // one tracked connection (entry, map slot), charged to the memory budget
	offReqPriv   = 164                // REQ private data (92 octets)
	offRepPriv   = 60                 // REP private data (196)
	offRTUPriv   = 32                 // RTU (224)
	offRejPriv   = 108                // REJ (148)
	offDreqPriv  = 36                 // DREQ (220)
	offDrepPriv  = 32                 // DREP (224)
)

func init() {
	dissect.RegisterDissector(&dissect.Registration{
		Name: Name,
		New: func(e *dissect.Engine) dissect.Dissector {
			d := New()
			d.comms.Register(e.Budget(), "ibcm")
			return d
		},
	})
	// SENDs to QP1 by heuristic, or wherever -d infiniband.destqp puts them.
	dissect.AddHeuristicFor(ib.DestQP.Name(), Name, 1, ibMessage) // IBMessage declines other QPs
	dissect.AddHandler(ib.DestQP.Name(), Name, nil, ibMessage)
}

func ibMessage(d dissect.Dissector, f *dissect.Frame, m *ib.Message) bool {
	return d.(*State).IBMessage(f, m.Packet, m.Msg)
}

// Consumer decodes the private data an RDMA CM user puts after the CMA header
// of a REQ and in the REP (RDS, NFS/RDMA, iSER ...), recognised by the REQ's
// service ID (see ServiceIDs).
type Consumer struct {
	Name string
	// Summary appends a short text about private data b of a message of
	// attribute attr (REQ: what follows the CMA header; others: all of it).
	Summary func(dst []byte, attr uint16, b []byte) []byte
	// Tree adds nodes for b at frame offset off.
	Tree func(t *dissect.Tree, attr uint16, b []byte, off int)
	// Check validates b, recording findings and checks on PDU pdu.
	Check func(f *dissect.Frame, pdu int, attr uint16, b []byte)
}

// Connection is the context of the ibcm.service_id table: the service ID
// of a REQ; the user of the connection sets Consumer to decode its private
// data in the REQ and the messages after it.
type Connection struct {
	ServiceID uint64
	Consumer  *Consumer
}

// ServiceIDs is the table of the RDMA CM users whose private data ibcm
// decodes, keyed by the REQ's service ID (ServiceID(RDMAPSTCP, port) for the
// RDMA CM's TCP port space); -d ibcm.service_id==SID,PROTO for others.
var ServiceIDs = dissect.NewHexDissectorTable[*Connection]("ibcm.service_id", "InfiniBand CM service ID (REQ private data)", 64)

// ServiceID is the RDMA CM service ID of port in port space ps
// (0x00000000_01_06_PORT for TCP).
func ServiceID(ps, port uint16) uint64 { return uint64(ps)<<16 | uint64(port) }

// State is the per-engine CM state: connections by communication ID, to find
// the service of a REP, RTU or DREQ.
type State struct {
	pool  dissect.Pool[MAD]
	comms dissect.Table[uint32, comm] // by local communication ID
	conn  Connection                  // the ibcm.service_id context
}

type comm struct {
	reqFrame uint64
	port     uint16
	ps       uint16
	cons     *Consumer
}

// New returns a fresh per-engine state.
func New() *State {
	d := &State{}
	d.comms.Init(maxComms, commOverhead, droppedComm)
	return d
}

func droppedComm(id uint32, c *comm) string {
	return "CM connection with local communication ID 0x" + strconv.FormatUint(uint64(id), 16) +
		" (REQ in frame " + strconv.FormatUint(c.reqFrame, 10) + ")"
}

// remember stores c under id (a MAD copies what it shows, so dropped values
// may be reused at once).
func (d *State) remember(f *dissect.Frame, m *MAD, id uint32, c comm) {
	e := d.comms.Get(id)
	if e == nil {
		d.comms.Release()
		var old *dissect.Entry[uint32, comm]
		e, old = d.comms.Add(id)
		if old != nil {
			f.AddFinding(m.idx, dissect.Warn, dissect.GroupReassembly, nil, "ibcm", "CM connection table full ("+
				strconv.Itoa(maxComms)+"): dropped the least recently active, "+d.comms.Describe(old))
		}
	}
	e.V = c
}

// lookup returns id's connection.
func (d *State) lookup(id uint32) (comm, bool) {
	if e := d.comms.Get(id); e != nil {
		return e.V, true
	}
	return comm{}, false
}

// Dissect implements dissect.Dissector; MADs arrive through ib (IBMessage).
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {}

// Rewind implements dissect.Rewinder.
func (d *State) Rewind() { d.comms.Init(maxComms, commOverhead, droppedComm); d.pool.Reset() }

// MAD is one CM MAD (a PDU).
type MAD struct {
	d        *State
	b        [MADLen]byte
	n        int // octets present (MADLen unless truncated)
	off      int // frame offset, -1 when not in the frame
	idx      int
	reqFrame uint64
	ps, port uint16
	cons     *Consumer
}

// Proto implements dissect.PDU.
func (m *MAD) Proto() *dissect.ProtoInfo { return PCM }

// Bytes returns the MAD.
func (m *MAD) Bytes() []byte { return m.b[:m.n] }

// Attr returns the CM attribute ID.
func (m *MAD) Attr() uint16 { return be16(m.b[16:]) }

// Consumer returns the registered consumer of the connection, if known.
func (m *MAD) Consumer() *Consumer { return m.cons }

func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
func be24(b []byte) uint32 { return binary.BigEndian.Uint32(b) >> 8 }
func be64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

// Heuristic reports whether b is a CM MAD: base version 1, class 0x07, class
// version 2, a CM attribute and the full 256 octets.
func Heuristic(b []byte) bool {
	return len(b) == MADLen && b[0] == 1 && b[1] == ClassCM && b[2] == 2 && be16(b[16:]) >= AttrREQ && be16(b[16:]) <= AttrAPR
}

// IBMessage reads an assembled InfiniBand message (infiniband.destqp): SENDs to QP1 that are CM MADs.
// The QP test inlines into the table's handler: every message and READ
// piece of the connected QPs is offered here first and declined without a call.
func (d *State) IBMessage(f *dissect.Frame, p *ib.Packet, am *ibasm.Message) bool {
	if am.QP != 1 || am.Kind != ibasm.KindSend {
		return false
	}
	return d.qp1Send(f, p, am)
}

// qp1Send is IBMessage for a SEND to QP1.
func (d *State) qp1Send(f *dissect.Frame, p *ib.Packet, am *ibasm.Message) bool {
	if am.Truncated() || len(am.Data) < MADHdrLen || am.Data[0] != 1 || am.Data[1] != ClassCM {
		return false
	}
	m, _ := d.pool.Get(f)
	*m = MAD{d: d, off: -1}
	m.n = copy(m.b[:], am.Data)
	if len(am.Frames) == 1 {
		m.off = p.PayloadOffset()
	}
	m.idx = f.AddPDU(m)
	ok := Heuristic(am.Data)
	if !ok {
		var b []byte
		b = append(b, "CM MAD not sane: "...)
		b = strconv.AppendInt(b, int64(len(am.Data)), 10)
		b = append(b, " octets (256), class version "...)
		b = strconv.AppendInt(b, int64(am.Data[2]), 10)
		b = append(b, " (2), attribute 0x"...)
		b = strconv.AppendUint(b, uint64(be16(am.Data[16:])), 16)
		f.AddFinding(m.idx, dissect.Warn, dissect.GroupMalformed, fAttrID, "ibcm", string(b))
	}
	f.Checked(checkMAD, m.idx, ok)
	if m.n < MADLen {
		return true
	}
	d.track(f, m)
	return true
}

// track links the message to its connection (by communication IDs).
func (d *State) track(f *dissect.Frame, m *MAD) {
	b := m.b[:]
	local, remote := be32(b[24:]), be32(b[28:])
	switch m.Attr() {
	case AttrREQ:
		sid := be64(b[32:])
		c := comm{reqFrame: f.Num}
		if sid>>24 == SIDPrefix>>24 {
			c.ps, c.port = uint16(sid>>16), uint16(sid)
		}
		d.conn = Connection{ServiceID: sid}
		if ServiceIDs.Call(f, sid, &d.conn) {
			c.cons = d.conn.Consumer
		}
		d.remember(f, m, local, c)
		m.ps, m.port, m.cons = c.ps, c.port, c.cons
		ipOK := ipcmOK(b[offReqPriv:])
		if c.ps == RDMAPSTCP || c.ps == RDMAPSUDP {
			if !ipOK {
				f.AddFinding(m.idx, dissect.Warn, dissect.GroupMalformed, fIPCM, "ibcm",
					"RDMA CM service ID but the private data does not start with a CMA header (version 0, IP version 4 or 6)")
			}
			f.Checked(checkIPCM, m.idx, ipOK)
		}
		if m.cons != nil && m.cons.Check != nil {
			m.cons.Check(f, m.idx, AttrREQ, b[offReqPriv+CMAHdrLen:])
		}
		return
	case AttrMRA:
		// the ids are those of the two sides, as in REP
	}
	c, ok := d.lookup(remote)
	if !ok || remote == 0 {
		if c, ok = d.lookup(local); !ok {
			return
		}
	}
	if _, known := d.lookup(local); m.Attr() == AttrREP && !known {
		d.remember(f, m, local, c)
	}
	m.reqFrame, m.ps, m.port, m.cons = c.reqFrame, c.ps, c.port, c.cons
	if m.cons != nil && m.cons.Check != nil {
		if pd := m.private(); pd != nil {
			m.cons.Check(f, m.idx, m.Attr(), pd)
		}
	}
}

// ipcmOK: cma_hdr version 0 and IP version 4 or 6.
func ipcmOK(b []byte) bool {
	return len(b) >= CMAHdrLen && b[0] == 0 && (b[1]>>4 == 4 || b[1]>>4 == 6)
}

// private returns the consumer's private data of the message (REQ: after
// the CMA header), nil for messages without.
func (m *MAD) private() []byte {
	if m.n < MADLen {
		return nil
	}
	switch m.Attr() {
	case AttrREQ:
		if m.ps == RDMAPSTCP || m.ps == RDMAPSUDP {
			return m.b[offReqPriv+CMAHdrLen:]
		}
		return m.b[offReqPriv:]
	case AttrREP:
		return m.b[offRepPriv:]
	case AttrREJ:
		return m.b[offRejPriv:]
	case AttrRTU:
		return m.b[offRTUPriv:]
	case AttrDREQ:
		return m.b[offDreqPriv:]
	case AttrDREP:
		return m.b[offDrepPriv:]
	}
	return nil
}

// cmaAddrs returns the CMA header's source and destination addresses.
func cmaAddrs(h []byte) (src, dst netip.Addr) {
	if h[1]>>4 == 4 {
		return netip.AddrFrom4([4]byte(h[16:20])), netip.AddrFrom4([4]byte(h[32:36]))
	}
	return netip.AddrFrom16([16]byte(h[4:20])), netip.AddrFrom16([16]byte(h[20:36]))
}

// Summary implements dissect.PDU: "CM ConnectRequest comm 0xf3cdb977 QPN
// 0x000021 PSN 0x697b4c RDMA CM TCP port 18634 192.0.2.2:59067→192.0.2.1
// RDS 3.1 ...".
func (m *MAD) Summary(dst []byte) []byte {
	dst = append(dst, "CM "...)
	a := m.Attr()
	if n := attrNames[uint64(a)]; n != "" {
		dst = append(dst, n...)
	} else {
		dst = append(dst, "attribute 0x"...)
		dst = dissect.AppendHexDigits(dst, uint64(a), 4)
	}
	if m.n < MADLen {
		return append(dst, " [truncated]"...)
	}
	b := m.b[:]
	dst = append(dst, " comm 0x"...)
	dst = dissect.AppendHexDigits(dst, uint64(be32(b[24:])), 8)
	switch a {
	case AttrREQ:
		dst = append(dst, " QPN 0x"...)
		dst = dissect.AppendHexDigits(dst, uint64(be24(b[56:])), 6)
		dst = append(dst, " PSN 0x"...)
		dst = dissect.AppendHexDigits(dst, uint64(be24(b[68:])), 6)
		if m.ps == RDMAPSTCP || m.ps == RDMAPSUDP {
			if m.ps == RDMAPSTCP {
				dst = append(dst, " RDMA CM TCP port "...)
			} else {
				dst = append(dst, " RDMA CM UDP port "...)
			}
			dst = strconv.AppendUint(dst, uint64(m.port), 10)
			if h := b[offReqPriv:]; ipcmOK(h) {
				s, d := cmaAddrs(h)
				dst = append(dst, ' ')
				dst = s.AppendTo(dst)
				dst = append(dst, ':')
				dst = strconv.AppendUint(dst, uint64(be16(h[2:])), 10)
				dst = append(dst, "→"...)
				dst = d.AppendTo(dst)
			}
		} else {
			dst = append(dst, " service 0x"...)
			dst = dissect.AppendHexDigits(dst, be64(b[32:]), 16)
		}
	case AttrREP:
		dst = append(dst, " QPN 0x"...)
		dst = dissect.AppendHexDigits(dst, uint64(be24(b[36:])), 6)
		dst = append(dst, " PSN 0x"...)
		dst = dissect.AppendHexDigits(dst, uint64(be24(b[44:])), 6)
	case AttrREJ:
		dst = append(dst, " reason "...)
		r := be16(b[34:])
		if n := rejReasons[uint64(r)]; n != "" {
			dst = append(dst, n...)
		} else {
			dst = strconv.AppendUint(dst, uint64(r), 10)
		}
	}
	if m.cons != nil && m.cons.Summary != nil {
		if pd := m.private(); pd != nil {
			n := len(dst)
			dst = m.cons.Summary(append(dst, ' '), a, pd)
			if len(dst) == n+1 {
				dst = dst[:n]
			}
		}
	}
	return dst
}

// Tree implements dissect.PDU.
func (m *MAD) Tree(t *dissect.Tree, f *dissect.Frame) {
	o := m.off
	if o < 0 {
		t.SetBase(0, true)
		o = 0
	}
	var lb [160]byte
	t.Proto(PCM, o, m.n, string(m.Summary(lb[:0])))
	b := m.b[:m.n]
	t.Bytes(fMAD, o, m.n, b)
	t.Open()
	if m.n >= MADHdrLen {
		t.Uint(fBaseVer, o, 1, uint64(b[0]))
		t.Uint(fClass, o+1, 1, uint64(b[1]))
		t.Uint(fClassVer, o+2, 1, uint64(b[2]))
		t.Uint(fMethod, o+3, 1, uint64(b[3]))
		t.Uint(fStatus, o+4, 2, uint64(be16(b[4:])))
		t.Uint(fClassSpec, o+6, 2, uint64(be16(b[6:])))
		t.Uint(fTID, o+8, 8, be64(b[8:]))
		t.Uint(fAttrID, o+16, 2, uint64(be16(b[16:])))
		t.Uint(fAttrMod, o+20, 4, uint64(be32(b[20:])))
		t.Bytes(fMADData, o+MADHdrLen, m.n-MADHdrLen, b[MADHdrLen:])
	}
	t.Close()
	if m.n == MADLen {
		m.cmTree(t, o, b)
	}
	if m.reqFrame != 0 {
		t.Uint(fReqFrame, -1, 0, m.reqFrame)
	}
	f.TreeFindings(t, m.idx)
}

func (m *MAD) cmTree(t *dissect.Tree, o int, b []byte) {
	switch m.Attr() {
	case AttrREQ:
		t.Uint(fReqComm, o+24, 4, uint64(be32(b[24:])))
		t.Open()
		t.Uint(fSID, o+32, 8, be64(b[32:]))
		if m.ps != 0 {
			t.Open()
			t.Bytes(fSIDPrefix, o+32, 5, b[32:37])
			t.Uint(fSIDProto, o+37, 1, uint64(b[37]))
			t.Uint(fSIDPort, o+38, 2, uint64(be16(b[38:])))
			t.Close()
		}
		t.Uint(fReqGUID, o+40, 8, be64(b[40:]))
		t.Uint(fReqQKey, o+52, 4, uint64(be32(b[52:])))
		t.Uint(fReqQPN, o+56, 3, uint64(be24(b[56:])))
		t.Uint(fReqResp, o+59, 1, uint64(b[59]))
		t.Uint(fReqLEECN, o+60, 3, uint64(be24(b[60:])))
		t.Uint(fReqInit, o+63, 1, uint64(b[63]))
		t.Uint(fReqREECN, o+64, 3, uint64(be24(b[64:])))
		t.Uint(fReqRRespTO, o+67, 1, uint64(b[67]>>3))
		t.Uint(fReqTST, o+67, 1, uint64(b[67]>>1&3))
		t.Uint(fReqE2E, o+67, 1, uint64(b[67]&1))
		t.Uint(fReqPSN, o+68, 3, uint64(be24(b[68:])))
		t.Uint(fReqLRespTO, o+71, 1, uint64(b[71]>>3))
		t.Uint(fReqRetry, o+71, 1, uint64(b[71]&7))
		t.Uint(fReqPKey, o+72, 2, uint64(be16(b[72:])))
		t.Uint(fReqMTU, o+74, 1, uint64(b[74]>>4))
		t.Uint(fReqRDC, o+74, 1, uint64(b[74]>>3&1))
		t.Uint(fReqRNR, o+74, 1, uint64(b[74]&7))
		t.Uint(fReqMaxCM, o+75, 1, uint64(b[75]>>4))
		t.Uint(fReqSRQ, o+75, 1, uint64(b[75]>>3&1))
		t.Uint(fReqExtTr, o+75, 1, uint64(b[75]&7))
		t.Uint(fReqLLID, o+76, 2, uint64(be16(b[76:])))
		t.Uint(fReqRLID, o+78, 2, uint64(be16(b[78:])))
		gidTree(t, fReqLGID, fReqLGID4, o+80, b[80:96])
		gidTree(t, fReqRGID, fReqRGID4, o+96, b[96:112])
		fl := be32(b[112:])
		t.Uint(fReqFlow, o+112, 4, uint64(fl>>12))
		t.Uint(fReqRes0, o+112, 4, uint64(fl>>6&0x3f))
		t.Uint(fReqRate, o+112, 4, uint64(fl&0x3f))
		t.Uint(fReqTClass, o+116, 1, uint64(b[116]))
		t.Uint(fReqHop, o+117, 1, uint64(b[117]))
		t.Uint(fReqSL, o+118, 1, uint64(b[118]>>4))
		t.Uint(fReqSubnet, o+118, 1, uint64(b[118]>>3&1))
		t.Uint(fReqRes1, o+118, 1, uint64(b[118]&7))
		t.Uint(fReqAckTO, o+119, 1, uint64(b[119]>>3))
		t.Uint(fReqRes2, o+119, 1, uint64(b[119]&7))
		t.Uint(fAltLLID, o+120, 2, uint64(be16(b[120:])))
		t.Uint(fAltRLID, o+122, 2, uint64(be16(b[122:])))
		t.Bytes(fAltLGID, o+124, 16, b[124:140])
		t.Bytes(fAltRGID, o+140, 16, b[140:156])
		afl := be32(b[156:])
		t.Uint(fAltFlow, o+156, 4, uint64(afl>>12))
		t.Uint(fAltRes0, o+156, 4, uint64(afl>>6&0x3f))
		t.Uint(fAltRate, o+156, 4, uint64(afl&0x3f))
		t.Uint(fAltTClass, o+160, 1, uint64(b[160]))
		t.Uint(fAltHop, o+161, 1, uint64(b[161]))
		t.Uint(fAltSL, o+162, 1, uint64(b[162]>>4))
		t.Uint(fAltSubnet, o+162, 1, uint64(b[162]>>3&1))
		t.Uint(fAltRes1, o+162, 1, uint64(b[162]&7))
		t.Uint(fAltAckTO, o+163, 1, uint64(b[163]>>3))
		t.Uint(fAltRes1, o+163, 1, uint64(b[163]&7)) // Wireshark files both under alt_reserved1
		pd := b[offReqPriv:]
		if m.ps == RDMAPSTCP || m.ps == RDMAPSUDP {
			po := o + offReqPriv
			t.Bytes(fIPCM, po, len(pd), pd)
			t.Open()
			t.Uint(fIPCMMaj, po, 1, uint64(pd[0]>>4))
			t.Uint(fIPCMMin, po, 1, uint64(pd[0]&0xf))
			t.Uint(fIPCMIPV, po+1, 1, uint64(pd[1]>>4))
			t.Uint(fIPCMRes, po+1, 1, uint64(pd[1]&0xf))
			t.Uint(fIPCMSport, po+2, 2, uint64(be16(pd[2:])))
			switch pd[1] >> 4 {
			case 4:
				t.Bytes(fIPCMSIP4, po+16, 4, pd[16:20])
				t.Bytes(fIPCMDIP4, po+32, 4, pd[32:36])
			case 6:
				t.Bytes(fIPCMSIP6, po+4, 16, pd[4:20])
				t.Bytes(fIPCMDIP6, po+20, 16, pd[20:36])
			}
			t.Bytes(fIPCMPriv, po+CMAHdrLen, len(pd)-CMAHdrLen, pd[CMAHdrLen:])
			m.consumerTree(t, pd[CMAHdrLen:], po+CMAHdrLen)
			t.Close()
		}
		t.Close()
	case AttrREP:
		t.Uint(fRepComm, o+24, 4, uint64(be32(b[24:])))
		t.Open()
		t.Uint(fRepRComm, o+28, 4, uint64(be32(b[28:])))
		t.Uint(fRepQKey, o+32, 4, uint64(be32(b[32:])))
		t.Uint(fRepQPN, o+36, 3, uint64(be24(b[36:])))
		t.Uint(fRepEECN, o+40, 3, uint64(be24(b[40:])))
		t.Uint(fRepPSN, o+44, 3, uint64(be24(b[44:])))
		t.Uint(fRepResp, o+48, 1, uint64(b[48]))
		t.Uint(fRepInit, o+49, 1, uint64(b[49]))
		t.Uint(fRepAckDelay, o+50, 1, uint64(b[50]>>3))
		t.Uint(fRepFailover, o+50, 1, uint64(b[50]>>1&3))
		t.Uint(fRepE2E, o+50, 1, uint64(b[50]&1))
		t.Uint(fRepRNR, o+51, 1, uint64(b[51]>>5))
		t.Uint(fRepSRQ, o+51, 1, uint64(b[51]>>4&1))
		t.Uint(fRepRes, o+51, 1, uint64(b[51]&0xf))
		t.Uint(fRepGUID, o+52, 8, be64(b[52:]))
		t.Bytes(fRepPriv, o+offRepPriv, MADLen-offRepPriv, b[offRepPriv:])
		m.consumerTree(t, b[offRepPriv:], o+offRepPriv)
		t.Close()
	case AttrRTU:
		t.Uint(fRTULComm, o+24, 4, uint64(be32(b[24:])))
		t.Uint(fRTURComm, o+28, 4, uint64(be32(b[28:])))
		t.Bytes(fRTUPriv, o+offRTUPriv, MADLen-offRTUPriv, b[offRTUPriv:])
	case AttrREJ:
		t.Uint(fRejLComm, o+24, 4, uint64(be32(b[24:])))
		t.Uint(fRejRComm, o+28, 4, uint64(be32(b[28:])))
		t.Uint(fRejReason, o+34, 2, uint64(be16(b[34:])))
		t.Bytes(fRejPriv, o+offRejPriv, MADLen-offRejPriv, b[offRejPriv:])
		m.consumerTree(t, b[offRejPriv:], o+offRejPriv)
	case AttrDREQ:
		t.Uint(fDreqLComm, o+24, 4, uint64(be32(b[24:])))
		t.Uint(fDreqRComm, o+28, 4, uint64(be32(b[28:])))
		t.Uint(fDreqQPN, o+32, 3, uint64(be24(b[32:])))
		t.Bytes(fDreqPriv, o+offDreqPriv, MADLen-offDreqPriv, b[offDreqPriv:])
	case AttrDREP:
		t.Uint(fDrepLComm, o+24, 4, uint64(be32(b[24:])))
		t.Uint(fDrepRComm, o+28, 4, uint64(be32(b[28:])))
		t.Bytes(fDrepPriv, o+offDrepPriv, MADLen-offDrepPriv, b[offDrepPriv:])
	case AttrMRA:
		t.Uint(fMRALComm, o+24, 4, uint64(be32(b[24:])))
		t.Uint(fMRARComm, o+28, 4, uint64(be32(b[28:])))
	}
}

func (m *MAD) consumerTree(t *dissect.Tree, pd []byte, off int) {
	if m.cons == nil {
		return
	}
	t.String(fConsumer, -1, 0, m.cons.Name)
	if m.cons.Tree != nil {
		m.cons.Tree(t, m.Attr(), pd, off)
	}
}

// gidTree shows a GID, as IPv4 when it is IPv4-mapped (RoCE).
func gidTree(t *dissect.Tree, f6, f4 *dissect.Field, off int, g []byte) {
	a := netip.AddrFrom16([16]byte(g))
	if a.Is4In6() {
		t.Bytes(f4, off+12, 4, g[12:16])
		return
	}
	t.Bytes(f6, off, 16, g)
}
