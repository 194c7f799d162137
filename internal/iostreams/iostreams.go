// Package iostreams owns the command's standard streams, terminal detection
// and colour choice, so commands can be tested against in-memory buffers.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/rdx-project/rdx/render"
)

// IO is a command's streams.
type IO struct {
	In          io.Reader
	Out, ErrOut io.Writer
	outTTY      bool
	errTTY      bool
	profile     colorprofile.Profile
	style       *render.Style
	// Color and Colors are the root's --color and --colors flags.
	Color, Colors string
}

// System returns the process's streams.
func System() *IO {
	return &IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		outTTY: term.IsTerminal(int(os.Stdout.Fd())), errTTY: term.IsTerminal(int(os.Stderr.Fd()))}
}

// Test returns streams backed by buffers (no TTY).
func Test() (*IO, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// SetColor applies --color auto|always|never and detects standard output's
// colour profile (16, 256 or 16M colours, or attributes only), once per
// run: auto means colour only on a terminal and only when NO_COLOR is
// unset or empty (https://no-color.org: "present and not an empty string")
// and TERM is not dumb; always colours even a pipe, in at least the 16
// ANSI colours. It tells whether anything is styled.
func (s *IO) SetColor(mode string) bool {
	env := os.Environ()
	switch mode {
	case "always":
		// CLICOLOR_FORCE is colorprofile's "colour even without a terminal"
		s.profile = max(colorprofile.Env(append(without(env, "NO_COLOR"), "CLICOLOR_FORCE=1")), colorprofile.ANSI)
	case "never":
		s.profile = colorprofile.NoTTY
	default:
		s.profile = colorprofile.NoTTY
		if s.outTTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" {
			if f, ok := s.Out.(*os.File); ok {
				s.profile = colorprofile.Detect(f, env) // the terminal's terminfo too
			} else {
				s.profile = colorprofile.Env(env)
			}
		}
	}
	return s.ColorEnabled()
}

// without is env less the variable name.
func without(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) <= len(name) || kv[:len(name)+1] != name+"=" {
			out = append(out, kv)
		}
	}
	return out
}

// Profile is the colour profile SetColor chose (NoTTY: no styling).
func (s *IO) Profile() colorprofile.Profile { return s.profile }

// ColorEnabled reports the colour decision.
func (s *IO) ColorEnabled() bool { return s.profile > colorprofile.NoTTY }

// SetTheme makes the style of theme in the chosen profile the run's.
func (s *IO) SetTheme(t *render.Theme) { s.style = render.NewStyle(t, s.profile) }

// Style is the run's escape sequences (nil: no styling).
func (s *IO) Style() *render.Style { return s.style }

// IsStderrTTY tells whether progress may be shown.
func (s *IO) IsStderrTTY() bool { return s.errTTY }

// IsStdoutTTY tells whether standard output is a terminal.
func (s *IO) IsStdoutTTY() bool { return s.outTTY }

// SetTTY overrides terminal detection (tests).
func (s *IO) SetTTY(out, err bool) { s.outTTY, s.errTTY = out, err }
