package dissect

import (
	"sort"

	"github.com/rdx-project/rdx/flows"
)

// StatTable is a statistics table a protocol offers for `rdx read -z NAME`
// (as tshark's -z); the type lives in flows with the tables it builds.
type StatTable = flows.Table

// StatsProvider is implemented by dissectors that keep statistics.
type StatsProvider = flows.Provider

// StatNames lists every -z name the engine's dissectors offer.
func (e *Engine) StatNames() []string {
	out := append(flows.ConvNames(), "tcp,analysis")
	out = append(out, flows.EndpointNames...)
	out = append(out, tallyNames...)
	for _, d := range e.inst {
		if p, ok := d.(StatsProvider); ok {
			for _, s := range p.Stats() {
				out = append(out, s.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Stat builds the table for a -z name, nil if no dissector offers it.
func (e *Engine) Stat(name string) *StatTable {
	if flows.IsConv(name) {
		return e.convs.Table(name)
	}
	if name == "tcp,analysis" {
		return e.tcpAnalysisTable()
	}
	if t := e.tallyTable(name); t != nil {
		return t
	}
	for _, d := range e.inst {
		if p, ok := d.(StatsProvider); ok {
			for _, s := range p.Stats() {
				if s.Name == name {
					return s.Table()
				}
			}
		}
	}
	if pt, _, err := e.paramStat(name); pt.Build != nil && err == nil {
		return pt.Build()
	}
	return nil
}
