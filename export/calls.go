package export

import (
	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
)

// The calls table: one row per ONC RPC reply matched to its call (NFS,
// MOUNT, NLM, ... over UDP, TCP, RPC-over-RDMA), from the reply's tree:
// what the RPC dissector's matcher already knows (the call's frame and
// the time from it). Calls without a reply in the capture have no row.
var callColumns = []column{
	{"capture", dictString()},
	{"rpc_xid", parquet.Uint(32)},
	{"rpc_program", parquet.Encoded(parquet.Uint(32), dict)},
	{"rpc_programversion", parquet.Encoded(parquet.Uint(32), dict)},
	{"rpc_procedure", parquet.Encoded(parquet.Uint(32), dict)},
	{"request_frame", parquet.Uint(64)},
	{"reply_frame", parquet.Uint(64)},
	{"request_time", timestampNS()},
	{"response_time", parquet.Int(64)}, // nanoseconds (rpc.time)
	{"rpc_replystat", parquet.Encoded(parquet.Uint(32), dict)},
	{"rpc_state_accept", parquet.Optional(parquet.Encoded(parquet.Uint(32), dict))},
}

// rpcFields are the registered fields a reply's row is read from.
type rpcFields struct {
	xid, msgtyp, program, vers, proc, repframe, time, replystat, accept *dissect.Field
}

func lookupRPC() *rpcFields {
	r := &rpcFields{dissect.Lookup("rpc.xid"), dissect.Lookup("rpc.msgtyp"), dissect.Lookup("rpc.program"),
		dissect.Lookup("rpc.programversion"), dissect.Lookup("rpc.procedure"), dissect.Lookup("rpc.repframe"),
		dissect.Lookup("rpc.time"), dissect.Lookup("rpc.replystat"), dissect.Lookup("rpc.state_accept")}
	for _, f := range []*dissect.Field{r.xid, r.msgtyp, r.program, r.vers, r.proc, r.repframe, r.time, r.replystat, r.accept} {
		if f == nil {
			return nil // ONC RPC is not in this binary
		}
	}
	return r
}

type callsTable struct {
	table
	rpc *rpcFields
}

// rpcMsg is one RPC message of a frame's tree, as far as read.
type rpcMsg struct {
	xid, msgtyp, program, vers, proc, replystat, accept uint64
	hasVers, hasAccept, hasReq                          bool
	reqFrame                                            uint64
	rtt                                                 int64
}

// add writes a row for every matched reply in the frame's tree. An RPC
// message starts at its rpc.xid; the first occurrence of each field after
// it is the message's.
func (ct *callsTable) add(f *dissect.Frame, t *dissect.Tree, capture []byte) {
	if t == nil || ct.rpc == nil {
		return
	}
	r := ct.rpc
	var m rpcMsg
	open := false
	for k := range t.Nodes {
		nd := &t.Nodes[k]
		switch nd.F {
		case nil:
		case r.xid:
			if open {
				ct.emit(f, &m, capture)
			}
			m, open = rpcMsg{xid: nd.Value(), msgtyp: ^uint64(0)}, true
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
	ct.put(0, parquet.ByteArrayValue(capture))
	ct.put(1, parquet.Int32Value(int32(uint32(m.xid))))
	ct.put(2, parquet.Int32Value(int32(uint32(m.program))))
	ct.put(3, parquet.Int32Value(int32(uint32(m.vers))))
	ct.put(4, parquet.Int32Value(int32(uint32(m.proc))))
	ct.put(5, parquet.Int64Value(int64(m.reqFrame)))
	ct.put(6, parquet.Int64Value(int64(f.Num)))
	ct.put(7, parquet.Int64Value(f.TimeNS-m.rtt))
	ct.put(8, parquet.Int64Value(m.rtt))
	ct.put(9, parquet.Int32Value(int32(uint32(m.replystat))))
	if m.hasAccept {
		ct.putLevel(10, parquet.Int32Value(int32(uint32(m.accept))), 0, 1)
	} else {
		ct.put(10, parquet.NullValue())
	}
	ct.end()
}
