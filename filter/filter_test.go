package filter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/filter"
)

// tree builds a small tree by hand: ip.src 192.0.2.1, rx.type 2 (ack),
// rx.flags 0x21, two rx.seq values, an abort code -455 and a version string.
func tree() *dissect.Tree {
	var t dissect.Tree
	t.Bytes(dissect.Lookup("ip.src"), 26, 4, []byte{192, 0, 2, 1})
	t.Uint(dissect.Lookup("rx.type"), 62, 1, 2)
	t.Uint(dissect.Lookup("rx.flags"), 63, 1, 0x21)
	t.Uint(dissect.Lookup("rx.flags.client_init"), 63, 1, 0x21)
	t.Uint(dissect.Lookup("rx.seq"), 54, 4, 5)
	t.Uint(dissect.Lookup("rx.seq"), -1, 0, 6)
	t.Int(dissect.Lookup("rx.abort_code"), 70, 4, -455)
	t.String(dissect.Lookup("rx.version_string"), 70, 10, "OpenAFS 1.8.9")
	return &t
}

func TestMatch(t *testing.T) {
	cases := map[string]bool{
		"rx":                                 false, // the protocol node is not in this hand-made tree
		"rx.seq":                             true,
		"rx.seq == 6":                        true, // any occurrence
		"rx.seq == 7":                        false,
		"rx.seq > 5 && rx.seq < 7":           true,
		"rx.type == ack":                     true, // value names
		"rx.type eq 2 and not rx.reason":     true,
		"rx.flags == 0x21":                   true,
		"rx.flags.client_init":               true,
		"rx.flags.client_init == 1":          true,
		"rx.flags.client_init == false":      false,
		"rx.abort_code == -455":              true,
		"rx.abort_code < 0":                  true,
		"ip.src == 192.0.2.1":                true,
		"ip.src == 192.0.2.0/24":             true,
		"ip.src != 198.51.100.0/24":          true,
		"rx.version_string contains \"1.8\"": true,
		"rx.type in {1 3 4}":                 false,
		"rx.type in {1, 2}":                  true,
		"!(rx.seq == 5) || rx.type == 1":     false,
		"(rx.type == 1 || rx.type == 2) && ip.src == 192.0.2.1": true,
	}
	tr := tree()
	for expr, want := range cases {
		f, err := filter.Compile(expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if got := f.Match(tr); got != want {
			t.Errorf("%s: got %v, want %v", expr, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"":                         "empty",
		"rx.nosuch == 1":           `"rx.nosuch" is not a field`,
		"rx.seq ==":                "expected a value",
		"rx.seq == banana":         `"banana" is not a valid value for rx.seq`,
		"(rx.seq == 1":             "expected )",
		"rx.seq == 1 rx.type":      `unexpected "rx.type"`,
		"ip.src == 300.1.1.1":      "not an address",
		"rx.version_string == \"x": "unterminated string",
		"rx.type in {1 2":          "expected }",
	} {
		_, err := filter.Compile(expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", expr, err, want)
		}
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{"rx.seq == 1", "!(ip.src == 1.2.3.4/8) || rx.type in {1 2}", "rx.version_string contains \"a\""} {
		f.Add(s)
	}
	tr := tree()
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := filter.Compile(s)
		if err != nil {
			return
		}
		m := flt.Match(tr)
		if flt.String() != s {
			t.Fatalf("%q compiled says it is %q", s, flt.String())
		}
		// The logic is the logic: a compiled expression negates and
		// combines like a boolean.
		for _, c := range []struct {
			expr string
			want bool
		}{{"!(" + s + ")", !m}, {"(" + s + ") && (" + s + ")", m}, {"(" + s + ") || !(" + s + ")", true}} {
			g, err := filter.Compile(c.expr)
			if err != nil {
				t.Fatalf("%q compiles but %q does not: %v", s, c.expr, err)
			}
			if got := g.Match(tr); got != c.want {
				t.Fatalf("%q matches: %v; %q: %v", s, m, c.expr, got)
			}
		}
	})
}

// Matching allocates nothing, string comparisons and contains included: -Y
// runs on every frame.
func TestMatchAllocates0(t *testing.T) {
	tr := tree()
	f, err := filter.Compile(`rx.version_string contains "1.8" && rx.version_string != "x" && ip.src == 192.0.2.0/24 && rx.seq in {6 7} && !rx.reason`)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Match(tr) {
		t.Fatal("no match")
	}
	if n := testing.AllocsPerRun(100, func() { f.Match(tr) }); n != 0 {
		t.Errorf("%v allocations per Match", n)
	}
}

// Want names every field the filter reads and nothing else.
func TestWant(t *testing.T) {
	f, err := filter.Compile(`rx && (rx.seq > 1 || !ip.src) && rx.version_string contains "x"`)
	if err != nil {
		t.Fatal(err)
	}
	var s dissect.FieldSet
	f.Want(&s)
	for _, n := range []string{"rx", "rx.seq", "ip.src", "rx.version_string"} {
		if !s.Has(dissect.Lookup(n)) {
			t.Errorf("%s not wanted", n)
		}
	}
	for _, n := range []string{"rx.type", "ip", "ip.dst", "frame"} {
		if s.Has(dissect.Lookup(n)) {
			t.Errorf("%s wanted", n)
		}
	}
}

// Every operator on every kind of comparison (unsigned, signed, address,
// text, a quoted literal on an integer field, a mix of both in one set)
// agrees with Go's own comparison of the values in tree(): the operators
// are resolved once at Compile, so a wrong table would show here.
func TestOperatorsAgainstGo(t *testing.T) {
	tr := tree()
	ops := []struct {
		sym string
		ok  func(c int) bool
	}{
		{"==", func(c int) bool { return c == 0 }}, {"!=", func(c int) bool { return c != 0 }},
		{"<", func(c int) bool { return c < 0 }}, {"<=", func(c int) bool { return c <= 0 }},
		{">", func(c int) bool { return c > 0 }}, {">=", func(c int) bool { return c >= 0 }},
		{"eq", func(c int) bool { return c == 0 }}, {"ne", func(c int) bool { return c != 0 }},
		{"lt", func(c int) bool { return c < 0 }}, {"le", func(c int) bool { return c <= 0 }},
		{"gt", func(c int) bool { return c > 0 }}, {"ge", func(c int) bool { return c >= 0 }},
	}
	// any tells whether some value v of the field satisfies op against lit.
	anyOf := func(vals []int64, lit int64, ok func(int) bool) bool {
		for _, v := range vals {
			if ok(cmpInt(v, lit)) {
				return true
			}
		}
		return false
	}
	check := func(expr string, want bool) {
		t.Helper()
		f, err := filter.Compile(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := f.Match(tr); got != want {
			t.Errorf("%s: got %v, want %v", expr, got, want)
		}
	}
	for _, op := range ops {
		for lit := int64(3); lit <= 8; lit++ { // rx.seq is 5 and 6 (unsigned)
			check(fmt.Sprintf("rx.seq %s %d", op.sym, lit), anyOf([]int64{5, 6}, lit, op.ok))
		}
		for _, lit := range []int64{-456, -455, -454, 0, 455} { // rx.abort_code is -455 (signed)
			check(fmt.Sprintf("rx.abort_code %s %d", op.sym, lit), anyOf([]int64{-455}, lit, op.ok))
		}
		for _, lit := range []string{"OpenAFS 1.8.8", "OpenAFS 1.8.9", "OpenAFS 1.9", "A"} { // text
			check(fmt.Sprintf("rx.version_string %s %q", op.sym, lit), op.ok(strings.Compare("OpenAFS 1.8.9", lit)))
		}
		for _, lit := range []string{"1", "2", "3", "10"} { // a quoted literal compares rx.type's text, "2"
			check(fmt.Sprintf("rx.type %s %q", op.sym, lit), op.ok(strings.Compare("2", lit)))
		}
		// Addresses: in the prefix for ==, not in it for !=, never for the order operators.
		for _, lit := range []string{"192.0.2.1", "192.0.2.0/24", "198.51.100.0/24"} {
			in := lit != "198.51.100.0/24"
			want := map[string]bool{"==": in, "eq": in, "!=": !in, "ne": !in}[op.sym]
			check(fmt.Sprintf("ip.src %s %s", op.sym, lit), want)
		}
	}
	// A set mixing a number and a quoted literal takes each its own way.
	check(`rx.type in {7 "2"}`, true)
	check(`rx.type in {2 "7"}`, true)
	check(`rx.type in {7 "7"}`, false)
	check(`rx.seq in {"6" 9}`, true)
	check(`rx.abort_code in {"x" -455}`, true)
	check(`ip.src in {"192.0.2.1" 198.51.100.1}`, true) // the quoted one compares text
	check(`ip.src in {"192.0.2.2" 192.0.2.0/30}`, true)
	check(`ip.src in {"192.0.2.2" 198.51.100.1}`, false)
	check(`rx.seq contains "6"`, true)
	check(`rx.seq contains 7`, false)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
