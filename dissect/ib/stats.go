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
func (d *State) count(f *dissect.Frame, p *Packet, hb *[BTHLen]byte, op *OpInfo, e *addrPair) {
	h := BTH(hb[:])
	if c := f.Conversations(); c != nil {
		// the source QP is in datagram packets only (DETH)
		sqp := uint32(flows.NoQP)
		if p.exts&ExtDETH != 0 {
			sqp = DETH(p.Header(ExtDETH)).SrcQP()
		}
		c.Between(flows.IB, flows.Endpoint{Addr: netip.AddrPortFrom(e.src, 0), QP: sqp},
			flows.Endpoint{Addr: netip.AddrPortFrom(e.dst, 0), QP: h.DestQP()}, 0, f.WireLen, f.TimeNS, f.Num)
	}
	if !f.ProtoStats() {
		return // no -z infiniband,flows to print
	}
	s := d.flows.get(flowKey{src: e.src, dst: e.dst, qp: h.DestQP()}, f.Num)
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

// Stats implements flows.Provider: -z infiniband,flows and infiniband,srt.
func (d *State) Stats() []flows.Stat {
	return []flows.Stat{{Name: "infiniband,flows", Table: d.flowsTable}, {Name: "infiniband,srt", Table: d.srtTable}}
}

// srtTable is the RDMA READ response time, as -z rpc,srt is a call's.
func (d *State) srtTable() *flows.Table {
	return d.reads.Table("RDMA READ response time (READ Request to its last READ Response)")
}

func (d *State) flowsTable() *flows.Table {
	t := &flows.Table{Title: "InfiniBand flows (source -> destination, destination QP)",
		Header: []string{"Flow", "QP", "Transport", "Packets", "Payload", "PSN gaps", "Dup PSNs", "ACKs", "Coalesced ACKs",
			"NAKs", "RNR NAKs", "ECN CE", "FECN", "BECN", "CNPs", "Frames"}}
	keys := d.flowKeys()
	at := func(k flowKey) *flowStat { return &d.flows.slab[d.flows.m[k]] }
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, k := range keys {
		s := at(k)
		t.Rows = append(t.Rows, []string{k.src.Unmap().String() + " → " + k.dst.Unmap().String(), "0x" + hex32(k.qp)[2:],
			s.transport.String(), u(s.pkts), u(s.payload), u(s.gaps), u(s.dups), u(s.acks), u(s.coalesced),
			u(s.naks), u(s.rnr), u(s.ce), u(s.fecn), u(s.becn), u(s.cnps), u(s.first) + "-" + u(s.last)})
	}
	t.FrameCols = []int{len(t.Header) - 1}
	return t
}

// flowKeys are the flows in the table's order: first frame first.
func (d *State) flowKeys() []flowKey {
	keys := make([]flowKey, 0, len(d.flows.m))
	for k := range d.flows.m {
		keys = append(keys, k)
	}
	at := func(k flowKey) *flowStat { return &d.flows.slab[d.flows.m[k]] }
	sort.Slice(keys, func(i, j int) bool { return at(keys[i]).first < at(keys[j]).first })
	return keys
}

// TagFrames implements dissect.FrameTagger: the flows' first and last
// frames.
func (d *State) TagFrames(tag uint64) {
	for i := range d.flows.slab {
		d.flows.slab[i].first += tag
		d.flows.slab[i].last += tag
	}
}

// MergeStats implements dissect.StatsMerger: from's flows (another engine's
// packets) are added to d's.
func (d *State) MergeStats(from dissect.Dissector) []dissect.Finding {
	if o, ok := from.(*State); ok {
		d.flows.merge(&o.flows)
		d.reads.Merge(&o.reads)
	}
	return nil
}

// merge adds o's flows to t. A flow both counted adds up, its state (the
// last ACK) taken from the one that saw it last. Past maxFlows the flows
// met first stay, as in one table that saw every packet (later flows are
// not counted there). Linear in the two tables' sizes.
func (t *flowTable) merge(o *flowTable) {
	if len(o.m) == 0 {
		return
	}
	if t.m == nil {
		t.m = make(map[flowKey]int32, len(o.m))
		t.forget()
	}
	for k, j := range o.m {
		b := &o.slab[j]
		i, ok := t.m[k]
		if !ok {
			t.m[k] = int32(len(t.slab))
			t.slab = append(t.slab, *b)
			continue
		}
		a := &t.slab[i]
		if b.last > a.last {
			a.transport, a.lastAck, a.ackSeen, a.last = b.transport, b.lastAck, b.ackSeen, b.last
		}
		a.first = min(a.first, b.first)
		a.pkts += b.pkts
		a.payload += b.payload
		a.gaps += b.gaps
		a.dups += b.dups
		a.acks += b.acks
		a.coalesced += b.coalesced
		a.naks += b.naks
		a.rnr += b.rnr
		a.fecn += b.fecn
		a.becn += b.becn
		a.cnps += b.cnps
		a.ce += b.ce
	}
	if len(t.m) <= maxFlows {
		return
	}
	type kf struct {
		k     flowKey
		i     int32
		first uint64
	}
	all := make([]kf, 0, len(t.m))
	for k, i := range t.m {
		all = append(all, kf{k, i, t.slab[i].first})
	}
	flows.KeepFirst(all, maxFlows, func(a, b kf) bool { return a.first < b.first })
	slab := make([]flowStat, 0, maxFlows)
	clear(t.m)
	for _, x := range all[:maxFlows] {
		t.m[x.k] = int32(len(slab))
		slab = append(slab, t.slab[x.i])
	}
	t.slab = slab
	t.forget()
}
