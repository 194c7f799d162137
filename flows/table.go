package flows

import (
	"path/filepath"
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
	// FrameCols are the columns holding frame references ("12", "3-40"):
	// over many files NameFrames says which file each frame is in.
	FrameCols []int
}

// FileShift places a file's index above its frame numbers in the tables
// of many files merged (dissect.Engine.TagFrames): frame n of file i is
// i<<FileShift | n there, so the rows order file by file, and NameFrames
// prints it as the file's name and n. A file has fewer than 2^40 frames.
const FileShift = 40

// MaxFiles is how many files' tables can be merged with their frames told
// apart (the index must fit above FileShift).
const MaxFiles = 1 << (63 - FileShift)

// NameFrames rewrites the frame references in t's FrameCols, of tables
// merged over many files, as name:frame (pts-ops.pcap:12), names[i] being
// file i's (FileLabels); a range within one file is name:first-last.
func (t *Table) NameFrames(names []string) {
	ref := func(s string) (file int, n string, ok bool) {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil || int(v>>FileShift) >= len(names) {
			return 0, s, false
		}
		return int(v >> FileShift), strconv.FormatUint(v&(1<<FileShift-1), 10), true
	}
	for _, row := range t.Rows {
		for _, c := range t.FrameCols {
			if c >= len(row) || row[c] == "" {
				continue
			}
			a, b, isRange := strings.Cut(row[c], "-")
			fa, na, ok := ref(a)
			if !ok {
				continue
			}
			cell := names[fa] + ":" + na
			if isRange {
				fb, nb, ok := ref(b)
				switch {
				case !ok:
					cell += "-" + b
				case fb == fa:
					cell += "-" + nb
				default:
					cell += "-" + names[fb] + ":" + nb
				}
			}
			row[c] = cell
		}
	}
}

// FileLabels names each file in frame references (NameFrames): its base
// name, or the name as given where two base names are the same, with #2,
// #3, ... after a name given again.
func FileLabels(files []string) []string {
	bases := map[string]int{}
	for _, f := range files {
		bases[filepath.Base(f)]++
	}
	again := map[string]int{}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Base(f)
		if bases[out[i]] > 1 {
			out[i] = f
		}
		if again[f]++; again[f] > 1 {
			out[i] += "#" + strconv.Itoa(again[f])
		}
	}
	return out
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
