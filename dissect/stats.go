package dissect

import "sort"

// StatTable is a statistics table a protocol offers for `rdx read -z NAME`
// (as tshark's -z): what the dissector tracked over the whole input.
type StatTable struct {
	Title  string
	Header []string
	Rows   [][]string
}

// StatsProvider is implemented by dissectors that keep statistics.
type StatsProvider interface {
	// StatNames lists the -z names offered, e.g. "rdp,conv".
	StatNames() []string
	// Stat builds the table for one name (called once, at the end).
	Stat(name string) *StatTable
}

// StatNames lists every -z name the engine's dissectors offer.
func (e *Engine) StatNames() []string {
	out := []string{"conv,ip", "conv,tcp", "conv,udp", "tcp,analysis"}
	for _, d := range e.inst {
		if p, ok := d.(StatsProvider); ok {
			out = append(out, p.StatNames()...)
		}
	}
	sort.Strings(out)
	return out
}

// Stat builds the table for a -z name, nil if no dissector offers it.
func (e *Engine) Stat(name string) *StatTable {
	if _, ok := convNames[name]; ok {
		return e.convTable(name)
	}
	if name == "tcp,analysis" {
		return e.tcpAnalysisTable()
	}
	for _, d := range e.inst {
		if p, ok := d.(StatsProvider); ok {
			for _, n := range p.StatNames() {
				if n == name {
					return p.Stat(name)
				}
			}
		}
	}
	return nil
}
