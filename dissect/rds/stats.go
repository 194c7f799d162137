package rds

import (
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
)

// Transports a message can come over, the rows' second key in -z rds,stat.
const (
	overTCP = iota
	overIB
	nOver
)

var overNames = [nOver]string{"TCP", "InfiniBand"}

// kindStats counts one message kind over one transport.
type kindStats struct {
	msgs, octets   uint64
	retrans, trunc uint64
	rtt            flows.Times // pings and probes: to their pong (-z rds,srt)
}

// stats is -z rds,stat and rds,srt: fixed arrays, so counting a message
// allocates nothing and the table's size does not grow with the input.
type stats [nOver][KindProbePong + 1]kindStats

// count adds one complete (or truncated) message of kind k and h_len n.
func (s *stats) count(over int, k uint8, n uint32, retrans, trunc bool) {
	c := &s[over][k]
	c.msgs++
	c.octets += uint64(n)
	if retrans {
		c.retrans++
	}
	if trunc {
		c.trunc++
	}
}

// Stats implements flows.Provider: -z rds,stat and rds,srt.
func (d *State) Stats() []flows.Stat {
	return []flows.Stat{{Name: "rds,stat", Table: d.statTable}, {Name: "rds,srt", Table: d.srtTable}}
}

// statTable has a row per message kind and transport seen, in the order
// of rds.msg_type.
func (d *State) statTable() *flows.Table {
	t := &flows.Table{Title: "RDS messages by type",
		Header: []string{"Type", "Over", "Messages", "Bytes", "Retransmitted", "Truncated"}}
	for over := range d.stats {
		for k := range d.stats[over] {
			if c := &d.stats[over][k]; c.msgs > 0 {
				t.Rows = append(t.Rows, []string{kindNames[uint64(k)], overNames[over], flows.U(c.msgs), flows.U(c.octets), flows.U(c.retrans), flows.U(c.trunc)})
			}
		}
	}
	return t
}

// srtTable is the round trip of pings and MPRDS probes to their pongs (as
// -z rpc,srt is of calls to their replies).
func (d *State) srtTable() *flows.Table {
	t := &flows.Table{Title: "RDS ping round trip (a ping to its pong)",
		Header: []string{"Type", "Over", "Pings", "Pongs", "Min", "Avg", "Max"}}
	for over := range d.stats {
		for _, k := range [...]uint8{KindPing, KindProbe} {
			c := &d.stats[over][k]
			if c.msgs == 0 {
				continue
			}
			row := []string{kindNames[uint64(k)], overNames[over], flows.U(c.msgs), flows.U(c.rtt.Count), "", "", ""}
			if c.rtt.Count > 0 {
				row[4], row[5], row[6] = flows.Dur(c.rtt.MinNS), flows.Dur(c.rtt.AvgNS()), flows.Dur(c.rtt.MaxNS)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// MergeStats implements dissect.StatsMerger: from's counts (another
// engine's messages) are added to d's.
func (d *State) MergeStats(from dissect.Dissector) []dissect.Finding {
	o, ok := from.(*State)
	if !ok {
		return nil
	}
	for over := range d.stats {
		for k := range d.stats[over] {
			c, oc := &d.stats[over][k], &o.stats[over][k]
			c.msgs += oc.msgs
			c.octets += oc.octets
			c.retrans += oc.retrans
			c.trunc += oc.trunc
			c.rtt.Merge(&oc.rtt)
		}
	}
	return nil
}

// pongKind is the kind of ping a pong of kind k answers.
func pongKind(k uint8) uint8 {
	if k == KindProbePong {
		return KindProbe
	}
	return KindPing
}
