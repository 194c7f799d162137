package rds

import (
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// analyze validates a complete message and tracks it on its path: header
// checks, checksum, sequence numbers, acks, ping/pong and generation numbers.
func (d *State) analyze(f *dissect.Frame, k tcp.FlowKey, dir tcp.Dir, h *half, m *Message) {
	hv := m.Header()
	m.kind = kindOf(hv)
	m.probs = hv.Check()
	idx := m.idx
	if f.Num == 0 {
		return // end-of-input flush: nothing is printed
	}
	if c := f.Conversations(); c != nil {
		src, dst := flows.Endpoint{Addr: k.A}, flows.Endpoint{Addr: k.B}
		if dir == 1 {
			src, dst = dst, src
		}
		c.Between(flows.RDS, src, dst, 0, HeaderLen+int(hv.Len()), f.TimeNS, f.Num)
	}
	// Checksum: 0 = not computed (Linux rds_tcp never computes it).
	m.csum = csumStatus(f, idx, hv, m.probs&ProbCsum == 0, "")
	if m.probs&^ProbCsum != 0 {
		d.headerFindings(f, m)
	}
	f.Checked(checkHeader, idx, m.probs&^(ProbCsum|ProbFlagsNew) == 0)
	if m.trunc {
		f.Checked(checkLen, idx, false)
	} else {
		f.Checked(checkLen, idx, m.missing == 0)
		if m.missing > 0 {
			f.AddFinding(idx, dissect.Warn, dissect.GroupReassembly, nil, findingsProto,
				strconv.FormatUint(m.missing, 10)+" payload octets of this message were never captured (TCP gap)")
		}
	}

	// Sequence numbers: congestion maps and ACK-only messages are unsequenced.
	seq := hv.Seq()
	if seq != 0 {
		switch {
		case !h.haveSeq:
			h.haveSeq = true
			h.lastSeq = seq
			f.Checked(checkSeq, idx, true) // the path's first: nothing to compare with
		case seq == h.lastSeq+1:
			h.lastSeq = seq
			f.Checked(checkSeq, idx, true)
		case seq > h.lastSeq+1:
			msg := "missing RDS sequence number"
			if seq-h.lastSeq > 2 {
				msg += "s " + strconv.FormatUint(h.lastSeq+1, 10) + "-" + strconv.FormatUint(seq-1, 10)
			} else {
				msg += " " + strconv.FormatUint(h.lastSeq+1, 10)
			}
			f.AddFinding(idx, dissect.Warn, dissect.GroupSequence, fSeq, findingsProto, msg+" on this path")
			f.Checked(checkSeq, idx, false)
			h.lastSeq = seq
		default:
			prev := h.lookup(seq)
			if prev.frame != 0 {
				m.retransOf = prev.frame
			}
			if hv.Flags()&FlagRetrans != 0 || prev.frame != 0 {
				f.AddFinding(idx, dissect.Note, dissect.GroupSequence, fSeq, findingsProto,
					"retransmission of RDS seq "+strconv.FormatUint(seq, 10)+retransFrom(prev.frame))
				f.Checked(checkSeq, idx, true)
			} else {
				f.AddFinding(idx, dissect.Warn, dissect.GroupSequence, fSeq, findingsProto,
					"RDS sequence going backwards: "+strconv.FormatUint(seq, 10)+" after "+strconv.FormatUint(h.lastSeq, 10))
				f.Checked(checkSeq, idx, false)
			}
		}
		if m.retransOf == 0 {
			h.record(sent{seq: seq, frame: f.Num, time: f.TimeNS})
		}
	}

	d.stats.count(overTCP, m.kind, hv.Len(), m.retransOf != 0 || hv.Flags()&FlagRetrans != 0, m.trunc)

	// Piggy-backed acks cover the other direction's messages. Linux rds_tcp
	// leaves h_ack 0 (TCP acks do the job), so 0 is "no information".
	if ack := hv.Ack(); ack != 0 {
		m.ackFrame, m.ackLatency = h.acks(f, idx, ack, &d.conn(f, k).V.half[dir^1].seqTrack)
	}

	// Extension headers: a changed generation number means the peer restarted.
	it := hv.Exts()
	for {
		typ, val, _, st := it.Next()
		if st != ExtOK {
			break
		}
		if typ == ExtGenNum {
			gen := be32(val)
			src := k.Src(dir).Addr()
			if old, ok := d.gens[src]; ok && old != gen {
				f.AddFinding(idx, dissect.Warn, dissect.GroupSequence, fExtGen, findingsProto,
					"RDS generation number of "+src.String()+" changed "+strconv.FormatUint(uint64(old), 10)+
						" -> "+strconv.FormatUint(uint64(gen), 10)+": the peer restarted")
			}
			if len(d.gens) >= maxGens {
				clear(d.gens)
			}
			d.gens[src] = gen
		}
	}

	m.pingFrame, m.pingRTT, m.pongFrame = d.pingPong(f, overTCP, m.kind, k.Src(dir).Addr(), k.Dst(dir).Addr(), hv)
}

// pingPong matches pings and pongs, over TCP or InfiniBand: the pong comes
// from port 0 to the pinger's port, possibly on another path (TCP
// connection, QP) of the same address pair. A pong gets its ping's frame and
// the round trip; in the second pass a ping gets its pong's frame.
func (d *State) pingPong(f *dissect.Frame, over int, kind uint8, src, dst netip.Addr, hv Header) (pingFrame uint64, rtt int64, pongFrame uint64) {
	switch kind {
	case KindPing, KindProbe:
		if len(d.pings) >= maxPings {
			clear(d.pings)
		}
		d.pings[pingKey{src, hv.Sport()}] = sent{seq: hv.Seq(), frame: f.Num, time: f.TimeNS}
		if d.pass2 {
			pongFrame = d.learned[f.Num]
		}
	case KindPong, KindProbePong:
		pk := pingKey{dst, hv.Dport()}
		if p, ok := d.pings[pk]; ok {
			pingFrame, rtt = p.frame, f.TimeNS-p.time
			d.stats[over][pongKind(kind)].rtt.Add(rtt)
			delete(d.pings, pk)
			if !d.pass2 && len(d.learned) < maxLearned {
				d.learned[p.frame] = f.Num
			}
		}
	}
	return
}

func retransFrom(frame uint64) string {
	if frame == 0 {
		return ""
	}
	return " (first sent in frame " + strconv.FormatUint(frame, 10) + ")"
}

func (d *State) headerFindings(f *dissect.Frame, m *Message) {
	hv, p, idx := m.Header(), m.probs, m.idx
	if p&ProbPad != 0 {
		f.AddFinding(idx, dissect.Note, dissect.GroupProtocol, fPad, findingsProto, "RDS header padding is not zero")
	}
	if p&ProbFlags != 0 {
		f.AddFinding(idx, dissect.Warn, dissect.GroupProtocol, fFlags, findingsProto,
			"unknown RDS flag bits 0x"+strconv.FormatUint(uint64(hv.Flags()&^flagsKnown), 16))
	}
	if p&ProbFlagsNew != 0 {
		f.AddFinding(idx, dissect.Note, dissect.GroupProtocol, fFlags, findingsProto,
			"RDS flag bits 0x"+strconv.FormatUint(uint64(hv.Flags()&^flagsMainline&flagsKnown), 16)+
				" are only defined by a Linux-derived tree, not mainline Linux")
	}
	if p&ProbLen != 0 && !m.trunc {
		f.AddFinding(idx, dissect.Warn, dissect.GroupMalformed, fLen, findingsProto,
			"RDS length "+strconv.FormatUint(uint64(hv.Len()), 10)+" exceeds the Linux maximum")
	}
	if p&ProbCongLen != 0 {
		f.AddFinding(idx, dissect.Error, dissect.GroupMalformed, fLen, findingsProto,
			"congestion map of "+strconv.FormatUint(uint64(hv.Len()), 10)+" octets (must be 8192; Linux ignores it)")
	}
	if p&ProbPortsZero != 0 {
		f.AddFinding(idx, dissect.Error, dissect.GroupMalformed, fLen, findingsProto,
			"RDS message with ports 0/0 carries payload but is not a congestion map")
	}
	if p&ProbExtUnknown != 0 {
		f.AddFinding(idx, dissect.Warn, dissect.GroupUndecoded, fExtType, findingsProto,
			"unknown RDS extension header type: the rest of the extension area is not decoded")
	}
	if p&ProbExtOverrun != 0 {
		f.AddFinding(idx, dissect.Error, dissect.GroupMalformed, fExtType, findingsProto,
			"RDS extension header runs past the 16-octet extension area")
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }

// acks takes ack, the h_ack of a message h's direction sent, covering
// the messages of o (the other direction, nil when not seen): an ack
// beyond what o sent is a warning, one going backwards a note; one that
// moves on acknowledges the message of that sequence number, whose frame
// and the time since are returned when o still remembers it.
func (h *seqTrack) acks(f *dissect.Frame, idx int, ack uint64, o *seqTrack) (frame uint64, latency int64) {
	switch {
	case o != nil && o.haveSeq && ack > o.lastSeq:
		f.AddFinding(idx, dissect.Warn, dissect.GroupSequence, fAck, findingsProto,
			"RDS ack "+strconv.FormatUint(ack, 10)+" for a message never sent (highest seq seen from the peer: "+
				strconv.FormatUint(o.lastSeq, 10)+")")
	case ack > h.lastAck:
		if o != nil {
			if s := o.lookup(ack); s.frame != 0 {
				frame, latency = s.frame, f.TimeNS-s.time
			}
		}
		h.lastAck = ack
	case ack < h.lastAck:
		f.AddFinding(idx, dissect.Note, dissect.GroupSequence, fAck, findingsProto,
			"RDS ack going backwards: "+strconv.FormatUint(ack, 10)+" after "+strconv.FormatUint(h.lastAck, 10))
	}
	return frame, latency
}

// record remembers a sent message for retransmission and ack lookups. The
// ring starts small and doubles up to seqRing as messages come: a connection
// that sends a few messages costs a few entries.
func (h *seqTrack) record(s sent) {
	switch {
	case h.ring == nil:
		h.ring = make([]sent, seqRingMin)
	case h.nrec >= len(h.ring) && len(h.ring) < seqRing:
		// each slot holds the latest seq of its residue; residues modulo the
		// old length split cleanly modulo the new one
		r := make([]sent, 2*len(h.ring))
		for _, o := range h.ring {
			if o.frame != 0 {
				r[o.seq%uint64(len(r))] = o
			}
		}
		h.ring = r
	}
	h.nrec++
	h.ring[s.seq%uint64(len(h.ring))] = s
}

func (h *seqTrack) lookup(seq uint64) sent {
	if h.ring == nil {
		return sent{}
	}
	if s := h.ring[seq%uint64(len(h.ring))]; s.seq == seq {
		return s
	}
	return sent{}
}

// csumStatus says what hv's checksum is (0: not computed, else ok says
// whether it is right), gives a wrong one an Error finding on PDU idx whose
// message ends in after, and counts the check where there is a checksum.
func csumStatus(f *dissect.Frame, idx int, hv Header, ok bool, after string) uint8 {
	switch {
	case hv.Csum() == 0:
		return dissect.StatusUnverified
	case !ok:
		f.AddFinding(idx, dissect.Error, dissect.GroupChecksum, fCsum, findingsProto,
			"bad RDS header checksum 0x"+strconv.FormatUint(uint64(hv.Csum()), 16)+" (should be 0x"+
				strconv.FormatUint(uint64(Checksum(hv)), 16)+")"+after)
		f.Checked(checkCsum, idx, false)
		return dissect.StatusBad
	default:
		f.Checked(checkCsum, idx, true)
		return dissect.StatusGood
	}
}
