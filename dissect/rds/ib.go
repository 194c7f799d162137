package rds

import (
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/frag"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// RDS over InfiniBand / RoCE (Linux rds_rdma, protocol 3.1): every RDS
// fragment is one IB SEND message, [48-octet header][0..4096 data]; a message
// longer than 4096 octets goes as ⌈h_len/4096⌉ fragments, each with a copy of
// the header (h_len is the whole message length in every one). The ib
// dissector assembles the SENDs per QP in PSN order and offers them here.

// FragSize is Linux RDS_FRAG_SIZE: the data octets of every fragment but the
// last.
const FragSize = 4096

// RDMA CM ports RDS listens on (the CM REQ service ID is 0x01060000|port).
const (
	CMPort    = 16385 // RDS_CM_PORT (Linux with IPv6 support)
	CMPortOld = 18634 // historical RDS_PORT
)

// maxIBQPs bounds the RDS/IB connections (QP and direction) tracked; beyond
// it the least recently active is forgotten, with a finding. They are also
// charged to the engine's memory budget as "rds".
const maxIBQPs = 1 << 12

// ibQPCost is the budget estimate of a tracked QP besides its frame lists.
const ibQPCost = 320

func init() {
	dissect.AddHeuristic(ib.DestQP.Name(), "rds", ibMessage)
	dissect.AddHandler(ib.DestQP.Name(), "rds", nil, ibMessage)
}

func ibMessage(d dissect.Dissector, f *dissect.Frame, m *ib.Message) bool {
	// Every message to a QP comes here before RPC-over-RDMA's heuristic:
	// what IBMessage would decline at its first look at the header is
	// declined without its calls (~27 instructions a message).
	if am := m.Msg; am.Kind != ibasm.KindSend || !ibHeaderMaybe(am.Data) {
		return false
	}
	return d.(*State).IBMessage(f, m.Packet, m.Msg)
}

var (
	fIBQP       = dissect.Register(&dissect.Field{Abbrev: "rds.ib.qp", Name: "Destination QP", Type: dissect.TUint24, Base: dissect.BaseHex, Desc: "RC QP the RDS/IB fragments were sent to"})
	fIBFrag     = dissect.Register(&dissect.Field{Abbrev: "rds.ib.fragment", Name: "Fragment", Type: dissect.TUint32, Desc: "fragment number in its message (1 = first)"})
	fIBFragCnt  = dissect.Register(&dissect.Field{Abbrev: "rds.ib.fragment_count", Name: "Fragments", Type: dissect.TUint32, Desc: "fragments the message came in: ⌈h_len/4096⌉, at least 1"})
	fIBFragLen  = dissect.Register(&dissect.Field{Abbrev: "rds.ib.fragment_len", Name: "Fragment data length", Type: dissect.TUint32, Desc: "data octets after the header in this SEND (4096 except in the last fragment)"})
	fIBFragSeg  = dissect.Register(&dissect.Field{Abbrev: "rds.ib.fragment_of", Name: "Fragment of message with sequence", Type: dissect.TUint64, Desc: "a fragment whose message completes in a later frame"})
	fIBFragFrm  = dissect.Register(&dissect.Field{Abbrev: "rds.ib.fragment_frame", Name: "Fragment in frame", Type: dissect.TFrameNum, Desc: "frame completing each fragment (IB SEND) of the message"})
	checkIBFrag = dissect.RegisterCheck("rds.ib.fragment_header", "rds", "RDS/IB: every fragment of a message repeats the first fragment's h_sequence, h_len, h_sport and h_dport, and carries 4096 data octets except the last")
	checkIBSeq  = dissect.RegisterCheck("rds.ib.seq", "rds", "RDS/IB sequence numbers per QP and direction increase by one per message")
)

type ibKey struct {
	src, dst netip.Addr
	qp       uint32
}

// ibQP is one direction of an RDS/IB connection (SENDs to one QP).
type ibQP struct {
	known bool // a header that verifies was seen: RDS traffic

	open   bool // a message has fragments still to come
	hdr    [HeaderLen]byte
	asm    frag.Assembly // the open message's fragments: data octets, and the frame completing each
	frames []uint64      // every frame of every fragment
	cong   []uint16
	congN  int

	seqTrack // the messages sent to this QP, and acks of the other direction's

	key ibKey
	lru budget.Elem[ibQP] // stamped at its last fragment
}

// msgPolicy assembles an RDS/IB message: fragments come in order (the ib
// layer orders SENDs by PSN) and only their octets are counted, up to h_len.
var msgPolicy = frag.Config{MaxPieces: 1, MaxFrames: maxMsgFrames}

type ibState struct {
	qps   map[ibKey]*ibQP
	lastK ibKey
	last  *ibQP
	// dirs is the QP each direction (source, destination) last sent a
	// sequenced message to: an ack from B to A covers what A sent B, on a
	// QP of B's whose number A's messages do not say. At most one entry
	// per tracked QP: a QP forgotten leaves it.
	dirs map[[2]netip.Addr]*ibQP
	free []*ibQP // kept over Rewind so their slices are reused
	pool dissect.Pool[IBMsg]
	lru  budget.LRU[ibQP] // the tracked QPs, least recently active first

	registered bool // lru charges the engine's budget
}

// qp finds or starts the state of k; starting one when maxIBQPs are
// tracked forgets the least recently active (a finding on f).
func (s *ibState) qp(f *dissect.Frame, k ibKey) *ibQP {
	if s.last != nil && s.lastK == k {
		return s.last
	}
	if s.qps == nil {
		s.qps = map[ibKey]*ibQP{}
	}
	q := s.qps[k]
	if q == nil {
		if len(s.qps) >= maxIBQPs {
			what := s.dropOldest()
			f.AddFinding(-1, dissect.Warn, dissect.GroupReassembly, fIBQP, findingsProto, "more than "+
				strconv.Itoa(maxIBQPs)+" RDS/IB connections tracked: forgot "+what)
		}
		if n := len(s.free); n > 0 {
			q = s.free[n-1]
			s.free = s.free[:n-1]
			clear(q.ring) // kept, emptied: a lookup must not find the old connection's
			*q = ibQP{frames: q.frames[:0], asm: q.asm, cong: q.cong[:0], seqTrack: seqTrack{ring: q.ring}}
		} else {
			q = &ibQP{}
		}
		q.key = k
		q.asm.Reset(&msgPolicy)
		s.lru.Touch(&q.lru, q)
		s.qps[k] = q
	}
	s.lastK, s.last = k, q
	return q
}

// touch makes q the most recently active QP and charges what it holds.
func (s *ibState) touch(q *ibQP) {
	s.lru.Touch(&q.lru, q)
	s.lru.Charge(&q.lru, int64(ibQPCost+8*cap(q.frames)+q.asm.Bytes()+2*cap(q.cong)+24*cap(q.ring)))
}

// dropOldest forgets the least recently active QP and says which.
func (s *ibState) dropOldest() string {
	q := s.lru.Back()
	if q == nil {
		return "nothing"
	}
	s.lru.Remove(&q.lru)
	delete(s.qps, q.key)
	if s.last == q {
		s.last = nil
	}
	if d := [2]netip.Addr{q.key.src, q.key.dst}; s.dirs[d] == q {
		delete(s.dirs, d)
	}
	what := "RDS/IB QP 0x" + strconv.FormatUint(uint64(q.key.qp), 16) + " " + q.key.src.String() + " → " + q.key.dst.String()
	if q.open {
		what += " (message seq " + strconv.FormatUint(Header(q.hdr[:]).Seq(), 10) + " in progress, " + strconv.Itoa(q.asm.N()) + " fragments)"
	}
	if len(s.free) < 64 {
		s.free = append(s.free, q)
	}
	return what
}

// Oldest implements budget.Table.
func (s *ibState) Oldest() (uint64, bool) { return s.lru.Oldest() }

// DropOldest implements budget.Table.
func (s *ibState) DropOldest() string { return s.dropOldest() }

func (s *ibState) rewind() {
	for _, q := range s.qps {
		if len(s.free) < 64 {
			s.free = append(s.free, q)
		}
	}
	clear(s.qps)
	clear(s.dirs)
	s.lru.Reset()
	s.last = nil
	s.pool.Reset()
	s.lru.Account().Reset()
}

// IBMsg is an RDS message (or a fragment of one) carried in IB SENDs.
type IBMsg struct {
	d         *State
	hdr       [HeaderLen]byte
	kind      uint8
	idx       int
	off       int // frame offset of the header, -1 when assembled from several packets
	qp        uint32
	frag      int  // fragment number (1-based)
	fragLen   int  // data octets in this fragment
	final     bool // completes the message
	frames    []uint64
	fragFrame []uint64
	cong      []uint16
	congN     int
	csum      uint8

	pingFrame uint64 // a pong's ping
	pingRTT   int64
	pongFrame uint64 // a ping's pong (second pass)

	ackFrame   uint64 // the message of the other direction h_ack acknowledged
	ackLatency int64
}

// Proto implements dissect.PDU.
func (m *IBMsg) Proto() *dissect.ProtoInfo { return PRDS }

// Header returns the fragment's header.
func (m *IBMsg) Header() Header { return Header(m.hdr[:]) }

// Final reports whether the fragment completes its message.
func (m *IBMsg) Final() bool { return m.final }

// Fragment returns the fragment number (1-based) and its data length.
func (m *IBMsg) Fragment() (n, dataLen int) { return m.frag, m.fragLen }

// Frames lists the frames of the whole message (final fragment only).
func (m *IBMsg) Frames() []uint64 { return m.frames }

func (d *State) newIBMsg(f *dissect.Frame) *IBMsg {
	s := &d.ibs
	m, _ := s.pool.Get(f)
	*m = IBMsg{d: d, frames: m.frames[:0], fragFrame: m.fragFrame[:0], cong: m.cong[:0], off: -1, csum: dissect.StatusUnverified}
	return m
}

// fragmentShape reports whether a fragment with dataLen data octets fits a
// message of hLen octets: 4096 octets of a longer message, or the last part.
func fragmentShape(hLen uint32, dataLen int) bool {
	switch {
	case dataLen > FragSize || uint64(dataLen) > uint64(hLen):
		return false
	case dataLen == FragSize:
		return true
	case dataLen == 0:
		return hLen == 0
	}
	return (uint64(hLen)-uint64(dataLen))%FragSize == 0
}

// IBHeuristic reports whether b, the payload of one IB SEND, is an RDS/IB
// (3.1) fragment: a 48-octet header with a non-zero checksum that verifies
// (every RDS/IB sender computes it), zero padding, known flags and
// extensions, a possible length, ports that fit the message kind, and a data
// length that fits a fragment of h_len.
func IBHeuristic(b []byte) bool {
	return ibShape(b) && Header(b[:HeaderLen]).Csum() != 0 && Header(b[:HeaderLen]).ChecksumOK()
}

// ibShape is IBHeuristic without the checksum.
func ibShape(b []byte) bool {
	return ibHeaderShape(b) && fragmentShape(Header(b[:HeaderLen]).Len(), len(b)-HeaderLen)
}

// ibHeaderMaybe is the first part of ibHeaderShape, small enough to
// inline: fields shapeProblems would flag anyway, tested without its
// extension walk. Most SENDs offered here are RPC-over-RDMA's, whose octets
// 24..29 are never RDS flags and padding.
func ibHeaderMaybe(b []byte) bool {
	if len(b) < HeaderLen {
		return false
	}
	h := Header(b[:HeaderLen])
	return h.Flags()&^flagsKnown == 0 && h.Pad() == 0 && h.Len() <= MaxMsgLen
}

// ibHeaderShape is ibShape without the fragment length rule.
func ibHeaderShape(b []byte) bool {
	if !ibHeaderMaybe(b) {
		return false
	}
	h := Header(b[:HeaderLen])
	if h.shapeProblems()&(ProbPad|ProbFlags|ProbLen|ProbCongLen|ProbPortsZero|ProbExtOverrun) != 0 {
		return false
	}
	if h.IsAckOnly() && (h.Flags() != 0 || h.Seq() != 0) {
		return false
	}
	return !h.IsCong() || h.Sport() == 0 && h.Dport() == 0
}

// continues reports whether b repeats the header of q's open message.
func (q *ibQP) continues(b []byte) bool {
	h, first := Header(b[:HeaderLen]), Header(q.hdr[:])
	return q.open && first.Seq() == h.Seq() && first.Len() == h.Len() && first.Sport() == h.Sport() && first.Dport() == h.Dport()
}

// IBMessage reads an assembled InfiniBand message (infiniband.destqp). It
// is small enough to inline into the table's handler, so the READ pieces
// and messages offered to every heuristic are declined without a call.
func (d *State) IBMessage(f *dissect.Frame, p *ib.Packet, m *ibasm.Message) bool {
	if m.Kind != ibasm.KindSend || m.QP <= 1 {
		return false
	}
	return d.ibSend(f, p, m)
}

// ibSend is IBMessage for a SEND to a QP other than 0 and 1.
func (d *State) ibSend(f *dissect.Frame, p *ib.Packet, m *ibasm.Message) bool {
	if m.Truncated() || len(m.Data) < HeaderLen || !ibHeaderShape(m.Data) {
		return false // not an RDS header: no need to look the QP up (every other protocol's SEND comes here first)
	}
	k := ibKey{src: m.Src, dst: m.Dst, qp: m.QP}
	var q *ibQP
	if d.ibs.last != nil && d.ibs.lastK == k {
		q = d.ibs.last
	} else if d.ibs.qps != nil {
		q = d.ibs.qps[k]
	}
	if !ibShape(m.Data) && (q == nil || !q.continues(m.Data)) {
		return false // a wrong-length fragment is still taken when it continues a message
	}
	hv := Header(m.Data[:HeaderLen])
	csumOK := hv.Csum() != 0 && hv.ChecksumOK()
	if !csumOK && (q == nil || !q.known) {
		return false // an unknown QP needs a verified header
	}
	if !d.ibs.registered && d.e != nil {
		d.ibs.registered = true
		d.ibs.lru.Init(d.e.Budget().Register("rds", &d.ibs))
	}
	if q == nil {
		q = d.ibs.qp(f, k)
	} else {
		d.ibs.lastK, d.ibs.last = k, q
	}
	q.known = true
	d.ibFragment(f, p, m, q, hv, csumOK)
	d.ibs.touch(q)
	return true
}

func (d *State) ibFragment(f *dissect.Frame, p *ib.Packet, am *ibasm.Message, q *ibQP, hv Header, csumOK bool) {
	data := am.Data[HeaderLen:]
	m := d.newIBMsg(f)
	copy(m.hdr[:], hv)
	m.qp = am.QP
	m.fragLen = len(data)
	m.kind = kindOf(hv)
	if len(am.Frames) == 1 && am.Frames[0] == f.Num {
		m.off = p.PayloadOffset()
	}
	m.idx = f.AddPDU(m)
	idx := m.idx
	m.csum = csumStatus(f, idx, hv, csumOK, ": Linux drops the fragment")
	if m.csum == dissect.StatusUnverified {
		f.AddFinding(idx, dissect.Warn, dissect.GroupChecksum, fCsum, findingsProto, "RDS/IB header without a checksum (Linux rds_rdma always computes one)")
	}
	f.Checked(checkHeader, idx, true) // ibShape passed

	if hv.IsAckOnly() {
		// ACK-only messages may come between the fragments of a message.
		m.frag, m.final = 1, true
		m.frames = append(m.frames, am.Frames...)
		m.fragFrame = append(m.fragFrame, f.Num)
		d.stats.count(overIB, m.kind, hv.Len(), false, false)
		d.ibAck(f, q, m, hv)
		return
	}
	first := Header(q.hdr[:])
	if q.open {
		if q.continues(hv) {
			nfrag := q.asm.N() + 1
			ok := true
			if rest := uint64(hv.Len()) - uint64(q.asm.Next()); uint64(len(data)) != min(rest, FragSize) {
				ok = false
				f.AddFinding(idx, dissect.Error, dissect.GroupMalformed, fIBFragLen, findingsProto,
					"RDS/IB fragment "+strconv.Itoa(nfrag)+" carries "+strconv.Itoa(len(data))+" data octets; "+
						strconv.FormatUint(min(rest, FragSize), 10)+" expected ("+strconv.FormatUint(rest, 10)+" of h_len "+
						strconv.FormatUint(uint64(hv.Len()), 10)+" left)")
			}
			f.Checked(checkIBFrag, idx, ok)
			if !ok {
				d.ibClose(q)
				m.frag = nfrag
				return
			}
			d.ibAdd(q, hv, data, am.Frames, f.Num)
			m.frag = nfrag
			if q.asm.Complete() {
				d.ibFinish(f, q, m)
			}
			return
		}
		var b []byte
		b = append(b, "RDS/IB fragment header mismatch: after fragment "...)
		b = strconv.AppendInt(b, int64(q.asm.N()), 10)
		b = appendSeqLenPorts(append(b, " of seq "...), first)
		b = append(b, ", "...)
		b = strconv.AppendUint(b, uint64(first.Len())-uint64(q.asm.Next()), 10)
		b = appendSeqLenPorts(append(b, " octets missing) comes seq "...), hv)
		b = append(b, "): Linux forces a reconnect"...)
		f.AddFinding(idx, dissect.Error, dissect.GroupReassembly, fIBFrag, findingsProto, string(b))
		f.Checked(checkIBFrag, idx, false)
		d.ibClose(q)
	}
	if hv.Len() > FragSize && len(data) != FragSize {
		// The end of a message whose first fragments were not captured.
		m.frag = 0
		f.AddFinding(idx, dissect.Warn, dissect.GroupReassembly, fIBFrag, findingsProto,
			"last fragment of RDS/IB message seq "+strconv.FormatUint(hv.Seq(), 10)+" whose earlier fragments were not captured")
		return
	}
	copy(q.hdr[:], hv)
	q.open = true
	q.asm.Reset(&msgPolicy)
	q.asm.SetEnd(int64(hv.Len()))
	q.frames, q.cong, q.congN = q.frames[:0], q.cong[:0], 0
	d.ibAdd(q, hv, data, am.Frames, f.Num)
	m.frag = 1
	if q.asm.Complete() {
		d.ibFinish(f, q, m)
	}
}

func (d *State) ibAdd(q *ibQP, hv Header, data []byte, frames []uint64, num uint64) {
	if hv.IsCong() {
		q.cong, q.congN = congBits(q.cong, q.congN, data, uint64(q.asm.Next()))
	}
	q.asm.Pass(q.asm.Next()+int64(len(data)), num)
	for _, n := range frames {
		if len(q.frames) < maxMsgFrames {
			q.frames = append(q.frames, n)
		}
	}
	q.asm.NoteFrame(num)
}

func (d *State) ibClose(q *ibQP) { q.open = false }

// ibFinish makes m the message's final PDU and checks its sequence number.
func (d *State) ibFinish(f *dissect.Frame, q *ibQP, m *IBMsg) {
	q.open = false
	m.final = true
	m.frames = append(m.frames, q.frames...)
	m.fragFrame = append(m.fragFrame, q.asm.Frames()...)
	m.cong = append(m.cong, q.cong...)
	m.congN = q.congN
	hv := m.Header()
	d.stats.count(overIB, m.kind, hv.Len(), hv.Flags()&FlagRetrans != 0, false)
	if f.Num != 0 {
		m.pingFrame, m.pingRTT, m.pongFrame = d.pingPong(f, overIB, m.kind, q.key.src, q.key.dst, hv)
	}
	d.ibAck(f, q, m, hv)
	if m.kind == KindCong || m.kind == KindAckOnly || hv.Seq() == 0 {
		return
	}
	if q.haveSeq {
		ok := hv.Seq() == q.lastSeq+1
		if !ok {
			f.AddFinding(m.idx, dissect.Warn, dissect.GroupSequence, fSeq, findingsProto,
				"RDS/IB sequence "+strconv.FormatUint(hv.Seq(), 10)+" after "+strconv.FormatUint(q.lastSeq, 10)+" on this QP")
		}
		f.Checked(checkIBSeq, m.idx, ok)
	}
	q.haveSeq, q.lastSeq = true, hv.Seq()
	q.record(sent{seq: hv.Seq(), frame: f.Num, time: f.TimeNS})
	if d.ibs.dirs == nil {
		d.ibs.dirs = map[[2]netip.Addr]*ibQP{}
	}
	d.ibs.dirs[[2]netip.Addr{q.key.src, q.key.dst}] = q
}

// ibAck takes the h_ack of m, sent on q, covering the other direction's
// messages (on the QP that direction last sent to), as over TCP. Linux
// rds_rdma piggy-backs the sequence number of the last message received.
func (d *State) ibAck(f *dissect.Frame, q *ibQP, m *IBMsg, hv Header) {
	ack := hv.Ack()
	if ack == 0 || f.Num == 0 {
		return
	}
	m.ackFrame, m.ackLatency = q.acks(f, m.idx, ack, d.ibs.peer(q))
}

// peer is the state of the direction opposite q's, nil when not seen.
func (s *ibState) peer(q *ibQP) *seqTrack {
	if o := s.dirs[[2]netip.Addr{q.key.dst, q.key.src}]; o != nil {
		return &o.seqTrack
	}
	return nil
}

// congBits decodes congestion-map octets at payload offset pos (see
// half.congBits).
func congBits(cong []uint16, n int, b []byte, pos uint64) ([]uint16, int) {
	for k, v := range b {
		if v == 0 {
			continue
		}
		for bit := 0; bit < 8; bit++ {
			if v&(1<<bit) != 0 {
				n++
				if len(cong) < maxCongPorts {
					cong = append(cong, uint16((pos+uint64(k))*8+uint64(bit)))
				}
			}
		}
	}
	return cong, n
}

// Summary implements dissect.PDU: "DATA 4001→4000 seq=5 ack=4 len=5000
// flags=0x2 [2 fragments]" or, for a fragment completed by a later one,
// "[RDS fragment 1/2 seq=5 4096/5000]".
func (m *IBMsg) Summary(dst []byte) []byte {
	hv := m.Header()
	if !m.final {
		dst = append(dst, "[RDS fragment "...)
		if m.frag > 0 {
			dst = strconv.AppendInt(dst, int64(m.frag), 10)
		} else {
			dst = append(dst, '?')
		}
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(nfrags(hv.Len())), 10)
		dst = append(dst, " seq="...)
		dst = strconv.AppendUint(dst, hv.Seq(), 10)
		dst = append(dst, " len="...)
		dst = strconv.AppendUint(dst, uint64(hv.Len()), 10)
		return append(dst, ']')
	}
	dst = appendHeaderSummary(dst, hv, m.kind, m.congN)
	if n := len(m.fragFrame); n > 1 {
		dst = append(dst, " ["...)
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, " fragments]"...)
	}
	return dst
}

func nfrags(l uint32) int {
	if l == 0 {
		return 1
	}
	return int((uint64(l) + FragSize - 1) / FragSize)
}

// Tree implements dissect.PDU. Every fragment shows its own header; the
// message's fields (rds.msg_type, rds.frames, ...) are on the final one.
func (m *IBMsg) Tree(t *dissect.Tree, f *dissect.Frame) {
	hv := m.Header()
	o := m.off
	if o < 0 {
		t.SetBase(0, true)
		o = 0
	}
	var lb [96]byte
	label := ""
	if t.Labels() {
		label = string(m.Summary(lb[:0]))
	}
	t.Proto(PRDS, o, HeaderLen+m.fragLen, label)
	if !m.final {
		t.Uint(fSegment, -1, 0, 1)
		t.Uint(fIBFragSeg, o+offSeq, 8, hv.Seq())
		t.Uint(fIBQP, -1, 0, uint64(m.qp))
		if m.frag > 0 {
			t.Uint(fIBFrag, -1, 0, uint64(m.frag))
		}
		t.Uint(fIBFragLen, o+HeaderLen, m.fragLen, uint64(m.fragLen))
		f.TreeFindings(t, m.idx)
		return
	}
	headerTree(t, hv, o, m.csum)
	t.Uint(fKind, -1, 0, uint64(m.kind))
	t.Uint(fIBQP, -1, 0, uint64(m.qp))
	t.Uint(fIBFrag, -1, 0, uint64(m.frag))
	t.Uint(fIBFragLen, o+HeaderLen, m.fragLen, uint64(m.fragLen))
	t.Uint(fIBFragCnt, -1, 0, uint64(len(m.fragFrame)))
	t.Open()
	for _, n := range m.fragFrame {
		t.Uint(fIBFragFrm, -1, 0, n)
	}
	t.Close()
	var fb [256]byte
	frames := ""
	if t.Wants(fFrames) {
		frames = string(dissect.AppendFrameList(fb[:0], m.frames, len(m.frames), 16))
	}
	t.String(fFrames, -1, 0, frames)
	t.Open()
	for _, n := range m.frames {
		t.Uint(fFrame, -1, 0, n)
	}
	t.Close()
	t.Uint(fFrameCnt, -1, 0, uint64(len(m.frames)))
	if m.kind == KindCong {
		t.Uint(fCongCount, -1, 0, uint64(m.congN))
		t.Open()
		for _, p := range m.cong {
			t.Uint(fCongPort, -1, 0, uint64(p))
		}
		t.Close()
	}
	ackTree(t, m.ackFrame, m.ackLatency)
	pingTree(t, m.pingFrame, m.pingRTT, m.pongFrame)
	f.TreeFindings(t, m.idx)
}

// appendSeqLenPorts appends "SEQ (len LEN, ports SPORT→DPORT", leaving the
// parenthesis open for the caller's remark.
func appendSeqLenPorts(b []byte, h Header) []byte {
	b = strconv.AppendUint(b, h.Seq(), 10)
	b = append(b, " (len "...)
	b = strconv.AppendUint(b, uint64(h.Len()), 10)
	b = append(b, ", ports "...)
	b = strconv.AppendUint(b, uint64(h.Sport()), 10)
	b = append(b, "→"...)
	return strconv.AppendUint(b, uint64(h.Dport()), 10)
}
