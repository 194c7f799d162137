package dissect

import "github.com/rdx-project/rdx/flows"

// Conversations (as tshark -z conv,ip|tcp|udp, and rdx's conv,ib|rdp|rx|rds)
// are kept by package flows, counted only when Options.Conversations is set,
// so reads that do not ask pay nothing.
func (e *Engine) countConv(f *Frame) {
	n := &f.Net
	if !n.HasIP {
		return
	}
	e.convs.Count(&flows.Packet{Src: n.Src, Dst: n.Dst, Proto: n.IPProto, HasPorts: n.HasL4,
		SrcPort: n.SrcPort, DstPort: n.DstPort, WireLen: f.WireLen, TimeNS: f.TimeNS, Frame: f.Num})
}

// Conversations is where a dissector counts the conversations of its own
// kind (flows.IB, RDP, Rx, RDS) for -z conv,...; nil when the read did not
// ask for them, so counting costs nothing then.
func (f *Frame) Conversations() *flows.Conversations {
	if f.eng == nil || !f.eng.Opts.Conversations {
		return nil
	}
	return &f.eng.convs
}

// Conversations is the engine's conversation table (rdx export's flows),
// nil when Options.Conversations is not set.
func (e *Engine) Conversations() *flows.Conversations {
	if !e.Opts.Conversations {
		return nil
	}
	return &e.convs
}
