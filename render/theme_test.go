package render_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// The escape sequences of each class, per terminal profile: the default
// theme keeps the terminal's own 16 colours in every colour profile, ASCII
// (a terminal without colour, NO_COLOR as colorprofile reads it) keeps only
// the attributes, and no terminal (a pipe, --color never) gets no Style.
func TestStyleProfiles(t *testing.T) {
	def := render.DefaultTheme()
	colour := render.Style{Error: "\x1b[31m", Warn: "\x1b[33m", Note: "\x1b[36m", Retrans: "\x1b[2m", Dup: "\x1b[2m",
		Proto: "\x1b[1m", Failed: "\x1b[1m", Header: "\x1b[1m", Bad: "\x1b[31m", Reset: "\x1b[m"}
	attrs := render.Style{Retrans: "\x1b[2m", Dup: "\x1b[2m", Proto: "\x1b[1m", Failed: "\x1b[1m", Header: "\x1b[1m", Reset: "\x1b[m"}
	for _, c := range []struct {
		p    colorprofile.Profile
		want render.Style
	}{
		{colorprofile.TrueColor, colour},
		{colorprofile.ANSI256, colour},
		{colorprofile.ANSI, colour},
		{colorprofile.ASCII, attrs},
	} {
		if got := render.NewStyle(def, c.p); got == nil || !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%v: got %+v, want %+v", c.p, got, c.want)
		}
	}
	if got := render.NewStyle(def, colorprofile.NoTTY); got != nil {
		t.Errorf("NoTTY: a style %+v", got)
	}
	if !reflect.DeepEqual(render.Colors, colour) {
		t.Errorf("render.Colors %+v, want the default theme in ANSI", render.Colors)
	}
}

// One frame rendered under each profile with a theme of RGB, 256-colour and
// named colours gives the SGR sequences each profile can show: RGB
// downsampled to the nearest 256 and 16 colours, none in ASCII but bold.
func TestSummaryProfiles(t *testing.T) {
	theme, err := render.ParseTheme("t.colors", strings.NewReader(`
# rdx theme
proto.rendertest2 = #88c0d0
error = #ff0000 bold
warning = 208 on blue # comment
#comment
`))
	if err != nil {
		t.Fatal(err)
	}
	f := ipFrame() // worst finding: an error
	plain := string(render.Summary(nil, f, 1e9, nil))
	for _, c := range []struct {
		p            colorprofile.Profile
		proto, error string
	}{
		{colorprofile.TrueColor, "\x1b[38;2;136;192;208m", "\x1b[1;38;2;255;0;0m"},
		{colorprofile.ANSI256, "\x1b[38;5;110m", "\x1b[1;38;5;196m"},
		{colorprofile.ANSI, "\x1b[94m", "\x1b[1;91m"},
		{colorprofile.ASCII, "", "\x1b[1m"},
	} {
		st := render.NewStyle(theme, c.p)
		want := plain
		if c.proto != "" {
			want = strings.Replace(want, "RENDERTEST2 ", c.proto+"RENDERTEST2\x1b[m ", 1)
		}
		want = strings.Replace(want, "DATA seq 1", c.error+"DATA seq 1", 1)
		want = strings.TrimSuffix(want, "\n") + "\x1b[m\n"
		if got := string(render.Summary(nil, f, 1e9, st)); got != want {
			t.Errorf("%v:\n got %q\nwant %q", c.p, got, want)
		}
	}
	// The warning's background, in each colour profile.
	for p, want := range map[colorprofile.Profile]string{
		colorprofile.TrueColor: "\x1b[38;5;208;44m", colorprofile.ANSI256: "\x1b[38;5;208;44m", colorprofile.ANSI: "\x1b[91;44m",
	} {
		if got := render.NewStyle(theme, p).Warn; got != want {
			t.Errorf("%v: warning %q, want %q", p, got, want)
		}
	}
	// No profile (pipe, NO_COLOR, --color never): not one escape.
	if got := string(render.Summary(nil, f, 1e9, render.NewStyle(theme, colorprofile.NoTTY))); got != plain || strings.ContainsRune(got, 0x1b) {
		t.Errorf("NoTTY: %q", got)
	}
}

// "none" makes a class plain; a later line of a key wins.
func TestThemeNone(t *testing.T) {
	theme, err := render.ParseTheme("t", strings.NewReader("proto = green\nproto = none\nnote=NONE\n"))
	if err != nil {
		t.Fatal(err)
	}
	st := render.NewStyle(theme, colorprofile.TrueColor)
	if st.Proto != "" || st.Note != "" || st.Error != "\x1b[31m" {
		t.Errorf("%+v", st)
	}
}

// A bad theme line is refused with the file and line named.
func TestThemeErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"error = red\nwarnings = yellow\n", "my.colors:2: unknown key \"warnings\""},
		{"\n\nerror red\n", "my.colors:3: want KEY = STYLE"},
		{"error = crimson\n", "my.colors:1: error: \"crimson\" is neither a colour"},
		{"error = 256\n", "my.colors:1: error: 256: a colour number is 0-255"},
		{"error = #12345\n", "my.colors:1: error: \"#12345\" is neither a colour"},
		{"error = red on\n", "my.colors:1: error: on: no background colour"},
		{"error = red blue\n", "my.colors:1: error: blue: a second text colour"},
		{"error =\n", "my.colors:1: error: no style"},
		{"error = none bold\n", "my.colors:1: error: none stands alone"},
		{"proto.nosuch = red\n", "my.colors:1: proto.nosuch: \"nosuch\" is not a protocol"},
	} {
		_, err := render.ParseTheme("my.colors", strings.NewReader(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	// The README's example theme, comments and all.
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, ex, _ := strings.Cut(string(readme), "# ~/.config/rdx.colors\n")
	ex, _, _ = strings.Cut(ex, "```")
	th, err := render.ParseTheme("README", strings.NewReader(ex))
	if err != nil || !strings.Contains(ex, "proto.rx") {
		t.Fatalf("README's theme: %v\n%s", err, ex)
	}
	if st := render.NewStyle(th, colorprofile.ANSI256); st.Warn != "\x1b[38;5;208m" || st.Note != "" || st.Failed != "\x1b[1;31;47m" {
		t.Errorf("README's theme: %+v", st)
	}
	// Every key and word the README documents is accepted.
	good := "error = red bold\nwarning = bright-yellow\nnote = brightcyan italic\nretransmission = dim\n" +
		"duplicate = faint underline\nproto = reverse strikethrough\ncheck.failed = 1 on #123\nproto.rendertest = #88C0D0\n"
	if _, err := render.ParseTheme("ok", strings.NewReader(good)); err != nil {
		t.Error(err)
	}
}

// The tree's expert lines: a note about a duplicate is dim like a
// retransmission, any other note cyan.
func TestVerboseExpertClasses(t *testing.T) {
	c := &render.Colors
	for _, x := range []struct {
		fd   dissect.Finding
		want string
	}{
		{dissect.Finding{Sev: dissect.Note, Group: dissect.GroupSequence, Field: fSeq, Msg: "Duplicate ACK (#1)"}, c.Dup},
		{dissect.Finding{Sev: dissect.Note, Group: dissect.GroupSequence, Field: fSeq, Msg: "retransmission of seq 1"}, c.Retrans},
		{dissect.Finding{Sev: dissect.Note, Group: dissect.GroupProtocol, Field: fSeq, Msg: "a note"}, c.Note},
		{dissect.Finding{Sev: dissect.Error, Group: dissect.GroupSequence, Field: fSeq, Msg: "retransmission, and wrong"}, c.Error},
	} {
		var tr dissect.Tree
		tr.Proto(pOuter, 0, 4, "")
		tr.Finding(&x.fd)
		if got := string(render.Verbose(nil, &tr, c)); !strings.Contains(got, "    "+x.want+"Expert Info") {
			t.Errorf("%s: %q, want %q", x.fd.Msg, got, x.want)
		}
	}
}

var sgrRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// A marked row is drawn in its sequence, cell by cell, and the table is
// otherwise Table's: the same text once the sequences are taken out.
func TestTableMarked(t *testing.T) {
	header := []string{"Check", "Proto", "Checked", "Failed", "First failing frames"}
	rows := func() [][]string {
		return [][]string{{"mpa.crc", "mpa", "10", "0", ""}, {"mpa.marker", "mpa", "12", "3", "4 5 6"}}
	}
	var plain, marked bytes.Buffer
	if err := render.Table(&plain, render.TableASCII, header, rows()); err != nil {
		t.Fatal(err)
	}
	if err := render.TableMarked(&marked, render.TableASCII, header, rows(), []string{"", "\x1b[1m"}, "\x1b[m"); err != nil {
		t.Fatal(err)
	}
	if got := sgrRE.ReplaceAllString(marked.String(), ""); got != plain.String() {
		t.Errorf("marked table differs beyond its sequences:\n%s\nwant\n%s", got, plain.String())
	}
	lines := strings.Split(marked.String(), "\n")
	var bold, other int
	for _, l := range lines {
		switch {
		case strings.Contains(l, "mpa.marker"):
			bold++
			for _, cell := range []string{"mpa.marker", "mpa", "12", "3", "4 5 6"} {
				if !strings.Contains(l, "\x1b[1m"+cell+"\x1b[m") {
					t.Errorf("cell %q not bold: %q", cell, l)
				}
			}
		case strings.Contains(l, "\x1b["):
			other++
		}
	}
	if bold != 1 || other != 0 {
		t.Errorf("%d bold rows, %d other lines with escapes:\n%s", bold, other, fmt.Sprint(marked.String()))
	}
}

// FuzzParseTheme: a --colors file is user input; any text gives a theme or
// an error naming the line, never a panic, and a theme always renders under
// every profile.
func FuzzParseTheme(f *testing.F) {
	f.Add("error = red bold\nproto.rx = #88c0d0 # comment\nnote = 208 on blue\n")
	f.Add("retransmission = dim\ncheck.failed = bright-red underline\nwarning = none\n")
	f.Add("= \nerror red\nerror = #12\nerror = 999\n")
	f.Fuzz(func(t *testing.T, text string) {
		th, err := render.ParseTheme("fuzz.colors", strings.NewReader(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.colors") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.Ascii} {
			render.NewStyle(th, p)
		}
	})
}
