package export

import (
	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/afs"
)

// The calls table: one row per reply matched to its request, from what
// the dissectors already know when the reply is decoded:
//   - ONC RPC (NFS, MOUNT, NLM, ... over UDP, TCP, RPC-over-RDMA): the
//     reply's tree (rpc.repframe, rpc.time), as -z rpc,srt counts them;
//   - Rx (AFS services): the afs PDU, which carries Rx's call (request
//     frame, response time, abort code), as -z rx,srt counts them: a
//     reply or a server's abort of a call whose request is in the capture.
//
// Columns shared by every protocol come first; the rpc_ ones are null on
// Rx rows and the rx_ ones on RPC rows. Calls without a reply in the
// capture have no row.
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
	nCallColumns
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
}

func lookupRPC() *rpcFields {
	r := &rpcFields{dissect.Lookup("rpc.xid"), dissect.Lookup("rpc.msgtyp"), dissect.Lookup("rpc.program"),
		dissect.Lookup("rpc.programversion"), dissect.Lookup("rpc.procedure"), dissect.Lookup("rpc.repframe"),
		dissect.Lookup("rpc.time"), dissect.Lookup("rpc.replystat"), dissect.Lookup("rpc.state_accept"), nil}
	r.rdma = dissect.Lookup("rpcordma") // nil: not in this binary
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
}

// rpcMsg is one RPC message of a frame's tree, as far as read.
type rpcMsg struct {
	xid, msgtyp, program, vers, proc, replystat, accept uint64
	hasVers, hasAccept, hasReq, rdma                    bool
	reqFrame                                            uint64
	rtt                                                 int64
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
	for col := cXID; col <= cTransport; col++ {
		ct.put(col, parquet.NullValue())
	}
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
	ct.end()
}

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
	open, rdma := false, false
	for k := range t.Nodes {
		nd := &t.Nodes[k]
		switch nd.F {
		case nil:
		case r.rdma:
			rdma = true // the RPC-over-RDMA header before the message
		case r.xid:
			if open {
				ct.emit(f, &m, capture)
			}
			m, open = rpcMsg{xid: nd.Value(), msgtyp: ^uint64(0), rdma: rdma}, true
			rdma = false
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
	for col := cRxCID; col < nCallColumns; col++ {
		ct.put(col, parquet.NullValue())
	}
	ct.end()
}
