package ib

import (
	"net/netip"
	"sort"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
)

// Per-flow counters (a flow: source and destination address and the
// destination QP), for `rdx read -z infiniband,flows`: what a RoCE fabric
// engineer looks at first — PSN gaps and retransmissions, NAKs and RNR NAKs,
// ECN marks (FECN, BECN) and congestion notifications (CNP), and how many
// PSNs each ACK covered (ACK coalescing).
type flowKey struct {
	src, dst netip.Addr
	qp       uint32
}

// eq is k == *o, field by field (see qpKey.eq).
func (k *flowKey) eq(o *flowKey) bool { return k.qp == o.qp && k.src == o.src && k.dst == o.dst }

type flowStat struct {
	transport             Transport
	pkts, payload         uint64
	gaps, dups            uint64
	acks, coalesced, naks uint64
	rnr, fecn, becn, cnps uint64
	ce                    uint64 // IP ECN congestion-experienced marks (RoCEv2)
	lastAck               uint32
	ackSeen               bool
	first, last           uint64
}

// flowTable indexes a slab of counters, reused after a rewind, so counting
// never allocates once the flows have been seen.
type flowTable struct {
	m    map[flowKey]int32
	slab []flowStat
	// recent caches the last few lookups: a conversation alternates between
	// a few flows (each direction of each QP), and hashing the 56-octet key
	// cost more than counting the packet.
	recent [4]recentFlow
	next   uint8
}

type recentFlow struct {
	k flowKey
	i int32 // index into slab, -1 none
}

// maxFlows bounds the table; beyond it new flows are not counted.
const maxFlows = 1 << 14

func (t *flowTable) get(k flowKey, frame uint64) *flowStat {
	if t.m == nil {
		t.m = map[flowKey]int32{}
		t.forget()
	}
	for j := range t.recent {
		if r := &t.recent[j]; r.i >= 0 && r.k.eq(&k) {
			return &t.slab[r.i]
		}
	}
	i, ok := t.m[k]
	if !ok {
		if len(t.m) >= maxFlows {
			return nil
		}
		i = int32(len(t.slab))
		t.slab = append(t.slab, flowStat{first: frame})
		t.m[k] = i
	}
	t.recent[t.next] = recentFlow{k, i}
	t.next = (t.next + 1) % uint8(len(t.recent))
	return &t.slab[i]
}

func (t *flowTable) forget() {
	for j := range t.recent {
		t.recent[j].i = -1
	}
}

func (t *flowTable) reset() {
	clear(t.m)
	t.slab = t.slab[:0]
	t.forget()
}

// count updates the packet's flow after its analysis.
func (d *State) count(f *dissect.Frame, p *Packet, h BTH, op *OpInfo) {
	src, dst := d.flowKey(f, p)
	if c := f.Conversations(); c != nil {
		// the source QP is in datagram packets only (DETH)
		sqp := uint32(flows.NoQP)
		if p.exts&ExtDETH != 0 {
			sqp = DETH(p.Header(ExtDETH)).SrcQP()
		}
		c.Between(flows.IB, flows.Endpoint{Addr: netip.AddrPortFrom(src, 0), QP: sqp},
			flows.Endpoint{Addr: netip.AddrPortFrom(dst, 0), QP: h.DestQP()}, 0, f.WireLen, f.TimeNS, f.Num)
	}
	s := d.flows.get(flowKey{src: src, dst: dst, qp: h.DestQP()}, f.Num)
	if s == nil {
		return
	}
	s.transport = h.Transport()
	s.pkts++
	s.payload += uint64(p.payLen)
	s.last = f.Num
	if p.psnDup {
		s.dups++
	} else if p.psnBroken {
		s.gaps++
	}
	if p.encap == EncRoCEv2 && f.Net.ECN == 3 {
		s.ce++
	}
	if h.FECN() {
		s.fecn++
	}
	if h.BECN() {
		s.becn++
	}
	if h.Opcode() == OpCNP {
		s.cnps++
	}
	if p.exts&ExtAETH != 0 {
		switch AETH(p.Header(ExtAETH)).Kind() {
		case AckKindACK:
			s.acks++
			psn := h.PSN()
			if s.ackSeen && (psn-s.lastAck)&PSNMask > 1 && (psn-s.lastAck)&PSNMask < 1<<23 {
				s.coalesced++
			}
			s.lastAck, s.ackSeen = psn, true
		case AckKindNAK:
			s.naks++
		case AckKindRNRNAK:
			s.rnr++
		}
	}
}

// Stats implements flows.Provider: -z infiniband,flows.
func (d *State) Stats() []flows.Stat {
	return []flows.Stat{{Name: "infiniband,flows", Table: d.flowsTable}}
}

func (d *State) flowsTable() *flows.Table {
	t := &flows.Table{Title: "InfiniBand flows (source -> destination, destination QP)",
		Header: []string{"Flow", "QP", "Transport", "Packets", "Payload", "PSN gaps", "Dup PSNs", "ACKs", "Coalesced ACKs",
			"NAKs", "RNR NAKs", "ECN CE", "FECN", "BECN", "CNPs", "Frames"}}
	keys := make([]flowKey, 0, len(d.flows.m))
	for k := range d.flows.m {
		keys = append(keys, k)
	}
	at := func(k flowKey) *flowStat { return &d.flows.slab[d.flows.m[k]] }
	sort.Slice(keys, func(i, j int) bool { return at(keys[i]).first < at(keys[j]).first })
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, k := range keys {
		s := at(k)
		t.Rows = append(t.Rows, []string{k.src.Unmap().String() + " → " + k.dst.Unmap().String(), "0x" + hex32(k.qp)[2:],
			s.transport.String(), u(s.pkts), u(s.payload), u(s.gaps), u(s.dups), u(s.acks), u(s.coalesced),
			u(s.naks), u(s.rnr), u(s.ce), u(s.fecn), u(s.becn), u(s.cnps), u(s.first) + "-" + u(s.last)})
	}
	return t
}
