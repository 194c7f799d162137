package render

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
)

// rowPair is one set of -e names and -E options twice: as NewFields makes
// it, and with rowDirect turned off (the column path alone).
func rowPair(t testing.TB, names []string, o FieldsOpts) (direct, columns *Fields) {
	d, err := NewFields(names, o)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := NewFields(names, o)
	c.direct = false
	return d, c
}

// rowFields is what FuzzRowDirect builds trees and asks columns from:
// integers, an address, a string, a protocol and a label field, a hex
// integer and a bit field (rowDirect writes each kind its own way).
var rowFields = []*dissect.Field{dissect.FFrameNumber, dissect.FFrameLen, dissect.Lookup("ip.src"),
	dissect.FFrameProtos, dissect.Lookup("rx"), dissect.Lookup("rx.ack"), dissect.Lookup("rx.seq"),
	dissect.Lookup("eth.type"), dissect.Lookup("ip.dsfield.ecn")}

// FuzzRowDirect: rows made straight into the output (rowDirect) are the
// rows the column path makes, for any tree of these fields (values out of
// column order, repeated, missing, findings among them), any names asked
// (repeated ones too) and any -E options.
func FuzzRowDirect(f *testing.F) {
	f.Add([]byte{0x12, 0x34, 0, 1, 2, 3})
	f.Add([]byte{0x65, 0x00, 2, 1, 0, 0, 9})
	f.Add([]byte{0xff, 0x1f, 6, 5, 4, 3, 2, 1, 0})
	f.Add([]byte{0x0f, 0x80, 0, 0, 1, 1, 7})
	f.Add([]byte{0x00, 0x01, 0, 2, 4, 6})    // quoted, in column order: direct
	f.Add([]byte{0x24, 0x0a, 0, 0xf3, 2, 3}) // ";;" and occurrence=l, a finding
	f.Add([]byte{0x41, 0x30, 0x58})          // eth.type alone: hex, not decimal
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		// in[0]: four names of rowFields by two bits each, some left out
		var names []string
		for k := range 4 {
			if i := int(in[0]>>(2*k)) & 3; i < 3 || k == 0 {
				names = append(names, rowFields[(i+2*k)%len(rowFields)].Abbrev)
			}
		}
		o := FieldsOpts{Separator: "\t", Aggregator: ","}
		switch in[1] & 3 {
		case 1:
			o.Quote = '"'
		case 2:
			o.Separator, o.Aggregator = ";;", "|"
		}
		o.Occurrence = [4]byte{0, 'f', 'l', 'a'}[in[1]>>2&3]
		d, c := rowPair(t, names, o)
		var tree dissect.Tree
		for i, b := range in[2:] {
			fl := rowFields[int(b)%len(rowFields)]
			switch {
			case b >= 0xf0:
				tree.Finding(&dissect.Finding{Sev: dissect.Warn, Msg: "m"})
			case fl.Type == dissect.TIPv4:
				tree.Bytes(fl, i, 4, []byte{192, 0, 2, b})
			case fl.Type == dissect.TString:
				tree.String(fl, i, 1, "s"+string(rune('a'+b%26)))
			default:
				tree.Uint(fl, i, 1, uint64(b)*1001)
			}
		}
		got, want := string(d.Row([]byte("x"), &tree)), string(c.Row([]byte("x"), &tree))
		if got != want {
			t.Fatalf("names %v opts %+v: direct row %q, column row %q", names, o, got, want)
		}
	})
}

// TestRowDirectCaptures: on every capture under pcaps/ (its first 300
// frames), a row of the fields of each frame's tree, asked in tree order,
// in reverse, one field alone, and a field the tree holds twice with the
// first, is the same made straight or by columns.
func TestRowDirectCaptures(t *testing.T) {
	var files []string
	filepath.WalkDir("../pcaps", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.Contains(path, ".pcap") || strings.Contains(path, ".cap")) {
			files = append(files, path)
		}
		return nil
	})
	if len(files) < 20 {
		t.Fatalf("only %d captures under ../pcaps", len(files))
	}
	rows, direct := 0, 0
	for _, path := range files {
		r, err := capture.Open(path)
		if err != nil {
			continue // a capture that is meant not to open
		}
		eng := dissect.NewEngine(dissect.Options{})
		var whole, sparse dissect.Tree
		var pkt capture.Packet
		for num := uint64(1); num <= 300; num++ {
			if err := r.Next(&pkt); err != nil {
				if err != io.EOF {
					t.Logf("%s: %v", path, err)
				}
				break
			}
			p := dissect.Packet{Num: num, TimeNS: pkt.TimeNS, CapLen: pkt.CapLen, WireLen: pkt.WireLen,
				LinkType: pkt.LinkType, Iface: pkt.Iface, Data: pkt.Data}
			fr := eng.Decode(p)
			eng.BuildTree(&whole, fr)
			var names, twice []string
			seen := map[*dissect.Field]bool{}
			for i := range whole.Nodes {
				n := &whole.Nodes[i]
				if n.F == nil || n.IsExpert() {
					continue
				}
				if seen[n.F] && len(twice) == 0 { // a column of two values: the column path
					twice = append(twice, n.F.Abbrev, names[0])
				}
				if !seen[n.F] && len(names) < 8 {
					seen[n.F] = true
					names = append(names, n.F.Abbrev)
				}
				seen[n.F] = true
			}
			if len(names) == 0 {
				continue
			}
			rev := make([]string, len(names))
			for i, n := range names {
				rev[len(names)-1-i] = n
			}
			sets := [][]string{names, rev, names[len(names)-1:]}
			if twice != nil {
				sets = append(sets, twice)
			}
			for _, set := range sets {
				for _, o := range []FieldsOpts{{}, {Quote: '"', Separator: ",", Occurrence: 'f'}} {
					d, c := rowPair(t, set, o)
					var want dissect.FieldSet
					d.Want(&want)
					sparse.SetWant(&want)
					eng.BuildTree(&sparse, fr)
					if _, ok := d.rowDirect(nil, &sparse); ok {
						direct++
					}
					got, exp := string(d.Row(nil, &sparse)), string(c.Row(nil, &sparse))
					if got != exp {
						t.Fatalf("%s frame %d -e %v: direct row %q, column row %q", path, p.Num, set, got, exp)
					}
					rows++
				}
			}
		}
		r.Close()
	}
	if rows == 0 || direct == 0 || direct == rows {
		t.Fatalf("%d rows, %d of them direct: both paths must be exercised", rows, direct)
	}
	t.Logf("%d rows, %d made directly", rows, direct)
}
