package iostreams

import (
	"os"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/rdx-project/rdx/render"
)

// The colour decision render's Style follows: --color auto colours only a
// terminal, and not under NO_COLOR or TERM=dumb; always and never override.
func TestSetColor(t *testing.T) {
	t.Setenv("TERM", "xterm")
	for _, c := range []struct {
		name          string
		tty           bool
		noColor, term string // "-": unset
		mode          string
		want          bool
	}{
		{"auto on a terminal", true, "-", "xterm", "auto", true},
		{"auto on a pipe", false, "-", "xterm", "auto", false},
		{"auto under NO_COLOR", true, "1", "xterm", "auto", false},
		{"auto under an empty NO_COLOR", true, "", "xterm", "auto", true},
		{"auto on a dumb terminal", true, "-", "dumb", "auto", false},
		{"always on a pipe", false, "-", "xterm", "always", true},
		{"always under NO_COLOR", false, "1", "xterm", "always", true},
		{"never on a terminal", true, "-", "xterm", "never", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", "x")
			if c.noColor == "-" {
				unsetenv(t, "NO_COLOR")
			} else {
				t.Setenv("NO_COLOR", c.noColor)
			}
			t.Setenv("TERM", c.term)
			s, _, _, _ := Test()
			s.SetTTY(c.tty, false)
			if got := s.SetColor(c.mode); got != c.want || s.ColorEnabled() != c.want {
				t.Errorf("SetColor(%q) = %v, ColorEnabled %v; want %v", c.mode, got, s.ColorEnabled(), c.want)
			}
		})
	}
	// Test() streams are not terminals: auto means no colour.
	unsetenv(t, "NO_COLOR")
	if s, _, _, _ := Test(); s.SetColor("auto") {
		t.Error("test streams coloured")
	}
}

// unsetenv removes name for the test (t.Setenv first, so it is restored).
func unsetenv(t *testing.T, name string) {
	t.Setenv(name, "")
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

// The profile is the terminal's, as TERM and COLORTERM name it: 16, 256
// or 16M colours; --color always gives at least 16 even on a pipe with no
// TERM; NO_COLOR and never give none.
func TestColorProfile(t *testing.T) {
	for _, c := range []struct {
		name, term, colorterm, noColor, mode string
		tty                                  bool
		want                                 colorprofile.Profile
	}{
		{"xterm", "xterm", "", "", "auto", true, colorprofile.ANSI},
		{"xterm-256color", "xterm-256color", "", "", "auto", true, colorprofile.ANSI256},
		{"truecolor", "xterm-256color", "truecolor", "", "auto", true, colorprofile.TrueColor},
		{"pipe", "xterm-256color", "truecolor", "", "auto", false, colorprofile.NoTTY},
		{"NO_COLOR", "xterm-256color", "truecolor", "1", "auto", true, colorprofile.NoTTY},
		{"never", "xterm-256color", "truecolor", "", "never", true, colorprofile.NoTTY},
		{"always, no TERM", "", "", "", "always", false, colorprofile.ANSI},
		{"always, NO_COLOR", "xterm-256color", "", "1", "always", false, colorprofile.ANSI256},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TERM", c.term)
			if c.term == "" {
				unsetenv(t, "TERM")
			}
			t.Setenv("COLORTERM", c.colorterm)
			t.Setenv("NO_COLOR", c.noColor)
			s, _, _, _ := Test()
			s.SetTTY(c.tty, false)
			s.SetColor(c.mode)
			if got := s.Profile(); got != c.want {
				t.Errorf("profile %v, want %v", got, c.want)
			}
			s.SetTheme(render.DefaultTheme())
			if (s.Style() != nil) != (c.want > colorprofile.NoTTY) {
				t.Errorf("style %+v with profile %v", s.Style(), c.want)
			}
		})
	}
}
