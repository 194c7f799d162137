package ib

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// maxICRCFlows bounds the flows (addresses, destination QP, size) whose bad
// ICRCs are compared. Beyond it a new flow's bad ICRCs are reported one by
// one, as if seen alone; nothing is evicted.
const maxICRCFlows = 256

// The ICRC is a CRC, linear over GF(2): two packets of one size whose
// covered octets differ by the same bits have CRCs differing by the same
// value. So when every packet of a flow carries an ICRC that differs from
// the computed one by one constant, the same covered octets changed in
// each (the IP addresses or GIDs rewritten after the ICRC was computed, by
// anonymization or NAT), which random corruption does not do.
type icrcKey struct {
	addrs [32]byte // source and destination address (IP, GID or LID)
	qp    uint32   // destination QP
	n     int      // octets the ICRC covers
}

type icrcSeen struct {
	diff  uint32 // on the wire XOR computed
	frame uint64 // first bad ICRC with this difference
}

// icrcTable remembers the first bad ICRC of each flow; learned survives
// Rewind, so that in a second pass the first packet is explained too.
type icrcTable struct {
	seen    map[icrcKey]icrcSeen
	learned map[icrcKey]icrcSeen // flows seen twice with one difference, with the second frame
}

func (t *icrcTable) reset() { clear(t.seen) }

// icrcFlowKey builds the key of p: addresses from the IP header (RoCEv2,
// ip), else from the GRH, else the LIDs of the LRH.
func icrcFlowKey(p *Packet, ip []byte, n int) icrcKey {
	k := icrcKey{n: n}
	switch {
	case len(ip) >= 20 && ip[0]>>4 == 4:
		copy(k.addrs[:], ip[12:20])
	case len(ip) >= 40 && ip[0]>>4 == 6:
		copy(k.addrs[:], ip[8:40])
	case p.grh >= 0 && p.grh+GRHLen <= len(p.data):
		copy(k.addrs[:], p.data[p.grh+8:p.grh+GRHLen])
	case p.lrh >= 0 && p.lrh+LRHLen <= len(p.data):
		copy(k.addrs[:], p.data[p.lrh+2:p.lrh+8])
	}
	if p.bth >= 0 && p.bth+BTHLen <= len(p.data) {
		k.qp = BTH(p.data[p.bth:]).DestQP()
	}
	return k
}

// badICRC reports a bad ICRC, explaining it when the flow's previous bad
// ICRC (or, in a second pass, the first pass) differed by the same value.
func (d *State) badICRC(f *dissect.Frame, p *Packet, ip []byte) {
	t := &d.icrc
	if t.seen == nil {
		t.seen, t.learned = map[icrcKey]icrcSeen{}, map[icrcKey]icrcSeen{}
	}
	diff := p.icrcWire ^ p.icrcCalc
	msg := "bad ICRC: computed 0x" + hex32(p.icrcCalc) + ", on the wire 0x" + hex32(p.icrcWire) + " (octets in wire order)"
	k := icrcFlowKey(p, ip, p.icrcOff)
	prev, ok := t.seen[k]
	if !ok {
		if len(t.seen) < maxICRCFlows {
			t.seen[k] = icrcSeen{diff, f.Num}
		}
		prev, ok = t.learned[k]
	}
	if !ok || prev.diff != diff || prev.frame == f.Num {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupChecksum, fICRC, "infiniband", msg)
		return
	}
	if _, ok := t.learned[k]; !ok {
		if len(t.learned) >= maxICRCFlows {
			clear(t.learned) // only explains first packets in a second pass
		}
		t.learned[k] = icrcSeen{diff, f.Num} // the first packet will name this one
	}
	f.AddFinding(p.idx, dissect.Note, dissect.GroupChecksum, fICRC, "infiniband", msg+
		": differs by 0x"+hex32(diff)+" as in frame "+strconv.FormatUint(prev.frame, 10)+
		" of the same addresses, QP and size; likely rewritten addresses (anonymized or NATed after the ICRC was computed), not corruption")
}
