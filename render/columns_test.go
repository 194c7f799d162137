package render_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/render"
)

var fHidden = dissect.Register(&dissect.Field{Abbrev: "rendertest.hidden", Name: "Hidden Either", Type: dissect.TUint16, Hidden: true})

// A hidden field (Wireshark's hidden items: ip.addr, tcp.port) is left out
// of -V but is there for -T json and -T fields.
func TestHiddenFields(t *testing.T) {
	var tr dissect.Tree
	tr.Proto(pOuter, 0, 4, "")
	tr.Uint(fSeq, 0, 4, 7)
	tr.Uint(fHidden, 0, 2, 4000)
	if v := string(render.Verbose(nil, &tr, nil)); strings.Contains(v, "Hidden") || !strings.Contains(v, "Sequence Number: 7") {
		t.Errorf("-V shows the hidden field or lost the other:\n%s", v)
	}
	if j := string(render.JSON(nil, &tr, 0, false)); !strings.Contains(j, `"rendertest.hidden":"4000"`) {
		t.Errorf("-T json lacks the hidden field: %s", j)
	}
	w, err := render.NewFields([]string{"rendertest.hidden"}, render.FieldsOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if row := string(w.Row(nil, &tr)); row != "4000\n" {
		t.Errorf("-e rendertest.hidden: %q", row)
	}
}

// -e _ws.col.* prints the summary line's columns, without their padding:
// addresses without ports, the MAC addresses of a frame without IP.
func TestColumnFields(t *testing.T) {
	cols := []string{"_ws.col.No.", "_ws.col.Time", "_ws.col.Source", "_ws.col.Destination", "_ws.col.Protocol",
		"_ws.col.Length", "_ws.col.Info", "_ws.col.info", "frame.number"}
	w, err := render.NewFields(cols, render.FieldsOpts{Separator: "|"})
	if err != nil {
		t.Fatal(err)
	}
	eng := dissect.NewEngine(dissect.Options{})
	var tr dissect.Tree
	var first int64
	var got []string
	err = testpkt.Each("../pcaps/kernel/rds_tcp.pcap", func(p dissect.Packet) error {
		if p.Num > 4 {
			return nil
		}
		f := eng.Decode(p)
		if p.Num == 1 {
			first = f.TimeNS
		}
		eng.BuildTree(&tr, f)
		w.SetFrame(f, first)
		row := strings.TrimSuffix(string(w.Row(nil, &tr)), "\n")
		line := strings.TrimSuffix(string(render.Summary(nil, f, first, nil)), "\n")
		c := strings.Split(row, "|")
		if len(c) != len(cols) || !strings.HasSuffix(line, " "+c[6]) || c[6] != c[7] || c[8] != c[0] ||
			!strings.Contains(line, " "+c[4]+" ") || !strings.Contains(line, c[1]+" ") {
			t.Errorf("frame %d: columns %q do not match the summary line %q", p.Num, row, line)
		}
		got = append(got, strings.Join(c[:6], "|"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1|0.000000|52:54:00:00:00:02|ff:ff:ff:ff:ff:ff|ARP|42",
		"2|0.004753|52:54:00:00:00:01|52:54:00:00:00:02|ARP|42",
		"3|0.004937|192.0.2.2|192.0.2.1|TCP|74",
		"4|0.012579|192.0.2.1|192.0.2.2|TCP|74",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("columns:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := render.NewFields([]string{"_ws.col.Nope"}, render.FieldsOpts{}); err == nil {
		t.Error("an unknown column name was accepted")
	}
}
