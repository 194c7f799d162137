package dissect

import (
	"slices"

	"github.com/gopacket/gopacket"
)

// ChainMemoSlots chains are remembered by a ChainMemo: a capture mostly
// repeats a few (RoCE NFS alternates a request or reply with an ACK).
// When all are taken the oldest made gives way. A power of 2.
const ChainMemoSlots = 4

// ChainMemo is a caller's memory of the protocol chains ProtoChainMemo
// made for it and what ProtoChain made each from: comparing the layers
// and the PDUs' protocols costs a fraction of writing the chain again
// (export of 200k RoCE frames: 277 instructions a frame in ProtoChain).
// One memo per caller (goroutine); the zero value is ready.
type ChainMemo struct {
	slot [ChainMemoSlots]chainSlot
	last int // the slot of the last call, tried first
	next int // the slot the next new chain takes
}

type chainSlot struct {
	ok      bool
	link    uint16
	etherAt int
	reasm   bool
	types   []gopacket.LayerType
	ext6    []uint8
	protos  []*ProtoInfo
	chain   []byte
}

// ProtoChainMemo is ProtoChain(nil, f), in m's buffer (valid until slot
// is made again), the slot it is in, and whether it was made now (else
// an earlier call of the slot gave the same chain).
func (e *Engine) ProtoChainMemo(f *Frame, m *ChainMemo) (chain []byte, slot int, made bool) {
	for k := range ChainMemoSlots {
		i := (m.last + k) & (ChainMemoSlots - 1)
		if s := &m.slot[i]; s.ok && s.is(e, f) {
			m.last = i
			return s.chain, i, false
		}
	}
	i := m.next
	m.next, m.last = (i+1)&(ChainMemoSlots-1), i
	s := &m.slot[i]
	s.ok, s.link, s.etherAt, s.reasm = true, f.LinkType, f.etherAt, f.reasmUDP != nil
	s.types = append(s.types[:0], e.types...)
	s.ext6 = append(s.ext6[:0], e.ext6[:e.n6ext]...)
	s.protos = s.protos[:0]
	for _, p := range f.PDUs {
		s.protos = append(s.protos, p.Proto())
	}
	s.chain = e.ProtoChain(s.chain[:0], f)
	return s.chain, i, true
}

// is: f's chain is made of what s's was.
func (s *chainSlot) is(e *Engine, f *Frame) bool {
	if s.link != f.LinkType || s.etherAt != f.etherAt || s.reasm != (f.reasmUDP != nil) || len(s.protos) != len(f.PDUs) ||
		!slices.Equal(s.types, e.types) || !slices.Equal(s.ext6, e.ext6[:e.n6ext]) {
		return false
	}
	for i, p := range f.PDUs {
		if p.Proto() != s.protos[i] {
			return false
		}
	}
	return true
}
