package render_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// render's own tests: frames and trees are built here by hand (no engine,
// no capture), so what is checked is the formatting alone. The cmd/rdx
// goldens check the same code end to end on real captures.

var (
	pOuter = dissect.RegisterProto("rendertest", "Render Test", "")
	pInner = dissect.RegisterProto("rendertest2", "Render Test Inner", "")
	fSeq   = dissect.Register(&dissect.Field{Abbrev: "rendertest.seq", Name: "Sequence Number", Type: dissect.TUint32})
	fFlags = dissect.Register(&dissect.Field{Abbrev: "rendertest.flags", Name: "Flags", Type: dissect.TUint8, Base: dissect.BaseHex})
	fLast  = dissect.Register(&dissect.Field{Abbrev: "rendertest.flags.last", Name: "Last", Type: dissect.TBool, Mask: 0x04, Bits: 8})
	fName  = dissect.Register(&dissect.Field{Abbrev: "rendertest.name", Name: "Name", Type: dissect.TString})
	fLen   = dissect.Register(&dissect.Field{Abbrev: "rendertest.len", Name: "Message Length", Type: dissect.TUint32})
	fNone  = dissect.Register(&dissect.Field{Abbrev: "rendertest.marker", Name: "Marker", Type: dissect.TNone})
)

// pdu is a PDU whose summary is fixed text.
type pdu struct {
	p   *dissect.ProtoInfo
	sum string
}

func (p pdu) Proto() *dissect.ProtoInfo              { return p.p }
func (p pdu) Summary(dst []byte) []byte              { return append(dst, p.sum...) }
func (p pdu) Tree(t *dissect.Tree, f *dissect.Frame) {}

func ipFrame() *dissect.Frame {
	return &dissect.Frame{Num: 3, TimeNS: 1e9 + 1_234_567_890, WireLen: 98, Proto: "rendertest2",
		Net: dissect.Net{HasIP: true, HasL4: true, Src: netip.MustParseAddr("198.51.100.1"), SrcPort: 7000,
			Dst: netip.MustParseAddr("198.51.100.2"), DstPort: 7001},
		PDUs: []dissect.PDU{pdu{pOuter, "DATA seq 1"}, pdu{pOuter, ""}, pdu{pInner, "FetchData"}},
		Findings: []dissect.Finding{{Sev: dissect.Note, Msg: "a note"}, {Sev: dissect.Warn, Msg: "first warning"},
			{Sev: dissect.Error, Msg: "an error"}}}
}

func TestSummaryLine(t *testing.T) {
	f := ipFrame()
	// Columns as tshark lays them out: number, seconds since the first
	// frame (microseconds, truncated as tshark's column), source and destination padded to 21,
	// protocol upper-cased in 5, length in 5, then the info: PDU summaries
	// joined by "; " (an empty one leaves no separator; a change of protocol
	// is named), then the first warning or error in brackets.
	want := fmt.Sprintf("%6d %s %-21s → %-21s %-10s %5d %s\n", 3, "1.234567", "198.51.100.1:7000", "198.51.100.2:7001",
		"RENDERTEST2", 98, "DATA seq 1; RENDERTEST2 FetchData [first warning]")
	if got := string(render.Summary(nil, f, 1e9, nil)); got != want {
		t.Errorf("summary\n got %q\nwant %q", got, want)
	}
	// Appends to dst; a frame before the first has a negative time.
	if got := string(render.Summary([]byte("> "), f, 1e9+1_500_000_000, nil)); !strings.HasPrefix(got, ">      3 -0.265432 ") {
		t.Errorf("appended, negative time: %q", got)
	}

	// No IP: dashes for the addresses; no PDU and no transport: the
	// first finding (a Note too) is the info.
	f = &dissect.Frame{Num: 12, TimeNS: 5e9, WireLen: 60, Proto: "eth", Findings: []dissect.Finding{{Sev: dissect.Note, Msg: "fragment held"}}}
	want = fmt.Sprintf("%6d %s %-21s → %-21s %-10s %5d %s\n", 12, "4.000000", "-", "-", "ETH", 60, "fragment held")
	if got := string(render.Summary(nil, f, 1e9, nil)); got != want {
		t.Errorf("summary without IP\n got %q\nwant %q", got, want)
	}
	// IP without a transport: addresses without ports.
	f = &dissect.Frame{Num: 1, WireLen: 20, Proto: "ip", Net: dissect.Net{HasIP: true,
		Src: netip.MustParseAddr("2001:db8::1"), Dst: netip.MustParseAddr("198.51.100.9")}}
	want = fmt.Sprintf("%6d %s %-21s → %-21s %-10s %5d \n", 1, "0.000000", "2001:db8::1", "198.51.100.9", "IPv4", 20)
	if got := string(render.Summary(nil, f, 0, nil)); got != want {
		t.Errorf("summary without ports\n got %q\nwant %q", got, want)
	}
}

func TestSummaryColour(t *testing.T) {
	c := &render.Colors
	f := ipFrame() // worst finding: Error
	got := string(render.Summary(nil, f, 1e9, c))
	if !strings.Contains(got, c.Proto+"RENDERTEST2"+c.Reset+" ") {
		t.Errorf("protocol column not bold: %q", got)
	}
	if !strings.HasSuffix(got, c.Error+"DATA seq 1; RENDERTEST2 FetchData [first warning]"+c.Reset+"\n") {
		t.Errorf("info not in the error colour: %q", got)
	}
	f.Findings = f.Findings[:2] // worst: Warn
	if got := string(render.Summary(nil, f, 1e9, c)); !strings.Contains(got, c.Warn+"DATA") {
		t.Errorf("info not in the warning colour: %q", got)
	}
	f.Findings = f.Findings[:1] // a Note alone: the note colour (Wireshark's cyan for notes and chat)
	if got := string(render.Summary(nil, f, 1e9, c)); !strings.HasSuffix(got, c.Note+"DATA seq 1; RENDERTEST2 FetchData"+c.Reset+"\n") {
		t.Errorf("info not in the note colour: %q", got)
	}
	// A note about a retransmission or duplicate is dim, an error still red.
	f.Findings = []dissect.Finding{{Sev: dissect.Note, Group: dissect.GroupSequence, Msg: "retransmission of seq 4"}}
	if got := string(render.Summary(nil, f, 1e9, c)); !strings.Contains(got, c.Retrans+"DATA") || c.Retrans != "\x1b[2m" {
		t.Errorf("retransmission not dim: %q", got)
	}
	f.Findings = append(f.Findings, dissect.Finding{Sev: dissect.Error, Msg: "bad"})
	if got := string(render.Summary(nil, f, 1e9, c)); !strings.Contains(got, c.Error+"DATA") {
		t.Errorf("an error with a retransmission note not red: %q", got)
	}
	f.Findings = nil // no finding: the info plain
	if got := string(render.Summary(nil, f, 1e9, c)); !strings.HasSuffix(got, " DATA seq 1; RENDERTEST2 FetchData\n") {
		t.Errorf("a frame without findings coloured: %q", got)
	}
	// Colour off (nil style, as NO_COLOR or a pipe make it): no escape at all.
	f = ipFrame()
	if got := string(render.Summary(nil, f, 1e9, nil)); strings.ContainsRune(got, 0x1b) {
		t.Errorf("escape without colour: %q", got)
	}
	// An empty style (every sequence empty) also writes none.
	if got := string(render.Summary(nil, f, 1e9, &render.Style{})); strings.ContainsRune(got, 0x1b) {
		t.Errorf("escape with an empty style: %q", got)
	}
}

// tree builds a two-protocol tree: a field with flag bits, a string, a
// generated field, a text label with a child, a reassembled field, a TNone
// marker and a finding's expert node.
func tree() *dissect.Tree {
	var tr dissect.Tree
	tr.Proto(pOuter, 14, 20, "seq 1")
	tr.Uint(fSeq, 14, 4, 1)
	tr.Flags(fFlags, 18, 1, 0x04, "", fLast)
	tr.String(fName, 19, 5, `a"b,c`)
	tr.Uint(fLen, -1, 0, 300) // generated (no bytes)
	tr.Text(24, 4, "Options")
	tr.Open()
	tr.Uint(fSeq, 24, 4, 2)
	tr.Close()
	tr.Proto(pInner, 28, 6, "")
	tr.SetBase(0, true) // bytes of a reassembled buffer
	tr.Uint(fSeq, 0, 4, 3)
	tr.SetBase(0, false)
	tr.Uint(fNone, 30, 0, 0)
	tr.Finding(&dissect.Finding{Sev: dissect.Warn, Group: dissect.GroupSequence, Field: fSeq, Msg: "sequence went back"})
	return &tr
}

func TestVerboseTree(t *testing.T) {
	want := `Render Test, seq 1  [rendertest @14+20]
    Sequence Number: 1  [rendertest.seq @14+4]
    Flags: 0x04  [rendertest.flags @18+1]
        .... .1.. = Last: True  [rendertest.flags.last @18+1]
    Name: a"b,c  [rendertest.name @19+5]
    [Message Length: 300]  [rendertest.len]
    Options
        Sequence Number: 2  [rendertest.seq @24+4]
Render Test Inner  [rendertest2 @28+6]
    Sequence Number: 3  [rendertest.seq reassembled]
    Marker  [rendertest.marker]
    Expert Info (warning/sequence): sequence went back  [_ws.expert: rendertest.seq]
`
	tr := tree()
	if got := string(render.Verbose(nil, tr, nil)); got != want {
		t.Errorf("tree\n got:\n%s\nwant:\n%s", got, want)
	}
	// With colour only the expert line is coloured, by its severity.
	c := &render.Colors
	got := string(render.Verbose(nil, tr, c))
	wantC := strings.Replace(want, "    Expert Info (warning/sequence): sequence went back  ",
		"    "+c.Warn+"Expert Info (warning/sequence): sequence went back"+c.Reset+"  ", 1)
	if got != wantC {
		t.Errorf("coloured tree\n got %q\nwant %q", got, wantC)
	}
	if got := string(render.Verbose(nil, &dissect.Tree{}, nil)); got != "" {
		t.Errorf("empty tree: %q", got)
	}
}

func TestHex(t *testing.T) {
	data := []byte("0123456789abcdef\x00\x7fz")
	want := "0000  30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  0123456789abcdef\n" +
		"0010  00 7f 7a                                          ..z\n"
	if got := string(render.Hex(nil, data)); got != want {
		t.Errorf("hex\n got %q\nwant %q", got, want)
	}
}

func TestJSON(t *testing.T) {
	tr := tree()
	b := render.JSON(nil, tr, 1_700_000_000e9, false)
	var doc struct {
		Index  string `json:"_index"`
		Type   string `json:"_type"`
		Score  any    `json:"_score"`
		Source struct {
			Layers map[string]map[string]any `json:"layers"`
		} `json:"_source"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if doc.Index != "packets-2023-11-14" || doc.Type != "doc" || doc.Score != nil {
		t.Errorf("envelope: %+v", doc)
	}
	outer, inner := doc.Source.Layers["rendertest"], doc.Source.Layers["rendertest2"]
	if len(doc.Source.Layers) != 2 || outer == nil || inner == nil {
		t.Fatalf("layers: %s", b)
	}
	// Values are strings as tshark prints them; children of a field go
	// under FIELD_tree; a repeated key (the Options' seq is another
	// object) stays where it is.
	if outer["rendertest.seq"] != "1" || outer["rendertest.flags"] != "0x04" || outer["rendertest.name"] != `a"b,c` ||
		outer["rendertest.len"] != "300" {
		t.Errorf("rendertest layer: %v", outer)
	}
	if ft, _ := outer["rendertest.flags_tree"].(map[string]any); ft["rendertest.flags.last"] != "1" {
		t.Errorf("flags tree: %v", outer["rendertest.flags_tree"])
	}
	if opt, _ := outer["Options"].(map[string]any); opt["rendertest.seq"] != "2" {
		t.Errorf("text node with a child: %v", outer["Options"])
	}
	exp, _ := inner["_ws.expert"].(map[string]any)
	if inner["rendertest.seq"] != "3" || inner["rendertest.marker"] != "" || exp["_ws.expert.message"] != "sequence went back" ||
		exp["_ws.expert.severity"] != "warning" || exp["_ws.expert.group"] != "sequence" || exp["_ws.expert.field"] != "rendertest.seq" {
		t.Errorf("rendertest2 layer: %v", inner)
	}
	// Key order is the tree's (tshark's), not alphabetical.
	s := string(b)
	if i, j := strings.Index(s, `"rendertest.seq"`), strings.Index(s, `"rendertest.flags"`); i < 0 || j < i {
		t.Errorf("key order: %s", s)
	}
	// A key repeated in one object becomes an array (--no-duplicate-keys).
	var rep dissect.Tree
	rep.Proto(pOuter, 0, 8, "")
	rep.Uint(fSeq, 0, 4, 7)
	rep.Uint(fSeq, 4, 4, 8)
	if got := string(render.JSON(nil, &rep, 0, false)); !strings.Contains(got, `"rendertest":{"rendertest.seq":["7","8"]}`) {
		t.Errorf("repeated key: %s", got)
	}
	// Indented output is the same document.
	var a, c any
	if err := json.Unmarshal(render.JSON(nil, tr, 0, true), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(render.JSON(nil, tr, 0, false), &c); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a) != fmt.Sprint(c) {
		t.Errorf("indented and compact differ:\n%v\n%v", a, c)
	}
}

func TestFieldsRow(t *testing.T) {
	tr := tree()
	names := []string{"rendertest.seq", "rendertest.name", "rendertest.flags.last", "rendertest", "rendertest.marker",
		"_ws.expert.message", "_ws.expert.severity", "rendertest.len", "rendertest.seq"}
	for _, c := range []struct {
		opts []string
		want string
	}{
		// Defaults: tab between fields, "," between occurrences, no quotes;
		// a repeated name shows the same values; TNone fields show 1; a
		// protocol shows its abbreviation.
		{nil, "1,2,3\ta\"b,c\t1\trendertest\t1\tsequence went back\twarning\t300\t1,2,3\n"},
		{[]string{"separator=,", "aggregator=;", "quote=d"},
			`"1;2;3","a"b,c","1","rendertest","1","sequence went back","warning","300","1;2;3"` + "\n"},
		{[]string{"separator=/s", "aggregator=/t", "quote=s"},
			"'1\t2\t3' 'a\"b,c' '1' 'rendertest' '1' 'sequence went back' 'warning' '300' '1\t2\t3'\n"},
	} {
		var o render.FieldsOpts
		for _, e := range c.opts {
			if err := o.ParseE(e); err != nil {
				t.Fatal(err)
			}
		}
		w, err := render.NewFields(names, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(w.Row(nil, tr)); got != c.want {
			t.Errorf("-E %v\n got %q\nwant %q", c.opts, got, c.want)
		}
	}
	// An absent field is empty, and is not quoted (tshark's way).
	var o render.FieldsOpts
	_ = o.ParseE("quote=d")
	_ = o.ParseE("separator=,")
	w, err := render.NewFields([]string{"rendertest.seq", "_ws.expert.field", "frame.number"}, o)
	if err != nil {
		t.Fatal(err)
	}
	var small dissect.Tree
	small.Proto(pOuter, 0, 4, "")
	small.Uint(fSeq, 0, 4, 9)
	if got := string(w.Row(nil, &small)); got != `"9",,`+"\n" {
		t.Errorf("absent fields: %q", got)
	}
	// The row is recomputed per frame: nothing of the previous one is left.
	if got := string(w.Row(nil, &dissect.Tree{})); got != ",,\n" {
		t.Errorf("empty tree after a full one: %q", got)
	}
	if _, err := render.NewFields([]string{"rendertest.nosuch"}, o); err == nil || !strings.Contains(err.Error(), "rendertest.nosuch") {
		t.Errorf("unknown field: %v", err)
	}
	if err := o.ParseE("occurrence=2"); err == nil {
		t.Error("occurrence=2 accepted")
	}
	// -E occurrence=f and l keep one of a field's occurrences
	for _, tc := range []struct{ occ, want string }{{"f", "1\n"}, {"l", "2\n"}, {"a", "1,2\n"}} {
		var oo render.FieldsOpts
		if err := oo.ParseE("occurrence=" + tc.occ); err != nil {
			t.Fatal(err)
		}
		w, err := render.NewFields([]string{"rendertest.seq"}, oo)
		if err != nil {
			t.Fatal(err)
		}
		var two dissect.Tree
		two.Uint(fSeq, 0, 4, 1)
		two.Uint(fSeq, 4, 4, 2)
		if got := string(w.Row(nil, &two)); got != tc.want {
			t.Errorf("occurrence=%s: %q, want %q", tc.occ, got, tc.want)
		}
	}
}

// BenchmarkSummaryLine: the summary line alone (the columns rdx read prints
// for every frame), PDU summaries being fixed text.
func BenchmarkSummaryLine(b *testing.B) {
	f := ipFrame()
	f.Num, f.Findings = 123456, nil
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = render.Summary(buf[:0], f, 1e9, nil)
	}
}

// BenchmarkSummaryLineColour: the summary line with the default theme on
// a frame with findings (the Info and Protocol coloured): styling copies
// sequences made once, so it allocates nothing either.
func BenchmarkSummaryLineColour(b *testing.B) {
	f := ipFrame()
	f.Num = 123456
	buf := make([]byte, 0, 256)
	st := &render.Colors
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = render.Summary(buf[:0], f, 1e9, st)
	}
}

// The -t formats other than seconds, and -u hms, on a fixed instant: the
// tshark comparison (cmd/rdx TestTimeFormatsTshark) covers real captures.
func TestClockFormats(t *testing.T) {
	at := time.Date(2026, 2, 3, 4, 5, 6, 789_123_456, time.UTC).UnixNano()
	first := at - (3*3600+2*60+1)*1e9 - 500
	cases := []struct {
		c    render.Clock
		want string
	}{
		{render.Clock{Format: render.TimeUTC}, "04:05:06.789123"},
		{render.Clock{Format: render.TimeUTCDate, Digits: 9}, "2026-02-03 04:05:06.789123456"},
		{render.Clock{Format: render.TimeUTCDOY}, "2026/034 04:05:06.789123"},
		{render.Clock{Format: render.TimeEpoch}, "1770091506.789123"},
		{render.Clock{First: first}, "10921.000000"},
		{render.Clock{First: first, HMS: true}, "3h  2m  1.000000s"},
		{render.Clock{First: at - 61e9, HMS: true, Digits: 9}, "1m  1.000000000s"},
		{render.Clock{Format: render.TimeDelta, Prev: at + 1500, HMS: true}, "- 0.000001s"},
		{render.Clock{Format: render.TimeDeltaDisplayed, Shown: at - 2e9, Prev: at}, "2.000000"},
	}
	for _, tc := range cases {
		if got := string(tc.c.Append(nil, at)); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.c, got, tc.want)
		}
	}
	for _, s := range []string{"r", "a", "ad", "adoy", "d", "dd", "e", "u", "ud", "udoy"} {
		if _, err := render.ParseTimeFormat(s); err != nil {
			t.Errorf("-t %s: %v", s, err)
		}
	}
	if _, err := render.ParseTimeFormat("x"); err == nil {
		t.Error("-t x accepted")
	}
}

// The Time column costs no allocation in any -t format (the summary path
// allocates nothing per packet).
func TestClockNoAlloc(t *testing.T) {
	buf := make([]byte, 0, 64)
	for f := render.TimeRelative; f <= render.TimeUTCDOY; f++ {
		c := render.Clock{Format: f, HMS: true, Digits: 9}
		if n := testing.AllocsPerRun(100, func() { buf = c.Append(buf[:0], 1_795_237_229_714_069_123) }); n != 0 {
			t.Errorf("-t format %d: %v allocations", f, n)
		}
	}
}

// The default Time column reuses the text of the frame before but for its
// last four digits: over frames close together, far apart, out of order
// and at every precision it writes what a fresh Clock writes.
func TestClockRelativeReuse(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	for digits := 0; digits <= 10; digits++ {
		c := render.Clock{First: 1_700_000_000_000_000_000, Digits: digits}
		ns := c.First
		for i := 0; i < 20000; i++ {
			switch rnd.IntN(6) {
			case 0:
				ns += rnd.Int64N(1e12) // far on
			case 1:
				ns -= rnd.Int64N(1e6) // back (before First too)
			case 2:
				ns = c.First + 1e17 - 5e3 + rnd.Int64N(1e4) // around the longest cached text
			default:
				ns += rnd.Int64N(2e4) // close
			}
			d, rel, sign := digits, ns-c.First, ""
			if d < 1 || d > 9 {
				d = 6
			}
			if rel < 0 {
				sign, rel = "-", -rel
			}
			want := fmt.Sprintf("x%s%d.%0*d", sign, rel/1e9, d, uint64(rel%1e9)/dissect.Pow10[9-d])
			got := string(c.Append([]byte("x"), ns))
			if got != want {
				t.Fatalf("digits %d, %d ns after the first: %q, want %q", digits, ns-c.First, got, want)
			}
		}
	}
}

// TestInfoOnePDU: a frame of one PDU (appendInfo's shortcut) gets the Info
// the general path gives: the summary, then the first warning; an empty
// summary leaves the first finding.
func TestInfoOnePDU(t *testing.T) {
	for _, c := range []struct {
		sum      string
		findings []dissect.Finding
		want     string
	}{
		{"DATA seq 1", nil, "DATA seq 1"},
		{"DATA seq 1", []dissect.Finding{{Sev: dissect.Note, Msg: "a note"}}, "DATA seq 1"},
		{"DATA seq 1", []dissect.Finding{{Sev: dissect.Note, Msg: "a note"}, {Sev: dissect.Warn, Msg: "a warning"}},
			"DATA seq 1 [a warning]"},
		{"", nil, ""},
		{"", []dissect.Finding{{Sev: dissect.Note, Msg: "fragment held"}}, "fragment held"},
	} {
		f := ipFrame()
		f.PDUs, f.Findings = []dissect.PDU{pdu{pOuter, c.sum}}, c.findings
		if got := string(render.Info([]byte("x"), f)); got != "x"+c.want {
			t.Errorf("%q %v: Info %q, want %q", c.sum, c.findings, got, "x"+c.want)
		}
	}
}
