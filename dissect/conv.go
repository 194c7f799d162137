package dissect

import (
	"net/netip"
	"sort"
	"strconv"
	"time"
)

// Conversations (as tshark -z conv,ip|tcp|udp): packets and bytes each way
// between two endpoints, counted only when Options.Conversations is set, so
// reads that do not ask pay nothing.
type convKey struct {
	proto uint8 // 0 for IP (addresses only), 6 TCP, 17 UDP
	a, b  netip.AddrPort
}

type convStat struct {
	pkts, bytes [2]uint64 // [0]: a to b
	first, last int64
	frame0, frN uint64
}

// maxConvs bounds the table; later conversations are not counted.
const maxConvs = 1 << 16

var convNames = map[string]uint8{"conv,ip": 0, "conv,tcp": 6, "conv,udp": 17}

func (e *Engine) countConv(f *Frame) {
	n := &f.Net
	if !n.HasIP {
		return
	}
	if e.convs == nil {
		e.convs = map[convKey]*convStat{}
	}
	add := func(k convKey) {
		dir := 0
		if k.b.Compare(k.a) < 0 {
			k.a, k.b, dir = k.b, k.a, 1
		}
		s := e.convs[k]
		if s == nil {
			if len(e.convs) >= maxConvs {
				return
			}
			s = &convStat{first: f.TimeNS, frame0: f.Num}
			e.convs[k] = s
		}
		s.pkts[dir]++
		s.bytes[dir] += uint64(f.WireLen)
		s.last, s.frN = f.TimeNS, f.Num
	}
	add(convKey{a: netip.AddrPortFrom(n.Src, 0), b: netip.AddrPortFrom(n.Dst, 0)})
	if n.HasL4 && (n.IPProto == 6 || n.IPProto == 17) {
		add(convKey{proto: n.IPProto, a: netip.AddrPortFrom(n.Src, n.SrcPort), b: netip.AddrPortFrom(n.Dst, n.DstPort)})
	}
}

func (e *Engine) convTable(name string) *StatTable {
	proto := convNames[name]
	t := &StatTable{Title: "Conversations (" + name[5:] + ")",
		Header: []string{"A", "B", "Packets A→B", "Bytes A→B", "Packets B→A", "Bytes B→A", "Frames", "Duration"}}
	var keys []convKey
	for k := range e.convs {
		if k.proto == proto {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := e.convs[keys[i]], e.convs[keys[j]]
		return a.bytes[0]+a.bytes[1] > b.bytes[0]+b.bytes[1]
	})
	ep := func(a netip.AddrPort) string {
		if proto == 0 {
			return a.Addr().String()
		}
		return a.String()
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, k := range keys {
		s := e.convs[k]
		t.Rows = append(t.Rows, []string{ep(k.a), ep(k.b), u(s.pkts[0]), u(s.bytes[0]), u(s.pkts[1]), u(s.bytes[1]),
			u(s.frame0) + "-" + u(s.frN), time.Duration(s.last - s.first).Round(time.Microsecond).String()})
	}
	return t
}
