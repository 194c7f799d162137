package ddp

import (
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
)

// nOps is the number of RDMAP opcodes (RFC 5040, RFC 7306).
const nOps = OpAtomicResp + 1

// opStats counts one RDMAP opcode's DDP segments, messages (segments with
// the Last flag) and the octets after their DDP headers.
type opStats struct{ segs, msgs, octets uint64 }

// count adds a segment of opcode op with n octets after its DDP header.
func (d *State) count(op uint8, n int, last bool) {
	c := &d.ops[op]
	c.segs++
	c.octets += uint64(n)
	if last {
		c.msgs++
	}
}

// Stats implements flows.Provider: -z iwarp,stat and iwarp,srt.
func (d *State) Stats() []flows.Stat {
	return []flows.Stat{{Name: "iwarp,stat", Table: d.statTable}, {Name: "iwarp,srt", Table: d.srtTable}}
}

// statTable has a row per RDMAP opcode seen, in opcode order.
func (d *State) statTable() *flows.Table {
	t := &flows.Table{Title: "RDMAP messages by opcode (DDP payload: the octets after the DDP header)",
		Header: []string{"Opcode", "Messages", "Segments", "DDP payload"}}
	for op := range d.ops {
		if c := &d.ops[op]; c.segs > 0 {
			t.Rows = append(t.Rows, []string{opNames[uint64(op)], flows.U(c.msgs), flows.U(c.segs), flows.U(c.octets)})
		}
	}
	return t
}

// srtTable is the RDMA Read response time, as -z rpc,srt is a call's.
func (d *State) srtTable() *flows.Table {
	return d.readStat.Table("RDMA Read response time (Read Request to its last Read Response segment)")
}

// MergeStats implements dissect.StatsMerger: from's counts (another
// engine's connections) are added to d's.
func (d *State) MergeStats(from dissect.Dissector) []dissect.Finding {
	o, ok := from.(*State)
	if !ok {
		return nil
	}
	for op := range d.ops {
		c, oc := &d.ops[op], &o.ops[op]
		c.segs += oc.segs
		c.msgs += oc.msgs
		c.octets += oc.octets
	}
	d.readStat.Merge(&o.readStat)
	return nil
}
