package ib

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/budget"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// Message is the context of the infiniband.destqp table: a SEND, RDMA
// WRITE or RDMA READ response message the ib dissector assembled per QP
// (reassembly/ib), completed by Packet. Both are valid only during the call.
//
// RDMA READ responses are not stored: each response packet is offered as
// it is taken, with Piece set (Msg.Piece at Msg.PieceOff of the READ), so
// the protocol that asked for the data copies it once, straight to its
// place; the completed READ message then comes with Len and PlacedLen but
// no Data. Protocols that take only SENDs ignore both.
type Message struct {
	Packet *Packet
	Msg    *ibasm.Message
	Piece  bool // an open READ response's packet, not a completed message
}

// DestQP is the table of the protocols on top of InfiniBand (RPC-over-RDMA,
// RDS, the CM), keyed by destination QP: a protocol registers a heuristic
// (dissect.AddHeuristic) tried on every completed message, and a handler
// (dissect.AddHandler) that -d infiniband.destqp==QP,PROTO forces on a QP;
// a forced handler should decode without the heuristic's checks and turn
// what does not parse into findings. Each message is offered in the frame
// whose packet completes it.
var DestQP = dissect.NewHexDissectorTable[*Message]("infiniband.destqp", "InfiniBand destination QP (assembled messages)", 24)

// upperState is the ib dissector's link to the upper layers of one engine.
type upperState struct {
	resolved bool
	asm      *ibasm.Assembler
	pkt      ibasm.Packet
	msg      Message // the hand-off context, kept here so the call does not allocate
	budget   *budget.Budget
}

// deliver feeds a decoded packet to message assembly and offers completed
// messages to the upper layers. Engines without upper layers skip assembly.
func (d *State) deliver(f *dissect.Frame, p *Packet, hb *[BTHLen]byte, e *addrPair) {
	h := BTH(hb[:])
	u := &d.up
	if !u.resolved {
		u.resolved = true
		if DestQP.Has(f) { // engines without upper layers skip assembly
			u.asm = ibasm.New()
			u.asm.SetBudget(u.budget)
			u.asm.PlaceReads(true)
		}
	}
	if u.asm == nil || p.short || !u.asm.Wants(h.Opcode(), p.exts&ExtAETH != 0, p.exts&ExtRETH != 0) {
		return // nothing for assembly (most often an ACK): no Packet to build
	}
	q := &u.pkt
	p.asmPacket(q, hb, e, f.Num, f.TimeNS)
	ev0, rr0 := u.asm.Evictions, u.asm.ReadRequests
	m, ev := u.asm.Add(q)
	if u.asm.Evictions != ev0 {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupReassembly, fPSN, "infiniband", "InfiniBand table full: dropped "+u.asm.LastEviction.String())
	}
	if u.asm.ReadRequests != rr0 {
		d.reads.Requests++
	}
	if pm := u.asm.Placed(); pm != nil && len(pm.Piece) > 0 {
		u.msg = Message{Packet: p, Msg: pm, Piece: true}
		DestQP.Call(f, uint64(pm.QP), &u.msg)
	}
	if ev != ibasm.Complete {
		return
	}
	// A packet that fills a gap completes the held messages behind it too.
	for ; m != nil; m = u.asm.Next() {
		d.offer(f, p, m)
	}
}

// asmPacket fills q, what message assembly needs of p, field by field:
// a composite literal builds the Packet in a temporary and copies it.
func (p *Packet) asmPacket(q *ibasm.Packet, hb *[BTHLen]byte, e *addrPair, frame uint64, at int64) {
	h := BTH(hb[:])
	q.Src, q.Dst, q.Opcode, q.DestQP, q.PSN = e.src, e.dst, h.Opcode(), h.DestQP(), h.PSN()
	q.Payload, q.Frame, q.TimeNS = p.Payload(), frame, at
	q.Hash, q.HasHash, q.HashResp = e.hash, e.hashed, e.hashResp
	q.HasRETH, q.VA, q.RKey, q.DMALen = false, 0, 0, 0
	q.HasImm, q.Imm, q.HasInv, q.InvRKey, q.HasAETH, q.Syndrome = false, 0, false, 0, false, 0
	if p.exts&(ExtRETH|ExtImmDt|ExtIETH|ExtAETH) == 0 {
		return
	}
	if b := p.Header(ExtRETH); b != nil {
		r := RETH(b)
		q.HasRETH, q.VA, q.RKey, q.DMALen = true, r.VA(), r.RKey(), r.DMALen()
	}
	if b := p.Header(ExtImmDt); b != nil {
		q.HasImm, q.Imm = true, ImmDt(b).Value()
	}
	if b := p.Header(ExtIETH); b != nil {
		q.HasInv, q.InvRKey = true, IETH(b).RKey()
	}
	if b := p.Header(ExtAETH); b != nil {
		q.HasAETH, q.Syndrome = true, AETH(b).Syndrome()
	}
}

// offer hands a completed message to the upper layers.
func (d *State) offer(f *dissect.Frame, p *Packet, m *ibasm.Message) {
	u := &d.up
	if m.Reissued > 0 {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupSequence, fPSN, "infiniband", "RDMA READ of "+strconv.Itoa(m.Len)+
			" octets (request frame "+strconv.FormatUint(m.ReqFrame, 10)+") completed after "+strconv.Itoa(m.Reissued)+
			" re-issued request(s): responses were lost")
	}
	if m.Kind == ibasm.KindRead && f.ProtoStats() {
		d.reads.Answered(uint64(m.Len), f.TimeNS-m.ReqTime)
	}
	u.msg = Message{Packet: p, Msg: m}
	DestQP.Call(f, uint64(m.QP), &u.msg)
}

// PayloadOffset is the frame offset of the packet's payload (-1 when the
// packet does not lie in the frame).
func (p *Packet) PayloadOffset() int {
	if p.off < 0 {
		return -1
	}
	return p.off + p.payOff
}
