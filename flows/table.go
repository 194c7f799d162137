package flows

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Table is a statistics table, for `rdx read -z NAME` (as tshark's -z),
// `rdx stats` and `rdx flows`: what was tracked over the whole input.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
}

// Stat is one table a dissector offers: its -z name ("rdp,conv") and how to
// build it (called once, at the end).
type Stat struct {
	Name  string
	Table func() *Table
}

// Provider is implemented by dissectors that keep statistics.
type Provider interface {
	Stats() []Stat
}

// flowTables are the protocols' own per-connection tables, shown by
// `rdx flows` beside the conversation tables.
var flowTables = []string{"infiniband,flows", "rdp,conv"}

// IsFlow reports whether the -z table name lists conversations or
// connections (`rdx flows`) rather than response times and counters.
func IsFlow(name string) bool {
	return strings.HasPrefix(name, "conv,") || slices.Contains(flowTables, name)
}

// IsStat reports whether `rdx stats` shows the table: every protocol's
// table, not the conversations (`rdx flows` shows them) nor tshark's
// whole-capture tables (expert, io,*, endpoints,*: -z asks for those).
func IsStat(name string) bool {
	return !strings.HasPrefix(name, "conv,") && !strings.HasPrefix(name, "endpoints,") &&
		!strings.HasPrefix(name, "io,") && name != "expert"
}

// Dur formats a duration in nanoseconds as the tables do (to the
// microsecond).
func Dur(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }

// U formats a count.
func U(v uint64) string { return strconv.FormatUint(v, 10) }
