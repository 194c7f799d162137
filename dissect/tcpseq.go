package dissect

import "net/netip"

// Relative TCP sequence numbers, as tshark shows them by default: each
// direction counts from its ISN (the SYN is 0) or, when the capture starts
// mid-connection, from just before the first octet seen (it is 1). The raw
// numbers stay in tcp.seq_raw and tcp.ack_raw.
type tcpHalf struct{ src, dst netip.AddrPort }

// maxTCPHalves bounds the table of bases; when full it starts over (later
// connections then count from their next segment).
const maxTCPHalves = 1 << 16

func (e *Engine) tcpRelative(f *Frame) {
	t := &e.tcp
	n := &f.Net
	if e.tcpBase == nil || len(e.tcpBase) >= maxTCPHalves {
		if e.tcpBase == nil {
			e.tcpBase = map[tcpHalf]uint32{}
		}
		clear(e.tcpBase)
	}
	k := tcpHalf{src: netip.AddrPortFrom(n.Src, n.SrcPort), dst: netip.AddrPortFrom(n.Dst, n.DstPort)}
	base, ok := e.tcpBase[k]
	if !ok || t.SYN && !t.ACK && t.Seq != base {
		base = t.Seq - 1
		if t.SYN {
			base = t.Seq
		}
		e.tcpBase[k] = base
	}
	n.RelSeq = t.Seq - base
	n.HasRelAck = false
	if t.ACK {
		if peer, ok := e.tcpBase[tcpHalf{src: k.dst, dst: k.src}]; ok {
			n.RelAck, n.HasRelAck = t.Ack-peer, true
		}
	}
}
