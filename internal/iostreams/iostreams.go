// Package iostreams owns the command's standard streams, terminal detection
// and colour choice, so commands can be tested against in-memory buffers.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IO is a command's streams.
type IO struct {
	In           io.Reader
	Out, ErrOut  io.Writer
	outTTY       bool
	errTTY       bool
	colorEnabled bool
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

// SetColor applies --color auto|always|never; auto means colour only on a
// terminal and only when NO_COLOR is unset or empty (https://no-color.org:
// "present and not an empty string").
func (s *IO) SetColor(mode string) bool {
	switch mode {
	case "always":
		s.colorEnabled = true
	case "never":
		s.colorEnabled = false
	default:
		noColor := os.Getenv("NO_COLOR") != ""
		s.colorEnabled = s.outTTY && !noColor && os.Getenv("TERM") != "dumb"
	}
	return s.colorEnabled
}

// ColorEnabled reports the colour decision.
func (s *IO) ColorEnabled() bool { return s.colorEnabled }

// IsStderrTTY tells whether progress may be shown.
func (s *IO) IsStderrTTY() bool { return s.errTTY }

// SetTTY overrides terminal detection (tests).
func (s *IO) SetTTY(out, err bool) { s.outTTY, s.errTTY = out, err }
