package ib

import (
	"strconv"
	"sync"

	"github.com/rdx-project/rdx/dissect"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// Upper is implemented by dissectors that read assembled InfiniBand messages
// (RPC-over-RDMA, RDS). The ib dissector assembles SEND, RDMA WRITE and RDMA
// READ response messages per QP (reassembly/ib) and offers each completed one
// to every upper layer, in the frame whose packet completes it.
type Upper interface {
	// IBMessage gets message m, completed by packet p of frame f. m is valid
	// only during the call. It reports whether it decoded the message.
	IBMessage(f *dissect.Frame, p *Packet, m *ibasm.Message) bool
}

// ForcedUpper is implemented by upper layers that can decode a message the
// user named with decode-as (-d infiniband.destqp==N,PROTO) without their
// heuristic; a message that does not parse then becomes a finding.
type ForcedUpper interface {
	IBMessageForced(f *dissect.Frame, p *Packet, m *ibasm.Message)
}

var (
	uppersMu sync.Mutex
	uppers   []string
)

// RegisterUpper names a registered dissector (see dissect.RegisterDissector)
// that implements Upper. Call it at init; engines look the instance up by name.
func RegisterUpper(name string) {
	uppersMu.Lock()
	uppers = append(uppers, name)
	uppersMu.Unlock()
}

// upperState is the ib dissector's link to the upper layers of one engine.
type upperState struct {
	eng      *dissect.Engine
	resolved bool
	ups      []Upper
	forced   map[uint32]Upper // by destination QP, from decode-as
	asm      *ibasm.Assembler
	pkt      ibasm.Packet
}

func (u *upperState) resolve() {
	u.resolved = true
	if u.eng == nil {
		return
	}
	uppersMu.Lock()
	names := append([]string(nil), uppers...)
	uppersMu.Unlock()
	for _, n := range names {
		if up, ok := u.eng.Instance(n).(Upper); ok {
			u.ups = append(u.ups, up)
		}
	}
	for _, da := range u.eng.Opts.DecodeAs {
		if da.Transport != "infiniband" {
			continue
		}
		if up, ok := u.eng.Instance(da.Proto).(Upper); ok {
			if u.forced == nil {
				u.forced = map[uint32]Upper{}
			}
			u.forced[da.QP] = up
		}
	}
	if len(u.ups) > 0 {
		u.asm = ibasm.New()
		u.asm.SetBudget(u.eng.Budget())
	}
}

// deliver feeds a decoded packet to message assembly and offers completed
// messages to the upper layers. Engines without upper layers skip assembly.
func (d *State) deliver(f *dissect.Frame, p *Packet, h BTH) {
	u := &d.up
	if !u.resolved {
		u.resolve()
	}
	if u.asm == nil || p.short {
		return
	}
	src, dst := d.flowKey(f, p)
	q := &u.pkt
	*q = ibasm.Packet{Src: src, Dst: dst, Opcode: h.Opcode(), DestQP: h.DestQP(), PSN: h.PSN(),
		Payload: p.Payload(), Frame: f.Num}
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
	ev0 := u.asm.Evictions
	m, ev := u.asm.Add(q)
	if u.asm.Evictions != ev0 {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupReassembly, fPSN, "infiniband", "InfiniBand table full: dropped "+u.asm.LastEviction.String())
	}
	if ev != ibasm.Complete {
		return
	}
	// A packet that fills a gap completes the held messages behind it too.
	for ; m != nil; m = u.asm.Next() {
		d.offer(f, p, m)
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
	if up, ok := u.forced[m.QP]; ok {
		if fu, ok := up.(ForcedUpper); ok {
			fu.IBMessageForced(f, p, m)
			return
		}
		if up.IBMessage(f, p, m) {
			return
		}
	}
	for _, up := range u.ups {
		if up.IBMessage(f, p, m) {
			return
		}
	}
}

// PayloadOffset is the frame offset of the packet's payload (-1 when the
// packet does not lie in the frame).
func (p *Packet) PayloadOffset() int {
	if p.off < 0 {
		return -1
	}
	return p.off + p.payOff
}
