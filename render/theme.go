package render

import (
	"bufio"
	"bytes"
	"fmt"
	"image/color"
	"io"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/rdx-project/rdx/dissect"
)

// Theme is rdx's colouring rules, as Wireshark's default colouring rules
// go by a frame's expert severity and protocol: each class of output (a
// finding's severity, a retransmission, a failing check, the protocol
// column) has a lipgloss style. DefaultTheme gives the defaults; a --colors
// file (ParseTheme) changes some of them.
type Theme struct {
	rules  map[string]lipgloss.Style // ThemeKeys, and "proto.NAME"
	protos []string                  // the proto.NAME keys, in the file's order
}

// ThemeKeys are the classes a theme styles, besides proto.NAME (the
// protocol column of one protocol, e.g. proto.rx).
var ThemeKeys = []string{
	"error",          // a frame (its Info) or tree line with an error finding
	"warning",        // ... with a warning finding
	"note",           // ... with only notes (Wireshark's note and chat)
	"retransmission", // a note about a retransmission (TCP, Rx, RDS, RDP, IB)
	"duplicate",      // a note about a duplicate (duplicate ACK, PSN)
	"proto",          // the summary's Protocol column
	"check.failed",   // a row of rdx check's table whose check failed
	"table.header",   // the header row of the -z, stats, flows and check tables
	"table.error",    // a table cell that reports failures: a count of them (Failed, Aborts, NAKs...) above 0, an error severity
}

// DefaultTheme is the built-in rules: errors red, warnings yellow, notes
// cyan, retransmissions and duplicates dim, the protocol column, failing
// checks and table headers bold, tables' failure cells red.
func DefaultTheme() *Theme {
	s := lipgloss.NewStyle()
	return &Theme{rules: map[string]lipgloss.Style{
		"error":          s.Foreground(lipgloss.Red),
		"warning":        s.Foreground(lipgloss.Yellow),
		"note":           s.Foreground(lipgloss.Cyan),
		"retransmission": s.Faint(true),
		"duplicate":      s.Faint(true),
		"proto":          s.Bold(true),
		"check.failed":   s.Bold(true),
		"table.header":   s.Bold(true),
		"table.error":    s.Foreground(lipgloss.Red),
	}}
}

// ParseTheme reads a --colors file over the default theme. Each line is
// "KEY = STYLE"; blank lines, lines starting with '#' and "# ..." after a
// style are comments. KEY
// is one of ThemeKeys or proto.NAME (a protocol rdx decodes); STYLE is
// words: a colour (black, red, green, yellow, blue, magenta, cyan, white,
// their bright- forms, 0-255, #rgb or #rrggbb) for the text, "on" and a
// colour for the background, the attributes bold, dim, italic, underline,
// reverse, strikethrough, or "none" alone for plain text. A bad line is an
// error naming name and the line number.
func ParseTheme(name string, r io.Reader) (*Theme, error) {
	t := DefaultTheme()
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(cutComment(sc.Text()))
		if line == "" {
			continue
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, ln, fmt.Sprintf(format, a...))
		}
		key, spec, ok := strings.Cut(line, "=")
		key, spec = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(spec)
		if !ok || key == "" {
			return nil, fail("want KEY = STYLE, e.g. error = red bold")
		}
		if p, isProto := strings.CutPrefix(key, "proto."); isProto {
			if f := dissect.Lookup(p); dissect.LookupProto(p) == nil && (f == nil || f.Type != dissect.TProtocol) {
				return nil, fail("%s: %q is not a protocol (rdx fields lists them)", key, p)
			}
			if !slices.Contains(t.protos, p) {
				t.protos = append(t.protos, p)
			}
		} else if !slices.Contains(ThemeKeys, key) {
			return nil, fail("unknown key %q (want %s or proto.NAME)", key, strings.Join(ThemeKeys, ", "))
		}
		st, err := parseStyle(spec)
		if err != nil {
			return nil, fail("%s: %v", key, err)
		}
		t.rules[key] = st
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}

// cutComment drops a comment: from a '#' that starts the line or follows
// a blank and is followed by one (or ends the line), so "#88c0d0" stays.
func cutComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') &&
			(i == 0 || i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			return line[:i]
		}
	}
	return line
}

// parseStyle turns "red bold", "on blue", "#88c0d0" or "none" into a style.
func parseStyle(spec string) (lipgloss.Style, error) {
	st := lipgloss.NewStyle()
	words := strings.Fields(strings.ToLower(spec))
	if len(words) == 0 {
		return st, fmt.Errorf("no style (write none for plain text)")
	}
	fg := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w {
		case "none", "plain":
			if len(words) > 1 {
				return st, fmt.Errorf("%s stands alone", w)
			}
		case "bold":
			st = st.Bold(true)
		case "dim", "faint":
			st = st.Faint(true)
		case "italic":
			st = st.Italic(true)
		case "underline":
			st = st.Underline(true)
		case "reverse":
			st = st.Reverse(true)
		case "strikethrough":
			st = st.Strikethrough(true)
		case "on":
			if i+1 == len(words) {
				return st, fmt.Errorf("on: no background colour after it")
			}
			i++
			c, err := parseColor(words[i])
			if err != nil {
				return st, err
			}
			st = st.Background(c)
		default:
			c, err := parseColor(w)
			if err != nil {
				return st, err
			}
			if fg {
				return st, fmt.Errorf("%s: a second text colour (on COLOUR sets the background)", w)
			}
			fg = true
			st = st.Foreground(c)
		}
	}
	return st, nil
}

var colorNames = []string{"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"}

func parseColor(w string) (color.Color, error) {
	name := strings.TrimPrefix(strings.TrimPrefix(w, "bright-"), "bright")
	if i := slices.Index(colorNames, name); i >= 0 {
		if name != w {
			i += 8
		}
		return lipgloss.Color(strconv.Itoa(i)), nil // 0-15: the terminal's own 16 colours
	}
	if n, err := strconv.Atoi(w); err == nil {
		if n < 0 || n > 255 {
			return nil, fmt.Errorf("%s: a colour number is 0-255", w)
		}
		return lipgloss.Color(w), nil
	}
	if strings.HasPrefix(w, "#") && (len(w) == 4 || len(w) == 7) {
		if _, err := strconv.ParseUint(w[1:], 16, 32); err == nil {
			return lipgloss.Color(w), nil
		}
	}
	return nil, fmt.Errorf("%q is neither a colour (red, bright-red, 0-255, #rrggbb) nor an attribute (bold, dim, italic, underline, reverse, strikethrough)", w)
}

// NewStyle turns t into the escape sequences of terminal profile p, once
// per run: the summary and tree then only copy them (no lipgloss call, no
// allocation per frame). Without colour (colorprofile.NoTTY: a pipe,
// NO_COLOR, --color never) it is nil, and nothing is styled. ASCII keeps
// bold, dim and the other attributes and drops the colours.
func NewStyle(t *Theme, p colorprofile.Profile) *Style {
	if p <= colorprofile.NoTTY {
		return nil
	}
	seq := func(key string) string { pre, _ := sgr(t.rules[key], p); return pre }
	_, reset := sgr(lipgloss.NewStyle().Bold(true), p)
	s := &Style{Error: seq("error"), Warn: seq("warning"), Note: seq("note"), Retrans: seq("retransmission"),
		Dup: seq("duplicate"), Proto: seq("proto"), Failed: seq("check.failed"), Header: seq("table.header"),
		Bad: seq("table.error"), Reset: reset}
	for _, name := range t.protos {
		s.protos = append(s.protos, protoSeq{name, seq("proto." + name)})
	}
	return s
}

// sgr is the sequence that starts st's text in profile p ("" when st is
// plain there) and the one that ends it: lipgloss renders a marker,
// colorprofile downsamples its colours to p, and the parts around the
// marker are kept.
func sgr(st lipgloss.Style, p colorprofile.Profile) (pre, post string) {
	var b bytes.Buffer
	w := &colorprofile.Writer{Forward: &b, Profile: p}
	// a printable marker: lipgloss passes control characters through
	// unstyled when it styles each character (underline, strikethrough);
	// an SGR sequence holds no X
	if _, err := w.Write([]byte(st.Render("X"))); err != nil {
		return "", ""
	}
	pre, post, _ = strings.Cut(b.String(), "X")
	if pre == "\x1b[m" || pre == "\x1b[0m" { // only colours, and p has none
		return "", ""
	}
	return pre, post
}
