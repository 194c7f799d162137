package render_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// FuzzFieldsOpt applies arbitrary -E options (one per line) and checks
// what each one promises: a refused option changes nothing; an accepted one
// is NAME=VALUE with a known name and sets exactly its option; the header
// and a row of digit-only fields come out joined by the separator, quoted
// as asked, with repeated fields sharing their values.
func FuzzFieldsOpt(f *testing.F) {
	for _, s := range []string{"header=y", "separator=/t", "separator=,\nquote=d", "aggregator=;", "occurrence=a", "quote=s\nheader=yes",
		"quote=x", "bogus", "header=n", "separator=/s\nquote=n", "occurrence=f", "=y", "header=maybe", "occurrence=l\noccurrence=2"} {
		f.Add(s)
	}
	eng := dissect.NewEngine(dissect.Options{Strict: true})
	ip := make([]byte, 20)
	ip[0], ip[3] = 0x45, 20
	fr := eng.Decode(dissect.Packet{Num: 7, LinkType: dissect.LinkTypeIPv4, Data: ip})
	var tree dissect.Tree
	eng.BuildTree(&tree, fr)
	names := []string{"frame.number", "frame.len", "frame.number"}
	f.Fuzz(func(t *testing.T, in string) {
		var o render.FieldsOpts
		for _, s := range strings.Split(in, "\n") {
			before := o
			err := o.ParseE(s)
			k, v, ok := strings.Cut(s, "=")
			if err != nil {
				if o != before || !strings.Contains(err.Error(), "-E") {
					t.Fatalf("-E %q refused (%v) but changed %+v to %+v", s, err, before, o)
				}
				continue
			}
			want := before
			switch unslash := strings.NewReplacer("/t", "\t", "/s", " "); {
			case !ok:
				t.Fatalf("-E %q accepted without =", s)
			case k == "header" && strings.Contains(" y yes 1 n no 0 ", " "+v+" "):
				want.Header = v == "y" || v == "yes" || v == "1"
			case k == "separator":
				if v == "/t" || v == "/s" {
					v = unslash.Replace(v)
				}
				want.Separator = v
			case k == "aggregator":
				if v == "/t" || v == "/s" {
					v = unslash.Replace(v)
				}
				want.Aggregator = v
			case k == "quote":
				want.Quote = map[string]byte{"d": '"', "s": '\'', "n": 0}[v]
			case k == "occurrence" && (v == "f" || v == "l" || v == "a"):
				want.Occurrence = v[0]
			default:
				t.Fatalf("-E %q accepted", s)
			}
			if o != want {
				t.Fatalf("-E %q made %+v, want %+v", s, o, want)
			}
		}
		w, err := render.NewFields(names, o)
		if err != nil {
			t.Fatal(err)
		}
		sep := o.Separator
		if sep == "" {
			sep = "\t"
		}
		if h, want := string(w.Header(nil)), strings.Join(names, sep)+"\n"; h != want {
			t.Fatalf("header %q, want %q", h, want)
		}
		q := ""
		if o.Quote != 0 {
			q = string(o.Quote)
		}
		if row, want := string(w.Row(nil, &tree)), q+"7"+q+sep+q+"20"+q+sep+q+"7"+q+"\n"; row != want {
			t.Fatalf("row %q, want %q", row, want)
		}
	})
}

// A row reads findings' parts and field values into reused columns: no
// allocation per frame once warm, and Want names what the row reads.
func TestFieldsRowAllocates0(t *testing.T) {
	var tree dissect.Tree
	tree.Uint(dissect.Lookup("frame.number"), -1, 0, 7)
	tree.Bytes(dissect.Lookup("ip.src"), 12, 4, []byte{192, 0, 2, 1})
	tree.Finding(&dissect.Finding{Sev: dissect.Warn, Group: dissect.GroupSequence, Msg: "gap"})
	tree.Uint(dissect.Lookup("frame.number"), -1, 0, 8)
	w, err := render.NewFields([]string{"frame.number", "_ws.expert.message", "ip.src", "_ws.expert.severity"}, render.FieldsOpts{})
	if err != nil {
		t.Fatal(err)
	}
	buf := w.Row(nil, &tree)
	if got, want := string(buf), "7,8\tgap\t192.0.2.1\twarning\n"; got != want {
		t.Fatalf("row %q, want %q", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { buf = w.Row(buf[:0], &tree) }); n != 0 {
		t.Errorf("%v allocations per row", n)
	}
	var s dissect.FieldSet
	w.Want(&s)
	for _, n := range []string{"frame.number", "ip.src", "_ws.expert"} {
		if !s.Has(dissect.Lookup(n)) {
			t.Errorf("%s not wanted", n)
		}
	}
	if s.Has(dissect.Lookup("ip.dst")) || s.Has(dissect.Lookup("frame")) {
		t.Error("a field the row does not read is wanted")
	}
}

// TestFieldsRowEmptiesColumns: a row starts from empty columns, also for a
// name asked twice (one shared column) and with quotes: the values of the
// frame before never leak into the next row.
func TestFieldsRowEmptiesColumns(t *testing.T) {
	w, err := render.NewFields([]string{"frame.number", "frame.len", "frame.number"}, render.FieldsOpts{Quote: '"', Separator: ";;"})
	if err != nil {
		t.Fatal(err)
	}
	var full, empty dissect.Tree
	full.Uint(dissect.FFrameNumber, -1, 0, 7)
	full.Uint(dissect.FFrameLen, -1, 0, 60)
	full.Uint(dissect.FFrameNumber, -1, 0, 8)
	for i, c := range []struct {
		t    *dissect.Tree
		want string
	}{{&full, `"7,8";;"60";;"7,8"` + "\n"}, {&empty, ";;;;\n"}, {&full, `"7,8";;"60";;"7,8"` + "\n"}} {
		if got := string(w.Row(nil, c.t)); got != c.want {
			t.Errorf("row %d: %q, want %q", i, got, c.want)
		}
	}
}
