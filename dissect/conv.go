package dissect

import "github.com/rdx-project/rdx/flows"

// Conversations (as tshark -z conv,ip|tcp|udp) are kept by package flows,
// counted only when Options.Conversations is set, so reads that do not ask
// pay nothing.
var convNames = map[string]uint8{"conv,ip": flows.IP, "conv,tcp": flows.TCP, "conv,udp": flows.UDP}

func (e *Engine) countConv(f *Frame) {
	n := &f.Net
	if !n.HasIP {
		return
	}
	e.convs.Count(&flows.Packet{Src: n.Src, Dst: n.Dst, Proto: n.IPProto, HasPorts: n.HasL4,
		SrcPort: n.SrcPort, DstPort: n.DstPort, WireLen: f.WireLen, TimeNS: f.TimeNS, Frame: f.Num})
}

func (e *Engine) convTable(name string) *StatTable {
	return &StatTable{Title: "Conversations (" + name[5:] + ")", Header: flows.Header, Rows: e.convs.Rows(convNames[name])}
}
