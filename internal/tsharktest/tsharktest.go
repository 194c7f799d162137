// Package tsharktest compares rdx's decode of a capture with tshark's stored
// `-T fields` decode (the *.tshark-fields.tsv files beside the captures),
// field by field and frame by frame. Protocol tests call Compare with the
// fields they own and the differences they know to be tshark's errors.
package tsharktest

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// Known explains an accepted difference. Match decides, per frame, whether
// the difference in Field is this one (nil: every frame).
type Known struct {
	Field  string
	Reason string
	Match  func(frame uint64, rdx, tshark string) bool
}

// Table is a stored tshark decode.
type Table struct {
	Header []string
	Rows   map[uint64][]string // by frame number
	col    map[string]int
}

// Get returns the value of the column named name in row, "" when the table
// has no such column or the row is short.
func (t *Table) Get(row []string, name string) string {
	if t.col == nil {
		t.col = make(map[string]int, len(t.Header))
		for i, h := range t.Header {
			t.col[h] = i
		}
	}
	if i, ok := t.col[name]; ok && i < len(row) {
		return row[i]
	}
	return ""
}

// ReadTSV loads a *.tshark-fields.tsv file (gzip-compressed when its name
// ends in .gz).
func ReadTSV(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	t := &Table{Rows: map[uint64][]string{}}
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if t.Header == nil {
			t.Header = cols
			continue
		}
		var n uint64
		if _, err := fmt.Sscan(cols[0], &n); err != nil {
			return nil, fmt.Errorf("%s: bad frame number %q", path, cols[0])
		}
		t.Rows[n] = cols
	}
	return t, sc.Err()
}

// Decode runs a capture through a fresh engine (two passes, as `rdx read -V`
// does) and returns, per frame, every field's values in tree order.
func Decode(path string, opts dissect.Options) (map[uint64]map[string][]string, error) {
	return decode(path, opts, false)
}

// DecodeWithFindings is Decode with each frame's finding messages under
// "_ws.expert.message".
func DecodeWithFindings(path string, opts dissect.Options) (map[uint64]map[string][]string, error) {
	return decode(path, opts, true)
}

func decode(path string, opts dissect.Options, findings bool) (map[uint64]map[string][]string, error) {
	out := map[uint64]map[string][]string{}
	eng := dissect.NewEngine(opts)
	var tree dissect.Tree
	for pass := 1; pass <= 2; pass++ {
		err := testpkt.Each(path, func(p dissect.Packet) error {
			p.Pass = pass
			f := eng.Decode(p)
			if pass == 1 {
				return nil
			}
			eng.BuildTree(&tree, f)
			m := map[string][]string{}
			if findings {
				for _, fd := range f.Findings {
					m["_ws.expert.message"] = append(m["_ws.expert.message"], fd.Msg)
				}
			}
			for i := range tree.Nodes {
				n := &tree.Nodes[i]
				if n.F == nil || n.IsExpert() {
					continue
				}
				var v string
				switch n.F.Type {
				case dissect.TNone:
					v = "1"
				case dissect.TProtocol:
					v = n.F.Abbrev
				default:
					v = string(dissect.AppendField(nil, n))
				}
				m[n.F.Abbrev] = append(m[n.F.Abbrev], v)
			}
			out[p.Num] = m
			return nil
		})
		if err != nil {
			return nil, err
		}
		eng.Rewind()
	}
	return out, nil
}

// Result counts what Compare saw.
type Result struct {
	Compared, Equal int
	Known           map[string]int // accepted differences by reason
	Fields          map[string]bool
}

// Capture returns path, failing the test when the file is not there: every
// capture the comparisons read is committed, so a missing one is a broken
// checkout, and a skip would pass for a comparison that agreed.
func Capture(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("capture missing (it is committed under pcaps/; the comparison with tshark cannot run): %v", err)
	}
	return path
}

// Compare checks every column of tsv whose name starts with one of prefixes
// against rdx's decode of pcap. Unexplained differences fail the test (up to
// 20 are printed), and so does a comparison that compared no value at all
// (wrong prefixes, or a decode that lost the protocol), which would agree
// with anything.
func Compare(t testing.TB, pcap, tsv string, prefixes []string, known []Known, opts dissect.Options) Result {
	t.Helper()
	tab, err := ReadTSV(tsv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(pcap, opts)
	if err != nil {
		t.Fatal(err)
	}
	res := Result{Known: map[string]int{}, Fields: map[string]bool{}}
	var bad []string
	frames := make([]uint64, 0, len(tab.Rows))
	for n := range tab.Rows {
		frames = append(frames, n)
	}
	sort.Slice(frames, func(i, j int) bool { return frames[i] < frames[j] })
	if len(got) != len(tab.Rows) {
		t.Errorf("%s: rdx decoded %d frames, tshark %d", pcap, len(got), len(tab.Rows))
	}
	for _, num := range frames {
		row := tab.Rows[num]
		for c, name := range tab.Header {
			if !hasPrefix(name, prefixes) || c >= len(row) {
				continue
			}
			want := row[c]
			have := strings.Join(got[num][name], ";")
			if want == "" && have == "" {
				continue
			}
			res.Fields[name] = true
			res.Compared++
			if want == have {
				res.Equal++
				continue
			}
			explained := false
			for _, k := range known {
				if (k.Field == name || k.Field == "*") && (k.Match == nil || k.Match(num, have, want)) {
					res.Known[k.Field+": "+k.Reason]++
					explained = true
					break
				}
			}
			if !explained {
				bad = append(bad, fmt.Sprintf("frame %d %s: rdx %q, tshark %q", num, name, have, want))
			}
		}
	}
	if len(bad) > 0 {
		if len(bad) > 20 {
			bad = append(bad[:20], fmt.Sprintf("... and %d more", len(bad)-20))
		}
		t.Errorf("%s: %d unexplained differences with tshark:\n%s", pcap, len(bad), strings.Join(bad, "\n"))
	}
	if res.Compared == 0 {
		t.Errorf("%s: no value of %v compared with tshark: the comparison proves nothing", pcap, prefixes)
	}
	return res
}

func hasPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// FirstOf matches when rdx's first occurrence equals tshark's value: used where
// rdx decodes several PDUs (a jumbogram's sub-packets) and tshark only one.
func FirstOf(frame uint64, rdx, tshark string) bool {
	first, _, more := strings.Cut(rdx, ";")
	if !more {
		return false
	}
	return first == tshark
}

// TsharkFirst matches when tshark has extra occurrences and rdx's value equals
// tshark's first: tshark decoding bytes that are not what it thinks they are.
func TsharkFirst(frame uint64, rdx, tshark string) bool {
	first, _, more := strings.Cut(tshark, ";")
	return more && first == rdx
}

// TallyChecks adds f's check results to checks: [0] passed, [1] failed, by
// check name.
func TallyChecks(checks map[string][2]int, f *dissect.Frame) {
	for _, c := range f.Checks {
		if c.Skip != dissect.SkipNone {
			continue
		}
		v := checks[c.Check.Name]
		if c.OK {
			v[0]++
		} else {
			v[1]++
		}
		checks[c.Check.Name] = v
	}
}

// DecodeAs is engine options with the given -d rules (as tshark-truth was
// told them), failing the test on a rule that does not parse.
func DecodeAs(t testing.TB, rules ...string) dissect.Options {
	t.Helper()
	var opts dissect.Options
	for _, r := range rules {
		da, err := dissect.ParseDecodeAs(r)
		if err != nil {
			t.Fatal(err)
		}
		opts.DecodeAs = append(opts.DecodeAs, da)
	}
	return opts
}
