// Package oncrpc dissects ONC RPC (RFC 5531) calls and replies: over TCP
// record marking (ports 111 and 2049, and a heuristic for other ports), UDP,
// and RPC-over-RDMA (dissect/rpcrdma hands it whole messages). It names the
// procedures of NFS, MOUNT, NLM, portmapper and NFS_ACL, decodes AUTH_NONE,
// AUTH_SYS and RPCSEC_GSS credentials, matches replies to calls (frame and
// response time, both ways after the first pass; per-procedure statistics in
// SRT), unwraps RPCSEC_GSS integrity bodies and hands the body to the
// program's decoder (dissect/nfs: NFSv3/v4, MOUNT, NLM, portmap, NFS_ACL).
package oncrpc

import (
	"encoding/binary"
	"net/netip"
	"strconv"
	"time"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/xdr"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// Limits keep hostile input from costing memory.
const (
	maxAuth    = 400     // RFC 5531: opaque_auth bodies are at most 400 octets
	maxRecord  = 4 << 20 // record-marked messages kept for decoding
	maxCalls   = 1 << 16 // outstanding calls remembered; a new one beyond drops the oldest, with a finding
	maxPending = 1 << 20 // stream bytes buffered per direction before giving up
	// callTimeout: a call unanswered for an hour of capture time is
	// forgotten, so its memory comes back without waiting for the limit.
	callTimeout = int64(time.Hour)
	// callOverhead is what one outstanding call costs (its flows.Pending and
	// its slot in the matcher's spill table, smallmap.SpillCost: TestCosts),
	// charged to the engine's memory budget.
	callOverhead = 416
)

// Name is the dissector's registration name.
const Name = "rpc"

func init() {
	ports := []dissect.PortRange{{Lo: 111, Hi: 111}, {Lo: 2049, Hi: 2049}}
	dissect.RegisterDissector(&dissect.Registration{
		Name:         Name,
		UDPPorts:     ports,
		TCPPorts:     ports,
		HeuristicTCP: heuristicTCP,
		New: func(e *dissect.Engine) dissect.Dissector {
			d := newState()
			d.bufs.init(e.Budget())
			d.calls.Register(e.Budget(), "rpc")
			return d
		},
	})
	// RPC-over-RDMA (RFC 8166) carries ONC RPC messages; its table is named
	// here, not imported: rpcrdma imports this package.
	dissect.AddHeuristic("rpcordma.message", Name, func(d dissect.Dissector, f *dissect.Frame, r *Record) bool {
		d.(*State).DissectMessage(f, r.Data, r.Off, &r.Ctx)
		return true
	})
}

// heuristicTCP accepts a stream whose first record-marked fragment holds an
// RPC call (version 2) of a program rdx knows: mountd, lockd and statd use
// ports portmapper hands out.
func heuristicTCP(b []byte) bool {
	if len(b) < 4+40 {
		return false
	}
	hdr := binary.BigEndian.Uint32(b)
	n := int(hdr & 0x7FFFFFFF)
	if n < 40 || n > maxRecord {
		return false
	}
	m := b[4:]
	if binary.BigEndian.Uint32(m[4:]) != Call || binary.BigEndian.Uint32(m[8:]) != 2 {
		return false
	}
	_, known := programs[binary.BigEndian.Uint32(m[12:])]
	if !known {
		return false
	}
	fl := binary.BigEndian.Uint32(m[24:])
	return fl <= RPCSecGSS && binary.BigEndian.Uint32(m[28:]) <= maxAuth
}

// Context is what a transport tells the decoder about a message.
type Context struct {
	// Frames lists the frames whose bytes make up a reassembled message.
	Frames []uint64
	// DDP holds data the transport moved outside the message (RPC-over-RDMA
	// write chunks, in order), for program decoders to show in place of the
	// data items removed from the message.
	DDP [][]byte
	// Conv distinguishes conversations for call matching beyond addresses
	// (e.g. a QP); 0 if none.
	Conv uint64
	// Transport is "tcp", "udp" or "rdma".
	Transport string
}

// Record is an RPC message a transport that frames messages itself hands
// on (the context of rpcrdma's rpcordma.message table): Data at frame
// offset Off (-1: not in the frame), with what the transport knows.
type Record struct {
	Data []byte
	Off  int
	Ctx  Context
}

// callKey is a call's XID, conversation and unordered address pair, laid
// out as plain memory without padding or pointers (netip.Addr holds a zone
// pointer), so the call table hashes and compares it as one block: with
// two netip.Addr fields the map's generated hash and equality cost about
// 300 instructions per RPC message on RoCE NFS.
type callKey struct {
	a, b [16]byte // As16 of the lower and the higher address
	conv uint64
	xid  uint64 // the XID; bit 32 set for IPv4 (As16 maps it into IPv6)
}

// CallInfo is what a reply learns from its call (the call's frame and time
// are the matcher's flows.Request).
type CallInfo struct {
	Prog, Vers uint32
	Proc       uint32
	// Extra is for program decoders: what the call's arguments say that the
	// reply needs (e.g. the NFS ACCESS bits asked about); set through
	// CallExtractor as the call is dissected.
	Extra uint64
	// The call's RPCSEC_GSS procedure and service, when gss is set: they say
	// how the reply's body is wrapped.
	gss             bool
	gssProc, gssSvc uint32
}

// State is the per-engine RPC state.
type State struct {
	pool  dissect.Pool[Msg]
	calls flows.Matcher[callKey, CallInfo] // outstanding calls; Learned: call frame -> reply, from pass 1
	// made is the entry match just made for a call, for callExtra to fill
	// in without hashing the key again (nil after a reply).
	made    *flows.Pending[callKey, CallInfo]
	streams map[streamKey]*stream
	srt     flows.SRT[srtKey]
	bufs    recBuffers     // record buffers charged to the budget
	pv      ProgramVersion // the rpc.program context
	// -z rpc,srt,PROGRAM,VERSION,FILTER (stats.go): the replies of the
	// current frame, counted in each filtered table whose filter matches.
	filt     []*filtSRT
	frameLog []loggedSRT
	logFrame uint64
	crc      crcMemo // Msg.ChecksumIEEE's last handle (memo.go)
}

func newState() *State {
	d := &State{streams: map[streamKey]*stream{}}
	d.calls.Init(maxCalls, callTimeout, callOverhead, describeCall)
	d.calls.SetTag(callTag)
	return d
}

// callTag is the matcher's cheap tag of a call key: the XID and
// conversation with the low words of the addresses (where IPv4 ones and
// most IPv6 hosts differ), so calls of many clients rarely share a tag and
// the matcher compares one word, not 48 octets, per recent call.
func callTag(k callKey) uint64 {
	return k.xid ^ k.conv<<33 ^ binary.LittleEndian.Uint64(k.a[8:])<<1 ^ binary.LittleEndian.Uint64(k.b[8:])
}

// Rewind implements dissect.Rewinder: calls are forgotten, reply frames kept.
func (d *State) Rewind() {
	d.calls.Rewind()
	clear(d.streams)
	d.bufs.reset()
	d.pool.Reset()
}

func (d *State) newMsg(f *dissect.Frame) *Msg {
	m, _ := d.pool.Get(f)
	frames := m.frames[:0]
	*m = Msg{d: d, frames: frames}
	return m
}

// Dissect implements dissect.Dissector for UDP (one message per datagram)
// and for TCP segments handed over without reassembly.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {
	if f.Net.IPProto == dissect.IPProtoTCP {
		d.record(f, data, off, true)
		return
	}
	d.DissectMessage(f, data, off, &Context{Transport: "udp"})
}

// record decodes record-marked fragments lying whole in data.
func (d *State) record(f *dissect.Frame, data []byte, off int, _ bool) {
	for len(data) >= 4 {
		hdr := binary.BigEndian.Uint32(data)
		n := int(hdr & 0x7FFFFFFF)
		if 4+n > len(data) {
			return
		}
		m := d.DissectMessage(f, data[4:4+n], off+4, &Context{Transport: "tcp"})
		if m != nil {
			m.rm, m.fragHdr = true, hdr
		}
		data = data[4+n:]
		off += 4 + n
	}
}

// DissectMessage decodes one whole RPC message (no record mark) at frame
// offset off (-1: not in the frame; data must then stay valid until the next
// frame). It adds the RPC PDU and the program's PDU and returns the RPC one,
// or nil if data is not an RPC message.
func (d *State) DissectMessage(f *dissect.Frame, data []byte, off int, ctx *Context) *Msg {
	m := d.newMsg(f)
	m.data, m.off = data, off
	if ctx != nil {
		m.frames = append(m.frames, ctx.Frames...)
		m.ddp = ctx.DDP
		m.conv = ctx.Conv
	}
	if !m.parse() {
		d.pool.Unget()
		return nil
	}
	m.idx = f.AddPDU(m)
	d.match(f, m)
	if m.bodyOK {
		d.pv = ProgramVersion{Prog: m.Prog, Vers: m.Vers}
		if Programs.Call(f, uint64(m.Prog), &d.pv) {
			p := d.pv.Program
			m.prog = p
			m.progPDU = progPDU{m: m}
			idx := f.AddPDU(&m.progPDU)
			if v, ok := p.(Validator); ok {
				v.Validate(f, idx, m)
			}
			if ce, ok := p.(CallExtractor); ok && m.Type == Call {
				d.callExtra(f, m, ce.CallExtra(m))
			}
		}
	}
	return m
}

// describeCall names an outstanding call dropped by the limit or the budget.
func describeCall(k callKey, ci *CallInfo) string {
	return "RPC call XID 0x" + strconv.FormatUint(uint64(uint32(k.xid)), 16) + " (program " +
		strconv.FormatUint(uint64(ci.Prog), 10) + ") between " + k.addr(k.a).String() + " and " + k.addr(k.b).String()
}

// addr is the address a or b of k as the frame had it.
func (k *callKey) addr(a [16]byte) netip.Addr {
	ad := netip.AddrFrom16(a)
	if k.xid&key4 != 0 {
		return ad.Unmap()
	}
	return ad
}

// key4 marks an IPv4 address pair in callKey.xid.
const key4 = 1 << 32

func callKeyOf(f *dissect.Frame, m *Msg) callKey {
	a, b := f.Net.Src, f.Net.Dst
	if b.Less(a) {
		a, b = b, a
	}
	k := callKey{a: a.As16(), b: b.As16(), conv: m.conv, xid: uint64(m.XID)}
	if a.Is4() {
		k.xid |= key4
	}
	return k
}

func (d *State) match(f *dissect.Frame, m *Msg) {
	k := callKeyOf(f, m)
	if m.Type == Call {
		p, dropped := d.calls.Call(k, f.Num, f.TimeNS)
		d.made = p
		p.V = CallInfo{Prog: m.Prog, Vers: m.Vers, Proc: m.Proc, gss: m.gss, gssProc: m.gssProc, gssSvc: m.gssSvc}
		if dropped != "" {
			f.AddFinding(m.idx, dissect.Warn, dissect.GroupReassembly, nil, Name, "RPC call table full ("+
				strconv.Itoa(maxCalls)+" outstanding calls): dropped the least recently made, "+dropped)
		}
		if f.Pass == 2 {
			a, _ := d.calls.Learned.Recall(f.Num)
			m.replyFrame = a.Frame
		}
		return
	}
	d.made = nil
	// answered: the matcher forgets the call, so it holds only outstanding
	// calls (a retransmitted reply then shows as unmatched)
	req, ci, ans, ok := d.calls.Reply(k, f.Num, f.TimeNS)
	f.Checked(checkMatch, m.idx, ok)
	if !ok {
		return
	}
	m.matched = true
	m.Prog, m.Vers, m.Proc = ci.Prog, ci.Vers, ci.Proc
	m.callFrame, m.rtt = req.Frame, ans.RTT
	m.CallExtra = ci.Extra
	if ci.gss {
		m.gss, m.gssProc, m.gssSvc = true, ci.gssProc, ci.gssSvc
		m.gssWrap()
	}
	if f.ProtoStats() {
		d.logSRT(&ci, m.rtt, f.Num) // in every pass: -z rpc,srt,...,FILTER counts on the output pass
	}
	if f.Pass != 2 && f.ProtoStats() {
		d.addSRT(&ci, m.rtt, f.Num)
	}
	if f.Pass == 1 {
		d.calls.Learned.Learn(req.Frame, ans)
	}
}

// SetCallExtra records program data on the outstanding call m (a call just
// decoded) for its reply to read as Msg.CallExtra.
func (d *State) SetCallExtra(f *dissect.Frame, m *Msg, v uint64) {
	if p := d.calls.Outstanding(callKeyOf(f, m)); p != nil && p.Frame == f.Num {
		p.V.Extra = v
	}
}

// callExtra is SetCallExtra for the call match has just registered: its
// entry is at hand. Were the entry dropped since (the memory budget), it
// waits unused for reuse, which sets all of V: writing Extra there is
// harmless, as SetCallExtra finding nothing is.
func (d *State) callExtra(f *dissect.Frame, m *Msg, v uint64) {
	if p := d.made; p != nil && p.Frame == f.Num {
		p.V.Extra = v
		return
	}
	d.SetCallExtra(f, m, v)
}

// Msg is one RPC call or reply.
type Msg struct {
	d       *State
	idx     int
	data    []byte
	off     int
	rm      bool
	fragHdr uint32
	frames  []uint64
	ddp     [][]byte
	conv    uint64
	XID     uint32
	Type    uint32
	RPCVers uint32
	Prog    uint32
	Vers    uint32
	Proc    uint32
	cred    auth
	verf    auth
	// Reply.
	ReplyStat  uint32
	AcceptStat uint32
	RejectStat uint32
	low, high  uint32
	authStat   uint32
	verfOff    int
	statOff    int
	bodyOff    int
	bodyOK     bool // the body holds program arguments/results
	matched    bool
	callFrame  uint64
	replyFrame uint64
	rtt        int64
	CallExtra  uint64
	prog       Program
	progPDU    progPDU
	short      bool
	// RPCSEC_GSS (RFC 2203): the credential's procedure and service, and
	// where the wrapped body starts (the program's part follows a DATA
	// integrity header; INIT tokens and privacy data hide it).
	gss             bool
	gssProc, gssSvc uint32
	gssOff          int
}

type auth struct {
	off, flavor, length int
	body                []byte
}

// Data is the whole message; BodyOff where the program's part starts.
func (m *Msg) Data() []byte  { return m.data }
func (m *Msg) BodyOff() int  { return m.bodyOff }
func (m *Msg) Body() []byte  { return m.data[m.bodyOff:] }
func (m *Msg) Matched() bool { return m.matched }

// ResponseTime is a matched reply's time from its call, in nanoseconds (the
// sample -z rpc,srt counted; rdx plot srt draws them).
func (m *Msg) ResponseTime() int64 { return m.rtt }

// DDP returns the data a transport moved out of the message (write chunks).
func (m *Msg) DDP() [][]byte { return m.ddp }

// Frames lists the frames a reassembled message came from.
func (m *Msg) Frames() []uint64 { return m.frames }

// Offset is the message's offset in the frame (-1 if reassembled).
func (m *Msg) Offset() int { return m.off }

// Proto implements dissect.PDU.
func (m *Msg) Proto() *dissect.ProtoInfo { return PRPC }

func (m *Msg) parse() bool {
	// The fixed words of a call or reply header are read after one length
	// check each: xdr.Reader.U32 is too large to inline, and a call per
	// word cost about 30 instructions, six to nine times per message.
	b := m.data
	if len(b) < 8 {
		return false
	}
	m.XID, m.Type = binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
	if m.Type > Reply {
		return false
	}
	r := xdr.NewReader(b)
	if m.Type == Call {
		if len(b) < 24 {
			return false
		}
		m.RPCVers = binary.BigEndian.Uint32(b[8:])
		m.Prog, m.Vers, m.Proc = binary.BigEndian.Uint32(b[12:]), binary.BigEndian.Uint32(b[16:]), binary.BigEndian.Uint32(b[20:])
		if m.RPCVers != 2 {
			return false
		}
		r.Off = 24
		if !readAuth(&r, &m.cred) || !readAuth(&r, &m.verf) {
			m.short = true
			return true
		}
		m.bodyOff, m.bodyOK = r.Off, true
		if m.cred.flavor == RPCSecGSS && len(m.cred.body) >= 16 {
			c := xdr.NewReader(m.cred.body)
			c.U32() // version
			m.gssProc = c.U32()
			c.U32() // sequence
			m.gssSvc = c.U32()
			m.gss = true
			m.gssWrap()
		}
		return true
	}
	if len(b) < 12 {
		return false
	}
	m.ReplyStat = binary.BigEndian.Uint32(b[8:])
	if m.ReplyStat > MsgDenied {
		return false
	}
	r.Off = 12
	m.statOff = r.Off
	if m.ReplyStat == MsgAccepted {
		m.verfOff = r.Off
		if !readAuth(&r, &m.verf) {
			m.short = true
			return true
		}
		m.statOff = r.Off
		m.AcceptStat = r.U32()
		if m.AcceptStat == ProgMismatch {
			m.low, m.high = r.U32(), r.U32()
		}
		if r.Err() != nil {
			m.short = true
			return true
		}
		m.bodyOff, m.bodyOK = r.Off, m.AcceptStat == Success
		return true
	}
	m.RejectStat = r.U32()
	switch m.RejectStat {
	case RPCMismatch:
		m.low, m.high = r.U32(), r.U32()
	case AuthError:
		m.authStat = r.U32()
	}
	m.short = r.Err() != nil
	m.bodyOff = r.Off
	return true
}

func readAuth(r *xdr.Reader, a *auth) bool {
	a.off = r.Off
	// The usual case read directly: flavor, length and the padded body all
	// there (a call has two of these, a reply one).
	if o, b := r.Off, r.B; r.Err() == nil && o+8 <= len(b) {
		n := int(binary.BigEndian.Uint32(b[o+4:]))
		if end := o + 8 + (n+3)&^3; n <= maxAuth && end <= len(b) {
			a.flavor, a.body, a.length = int(binary.BigEndian.Uint32(b[o:])), b[o+8:o+8+n], n
			r.Off = end
			return true
		}
	}
	a.flavor = int(r.U32())
	a.body = r.Opaque(maxAuth)
	a.length = len(a.body)
	return r.Err() == nil
}

// Summary implements dissect.PDU: "Call XID 0x5d44543d NFS V3 GETATTR".
func (m *Msg) Summary(dst []byte) []byte {
	if m.Type == Call {
		dst = append(dst, "Call XID 0x"...)
	} else {
		dst = append(dst, "Reply XID 0x"...)
	}
	dst = dissect.AppendHex8(dst, m.XID)
	if (m.Type == Call || m.matched) && m.prog == nil { // else the program's PDU says it
		dst = append(dst, ' ')
		if n := ProgramName(m.Prog); n != "" {
			dst = append(dst, n...)
		} else {
			dst = dissect.AppendUint(dst, uint64(m.Prog))
		}
		dst = append(dst, ' ')
		dst = AppendProc(dst, m)
	}
	if m.Type == Reply {
		switch {
		case m.ReplyStat == MsgDenied:
			dst = append(dst, " denied "...)
			dst = append(dst, rejectNames[uint64(m.RejectStat)]...)
		case m.AcceptStat != Success:
			dst = append(dst, " accept_stat "...)
			dst = dissect.AppendUint(dst, uint64(m.AcceptStat))
		}
		if m.matched {
			dst = append(dst, " (call in "...)
			dst = dissect.AppendUint(dst, m.callFrame)
			dst = append(dst, ')')
		} else {
			dst = append(dst, " (no call seen)"...)
		}
	} else if m.replyFrame != 0 {
		dst = append(dst, " (reply in "...)
		dst = dissect.AppendUint(dst, m.replyFrame)
		dst = append(dst, ')')
	}
	if len(m.frames) > 1 {
		dst = append(dst, " ["...)
		dst = dissect.AppendUint(dst, uint64(len(m.frames)))
		dst = append(dst, " frames]"...)
	}
	return dst
}

// progPDU is the program's layer (nfs, mount, ...) of a message.
type progPDU struct{ m *Msg }

func (p *progPDU) Proto() *dissect.ProtoInfo { return p.m.prog.Proto() }
func (p *progPDU) Summary(dst []byte) []byte { return p.m.prog.Summary(dst, p.m) }
func (p *progPDU) Tree(t *dissect.Tree, f *dissect.Frame) {
	t.SetBase(max(p.m.off, 0), p.m.off < 0)
	p.m.prog.Tree(t, p.m)
}

// streamKey is one direction of a TCP connection.
type streamKey struct {
	key tcp.FlowKey
	dir tcp.Dir
}

type stream struct {
	buf     []byte   // bytes of an incomplete record (fragment headers stripped)
	hdr     []byte   // partial fragment header
	need    int      // bytes left in the current fragment
	last    bool     // current fragment is the last
	frames  []uint64 // frames that carried buf
	bad     bool     // lost sync: ignore the rest
	lastHdr uint32

	key streamKey
	lru budget.Elem[stream] // among the streams holding buf (recBuffers), charged cap(buf)
}

// gssWrap finds the program's part of an RPCSEC_GSS message body.
func (m *Msg) gssWrap() {
	if !m.gss || !m.bodyOK {
		return
	}
	m.gssOff = m.bodyOff
	switch {
	case m.gssProc == 1 || m.gssProc == 2: // INIT, CONTINUE_INIT: a GSS token, or rpc_gss_init_res
		m.bodyOK = false
	case m.gssProc == 0 && m.gssSvc == 2: // integrity: databody length, sequence number, then the body
		if m.bodyOff+8 <= len(m.data) {
			m.bodyOff += 8
		} else {
			m.bodyOK = false
		}
	case m.gssProc == 0 && m.gssSvc == 3: // privacy: encrypted
		m.bodyOK = false
	}
}
