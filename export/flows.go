package export

import (
	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/flows"
)

// The flows table, written at the end of a capture: one row per
// conversation (-z conv,ip|tcp|udp|ib|rdp|rx|rds; kind is the -z name's
// second part), A and B as -z conv has them, and one row per InfiniBand
// flow (kind "qp": source to destination and destination QP, the rows of
// -z infiniband,flows) with its counters. Columns a kind has not are null.
var flowColumns = []column{
	{"capture", dictString()},
	{"kind", dictString()},
	{"addr_a", dictString()},
	{"addr_b", dictString()},
	{"port_a", parquet.Optional(parquet.Uint(16))},
	{"port_b", parquet.Optional(parquet.Uint(16))},
	{"qp_a", parquet.Optional(parquet.Uint(32))},
	{"qp_b", parquet.Optional(parquet.Uint(32))},           // kind qp: the destination QP
	{"conn", parquet.Optional(parquet.Uint(64))},           // rx: epoch<<32 | connection ID
	{"packets_ab", parquet.Uint(64)},                       // kind qp: packets
	{"bytes_ab", parquet.Uint(64)},                         // kind qp: payload octets
	{"packets_ba", parquet.Optional(parquet.Uint(64))},     // null for kind qp
	{"bytes_ba", parquet.Optional(parquet.Uint(64))},       // null for kind qp
	{"first_frame", parquet.Uint(64)},                      //
	{"last_frame", parquet.Uint(64)},                       //
	{"first_time", parquet.Optional(timestampNS())},        // null for kind qp
	{"last_time", parquet.Optional(timestampNS())},         // null for kind qp
	{"transport", parquet.Optional(dictString())},          // kind qp: RC, UC, RD, UD, ...
	{"psn_gaps", parquet.Optional(parquet.Uint(64))},       // the rest: kind qp only
	{"dup_psns", parquet.Optional(parquet.Uint(64))},       // retransmitted PSNs
	{"acks", parquet.Optional(parquet.Uint(64))},           //
	{"coalesced_acks", parquet.Optional(parquet.Uint(64))}, //
	{"naks", parquet.Optional(parquet.Uint(64))},           //
	{"rnr_naks", parquet.Optional(parquet.Uint(64))},       //
	{"ecn_ce", parquet.Optional(parquet.Uint(64))},         //
	{"fecn", parquet.Optional(parquet.Uint(64))},           //
	{"becn", parquet.Optional(parquet.Uint(64))},           //
	{"cnps", parquet.Optional(parquet.Uint(64))},           //
}

const (
	fCapture = iota
	fKind
	fAddrA
	fAddrB
	fPortA
	fPortB
	fQPA
	fQPB
	fConn
	fPktsAB
	fBytesAB
	fPktsBA
	fBytesBA
	fFirstFrame
	fLastFrame
	fFirstTime
	fLastTime
	fTransport
	fGaps                     // the first of the qp counters
	nFlowColumns = fGaps + 10 // psn_gaps to cnps
)

func init() {
	if len(flowColumns) != nFlowColumns {
		panic("export: the column constants do not name every column of flowColumns")
	}
}

type flowsTable struct {
	table
	addr []byte
}

func (t *flowsTable) opt(col int, v parquet.Value) { t.putLevel(col, v, 0, 1) }

func (t *flowsTable) null(from, to int) {
	for c := from; c < to; c++ {
		t.put(c, parquet.NullValue())
	}
}

func (t *flowsTable) ep(col int, e flows.Endpoint) {
	t.addr = e.Addr.Addr().Unmap().AppendTo(t.addr[:0])
	t.bytes(col, t.addr, 0, 0)
}

// write adds every conversation and InfiniBand flow of the engine.
// With date partitions a conversation goes to the day it began, a qp
// flow (whose counters have no time) to the capture's first frame's.
func (t *flowsTable) write(e *dissect.Engine, capture []byte, byDate bool, firstDay int64) {
	if c := e.Conversations(); c != nil {
		c.Each(func(cv *flows.Conv) {
			t.at(dayOf(cv.FirstNS) * b2i(byDate))
			t.put(fCapture, parquet.ByteArrayValue(capture))
			t.str(fKind, flows.KindName(cv.Kind), 0)
			t.ep(fAddrA, cv.A)
			t.ep(fAddrB, cv.B)
			if cv.Kind == flows.TCP || cv.Kind == flows.UDP || cv.Kind == flows.RDP || cv.Kind == flows.RDS {
				t.opt(fPortA, parquet.Int32Value(int32(cv.A.Addr.Port())))
				t.opt(fPortB, parquet.Int32Value(int32(cv.B.Addr.Port())))
			} else {
				t.null(fPortA, fPortB+1)
			}
			for i, ep := range [2]flows.Endpoint{cv.A, cv.B} {
				if cv.Kind == flows.IB && ep.QP != flows.NoQP {
					t.opt(fQPA+i, parquet.Int32Value(int32(ep.QP)))
				} else {
					t.put(fQPA+i, parquet.NullValue())
				}
			}
			if cv.Kind == flows.Rx {
				t.opt(fConn, parquet.Int64Value(int64(cv.Conn)))
			} else {
				t.put(fConn, parquet.NullValue())
			}
			t.put(fPktsAB, parquet.Int64Value(int64(cv.Packets[0])))
			t.put(fBytesAB, parquet.Int64Value(int64(cv.Bytes[0])))
			t.opt(fPktsBA, parquet.Int64Value(int64(cv.Packets[1])))
			t.opt(fBytesBA, parquet.Int64Value(int64(cv.Bytes[1])))
			t.put(fFirstFrame, parquet.Int64Value(int64(cv.FirstFrame)))
			t.put(fLastFrame, parquet.Int64Value(int64(cv.LastFrame)))
			t.opt(fFirstTime, parquet.Int64Value(cv.FirstNS))
			t.opt(fLastTime, parquet.Int64Value(cv.LastNS))
			t.null(fTransport, nFlowColumns)
			t.end()
		})
	}
	d, ok := e.Instance("infiniband").(*ib.State)
	if !ok {
		return
	}
	d.Flows(func(fl *ib.Flow) {
		t.at(firstDay * b2i(byDate))
		t.put(fCapture, parquet.ByteArrayValue(capture))
		t.str(fKind, "qp", 0)
		t.addr = fl.Src.AppendTo(t.addr[:0])
		t.bytes(fAddrA, t.addr, 0, 0)
		t.addr = fl.Dst.AppendTo(t.addr[:0])
		t.bytes(fAddrB, t.addr, 0, 0)
		t.null(fPortA, fQPB)
		t.opt(fQPB, parquet.Int32Value(int32(fl.QP)))
		t.put(fConn, parquet.NullValue())
		t.put(fPktsAB, parquet.Int64Value(int64(fl.Packets)))
		t.put(fBytesAB, parquet.Int64Value(int64(fl.Payload)))
		t.null(fPktsBA, fBytesBA+1)
		t.put(fFirstFrame, parquet.Int64Value(int64(fl.FirstFrame)))
		t.put(fLastFrame, parquet.Int64Value(int64(fl.LastFrame)))
		t.null(fFirstTime, fLastTime+1)
		t.str(fTransport, fl.Transport.String(), 1)
		for i, v := range [...]uint64{fl.Gaps, fl.Dups, fl.ACKs, fl.Coalesced, fl.NAKs, fl.RNRNAKs, fl.CE, fl.FECN, fl.BECN, fl.CNPs} {
			t.opt(fGaps+i, parquet.Int64Value(int64(v)))
		}
		t.end()
	})
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
