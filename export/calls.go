package export

import (
	"net/netip"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/afs"
	"github.com/rdx-project/rdx/dissect/rdp"
	"github.com/rdx-project/rdx/dissect/rds"
)

// The calls table: one row per reply matched to its request, from what
// the dissectors already know when the reply is decoded:
//   - ONC RPC (NFS, MOUNT, NLM, ... over UDP, TCP, RPC-over-RDMA): the
//     reply's tree (rpc.repframe, rpc.time), as -z rpc,srt counts them;
//     over RDMA also the RPC-over-RDMA headers' credits and chunk sizes
//     (rdma_ columns: the call's header is kept from the call's frame);
//   - Rx (AFS services): the afs PDU, which carries Rx's call (request
//     frame, response time, abort code), as -z rx,srt counts them: a
//     reply or a server's abort of a call whose request is in the capture;
//   - RDS heartbeats: a pong matched to its ping (rds.ping_frame,
//     rds.ping_rtt), protocol rds, call "ping" ("probe": an MPRDS probe
//     pong and its probe);
//   - RDP connections, written at the end: one row per connection of -z
//     rdp,conv, protocol rdp, call "connection", from its first frame (the
//     SYN when captured) to its last (the close or RST), response_time
//     its duration, with each side's counts.
//
// Columns shared by every protocol come first; each protocol's own
// (rpc_, rdma_, rx_, rdp_) are null on the other protocols' rows. Calls
// without a reply in the capture have no row.
var callColumns = []column{
	{"capture", dictString()},
	{"protocol", dictString()}, // "rpc" or "rx"
	{"call", parquet.Optional(dictString())},
	{"request_frame", parquet.Uint(64)},
	{"reply_frame", parquet.Uint(64)},
	{"request_time", timestampNS()},
	{"response_time", parquet.Int(64)}, // nanoseconds (rpc.time, afs.time)
	{"rpc_xid", parquet.Optional(parquet.Uint(32))},
	{"rpc_program", parquet.Optional(parquet.Encoded(parquet.Uint(32), dict))},
	{"rpc_programversion", parquet.Optional(parquet.Encoded(parquet.Uint(32), dict))},
	{"rpc_procedure", parquet.Optional(parquet.Encoded(parquet.Uint(32), dict))},
	{"rpc_replystat", parquet.Optional(parquet.Encoded(parquet.Uint(32), dict))},
	{"rpc_state_accept", parquet.Optional(parquet.Encoded(parquet.Uint(32), dict))},
	{"rpc_transport", parquet.Optional(dictString())}, // rdma (RPC-over-RDMA, RoCE/IB or iWARP), tcp, udp
	{"rx_cid", parquet.Optional(parquet.Uint(32))},
	{"rx_callnumber", parquet.Optional(parquet.Uint(32))},
	{"rx_serviceid", parquet.Optional(parquet.Encoded(parquet.Uint(16), dict))},
	{"rx_server_port", parquet.Optional(parquet.Encoded(parquet.Uint(16), dict))},
	{"rx_opcode", parquet.Optional(parquet.Encoded(parquet.Uint(32), dict))},
	{"rx_abort_code", parquet.Optional(parquet.Int(32))}, // null: a reply, not an abort
	// RPC-over-RDMA (rpc_transport rdma): rpcordma.flow_control of the
	// call's and the reply's header, octets of the call's read chunks
	// (what the server pulls), of the reply's write chunks (what it wrote)
	// and of the reply's reply chunk. Null when that header is not in the
	// capture (or past maxPendingRDMA calls).
	{"rdma_credits_requested", parquet.Optional(parquet.Uint(32))},
	{"rdma_credits_granted", parquet.Optional(parquet.Uint(32))},
	{"rdma_read_bytes", parquet.Optional(parquet.Uint(64))},
	{"rdma_write_bytes", parquet.Optional(parquet.Uint(64))},
	{"rdma_reply_bytes", parquet.Optional(parquet.Uint(64))},
	// RDP connections: side a sent the first segment seen; counts per side
	{"rdp_a", parquet.Optional(dictString())},
	{"rdp_b", parquet.Optional(dictString())},
	{"rdp_established", parquet.Optional(parquet.Leaf(parquet.BooleanType))},
	{"rdp_reset", parquet.Optional(parquet.Leaf(parquet.BooleanType))},
	{"rdp_segments_ab", parquet.Optional(parquet.Uint(64))},
	{"rdp_segments_ba", parquet.Optional(parquet.Uint(64))},
	{"rdp_bytes_ab", parquet.Optional(parquet.Uint(64))},
	{"rdp_bytes_ba", parquet.Optional(parquet.Uint(64))},
	{"rdp_retransmits_ab", parquet.Optional(parquet.Uint(64))},
	{"rdp_retransmits_ba", parquet.Optional(parquet.Uint(64))},
	{"rdp_eacks_ab", parquet.Optional(parquet.Uint(64))},
	{"rdp_eacks_ba", parquet.Optional(parquet.Uint(64))},
}

// Column indexes of callColumns.
const (
	cCapture = iota
	cProtocol
	cCall
	cReqFrame
	cRepFrame
	cReqTime
	cRespTime
	cXID
	cProgram
	cVers
	cProc
	cReplystat
	cAccept
	cTransport
	cRxCID
	cRxCall
	cRxService
	cRxPort
	cRxOpcode
	cRxAbort
	cCreditsReq
	cCreditsGranted
	cReadBytes
	cWriteBytes
	cReplyBytes
	cRDPA
	cRDPB
	cRDPEstablished
	cRDPReset
	cRDPSegs     // ab, ba; then bytes, retransmits, eacks, each ab and ba
	nCallColumns = cRDPSegs + 8
)

func init() {
	if len(callColumns) != nCallColumns {
		panic("export: the column constants do not name every column of callColumns")
	}
}

// rpcFields are the registered fields a reply's row is read from.
type rpcFields struct {
	xid, msgtyp, program, vers, proc, repframe, time, replystat, accept *dissect.Field
	rdma                                                                *dissect.Field // rpcordma: the message came over RDMA
	// the RPC-over-RDMA header's credits and chunk lists: a segment's
	// length counts toward the list whose count came last before it
	rdmaXID, credits, reads, writes, reply, length *dissect.Field
	// RDS heartbeats: a pong's ping (or an MPRDS probe pong's probe)
	rdsKind, pingFrame, pingRTT *dissect.Field
}

// fields are every field the calls table reads from the tree.
func (r *rpcFields) fields() []*dissect.Field {
	return []*dissect.Field{r.xid, r.msgtyp, r.program, r.vers, r.proc, r.repframe, r.time, r.replystat, r.accept,
		r.rdma, r.rdmaXID, r.credits, r.reads, r.writes, r.reply, r.length, r.rdsKind, r.pingFrame, r.pingRTT}
}

func lookupRPC() *rpcFields {
	r := &rpcFields{xid: dissect.Lookup("rpc.xid"), msgtyp: dissect.Lookup("rpc.msgtyp"), program: dissect.Lookup("rpc.program"),
		vers: dissect.Lookup("rpc.programversion"), proc: dissect.Lookup("rpc.procedure"), repframe: dissect.Lookup("rpc.repframe"),
		time: dissect.Lookup("rpc.time"), replystat: dissect.Lookup("rpc.replystat"), accept: dissect.Lookup("rpc.state_accept")}
	r.rdma = dissect.Lookup("rpcordma") // nil: not in this binary
	r.rdmaXID = dissect.Lookup("rpcordma.xid")
	r.credits, r.reads, r.writes = dissect.Lookup("rpcordma.flow_control"), dissect.Lookup("rpcordma.reads_count"), dissect.Lookup("rpcordma.writes_count")
	r.reply, r.length = dissect.Lookup("rpcordma.reply_count"), dissect.Lookup("rpcordma.rdma_length")
	r.rdsKind, r.pingFrame, r.pingRTT = dissect.Lookup("rds.msg_type"), dissect.Lookup("rds.ping_frame"), dissect.Lookup("rds.ping_rtt")
	for _, f := range []*dissect.Field{r.xid, r.msgtyp, r.program, r.vers, r.proc, r.repframe, r.time, r.replystat, r.accept} {
		if f == nil {
			return nil // ONC RPC is not in this binary
		}
	}
	return r
}

type callsTable struct {
	table
	rpc  *rpcFields
	name []byte // the call column being built
	// RPC-over-RDMA calls' headers by their frame, until the reply's row:
	// at most maxPendingRDMA, the oldest (queue order) going first
	pending map[rdmaKey]rdmaHdr
	queue   []rdmaKey
	hdrs    []rdmaHdr // the frame's headers
	evicted int       // since the last Frame: a findings row each
}

// maxPendingRDMA bounds the RPC-over-RDMA calls whose header waits for
// its reply: a client has at most its credits (128 with Linux) in flight
// per connection, so 65536 is hundreds of connections' worth, about 3 MB.
// Past it the oldest call goes (its reply's rdma_credits_requested and
// rdma_read_bytes are null) and the findings table says so.
const maxPendingRDMA = 1 << 16

// rdmaKey finds a call's header from its reply: the XID and the two
// addresses, in either direction (zero without IP: native InfiniBand).
type rdmaKey struct {
	xid  uint32
	a, b netip.Addr
}

func keyOf(xid uint32, n *dissect.Net) rdmaKey {
	a, b := n.Src, n.Dst
	if a.Compare(b) > 0 {
		a, b = b, a
	}
	return rdmaKey{xid, a, b}
}

// rdmaHdr is what an RPC-over-RDMA header says of its message.
type rdmaHdr struct {
	xid                uint32
	replied            bool // its message is a reply of this frame
	credits            uint32
	read, write, reply uint64 // octets of each chunk list
	hasCredits         bool
}

// rpcMsg is one RPC message of a frame's tree, as far as read.
type rpcMsg struct {
	xid, msgtyp, program, vers, proc, replystat, accept uint64
	hasVers, hasAccept, hasReq, rdma                    bool
	reqFrame                                            uint64
	rtt                                                 int64
	hdr                                                 int // with rdma: its header in callsTable.hdrs
}

// add writes a row for every matched reply in the frame: Rx calls from
// the frame's PDUs, ONC RPC ones from its tree.
func (ct *callsTable) add(f *dissect.Frame, t *dissect.Tree, capture []byte) {
	for _, p := range f.PDUs {
		if a, ok := p.(*afs.PDU); ok {
			ct.addRx(f, a, capture)
		}
	}
	if t != nil && ct.rpc != nil {
		ct.addRPC(f, t, capture)
	}
}

// addRx writes the row of an Rx reply (or server abort) whose request was
// seen: what -z rx,srt counts.
func (ct *callsTable) addRx(f *dissect.Frame, p *afs.PDU, capture []byte) {
	c := &p.Call
	if !c.Reply || !c.HasRespTime {
		return
	}
	ct.put(cCapture, parquet.ByteArrayValue(capture))
	ct.str(cProtocol, "rx", 0)
	// the name -z rx,srt gives the call: "FS FetchStatus", "VL opcode 9"
	ct.name = append(ct.name[:0], p.Service()...)
	if op := p.OpName(); op != "" {
		ct.name = append(append(ct.name, ' '), op...)
	} else if c.HasOpcode {
		ct.name = appendUint(append(ct.name, " opcode "...), uint64(c.Opcode))
	}
	ct.bytes(cCall, ct.name, 0, 1)
	ct.put(cReqFrame, parquet.Int64Value(int64(c.ReqFrame)))
	ct.put(cRepFrame, parquet.Int64Value(int64(f.Num)))
	ct.put(cReqTime, parquet.Int64Value(f.TimeNS-c.RespTime))
	ct.put(cRespTime, parquet.Int64Value(c.RespTime))
	ct.nulls(cXID, cTransport+1)
	ct.putLevel(cRxCID, parquet.Int32Value(int32(c.CID)), 0, 1)
	ct.putLevel(cRxCall, parquet.Int32Value(int32(c.CallNumber)), 0, 1)
	ct.putLevel(cRxService, parquet.Int32Value(int32(c.ServiceID)), 0, 1)
	ct.putLevel(cRxPort, parquet.Int32Value(int32(c.ServerPort)), 0, 1)
	if c.HasOpcode {
		ct.putLevel(cRxOpcode, parquet.Int32Value(int32(c.Opcode)), 0, 1)
	} else {
		ct.put(cRxOpcode, parquet.NullValue())
	}
	if c.Abort {
		ct.putLevel(cRxAbort, parquet.Int32Value(int32(c.AbortCode)), 0, 1)
	} else {
		ct.put(cRxAbort, parquet.NullValue())
	}
	ct.nulls(cRxAbort+1, nCallColumns)
	ct.end()
}

// nulls puts nulls in columns from to to-1.
func (ct *callsTable) nulls(from, to int) {
	for col := from; col < to; col++ {
		ct.put(col, parquet.NullValue())
	}
}

func (ct *callsTable) opt(col int, v parquet.Value) { ct.putLevel(col, v, 0, 1) }

func appendUint(b []byte, v uint64) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// addRPC writes a row for every matched reply in the frame's tree. An RPC
// message starts at its rpc.xid; the first occurrence of each field after
// it is the message's.
func (ct *callsTable) addRPC(f *dissect.Frame, t *dissect.Tree, capture []byte) {
	r := ct.rpc
	var m rpcMsg
	var list *uint64 // the chunk list being read
	ct.hdrs = ct.hdrs[:0]
	var pingFrame, rdsKind uint64
	open, rdma := false, false
	for k := range t.Nodes {
		nd := &t.Nodes[k]
		switch nd.F {
		case nil:
		case r.rdma:
			rdma = true // the RPC-over-RDMA header before the message
		case r.rdmaXID:
			// a header starts (not at rpcordma, which comes again over a
			// reassembled message)
			ct.hdrs, list = append(ct.hdrs, rdmaHdr{xid: uint32(nd.Value())}), nil
		case r.credits:
			if h := ct.hdr(); h != nil {
				h.credits, h.hasCredits = uint32(nd.Value()), true
			}
		case r.reads, r.writes, r.reply:
			if h := ct.hdr(); h != nil {
				switch nd.F {
				case r.reads:
					list = &h.read
				case r.writes:
					list = &h.write
				default:
					list = &h.reply
				}
			}
		case r.length:
			if rdma && list != nil {
				*list += nd.Value()
			}
		case r.rdsKind:
			rdsKind = nd.Value()
		case r.pingFrame:
			pingFrame = nd.U
		case r.pingRTT:
			if pingFrame != 0 {
				ct.ping(f, pingFrame, int64(nd.U), rdsKind == rds.KindProbePong, capture)
				pingFrame = 0
			}
		case r.xid:
			if open {
				ct.emit(f, &m, capture)
			}
			m, open = rpcMsg{xid: nd.Value(), msgtyp: ^uint64(0), rdma: rdma && len(ct.hdrs) > 0, hdr: len(ct.hdrs) - 1}, true
			rdma, list = false, nil
		case r.msgtyp:
			if open && m.msgtyp == ^uint64(0) {
				m.msgtyp = nd.Value()
			}
		case r.program:
			m.program = nd.Value()
		case r.vers:
			if !m.hasVers {
				m.vers, m.hasVers = nd.Value(), true
			}
		case r.proc:
			m.proc = nd.Value()
		case r.repframe:
			m.reqFrame, m.hasReq = nd.U, true
		case r.time:
			m.rtt = int64(nd.U)
		case r.replystat:
			m.replystat = nd.Value()
		case r.accept:
			m.accept, m.hasAccept = nd.Value(), true
		}
	}
	if open {
		ct.emit(f, &m, capture)
	}
	// the headers of calls (and of messages that did not decode) wait for
	// their replies
	for _, h := range ct.hdrs {
		if !h.replied {
			ct.keep(keyOf(h.xid, &f.Net), h)
		}
	}
}

// hdr is the header being read, nil if none.
func (ct *callsTable) hdr() *rdmaHdr {
	if len(ct.hdrs) == 0 {
		return nil
	}
	return &ct.hdrs[len(ct.hdrs)-1]
}

func (ct *callsTable) emit(f *dissect.Frame, m *rpcMsg, capture []byte) {
	if m.msgtyp != 1 || !m.hasReq {
		return // a call, or a reply whose call is not in the capture
	}
	ct.put(cCapture, parquet.ByteArrayValue(capture))
	ct.str(cProtocol, "rpc", 0)
	ct.put(cCall, parquet.NullValue())
	ct.put(cReqFrame, parquet.Int64Value(int64(m.reqFrame)))
	ct.put(cRepFrame, parquet.Int64Value(int64(f.Num)))
	ct.put(cReqTime, parquet.Int64Value(f.TimeNS-m.rtt))
	ct.put(cRespTime, parquet.Int64Value(m.rtt))
	ct.putLevel(cXID, parquet.Int32Value(int32(uint32(m.xid))), 0, 1)
	ct.putLevel(cProgram, parquet.Int32Value(int32(uint32(m.program))), 0, 1)
	ct.putLevel(cVers, parquet.Int32Value(int32(uint32(m.vers))), 0, 1)
	ct.putLevel(cProc, parquet.Int32Value(int32(uint32(m.proc))), 0, 1)
	ct.putLevel(cReplystat, parquet.Int32Value(int32(uint32(m.replystat))), 0, 1)
	if m.hasAccept {
		ct.putLevel(cAccept, parquet.Int32Value(int32(uint32(m.accept))), 0, 1)
	} else {
		ct.put(cAccept, parquet.NullValue())
	}
	switch {
	case m.rdma:
		ct.str(cTransport, "rdma", 1)
	case f.Net.IPProto == dissect.IPProtoTCP:
		ct.str(cTransport, "tcp", 1)
	case f.Net.IPProto == dissect.IPProtoUDP:
		ct.str(cTransport, "udp", 1)
	default:
		ct.put(cTransport, parquet.NullValue())
	}
	ct.nulls(cRxCID, cRxAbort+1)
	if m.rdma {
		h := &ct.hdrs[m.hdr]
		h.replied = true
		k := keyOf(uint32(m.xid), &f.Net)
		call, ok := ct.pending[k]
		delete(ct.pending, k)
		if ok && call.hasCredits {
			ct.opt(cCreditsReq, parquet.Int32Value(int32(call.credits)))
		} else {
			ct.put(cCreditsReq, parquet.NullValue())
		}
		if h.hasCredits {
			ct.opt(cCreditsGranted, parquet.Int32Value(int32(h.credits)))
		} else {
			ct.put(cCreditsGranted, parquet.NullValue())
		}
		if ok {
			ct.opt(cReadBytes, parquet.Int64Value(int64(call.read)))
		} else {
			ct.put(cReadBytes, parquet.NullValue())
		}
		ct.opt(cWriteBytes, parquet.Int64Value(int64(h.write)))
		ct.opt(cReplyBytes, parquet.Int64Value(int64(h.reply)))
	} else {
		ct.nulls(cCreditsReq, cReplyBytes+1)
	}
	ct.nulls(cReplyBytes+1, nCallColumns)
	ct.end()
}

// keep holds an RPC-over-RDMA call's header until its reply.
func (ct *callsTable) keep(k rdmaKey, h rdmaHdr) {
	if ct.pending == nil {
		ct.pending = map[rdmaKey]rdmaHdr{}
	}
	if _, dup := ct.pending[k]; !dup {
		for len(ct.pending) >= maxPendingRDMA && len(ct.queue) > 0 {
			old := ct.queue[0]
			ct.queue = ct.queue[1:]
			if _, ok := ct.pending[old]; ok {
				delete(ct.pending, old)
				ct.evicted++
			}
		}
		// the queue holds answered calls too until they come to its front:
		// compact it when it is mostly those, so it stays O(pending)
		if len(ct.queue) >= 2*maxPendingRDMA {
			ct.queue = slices.DeleteFunc(ct.queue, func(k rdmaKey) bool { _, ok := ct.pending[k]; return !ok })
		}
		ct.queue = append(ct.queue, k)
	}
	ct.pending[k] = h
}

// ping writes the row of an RDS pong matched to its ping: call "ping",
// or "probe" for an MPRDS probe pong.
func (ct *callsTable) ping(f *dissect.Frame, ping uint64, rtt int64, probe bool, capture []byte) {
	ct.put(cCapture, parquet.ByteArrayValue(capture))
	ct.str(cProtocol, "rds", 0)
	if probe {
		ct.str(cCall, "probe", 1)
	} else {
		ct.str(cCall, "ping", 1)
	}
	ct.put(cReqFrame, parquet.Int64Value(int64(ping)))
	ct.put(cRepFrame, parquet.Int64Value(int64(f.Num)))
	ct.put(cReqTime, parquet.Int64Value(f.TimeNS-rtt))
	ct.put(cRespTime, parquet.Int64Value(rtt))
	ct.nulls(cXID, nCallColumns)
	ct.end()
}

// connections writes a row per RDP connection of the engine (-z
// rdp,conv's), at the end of the capture; with date partitions in the day
// it began.
func (ct *callsTable) connections(e *dissect.Engine, capture []byte, byDate bool) {
	d, ok := e.Instance("rdp").(*rdp.State)
	if !ok {
		return
	}
	for _, c := range d.Connections(nil) {
		ct.at(dayOf(c.FirstNS) * b2i(byDate))
		ct.put(cCapture, parquet.ByteArrayValue(capture))
		ct.str(cProtocol, "rdp", 0)
		ct.str(cCall, "connection", 1)
		ct.put(cReqFrame, parquet.Int64Value(int64(c.FirstFrame)))
		ct.put(cRepFrame, parquet.Int64Value(int64(c.LastFrame)))
		ct.put(cReqTime, parquet.Int64Value(c.FirstNS))
		ct.put(cRespTime, parquet.Int64Value(c.LastNS-c.FirstNS))
		ct.nulls(cXID, cRDPA)
		for i, ep := range c.Endpoints {
			ct.name = ep.AppendTo(ct.name[:0])
			ct.bytes(cRDPA+i, ct.name, 0, 1)
		}
		ct.opt(cRDPEstablished, parquet.BooleanValue(c.Established))
		ct.opt(cRDPReset, parquet.BooleanValue(c.Reset))
		for i, v := range [...]uint64{c.Stats[0].Segments, c.Stats[1].Segments, c.Stats[0].DataBytes, c.Stats[1].DataBytes,
			c.Stats[0].Retransmits, c.Stats[1].Retransmits, c.Stats[0].EACKs, c.Stats[1].EACKs} {
			ct.opt(cRDPSegs+i, parquet.Int64Value(int64(v)))
		}
		ct.end()
	}
}
