package icmp

import (
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Echo request/reply matching, as tshark's: a reply names its request
// ("(request in 9)", icmp.resp_to, icmp.resptime); in the second pass of a
// two-pass read a request names its reply, or says none came.

// maxEchoes bounds the outstanding requests kept per engine; beyond it the
// least recently seen one is dropped, with a note. echoOverhead is one
// entry's cost (struct and map slot) charged to the memory budget.
const (
	maxEchoes    = 1 << 14
	echoOverhead = 128
)

// maxLearned bounds the request→reply pairs kept for the second pass; the
// pairs beyond it are not shown on their request (the reply still names it).
const maxLearned = 1 << 16

var (
	fRespIn    = dissect.Register(&dissect.Field{Abbrev: "icmp.resp_in", Name: "Response frame", Type: dissect.TFrameNum, Later: true})
	fNoResp    = dissect.Register(&dissect.Field{Abbrev: "icmp.no_resp", Name: "No response seen", Type: dissect.TNone, Later: true})
	fNotFound  = dissect.Register(&dissect.Field{Abbrev: "icmp.resp_not_found", Name: "Response not found", Type: dissect.TNone, Later: true})
	f6NotFound = dissect.Register(&dissect.Field{Abbrev: "icmpv6.resp_not_found", Name: "Response not found", Type: dissect.TNone, Later: true})
	fRespTo    = dissect.Register(&dissect.Field{Abbrev: "icmp.resp_to", Name: "Request frame", Type: dissect.TFrameNum})
	fRespTime  = dissect.Register(&dissect.Field{Abbrev: "icmp.resptime", Name: "Response time", Type: dissect.TFloat, Desc: "the time between the request and the response, in ms"})
	f6RespIn   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.resp_in", Name: "Response In", Type: dissect.TFrameNum, Later: true})
	f6NoResp   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.no_resp", Name: "No response seen", Type: dissect.TNone, Later: true})
	f6RespTo   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.resp_to", Name: "Response To", Type: dissect.TFrameNum})
	f6RespTime = dissect.Register(&dissect.Field{Abbrev: "icmpv6.resptime", Name: "Response Time", Type: dissect.TFloat, Desc: "the time between the request and the response, in ms"})
)

type echoKey struct {
	src, dst netip.Addr // the request's
	id, seq  uint16
}

type echo struct {
	frame  uint64
	timeNS int64
}

// echoKind tells requests (1) and replies (2) from other messages (0).
func (m *Message) echoKind() int {
	switch t := m.Type(); {
	case !m.v6 && t == 8, m.v6 && t == 128:
		return 1
	case !m.v6 && t == 0, m.v6 && t == 129:
		return 2
	}
	return 0
}

func (d *State) initEchoes() {
	d.echoes.Init(maxEchoes, echoOverhead, func(k echoKey, v *echo) string {
		return "ICMP echo request of frame " + strconv.FormatUint(v.frame, 10)
	})
}

// match records a request or finds a reply's request.
func (d *State) match(f *dissect.Frame, m *Message) {
	kind := m.echoKind()
	if kind == 0 || !f.Net.HasIP {
		return
	}
	id, seq := uint16(m.b[4])<<8|uint16(m.b[5]), uint16(m.b[6])<<8|uint16(m.b[7])
	if kind == 1 {
		k := echoKey{f.Net.Src, f.Net.Dst, id, seq}
		e := d.echoes.Get(k)
		if e == nil {
			var dropped *dissect.Entry[echoKey, echo]
			e, dropped = d.echoes.Add(k)
			if dropped != nil {
				f.AddFinding(m.idx, dissect.Note, dissect.GroupSequence, nil, m.Proto().Abbrev,
					"echo table full ("+strconv.Itoa(maxEchoes)+" outstanding requests): forgot "+d.echoes.Describe(dropped))
			}
		}
		e.V = echo{frame: f.Num, timeNS: f.TimeNS}
		if f.Pass == 2 {
			m.replyIn = d.learned[f.Num]
			m.noResp = m.replyIn == 0
		}
		return
	}
	e := d.echoes.Get(echoKey{f.Net.Dst, f.Net.Src, id, seq})
	if e == nil || e.V.frame >= f.Num {
		return
	}
	m.requestIn, m.rtt = e.V.frame, f.TimeNS-e.V.timeNS
	if _, ok := d.learned[e.V.frame]; ok || len(d.learned) < maxLearned {
		d.learned[e.V.frame] = f.Num
	}
}

// appendMatch appends the Info column's match note.
func (m *Message) appendMatch(dst []byte) []byte {
	switch {
	case m.replyIn != 0:
		dst = append(dst, " (reply in "...)
		dst = strconv.AppendUint(dst, m.replyIn, 10)
		dst = append(dst, ')')
	case m.requestIn != 0:
		dst = append(dst, " (request in "...)
		dst = strconv.AppendUint(dst, m.requestIn, 10)
		dst = append(dst, ')')
	case m.noResp:
		dst = append(dst, " (no response found!)"...)
	}
	return dst
}

// treeMatch adds the match fields.
func (m *Message) treeMatch(t *dissect.Tree) {
	in, no, nf, to, rt := fRespIn, fNoResp, fNotFound, fRespTo, fRespTime
	if m.v6 {
		in, no, nf, to, rt = f6RespIn, f6NoResp, f6NotFound, f6RespTo, f6RespTime
	}
	switch {
	case m.replyIn != 0:
		t.Uint(in, -1, 0, m.replyIn)
	case m.requestIn != 0:
		t.Uint(to, -1, 0, m.requestIn)
		t.Float(rt, -1, 0, float64(m.rtt)/1e6)
	case m.noResp:
		t.Uint(no, -1, 0, 0)
		t.Uint(nf, -1, 0, 0) // tshark's expert item beside it
	}
}
