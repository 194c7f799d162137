package ib

import "net/netip"

// Flow is one flow's counters (-z infiniband,flows) as typed values, for
// rdx export's flows table.
type Flow struct {
	Src, Dst                       netip.Addr
	QP                             uint32 // destination QP
	Transport                      Transport
	Packets, Payload               uint64
	Gaps, Dups                     uint64 // PSN gaps, duplicate PSNs (retransmissions)
	ACKs, Coalesced, NAKs, RNRNAKs uint64
	CE, FECN, BECN, CNPs           uint64
	FirstFrame, LastFrame          uint64
}

// Flows calls fn for each flow, in the order -z infiniband,flows lists
// them (first frame first); fl is reused between calls.
func (d *State) Flows(fn func(fl *Flow)) {
	var fl Flow
	for _, k := range d.flowKeys() {
		s := &d.flows.slab[d.flows.m[k]]
		fl = Flow{Src: k.src.Unmap(), Dst: k.dst.Unmap(), QP: k.qp, Transport: s.transport, Packets: s.pkts,
			Payload: s.payload, Gaps: s.gaps, Dups: s.dups, ACKs: s.acks, Coalesced: s.coalesced, NAKs: s.naks,
			RNRNAKs: s.rnr, CE: s.ce, FECN: s.fecn, BECN: s.becn, CNPs: s.cnps, FirstFrame: s.first, LastFrame: s.last}
		fn(&fl)
	}
}
