package render

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNormTable: one frame is "6" not "6-6", a duration column gets one
// unit named in its header, numbers are told from text (hex, JSON-invalid
// numbers and ranges stay text).
func TestNormTable(t *testing.T) {
	h, rows, num := NormTable(
		[]string{"Name", "Frames", "Min", "Calls", "QP", "Odd", "Long"},
		[][]string{
			{"a", "6-6", "33µs", "1", "0x000001", "007", "1.5s"},
			{"b", "6-16", "3.278ms", "12", "0x000014", "1", "2ms"},
			{"c", "", "0", "", "", "2", "0"},
		})
	if want := []string{"Name", "Frames", "Min (ms)", "Calls", "QP", "Odd", "Long (s)"}; !slices.Equal(h, want) {
		t.Errorf("header %q, want %q", h, want)
	}
	if want := []string{"a", "6", "0.033", "1", "0x000001", "007", "1.500000"}; !slices.Equal(rows[0], want) {
		t.Errorf("row %q, want %q", rows[0], want)
	}
	if rows[1][1] != "6-16" || rows[1][2] != "3.278" || rows[2][2] != "0.000" || rows[1][6] != "0.002000" {
		t.Errorf("rows %q", rows)
	}
	if want := []bool{false, false, true, true, false, false, true}; !slices.Equal(num, want) {
		t.Errorf("numeric %v, want %v", num, want)
	}
}

// TestTableStyle: numbers right-aligned, and a table wider than TableWidth
// is split into tables that fit, each repeating the key columns.
func TestTableStyle(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, TableASCII, []string{"Name", "Count"}, [][]string{{"x", "5"}, {"y", "1234"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| x    |     5 |") {
		t.Errorf("not right-aligned:\n%s", &b)
	}
	header := []string{"Flow", "QP"}
	row := []string{"192.0.2.2 → 192.0.2.1", "0x000001"}
	for i := 0; i < 14; i++ {
		header = append(header, "Counter "+string(rune('A'+i)))
		row = append(row, "12345")
	}
	b.Reset()
	if err := Table(&b, TableLight, header, [][]string{row}); err != nil {
		t.Fatal(err)
	}
	tables, cols := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if n := utf8.RuneCountInString(l); n > TableWidth {
			t.Errorf("line of %d columns: %s", n, l)
		}
		if strings.HasPrefix(l, "│ Flow") {
			tables++
			if !strings.Contains(l, "│ QP ") {
				t.Errorf("key column QP not repeated: %s", l)
			}
			cols += strings.Count(l, "Counter")
		}
	}
	if tables < 2 || cols != 14 {
		t.Errorf("%d tables with %d counters:\n%s", tables, cols, &b)
	}
}

func TestPlural(t *testing.T) {
	if Plural(1, "note") != "1 note" || Plural(0, "note") != "0 notes" || Plural(uint64(2), "PDU") != "2 PDUs" {
		t.Error(Plural(1, "note"), Plural(0, "note"))
	}
}

// A key column and a message too long to sit beside it in TableWidth are
// not split apart: the message wraps at a space, every word kept, and a
// message of one long word is left whole rather than cut.
func TestTableWrapsLongText(t *testing.T) {
	msg := "Previous segment(s) not captured (common at capture start) and then some more words to wrap"
	var b bytes.Buffer
	if err := Table(&b, TableASCII, []string{"Flag", "Expert message"}, [][]string{{"tcp.analysis.spurious_retransmission", msg}, {"x", "short"}}); err != nil {
		t.Fatal(err)
	}
	var words []string
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if n := utf8.RuneCountInString(l); n > TableWidth {
			t.Errorf("line of %d columns: %s", n, l)
		}
		if f := strings.Split(l, "|"); len(f) == 4 && strings.Contains(b.String(), "spurious") {
			words = append(words, strings.Fields(f[2])...)
		}
		lines++
	}
	if got := strings.Join(words, " "); !strings.Contains(got, msg) {
		t.Errorf("message words lost or reordered: %q\n%s", got, &b)
	}
	if lines != 7 {
		t.Errorf("%d lines, want 7 (the message over two):\n%s", lines, &b)
	}
	long := strings.Repeat("x", 120)
	b.Reset()
	if err := Table(&b, TableASCII, []string{"K", "V"}, [][]string{{"k", long}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), long) {
		t.Errorf("a single long word was cut:\n%s", &b)
	}
}

// TableStyled: without a style it is Table byte for byte (piped output);
// with one, the header row is in Header (each line of a wrapped header on
// its own), the cells that report failures in Bad (a count above 0 in a
// Failed, Aborts, NAKs... column, "error" under Severity), nothing else,
// and with the escapes taken out the table is Table's, column widths
// and all.
func TestTableStyled(t *testing.T) {
	rows := func() [][]string {
		return [][]string{
			{"error", "malformed", "rx", "3", "0", "2", "5"},
			{"warning", "sequence", "rx", "0", "4", "0", "1"},
			{"note", "a very long group name to make the table wrap its headers over lines", "afs", "0", "0", "0", "7"},
		}
	}
	header := []string{"Severity", "Group", "Protocol", "Failed", "Aborts", "NAKs", "Count"}
	var plain, none, styled bytes.Buffer
	if err := Table(&plain, TableASCII, header, rows()); err != nil {
		t.Fatal(err)
	}
	if err := TableStyled(&none, TableASCII, header, rows(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if none.String() != plain.String() {
		t.Errorf("no style:\n%s\nTable:\n%s", none.String(), plain.String())
	}
	st := &Style{Header: "<H>", Bad: "<B>", Reset: "</>"}
	if err := TableStyled(&styled, TableASCII, header, rows(), st, []string{"", "<M>", ""}); err != nil {
		t.Fatal(err)
	}
	out := styled.String()
	// the table's own measure of a cell ignores only real escape
	// sequences, so compare the markers' positions, not the widths
	for _, want := range []string{"<H>Severity</>", "<H>Failed</>", "<B>error</>", "<B>3</>", "<B>2</>", "<M><B>4</>", "<M>warning</>"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, not := range []string{"<B>0</>", "<B>warning", "<B>note", "<B>5</>", "<B>7</>", "<B>rx"} {
		if strings.Contains(out, not) {
			t.Errorf("%q in:\n%s", not, out)
		}
	}
	// real sequences: taken out, the layout is Table's
	var real bytes.Buffer
	if err := TableStyled(&real, TableASCII, header, rows(), &Colors, []string{"", Colors.Failed, ""}); err != nil {
		t.Fatal(err)
	}
	if strip := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(real.String(), ""); strip != plain.String() {
		t.Errorf("styled, escapes out:\n%s\nTable:\n%s", strip, plain.String())
	}
	if !strings.Contains(plain.String(), "Protocol") || !strings.Contains(real.String(), "\x1b[1mGroup\x1b[m") {
		t.Errorf("styled header:\n%q", real.String())
	}
}
