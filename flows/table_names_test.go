package flows

import (
	"slices"
	"strconv"
	"testing"
)

// NameFrames writes the frames of tagged tables as file:frame, a range in
// one file once, a range over two with both names; cells that are not
// frame references, or name no file given, stay as they are.
func TestNameFrames(t *testing.T) {
	ref := func(file, n uint64) string { return strconv.FormatUint(file<<FileShift|n, 10) }
	tb := &Table{Header: []string{"A", "Frames"}, FrameCols: []int{1}, Rows: [][]string{
		{"x", ref(0, 3) + "-" + ref(0, 40)},
		{"y", ref(0, 7) + "-" + ref(2, 1)},
		{"z", ref(1, 12)},
		{"w", ""},
		{"v", "n/a"},
		{"u", ref(9, 1)},
	}}
	tb.NameFrames([]string{"a.pcap", "b.pcap", "c.pcap"})
	got := make([]string, len(tb.Rows))
	for i, r := range tb.Rows {
		got[i] = r[1]
	}
	want := []string{"a.pcap:3-40", "a.pcap:7-c.pcap:1", "b.pcap:12", "", "n/a", ref(9, 1)}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if tb.Rows[0][0] != "x" {
		t.Errorf("a column not in FrameCols changed: %q", tb.Rows[0][0])
	}
}

// FileLabels: base names, the names as given where base names repeat, #N
// after a file given again.
func TestFileLabels(t *testing.T) {
	got := FileLabels([]string{"d1/a.pcap", "d2/a.pcap", "d1/b.pcap", "d1/a.pcap"})
	want := []string{"d1/a.pcap", "d2/a.pcap", "b.pcap", "d1/a.pcap#2"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
