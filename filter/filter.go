// Package filter implements display filters (`rdx read -Y`) in Wireshark's
// syntax for the forms people type most: a field alone (present), field
// comparisons (==, !=, <, <=, >, >=, also eq ne lt le gt ge), `contains`,
// `in {a b c}`, and, or, not (&&, ||, !), and parentheses. A comparison is true
// when any occurrence of the field satisfies it, as in Wireshark.
package filter

import (
	"bytes"
	stdcmp "cmp" // the package; cmp is this file's comparison node
	"fmt"
	"math/bits"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rdx-project/rdx/dissect"
)

// Filter is a compiled display filter.
type Filter struct {
	root node
	src  string
}

// String returns the source text.
func (f *Filter) String() string { return f.src }

type node interface {
	eval(t *dissect.Tree) bool
	want(s *dissect.FieldSet) // the fields eval reads
}

type and struct{ a, b node }
type or struct{ a, b node }
type not struct{ a node }
type present struct{ f *dissect.Field }
type cmp struct {
	f   *dissect.Field
	op  string
	lit []literal
	// set by resolve, so eval compares no strings and asks no types:
	// mask has bit c+1 set for each stdcmp.Compare result c the operator
	// accepts; text tells that some literal compares the value's text
	// (only then does eval need scratch space for it)
	mask uint8
	text bool
}

type literal struct {
	text   string
	raw    []byte // text, to compare with a value's text without a copy
	num    uint64
	isNum  bool
	prefix netip.Prefix // for address fields: a CIDR or a single address
	isAddr bool
	how    how // how eval compares a value with it (resolve)
}

// how is the comparison eval makes, chosen once by resolve from the
// operator, the field's type and the literal.
type how uint8

const (
	howText  how = iota // the value's text (AppendField) with raw
	howUint             // the masked integer value with num
	howInt16            // the value as a signed int16, int32 or int64 with num
	howInt32
	howInt64
	howAddr // the address value within prefix (== and != only)
)

// masks: bit c+1 set when a stdcmp.Compare result c satisfies the operator.
var masks = map[string]uint8{"==": 1 << 1, "!=": 1<<0 | 1<<2, "<": 1 << 0, "<=": 1<<0 | 1<<1, ">": 1 << 2,
	">=": 1<<1 | 1<<2}

// resolve chooses, once, how eval compares with each literal.
func (c *cmp) resolve() {
	c.mask = masks[c.op]
	c.text = false
	for i := range c.lit {
		l := &c.lit[i]
		switch {
		case c.op == "contains":
			l.how = howText
		case isInt(c.f.Type) && l.isNum:
			switch c.f.Type {
			case dissect.TInt16:
				l.how = howInt16
			case dissect.TInt32:
				l.how = howInt32
			case dissect.TInt64:
				l.how = howInt64
			default:
				l.how = howUint
			}
		case l.isAddr && (c.f.Type == dissect.TIPv4 || c.f.Type == dissect.TIPv6):
			l.how = howAddr
		default:
			l.how = howText
		}
		if l.how == howText {
			c.text = true
		}
	}
}

func (n *and) eval(t *dissect.Tree) bool { return n.a.eval(t) && n.b.eval(t) }
func (n *or) eval(t *dissect.Tree) bool  { return n.a.eval(t) || n.b.eval(t) }
func (n *not) eval(t *dissect.Tree) bool { return !n.a.eval(t) }
func (n *present) eval(t *dissect.Tree) bool {
	for i := range t.Nodes {
		if t.Nodes[i].F == n.f {
			return true
		}
	}
	return false
}

func isInt(t dissect.Type) bool {
	switch t {
	case dissect.TBool, dissect.TUint8, dissect.TUint16, dissect.TUint24, dissect.TUint32, dissect.TUint64,
		dissect.TInt16, dissect.TInt32, dissect.TInt64, dissect.TFrameNum:
		return true
	}
	return false
}

func (c *cmp) eval(t *dissect.Tree) bool {
	if c.text {
		return c.evalText(t)
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.F != c.f {
			continue
		}
		for j := range c.lit {
			l := &c.lit[j]
			if l.how == howUint { // the common case, inline
				if c.accepts(stdcmp.Compare(n.Value(), l.num)) {
					return true
				}
			} else if c.matchNum(n, l) {
				return true
			}
		}
	}
	return false
}

// evalText is eval for a comparison with a literal that compares text.
func (c *cmp) evalText(t *dissect.Tree) bool {
	var scratch [128]byte // a value's text, on the stack for most values
	buf := scratch[:0]
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.F != c.f {
			continue
		}
		for j := range c.lit {
			l := &c.lit[j]
			if l.how != howText {
				if c.matchNum(n, l) {
					return true
				}
				continue
			}
			buf = dissect.AppendField(buf[:0], n)
			if c.op == "contains" {
				if bytes.Contains(buf, l.raw) {
					return true
				}
			} else if c.accepts(bytes.Compare(buf, l.raw)) {
				return true
			}
		}
	}
	return false
}

// accepts tells whether the operator holds for comparison result r (-1, 0, 1).
func (c *cmp) accepts(r int) bool { return c.mask>>uint(r+1)&1 != 0 }

// matchNum compares one occurrence with a literal that is not compared as
// text (l.how != howText).
func (c *cmp) matchNum(n *dissect.Node, l *literal) bool {
	v := n.Value()
	switch l.how {
	case howUint:
		return c.accepts(stdcmp.Compare(v, l.num))
	case howInt16:
		return c.accepts(stdcmp.Compare(int64(int16(v)), int64(l.num)))
	case howInt32:
		return c.accepts(stdcmp.Compare(int64(int32(v)), int64(l.num)))
	case howInt64:
		return c.accepts(stdcmp.Compare(int64(v), int64(l.num)))
	case howAddr:
		a, ok := netip.AddrFromSlice(n.B)
		if !ok {
			return false
		}
		in := l.prefix.Contains(a.Unmap())
		switch c.op {
		case "==":
			return in
		case "!=":
			return !in
		}
	}
	return false
}

// Want adds the fields the filter reads to s, for a sparse tree
// (dissect.Tree.SetWant): a protocol named alone is its protocol node.
func (f *Filter) Want(s *dissect.FieldSet) { f.root.want(s) }

func (n *and) want(s *dissect.FieldSet)     { n.a.want(s); n.b.want(s) }
func (n *or) want(s *dissect.FieldSet)      { n.a.want(s); n.b.want(s) }
func (n *not) want(s *dissect.FieldSet)     { n.a.want(s) }
func (n *present) want(s *dissect.FieldSet) { s.Add(n.f) }
func (c *cmp) want(s *dissect.FieldSet)     { s.Add(c.f) }

// Match tells whether a frame's tree passes the filter.
func (f *Filter) Match(t *dissect.Tree) bool { return f.root.eval(t) }

// Compile parses a filter; errors name the position and what was expected.
func Compile(s string) (*Filter, error) {
	p := &parser{src: s}
	p.lex()
	if p.err != nil {
		return nil, p.err
	}
	if len(p.toks) == 0 {
		return nil, fmt.Errorf("display filter is empty")
	}
	n := p.expr()
	if p.err == nil && p.pos < len(p.toks) {
		p.fail("unexpected %q", p.toks[p.pos].text)
	}
	if p.err != nil {
		return nil, p.err
	}
	return &Filter{root: n, src: s}, nil
}

type token struct {
	text string
	off  int
	kind byte // 'w' word, 's' string, 'o' operator/punctuation
}

type parser struct {
	src  string
	toks []token
	pos  int
	err  error
}

func (p *parser) fail(format string, a ...any) {
	if p.err == nil {
		off := len(p.src)
		if p.pos < len(p.toks) {
			off = p.toks[p.pos].off
		}
		p.err = fmt.Errorf("display filter %q, at offset %d: %s", p.src, off, fmt.Sprintf(format, a...))
	}
}

func (p *parser) lex() {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '"':
			j := i + 1
			var b strings.Builder
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
				j++
			}
			if j >= len(s) {
				p.err = fmt.Errorf("display filter %q: unterminated string at offset %d", s, i)
				return
			}
			p.toks = append(p.toks, token{b.String(), i, 's'})
			i = j + 1
		case strings.ContainsRune("()!{}", rune(c)) && !(c == '!' && i+1 < len(s) && s[i+1] == '='):
			p.toks = append(p.toks, token{string(c), i, 'o'})
			i++
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||") || strings.HasPrefix(s[i:], "==") ||
			strings.HasPrefix(s[i:], "!=") || strings.HasPrefix(s[i:], "<=") || strings.HasPrefix(s[i:], ">="):
			p.toks = append(p.toks, token{s[i : i+2], i, 'o'})
			i += 2
		case c == '<' || c == '>' || c == ',':
			p.toks = append(p.toks, token{string(c), i, 'o'})
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n()!{}=<>&|\",", rune(s[j])) {
				j++
			}
			if j == i {
				p.err = fmt.Errorf("display filter %q: unexpected %q at offset %d", s, c, i)
				return
			}
			p.toks = append(p.toks, token{s[i:j], i, 'w'})
			i = j
		}
	}
}

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].text
	}
	return ""
}

// expr is terms joined by "or", term factors joined by "and" (binding
// tighter); both are left-associative.
func (p *parser) expr() node {
	return p.chain(p.term, "||", "or", func(a, b node) node { return &or{a, b} })
}

func (p *parser) term() node {
	return p.chain(p.factor, "&&", "and", func(a, b node) node { return &and{a, b} })
}

// chain parses operands of next joined by the operator sym (or its word).
func (p *parser) chain(next func() node, sym, word string, join func(a, b node) node) node {
	n := next()
	for p.err == nil {
		if t := p.peek(); t != sym && t != word {
			return n
		}
		p.pos++
		n = join(n, next())
	}
	return n
}

var ops = map[string]string{"==": "==", "eq": "==", "!=": "!=", "ne": "!=", "<": "<", "lt": "<", "<=": "<=",
	"le": "<=", ">": ">", "gt": ">", ">=": ">=", "ge": ">=", "contains": "contains", "in": "in"}

func (p *parser) factor() node {
	if p.err != nil {
		return nil
	}
	switch t := p.peek(); t {
	case "":
		p.fail("expected a field, ! or (")
		return nil
	case "!", "not":
		p.pos++
		return &not{p.factor()}
	case "(":
		p.pos++
		n := p.expr()
		if p.peek() != ")" {
			p.fail("expected )")
			return nil
		}
		p.pos++
		return n
	}
	tok := p.toks[p.pos]
	if tok.kind != 'w' {
		p.fail("expected a field name, found %q", tok.text)
		return nil
	}
	f := dissect.Lookup(tok.text)
	if f == nil {
		p.fail("%q is not a field or protocol (see `rdx fields`)", tok.text)
		return nil
	}
	p.pos++
	op, ok := ops[p.peek()]
	if !ok {
		return &present{f}
	}
	p.pos++
	c := &cmp{f: f, op: op}
	if op == "in" {
		c.op = "=="
		if p.peek() != "{" {
			p.fail("expected { after in")
			return nil
		}
		p.pos++
		for p.err == nil && p.peek() != "}" {
			if p.pos >= len(p.toks) {
				p.fail("expected }")
				return nil
			}
			if p.peek() == "," {
				p.pos++
				continue
			}
			c.lit = append(c.lit, p.literal(f))
		}
		if p.peek() != "}" {
			p.fail("expected }")
			return nil
		}
		p.pos++
		c.resolve()
		return c
	}
	c.lit = append(c.lit, p.literal(f))
	c.resolve()
	return c
}

func (p *parser) literal(f *dissect.Field) literal {
	if p.pos >= len(p.toks) {
		p.fail("expected a value after the operator")
		return literal{}
	}
	tok := p.toks[p.pos]
	if tok.kind == 'o' {
		p.fail("expected a value, found %q", tok.text)
		return literal{}
	}
	p.pos++
	l := literal{text: tok.text, raw: []byte(tok.text)}
	if tok.kind == 's' {
		return l
	}
	switch {
	case isInt(f.Type):
		if f.Type == dissect.TBool {
			switch strings.ToLower(tok.text) {
			case "true":
				l.num, l.isNum = 1, true
				return l
			case "false":
				l.isNum = true
				return l
			}
		}
		if v, err := strconv.ParseInt(tok.text, 0, 64); err == nil {
			l.num, l.isNum = uint64(v), true
		} else if v, err := strconv.ParseUint(tok.text, 0, 64); err == nil {
			l.num, l.isNum = v, true
		} else if f.Names != nil {
			for k, name := range f.Names {
				if strings.EqualFold(name, tok.text) {
					l.num, l.isNum = k, true
				}
			}
		}
		if !l.isNum {
			p.fail("%q is not a valid value for %s (%s)", tok.text, f.Abbrev, f.Type)
		}
		if f.Mask != 0 && l.isNum && l.num > f.Mask>>bits.TrailingZeros64(f.Mask) {
			p.fail("%s is out of range for %s", tok.text, f.Abbrev)
		}
	case f.Type == dissect.TIPv4 || f.Type == dissect.TIPv6:
		if pf, err := netip.ParsePrefix(tok.text); err == nil {
			l.prefix, l.isAddr = pf.Masked(), true
		} else if a, err := netip.ParseAddr(tok.text); err == nil {
			l.prefix, l.isAddr = netip.PrefixFrom(a, a.BitLen()), true
		} else {
			p.fail("%q is not an address or CIDR for %s", tok.text, f.Abbrev)
		}
	}
	return l
}
