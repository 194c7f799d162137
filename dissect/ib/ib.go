package ib

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// maxQPs bounds the PSN-order table; beyond it the table starts afresh.
const maxQPs = 1 << 14

func init() {
	dissect.RegisterDissector(&dissect.Registration{
		Name:       "infiniband",
		UDPPorts:   []dissect.PortRange{{Lo: RoCEv2Port, Hi: RoCEv2Port}},
		EtherTypes: []uint16{RoCEv1Type},
		LinkTypes:  []uint16{LinkTypeIB, LinkTypeERF},
		New: func(e *dissect.Engine) dissect.Dissector {
			d := newState()
			d.up.budget = e.Budget() // message assembly charges it
			return d
		},
	})
}

// numExt is the number of extended header kinds (Ext bits).
const numExt = 11

// Packet is one InfiniBand packet.
type Packet struct {
	d     *State
	idx   int
	encap uint8
	data  []byte // from the first IB header (LRH, GRH or BTH) to the end of the packet (VCRC included)
	off   int    // frame offset of data[0]

	erf            []byte // ERF header (ERF records only)
	lrh, grh, bth  int    // offsets in data, -1 when absent
	ext            [numExt]int16
	exts           Ext // extended headers present (complete)
	payOff, payLen int
	padLen         int

	icrcOff            int // -1 when absent (truncated)
	icrcWire, icrcCalc uint32
	icrcStatus         uint8
	vcrcOff            int
	vcrcWire, vcrcCalc uint16
	vcrcStatus         uint8
	vcrcSwapped        bool
	short              bool // headers cut short
	psnExpected        uint32
	psnBroken          bool
	psnDup             bool // psnBroken by a repeated PSN, not a gap
	ipoib              bool // the payload is IP over InfiniBand (handed to the engine)
}

// Proto implements dissect.PDU.
func (p *Packet) Proto() *dissect.ProtoInfo { return PIB }

// BTH returns the packet's BTH (nil if absent).
func (p *Packet) BTH() BTH {
	if p.bth < 0 || p.bth+BTHLen > len(p.data) {
		return nil
	}
	return BTH(p.data[p.bth : p.bth+BTHLen])
}

// Header returns the extended header e (nil if absent). The absent case,
// most calls, is inlined.
func (p *Packet) Header(e Ext) []byte {
	if p.exts&e == 0 {
		return nil
	}
	return p.header(e)
}

// header is kept out of line so that Header inlines.
//
//go:noinline
func (p *Packet) header(e Ext) []byte {
	i := bits.TrailingZeros16(uint16(e))
	if i >= numExt {
		return nil
	}
	n := extLens[i] // extLen(e), without its switch
	if e != 1<<i {
		n = 0 // not one header: extLen has no size for it
	}
	o := int(p.ext[i])
	return p.data[o : o+n]
}

// Payload returns the packet's payload (pad and ICRC excluded).
func (p *Packet) Payload() []byte { return p.data[p.payOff : p.payOff+p.payLen] }

// ICRCStatus is dissect.StatusUnverified, StatusGood or StatusBad.
func (p *Packet) ICRCStatus() uint8 { return p.icrcStatus }

// VCRCStatus is dissect.StatusUnverified, StatusGood or StatusBad (native IB only).
func (p *Packet) VCRCStatus() uint8 { return p.vcrcStatus }

type qpKey struct {
	src, dst netip.Addr
	qp       uint32
	resp     bool
}

// is reports whether k is the key of e, qp and resp, field by field: the
// compiler compares a struct holding two netip.Addrs by calling memequal,
// and a key built only to be compared costs as much as the compare.
func (k *qpKey) is(e *addrPair, qp uint32, resp bool) bool {
	return k.qp == qp && k.resp == resp && k.src == e.src && k.dst == e.dst
}

// qpCacheBits sizes the two-way cache in front of qps: 512 slots of two
// 64-octet entries (64 KiB, fixed), so that a few hundred interleaved QP
// directions (64 clients each with requests, replies and READ responses:
// 256 keys) all stay cached instead of hashing the 56-octet key per
// packet. The map stays the source of truth; an entry only ever holds a
// key the map has (clearQPs empties both).
const qpCacheBits = 9

func qpSlot(src, dst netip.Addr, qp uint32, resp bool) uint32 {
	return uint32(ibasm.KeyHash(src, dst, qp, resp) >> (64 - qpCacheBits))
}

type recentQP struct {
	k qpKey
	// n is the index into qpSlab plus one; 0 when unused, so that a new
	// State's 64 KiB of qpCache is unused as the zeroed pages come and is
	// not written (and so faulted in) until a QP is cached.
	n int32
}

type qpState struct {
	expected uint32 // next PSN
	window   uint32 // PSNs beyond expected that a read request may have consumed
	// The last READ request: its PSN, the most PSNs its responses may use,
	// and its RETH. A READ of the same key inside its range, at a PSN inside
	// its PSNs, is that READ re-issued for the rest after lost responses.
	readFrom, readN  uint32
	readKey, readLen uint32
	readVA           uint64
}

// State is the per-engine InfiniBand state.
type State struct {
	pool dissect.Pool[Packet]
	// PSN state per QP and direction: the map gives an index into qpSlab,
	// so a packet costs at most one map lookup and no allocation (the slab
	// is reused after Rewind), and a hit in the direct-mapped qpCache
	// (a cheap hash, the key compared in place) skips even that.
	qps    map[qpKey]int32
	qpSlab []qpState
	// recent is by hintOf alone: without hashing the addresses it holds
	// the few keys of one connection (its QPs and directions)
	recent  [8]recentQP
	qpCache [1 << qpCacheBits][2]recentQP // two a slot, the most recently cached first
	crc     scratch
	tmpl    icrcCache // RoCEv2 over IPv4: header templates per QP (icrc4.go)
	up      upperState
	flows   flowTable   // per-flow counters for -z infiniband,flows
	reads   flows.Reads // -z infiniband,srt: RDMA READ response times
	icrc    icrcTable   // bad ICRCs per flow, to tell rewritten addresses from corruption
}

func newState() *State {
	return &State{qps: map[qpKey]int32{}}
}

// clearQPs forgets every QP. The caches hold only keys the map has, and
// the map loses keys only here: with the map empty they are empty too.
func (d *State) clearQPs() {
	if len(d.qps) == 0 {
		return
	}
	clear(d.qps)
	d.qpSlab = d.qpSlab[:0]
	clear(d.recent[:])
	clear(d.qpCache[:])
}

// hintOf is a key's recent slot: the QP and the direction tell apart the
// few keys a connection alternates between.
func hintOf(qp uint32, resp bool) int {
	h := qp << 1
	if resp {
		h |= 1
	}
	return int(h & 7)
}

// lookupQP finds the PSN state of the key of e, qp and resp (index into
// qpSlab): its recent slot first, then the cached entries of its hashed
// slot, compared in place; the key itself is built only for the map, when
// they all hold other keys.
func (d *State) lookupQP(e *addrPair, qp uint32, resp bool) (int32, bool) {
	r := &d.recent[hintOf(qp, resp)]
	if r.n > 0 && r.k.is(e, qp, resp) {
		return r.n - 1, true
	}
	h := ibasm.KeyHash(e.src, e.dst, qp, resp)
	e.hash, e.hashed, e.hashResp = h, true, resp
	c := &d.qpCache[h>>(64-qpCacheBits)]
	if c[0].n > 0 && c[0].k.is(e, qp, resp) {
		*r = c[0]
		return r.n - 1, true
	}
	if c[1].n > 0 && c[1].k.is(e, qp, resp) {
		*r = c[1]
		return r.n - 1, true
	}
	k := qpKey{src: e.src, dst: e.dst, qp: qp, resp: resp}
	i, ok := d.qps[k]
	if ok {
		c[1], c[0] = c[0], recentQP{k, i + 1}
		*r = c[0]
	}
	return i, ok
}

func (d *State) remember(k *qpKey, i int32) {
	c := &d.qpCache[qpSlot(k.src, k.dst, k.qp, k.resp)]
	c[1], c[0] = c[0], recentQP{*k, i + 1}
	d.recent[hintOf(k.qp, k.resp)] = c[0]
}

// reissuedBy reports whether a READ request at psn with RETH r asks again
// for the rest of the last READ, whose responses were lost from some point
// on: the same key and the same end, and a start as many path MTUs further
// as its PSN is further (or both unchanged, when the first response was
// lost). ib_read_bw's pipelined READs of one buffer differ: same start,
// later PSN.
func (st *qpState) reissuedBy(psn uint32, r RETH) bool {
	if r.RKey() != st.readKey || r.VA() < st.readVA || r.VA()+uint64(r.DMALen()) != st.readVA+uint64(st.readLen) {
		return false
	}
	d, off := (psn-st.readFrom)&PSNMask, r.VA()-st.readVA
	if d == 0 || off == 0 {
		return d == 0 && off == 0
	}
	if d >= st.readN || off%uint64(d) != 0 {
		return false
	}
	switch off / uint64(d) { // the path MTUs IB allows
	case 256, 512, 1024, 2048, 4096:
		return true
	}
	return false
}

// Rewind implements dissect.Rewinder.
func (d *State) Rewind() {
	d.clearQPs()
	d.flows.reset()
	d.reads = flows.Reads{} // the second pass counts again
	d.icrc.reset()
	d.pool.Reset()
	if d.up.asm != nil {
		d.up.asm.Reset()
	}
}

func (d *State) newPacket(f *dissect.Frame, off int) *Packet {
	p, _ := d.pool.Get(f)
	// cleared in place, then the non-zero fields: a composite literal with
	// them built the 200-octet Packet in a temporary and copied it (86
	// instructions a frame), field by field took 56
	*p = Packet{}
	p.d, p.off = d, off
	p.lrh, p.grh, p.bth, p.icrcOff, p.vcrcOff = -1, -1, -1, -1, -1
	p.icrcStatus, p.vcrcStatus = dissect.StatusUnverified, dissect.StatusUnverified
	return p
}

// Dissect implements dissect.Dissector. It tells the encapsulation from the
// frame: UDP (RoCEv2), EtherType 0x8915 (RoCEv1), link type 247 or ERF.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {
	switch {
	case f.Net.HasL4:
		d.rocev2(f, data, off)
	case f.Net.EtherType == RoCEv1Type:
		d.rocev1(f, data, off)
	case f.LinkType == LinkTypeERF:
		d.erf(f, data, off)
	default:
		d.native(f, data, off, nil)
	}
	if !f.Net.HasIP {
		linkAddrs(f)
	}
}

// linkAddrs sets the frame's Source and Destination columns from its
// InfiniBand packet's headers, as tshark's: the GIDs of a GRH, else the
// LIDs of the LRH.
func linkAddrs(f *dissect.Frame) {
	for i := len(f.PDUs) - 1; i >= 0; i-- {
		p, ok := f.PDUs[i].(*Packet)
		if !ok || p.encap == EncRoCEv2 {
			continue
		}
		switch {
		case p.grh >= 0 && p.grh+GRHLen <= len(p.data):
			g := GRH(p.data[p.grh:])
			f.Link = dissect.LinkAddrs{Kind: dissect.LinkGID, SGID: netip.AddrFrom16([16]byte(g.SGID())),
				DGID: netip.AddrFrom16([16]byte(g.DGID()))}
		case p.lrh >= 0 && p.lrh+LRHLen <= len(p.data):
			l := LRH(p.data[p.lrh:])
			f.Link = dissect.LinkAddrs{Kind: dissect.LinkLID, SLID: l.SLID(), DLID: l.DLID()}
		}
		return
	}
}

func (d *State) malformed(f *dissect.Frame, p *Packet, fld *dissect.Field, msg string) {
	p.short = true
	f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, fld, "infiniband", msg)
}

func (d *State) rocev2(f *dissect.Frame, data []byte, off int) {
	p := d.newPacket(f, off)
	p.encap = EncRoCEv2
	n := &f.Net
	complete := true
	var udp []byte // the frame's UDP header, when data follows it in the frame
	if off >= 0 && n.L4Off+8 <= len(f.Data) {
		udp = f.Data[n.L4Off : n.L4Off+8]
		ulen := int(binary.BigEndian.Uint16(udp[4:])) - 8
		if ulen >= 0 && ulen <= len(data) {
			data = data[:ulen]
		} else if ulen > len(data) {
			complete = false
		}
	}
	p.data = data
	p.bth = 0
	p.idx = f.AddPDU(p)
	end := len(data)
	if complete {
		end -= ICRCLen
	}
	if !d.transport(f, p, end) {
		return
	}
	if !complete {
		return
	}
	p.icrcOff = end
	if udp == nil || n.L3Off >= n.L4Off {
		p.icrcWire = binary.BigEndian.Uint32(data[end:])
		return
	}
	ip := f.Data[n.L3Off:n.L4Off]
	crc, ok := d.tmpl.roce4(&d.crc, ip, udp, data[:end])
	if !ok { // not IPv4 without options
		crc, ok = icrcRoCEv2(&d.crc, ip, udp, data[:end])
	}
	d.checkICRC(f, p, ip, crc, ok)
}

func (d *State) rocev1(f *dissect.Frame, data []byte, off int) {
	p := d.newPacket(f, off)
	p.encap = EncRoCEv1
	p.data = data
	p.idx = f.AddPDU(p)
	if len(data) < GRHLen {
		d.malformed(f, p, fGRH, "truncated GRH: "+strconv.Itoa(len(data))+" of 40 octets")
		return
	}
	p.grh = 0
	g := GRH(data)
	if !d.checkGRH(f, p, g) {
		return
	}
	complete := true
	if total := GRHLen + int(g.PayLen()); total <= len(data) {
		data = data[:total] // drop Ethernet padding
		p.data = data
	} else {
		complete = false
	}
	p.bth = GRHLen
	end := len(data)
	if complete {
		end -= ICRCLen
	}
	if !d.transport(f, p, end) || !complete {
		return
	}
	p.icrcOff = end
	crc, ok := icrcRoCEv1(&d.crc, data[:end])
	d.checkICRC(f, p, nil, crc, ok)
}

func (d *State) checkGRH(f *dissect.Frame, p *Packet, g GRH) bool {
	if g.IPVer() != 6 {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fGRHIPVer, "infiniband",
			"GRH IP version "+strconv.Itoa(int(g.IPVer()))+", expected 6")
	}
	if g.NxtHdr() != GRHNextBTH {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupUndecoded, fGRHNxtHdr, "infiniband",
			"GRH next header 0x"+strconv.FormatUint(uint64(g.NxtHdr()), 16)+" is not IBA transport (0x1b)")
		return false
	}
	return true
}

// erf strips an ERF record header (InfiniBand records only).
func (d *State) erf(f *dissect.Frame, data []byte, off int) {
	if len(data) < 16 || data[8]&0x7F != ERFTypeIB {
		hl := min(len(data), 16)
		p := d.newPacket(f, off+hl) // p.off is where the (here empty) IB data starts, after the ERF header
		p.encap = EncNative
		p.data = data[hl:hl]
		p.erf = data[:hl]
		p.idx = f.AddPDU(p)
		if len(data) < 16 {
			d.malformed(f, p, fERFType, "truncated ERF header")
		} else {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupUndecoded, fERFType, "infiniband",
				"ERF record type "+strconv.Itoa(int(data[8]&0x7F))+" is not InfiniBand (21)")
		}
		return
	}
	hl := 16
	for ext := data[8]&0x80 != 0; ext; {
		if hl+8 > len(data) {
			break
		}
		ext = data[hl]&0x80 != 0
		hl += 8
	}
	if hl > len(data) {
		hl = len(data)
	}
	d.native(f, data[hl:], off+hl, data[:hl])
}

func (d *State) native(f *dissect.Frame, data []byte, off int, erf []byte) {
	p := d.newPacket(f, off)
	p.encap = EncNative
	p.erf = erf
	p.data = data
	p.idx = f.AddPDU(p)
	if len(data) < LRHLen {
		d.malformed(f, p, fLRH, "truncated LRH: "+strconv.Itoa(len(data))+" of 8 octets")
		return
	}
	p.lrh = 0
	l := LRH(data)
	if l.LVer() != 0 {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fLRHLVer, "infiniband",
			"LRH link version "+strconv.Itoa(int(l.LVer()))+", expected 0")
	}
	total := int(l.PktLen()) * 4 // through the ICRC
	complete := total+VCRCLen <= len(data) && total >= LRHLen+ICRCLen
	if complete {
		data = data[:total+VCRCLen]
		p.data = data
		p.vcrcOff = total
		p.vcrcWire = binary.BigEndian.Uint16(data[total:])
		c := VCRC(data[:total])
		p.vcrcCalc = bits.ReverseBytes16(c) // wire order: least significant octet first
		f.Checked(checkVCRC, p.idx, p.vcrcCalc == p.vcrcWire || c == p.vcrcWire)
		switch {
		case p.vcrcCalc == p.vcrcWire:
			p.vcrcStatus = dissect.StatusGood
		case c == p.vcrcWire:
			p.vcrcStatus, p.vcrcSwapped, p.vcrcCalc = dissect.StatusGood, true, c
		default:
			p.vcrcStatus = dissect.StatusBad
			f.AddFinding(p.idx, dissect.Error, dissect.GroupChecksum, fVCRC, "infiniband",
				"bad VCRC: computed 0x"+hex16(p.vcrcCalc)+", on the wire 0x"+hex16(p.vcrcWire))
		}
	} else if total > len(data) {
		// captured short: leave the CRCs unverified
	} else {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fLRHPktLen, "infiniband",
			"LRH packet length "+strconv.Itoa(total)+" octets does not fit the "+strconv.Itoa(len(data))+" captured")
	}
	pos := LRHLen
	switch l.LNH() {
	case LNHGlobal:
		if len(data) < pos+GRHLen {
			d.malformed(f, p, fGRH, "truncated GRH")
			return
		}
		p.grh = pos
		if !d.checkGRH(f, p, GRH(data[pos:])) {
			return
		}
		pos += GRHLen
	case LNHLocal:
	default:
		f.AddFinding(p.idx, dissect.Note, dissect.GroupUndecoded, fLRHLNH, "infiniband",
			"LRH next header "+strconv.Itoa(int(l.LNH()))+": not IBA transport")
		return
	}
	p.bth = pos
	end := len(data)
	if complete {
		end = p.vcrcOff - ICRCLen
	}
	if !d.transport(f, p, end) {
		return
	}
	if complete {
		p.icrcOff = end
		crc, ok := icrcNative(&d.crc, data[:end])
		d.checkICRC(f, p, nil, crc, ok)
	}
	d.ipoib(f, p)
}

// ipoib hands the payload of a native InfiniBand SEND that starts a message
// and carries IP over InfiniBand (dissect.IPoIBType) to the engine, which
// decodes the IP, ARP, UDP, TCP... in it, as tshark does ("IBA Payload -
// appears to be EtherType encapsulated"), unless a protocol above (the CM,
// RDS, RPC-over-RDMA) took the message. RoCE frames keep their own IP
// headers in the frame's network layer and are not offered.
func (d *State) ipoib(f *dissect.Frame, p *Packet) {
	h := p.BTH()
	if h == nil || p.idx != len(f.PDUs)-1 || f.InError() {
		return
	}
	pay := p.Payload()
	typ, ok := ipoibSend(h, pay)
	if !ok {
		return
	}
	p.ipoib = true
	f.EtherPayload(typ, pay[dissect.IPoIBHdrLen:], p.PayloadOffset()+dissect.IPoIBHdrLen)
}

// ipoibSend reports whether the packet with BTH h and payload pay carries
// IP over InfiniBand, and its EtherType: a SEND that starts a message (First
// or Only, with immediate or invalidate; RC or UC in connected mode, UD in
// datagram mode, XRC) whose payload starts with the IPoIB header.
func ipoibSend(h BTH, pay []byte) (uint16, bool) {
	switch h.Opcode() & 0x1F {
	case 0x00, 0x04, 0x05, 0x17:
	default:
		return 0, false
	}
	if t := h.Transport(); t != RC && t != UC && t != UD && t != XRC {
		return 0, false
	}
	return dissect.IPoIBType(pay)
}

// EtherPayloadAt implements dissect.EtherLocator: where Dissect finds IP
// over InfiniBand in a native InfiniBand frame (link type 247 or an ERF
// record), from the bytes alone, for the -j reader's stream numbering. It
// walks the headers as native and transport do; it cannot know whether an
// upper protocol would take the message, which for a payload that starts
// with an IPoIB header none does.
func (d *State) EtherPayloadAt(linkType uint16, data []byte) (typ uint16, off, n int, ok bool) {
	base := 0
	if linkType == LinkTypeERF {
		if len(data) < 16 || data[8]&0x7F != ERFTypeIB {
			return 0, 0, 0, false
		}
		base = 16
		for ext := data[8]&0x80 != 0; ext && base+8 <= len(data); base += 8 {
			ext = data[base]&0x80 != 0
		}
		base = min(base, len(data))
	}
	b := data[base:]
	if len(b) < LRHLen {
		return 0, 0, 0, false
	}
	l := LRH(b)
	end := len(b)
	if total := int(l.PktLen()) * 4; total+VCRCLen <= len(b) && total >= LRHLen+ICRCLen {
		end = total - ICRCLen
	}
	pos := LRHLen
	switch l.LNH() {
	case LNHGlobal:
		if len(b) < pos+GRHLen || GRH(b[pos:]).NxtHdr() != GRHNextBTH {
			return 0, 0, 0, false
		}
		pos += GRHLen
	case LNHLocal:
	default:
		return 0, 0, 0, false
	}
	if end < pos+BTHLen {
		return 0, 0, 0, false
	}
	h := BTH(b[pos : pos+BTHLen])
	pos += BTHLen
	for m := uint16(Ops[h.Opcode()].Ext); m != 0; m &= m - 1 {
		pos += extLens[bits.TrailingZeros16(m)]
	}
	payLen := end - pos - h.PadCnt()
	if payLen < 0 {
		return 0, 0, 0, false
	}
	typ, ok = ipoibSend(h, b[pos:pos+payLen])
	return typ, base + pos + dissect.IPoIBHdrLen, payLen - dissect.IPoIBHdrLen, ok
}

// The checks rdx check tabulates for InfiniBand.
var (
	checkICRC = dissect.RegisterCheck("infiniband.icrc", "infiniband", "invariant CRC (RoCEv1, RoCEv2, native IB) with the variant fields masked")
	checkVCRC = dissect.RegisterCheck("infiniband.vcrc", "infiniband", "variant CRC of native InfiniBand packets")
)

func hex16(v uint16) string { return strconv.FormatUint(uint64(v)|1<<16, 16)[1:] }
func hex32(v uint32) string { return strconv.FormatUint(uint64(v)|1<<32, 16)[1:] }

// checkICRC compares the ICRC with crc; ip is the IP header of a RoCEv2
// frame (nil otherwise), which names the flow of a bad one.
func (d *State) checkICRC(f *dissect.Frame, p *Packet, ip []byte, crc uint32, ok bool) {
	w := p.data[p.icrcOff : p.icrcOff+ICRCLen]
	p.icrcWire = binary.BigEndian.Uint32(w)
	if !ok {
		return
	}
	p.icrcCalc = bits.ReverseBytes32(crc) // in the same octet order as icrcWire
	good := binary.LittleEndian.Uint32(w) == crc
	f.Checked(checkICRC, p.idx, good)
	if good {
		p.icrcStatus = dissect.StatusGood
		return
	}
	p.icrcStatus = dissect.StatusBad
	d.badICRC(f, p, ip)
}

// transport decodes the BTH at p.bth, its extended headers and the payload,
// which ends at end (the ICRC). It reports whether the headers are complete.
func (d *State) transport(f *dissect.Frame, p *Packet, end int) bool {
	data := p.data
	pos := p.bth
	if end < pos+BTHLen {
		d.malformed(f, p, fBTH, "truncated BTH: "+strconv.Itoa(max(0, min(end, len(data))-pos))+" of 12 octets")
		return false
	}
	// hb, a fixed-size view, is what the calls below take: their BTH
	// accessors then need no bounds checks (an octet slice took one per
	// field read, several per packet)
	hb := (*[BTHLen]byte)(data[pos:])
	h := BTH(hb[:])
	pos += BTHLen
	op := &Ops[h.Opcode()]
	// the opcode's extended headers, in wire order (Ext bit i is extOrder[i])
	for m := uint16(op.Ext); m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		e, n := Ext(1)<<i, extLens[i]
		if pos+n > end {
			d.malformed(f, p, fBTH, "opcode "+strconv.Itoa(int(h.Opcode()))+" needs "+extNames[i]+
				" ("+strconv.Itoa(n)+" octets) but only "+strconv.Itoa(max(0, end-pos))+" remain before the ICRC")
			return false
		}
		p.ext[i] = int16(pos)
		p.exts |= e
		pos += n
	}
	p.padLen = h.PadCnt()
	p.payOff = pos
	p.payLen = end - pos - p.padLen
	if p.payLen < 0 {
		d.malformed(f, p, fPadCnt, "pad count "+strconv.Itoa(p.padLen)+" exceeds the "+strconv.Itoa(end-pos)+" octets after the headers")
		p.padLen = end - pos
		p.payLen = 0
	}
	d.checkBTH(f, p, hb, op)
	if f.InError() {
		return true // quoted in an ICMP error: no PSN tracking, flow counts or message assembly
	}
	var e addrPair // once, for the PSN check, the counters and assembly
	e.src, e.dst = d.flowKey(f, p)
	d.analyze(f, p, hb, op, &e)
	d.count(f, p, hb, op, &e)
	if op.Known {
		d.deliver(f, p, hb, &e)
	}
	return true
}

var extNames = [...]string{"RDETH", "DETH", "XRCETH", "RETH", "AtomicETH", "AETH", "AtomicAckETH", "ImmDt", "IETH", "FETH", "CNP reserved octets"}

func (d *State) checkBTH(f *dissect.Frame, p *Packet, hb *[BTHLen]byte, op *OpInfo) {
	h := BTH(hb[:])
	if h.TVer() != 0 {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fTVer, "infiniband",
			"BTH transport version "+strconv.Itoa(int(h.TVer()))+", expected 0")
	}
	if !op.Known {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupProtocol, fOpcode, "infiniband",
			"reserved or vendor opcode 0x"+strconv.FormatUint(uint64(h.Opcode()), 16))
		return
	}
	if h.Opcode() == OpCNP && !h.BECN() {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupProtocol, fBECN, "infiniband", "CNP without BECN set")
	}
	if !op.Payload && p.payLen > 0 && h.Opcode() != OpCNP {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fPayload, "infiniband",
			strconv.Itoa(p.payLen)+" octets of payload on "+op.Name+", which carries none")
	}
	if h.Transport() == UD && p.exts&ExtDETH != 0 && DETH(p.Header(ExtDETH)).QKey()&0x80000000 != 0 &&
		DETH(p.Header(ExtDETH)).QKey() != GSIQKey {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, fQKey, "infiniband", "privileged Q_Key (high bit set)")
	}
	if p.exts&ExtAETH != 0 {
		a := AETH(p.Header(ExtAETH))
		switch a.Kind() {
		case AckKindRNRNAK:
			f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, fSynTimer, "infiniband",
				"RNR NAK (receiver not ready), timer code "+strconv.Itoa(int(a.Value()))+", MSN "+strconv.Itoa(int(a.MSN())))
		case AckKindNAK:
			g := dissect.GroupProtocol
			if a.Value() == NAKPSNSeqError {
				g = dissect.GroupSequence
			}
			name := NAKName(a.Value())
			if name == "" {
				name = "reserved code " + strconv.Itoa(int(a.Value()))
			}
			f.AddFinding(p.idx, dissect.Warn, g, fSynNAK, "infiniband", "NAK: "+name+" at PSN "+strconv.Itoa(int(h.PSN())))
		case AckKindReserved:
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fSyndrome, "infiniband", "AETH syndrome of reserved type 0x"+strconv.FormatUint(uint64(a.Syndrome()), 16))
		}
	}
}

// addrPair is a packet's flow addresses (flowKey), handed by pointer:
// six words of arguments to three calls a packet cost more. lookupQP
// leaves in hash the key's KeyHash when it computed it (hashed; for
// hashResp), which the assembler then takes instead of hashing the same
// key again (asmPacket).
type addrPair struct {
	src, dst         netip.Addr
	hash             uint64
	hashed, hashResp bool
}

func (d *State) flowKey(f *dissect.Frame, p *Packet) (src, dst netip.Addr) {
	switch p.encap {
	case EncRoCEv2:
		return f.Net.Src, f.Net.Dst
	case EncNative:
		if p.lrh >= 0 {
			l := LRH(p.data[p.lrh:])
			return netip.AddrFrom4([4]byte{0, 0, byte(l.SLID() >> 8), byte(l.SLID())}),
				netip.AddrFrom4([4]byte{0, 0, byte(l.DLID() >> 8), byte(l.DLID())})
		}
	}
	if p.grh >= 0 {
		g := GRH(p.data[p.grh:])
		return netip.AddrFrom16([16]byte(g.SGID())), netip.AddrFrom16([16]byte(g.DGID()))
	}
	return
}

// analyze checks PSN order per direction and destination QP on RC, UC and
// XRC: requests must advance by one (a read request may consume more),
// read response middles and lasts must follow their predecessor.
func (d *State) analyze(f *dissect.Frame, p *Packet, hb *[BTHLen]byte, op *OpInfo, e *addrPair) {
	h := BTH(hb[:])
	t := h.Transport()
	if !op.Known || (t != RC && t != UC && t != XRC) {
		return
	}
	qp, resp, psn := h.DestQP(), !op.Request, h.PSN()
	i, seen := d.lookupQP(e, qp, resp)
	// st points at the QP's state in place (no copy in and out); a QP
	// seen first starts from the zero state, made its slot below.
	var fresh qpState
	st := &fresh
	if seen {
		st = &d.qpSlab[i]
	}
	low := h.Opcode() & 0x1F
	check := seen
	if !op.Request {
		// only the continuation of a multi-packet read response is predictable
		check = seen && (low == 0x0E || low == 0x0F)
	}
	reissue := false
	if seen && low == 0x0C && st.readN > 0 && p.exts&ExtRETH != 0 {
		reissue = st.reissuedBy(psn, RETH(p.Header(ExtRETH)))
	}
	if check {
		diff := (psn - st.expected) & PSNMask
		switch {
		case reissue:
			f.AddFinding(p.idx, dissect.Note, dissect.GroupSequence, fPSN, "infiniband",
				"RDMA READ re-issued at PSN "+strconv.Itoa(int(psn))+" on QP 0x"+hex32(h.DestQP())[2:]+
					" (inside the READ from PSN "+strconv.Itoa(int(st.readFrom))+": its responses from here were lost)")
			if diff >= 1<<23 {
				p.psnBroken, p.psnDup, p.psnExpected = true, true, st.expected
			}
		case diff == 0:
		case diff < 1<<23:
			if diff > st.window {
				p.psnBroken, p.psnExpected = true, st.expected
				f.AddFinding(p.idx, dissect.Warn, dissect.GroupSequence, fPSN, "infiniband",
					"PSN gap on QP 0x"+hex32(h.DestQP())[2:]+": expected "+strconv.Itoa(int(st.expected))+", got "+
						strconv.Itoa(int(psn))+" ("+strconv.Itoa(int(diff))+" missing)")
			}
		default:
			p.psnBroken, p.psnDup, p.psnExpected = true, true, st.expected
			f.AddFinding(p.idx, dissect.Note, dissect.GroupSequence, fPSN, "infiniband",
				"duplicate PSN "+strconv.Itoa(int(psn))+" on QP 0x"+hex32(h.DestQP())[2:]+" (retransmission; expected "+
					strconv.Itoa(int(st.expected))+")")
			return // keep the expectation
		}
	}
	if !seen {
		if len(d.qps) >= maxQPs {
			d.clearQPs()
		}
		i = int32(len(d.qpSlab))
		d.qpSlab = append(d.qpSlab, qpState{})
		k := qpKey{src: e.src, dst: e.dst, qp: qp, resp: resp}
		d.qps[k] = i
		d.remember(&k, i)
		st = &d.qpSlab[i]
	}
	st.expected = (psn + 1) & PSNMask
	st.window = 0
	if low == 0x0C && p.exts&ExtRETH != 0 { // read request: its responses use ceil(len/PMTU) PSNs
		n := RETH(p.Header(ExtRETH)).DMALen()
		if n > 256 {
			st.window = min((n+255)/256-1, 1<<22)
		}
		if !reissue { // a re-issue stays inside the original's PSNs
			r := RETH(p.Header(ExtRETH))
			st.readFrom, st.readN = psn, st.window+1
			st.readKey, st.readVA, st.readLen = r.RKey(), r.VA(), n
		}
	}
}
