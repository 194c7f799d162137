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
}

type literal struct {
	text   string
	raw    []byte // text, to compare with a value's text without a copy
	num    uint64
	isNum  bool
	prefix netip.Prefix // for address fields: a CIDR or a single address
	isAddr bool
}

func (n and) eval(t *dissect.Tree) bool { return n.a.eval(t) && n.b.eval(t) }
func (n or) eval(t *dissect.Tree) bool  { return n.a.eval(t) || n.b.eval(t) }
func (n not) eval(t *dissect.Tree) bool { return !n.a.eval(t) }
func (n present) eval(t *dissect.Tree) bool {
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

func (c cmp) eval(t *dissect.Tree) bool {
	var scratch [128]byte // a value's text, on the stack for most values
	buf := scratch[:0]
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.F != c.f {
			continue
		}
		for j := range c.lit {
			var ok bool
			if ok, buf = c.match(n, &c.lit[j], buf); ok {
				return true
			}
		}
	}
	return false
}

// match compares one occurrence with one literal; buf is scratch space for
// the value's text, returned for reuse.
func (c cmp) match(n *dissect.Node, l *literal, buf []byte) (bool, []byte) {
	if c.op == "contains" {
		buf = dissect.AppendField(buf[:0], n)
		return bytes.Contains(buf, l.raw), buf
	}
	if isInt(c.f.Type) && l.isNum {
		v := n.Value()
		lv := l.num
		if c.f.Type == dissect.TInt16 || c.f.Type == dissect.TInt32 || c.f.Type == dissect.TInt64 {
			a, b := int64(v), int64(lv)
			switch c.f.Type {
			case dissect.TInt16:
				a = int64(int16(v))
			case dissect.TInt32:
				a = int64(int32(v))
			}
			return order(c.op, stdcmp.Compare(a, b)), buf
		}
		return order(c.op, stdcmp.Compare(v, lv)), buf
	}
	if l.isAddr && (c.f.Type == dissect.TIPv4 || c.f.Type == dissect.TIPv6) {
		a, ok := netip.AddrFromSlice(n.B)
		if !ok {
			return false, buf
		}
		in := l.prefix.Contains(a.Unmap())
		switch c.op {
		case "==":
			return in, buf
		case "!=":
			return !in, buf
		}
		return false, buf
	}
	buf = dissect.AppendField(buf[:0], n)
	return order(c.op, bytes.Compare(buf, l.raw)), buf
}

func order(op string, c int) bool {
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// Want adds the fields the filter reads to s, for a sparse tree
// (dissect.Tree.SetWant): a protocol named alone is its protocol node.
func (f *Filter) Want(s *dissect.FieldSet) { f.root.want(s) }

func (n and) want(s *dissect.FieldSet)     { n.a.want(s); n.b.want(s) }
func (n or) want(s *dissect.FieldSet)      { n.a.want(s); n.b.want(s) }
func (n not) want(s *dissect.FieldSet)     { n.a.want(s) }
func (n present) want(s *dissect.FieldSet) { s.Add(n.f) }
func (c cmp) want(s *dissect.FieldSet)     { s.Add(c.f) }

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
	return p.chain(p.term, "||", "or", func(a, b node) node { return or{a, b} })
}

func (p *parser) term() node {
	return p.chain(p.factor, "&&", "and", func(a, b node) node { return and{a, b} })
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
		return not{p.factor()}
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
		return present{f}
	}
	p.pos++
	c := cmp{f: f, op: op}
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
		return c
	}
	c.lit = append(c.lit, p.literal(f))
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
