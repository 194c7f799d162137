// Package bpf compiles capture-filter expressions (a subset of the
// pcap-filter language) to classic BPF for Ethernet frames.
//
// It exists because the pure-Go compilers available miscompile silently; this
// one accepts fewer forms, refuses everything else by name, and is checked
// against libpcap (tcpdump -ddd) packet by packet in its tests.
//
// Supported: host, net (a.b.c.d/len, a.b.c.d mask m.m.m.m, a.b), port,
// portrange, each with src/dst/src or dst/src and dst and with ip/ip6/tcp/udp
// qualifiers where libpcap allows them; tcp, udp, icmp, ip, ip6; vlan [N];
// proto N, ip proto N, ip6 proto N, ether proto N (N > 1500); and/or/not,
// &&/||/!, parentheses; a bare address or number after and/or/not reuses
// the previous primitive's qualifiers, as in libpcap ("port 80 or 443").
package bpf

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Error reports an expression the compiler refuses; Token names the part.
type Error struct {
	Expr  string
	Token string
	Msg   string
}

func (e *Error) Error() string {
	if e.Token == "" {
		return fmt.Sprintf("capture filter %q: %s", e.Expr, e.Msg)
	}
	return fmt.Sprintf("capture filter %q: %q: %s", e.Expr, e.Token, e.Msg)
}

// Qualifier values.
const (
	protoNone = iota
	protoIP
	protoIP6
	protoTCP
	protoUDP
	protoEther
)

const (
	dirAny = iota // src or dst
	dirSrc
	dirDst
	dirAnd // src and dst
)

const (
	typeNone = iota
	typeHost
	typeNet
	typePort
	typePortrange
	typeProto
)

type quals struct {
	proto, dir, typ int
	ok              bool // false: a bare ID here is an error (after "tcp", "vlan", or at the start)
}

// Node is a parsed filter; And, Or, Not and the primitives.
type node interface{}

type andNode struct{ a, b node }
type orNode struct{ a, b node }
type notNode struct{ a node }

// prim is one primitive, resolved enough to generate code.
type prim struct {
	kind   int // primProto, primHost, ...
	q      quals
	addr   netip.Prefix // host/net
	port   [2]uint16    // port (lo==hi) / portrange
	num    uint32       // protocol number, ethertype, vlan id
	hasNum bool         // vlan N
}

const (
	primAbbrev  = iota // ip, ip6, tcp, udp, icmp: num is the IP protocol or the ethertype
	primHost           // host or net
	primPort           // port or portrange
	primProto          // [ip|ip6] proto N
	primEtherTy        // ether proto N
	primVLAN
)

type parser struct {
	expr string
	toks []string
	pos  int
}

// parse turns expr into a tree.
func parse(expr string) (node, error) {
	p := &parser{expr: expr}
	toks, err := p.lex(expr)
	if err != nil {
		return nil, err
	}
	p.toks = toks
	if len(toks) == 0 {
		return nil, nil // empty: accept everything
	}
	n, _, err := p.expr0(quals{})
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, p.errf(p.toks[p.pos], "unexpected here")
	}
	return n, nil
}

func (p *parser) errf(tok, format string, a ...any) error {
	return &Error{Expr: p.expr, Token: tok, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) lex(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')':
			toks = append(toks, s[i:i+1])
			i++
		case c == '!':
			if i+1 < len(s) && s[i+1] == '=' {
				return nil, p.errf("!=", "comparisons are not supported")
			}
			toks = append(toks, "!")
			i++
		case strings.HasPrefix(s[i:], "&&"), strings.HasPrefix(s[i:], "||"):
			toks = append(toks, s[i:i+2])
			i += 2
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			j := i + 1
			for j < len(s) && !isWordByte(s[j]) && s[j] != ' ' && s[j] != '(' && s[j] != ')' {
				j++
			}
			return nil, p.errf(s[i:j], "unsupported operator or character (only and/or/not, &&/||/!, parentheses)")
		}
	}
	return toks, nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == ':' || c == '/' || c == '-' || c == '_' || c == '\\'
}

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *parser) next() string {
	t := p.peek()
	if t != "" {
		p.pos++
	}
	return t
}

// expr0: and/or have equal precedence and associate to the left, as in
// libpcap's grammar ("a or b and c" is "(a or b) and c").
//
// inh is the qualifier set a bare ID inherits, passed along as libpcap's
// yacc stack does: a term hands its own on to the next and/or, a
// parenthesised group hands on what was in force before the "(".
func (p *parser) expr0(inh quals) (node, quals, error) {
	n, q, err := p.term(inh)
	if err != nil {
		return nil, q, err
	}
	for {
		op := strings.ToLower(p.peek())
		if op != "and" && op != "&&" && op != "or" && op != "||" {
			return n, q, nil
		}
		p.next()
		m, q2, err := p.term(q)
		if err != nil {
			return nil, q, err
		}
		if op == "and" || op == "&&" {
			n = andNode{n, m}
		} else {
			n = orNode{n, m}
		}
		q = q2
	}
}

func (p *parser) term(inh quals) (node, quals, error) {
	t := p.peek()
	switch strings.ToLower(t) {
	case "":
		return nil, inh, p.errf("", "expression ends too early")
	case "not", "!":
		p.next()
		n, q, err := p.term(inh)
		if err != nil {
			return nil, q, err
		}
		return notNode{n}, q, nil
	case "(":
		p.next()
		n, _, err := p.expr0(inh)
		if err != nil {
			return nil, inh, err
		}
		if p.next() != ")" {
			return nil, inh, p.errf(p.peek(), "missing )")
		}
		return n, inh, nil
	case ")", "and", "or", "&&", "||":
		return nil, inh, p.errf(t, "unexpected here")
	}
	return p.primitive(inh)
}

var keywords = map[string]bool{
	"ip": true, "ip6": true, "tcp": true, "udp": true, "icmp": true, "ether": true,
	"src": true, "dst": true, "host": true, "net": true, "port": true, "portrange": true,
	"proto": true, "vlan": true, "mask": true, "and": true, "or": true, "not": true,
}

// unsupported names pcap-filter keywords this compiler refuses, so the error
// says "not supported" rather than "not an address".
var unsupported = map[string]bool{
	"arp": true, "rarp": true, "icmp6": true, "sctp": true, "less": true, "greater": true,
	"len": true, "broadcast": true, "multicast": true, "gateway": true, "mpls": true,
	"pppoed": true, "pppoes": true, "geneve": true, "vxlan": true, "inbound": true, "outbound": true,
	"ifname": true, "on": true, "rnr": true, "rulenum": true, "reason": true, "rset": true,
	"srnr": true, "subrulenum": true, "action": true, "wlan": true, "type": true, "subtype": true,
	"dir": true, "ra": true, "ta": true, "addr1": true, "addr2": true, "addr3": true, "addr4": true,
	"fddi": true, "tr": true, "link": true, "ppp": true, "slip": true, "decnet": true, "atalk": true,
	"aarp": true, "iso": true, "esis": true, "isis": true, "clnp": true, "stp": true, "ipx": true,
	"netbeui": true, "lat": true, "moprc": true, "mopdl": true, "sca": true, "igmp": true, "igrp": true,
	"pim": true, "vrrp": true, "carp": true, "ah": true, "esp": true, "protochain": true, "llc": true,
	"lane": true, "metac": true, "bcc": true, "sc": true, "ilmic": true, "oamf4": true, "oamf4ec": true,
	"oamf4sc": true, "oam": true, "vpi": true, "vci": true, "connectmsg": true, "metaconnect": true,
	"hostname": true, "ip6proto": true, "l1": true, "l2": true, "iso8473": true, "iih": true, "lsp": true,
	"snp": true, "csnp": true, "psnp": true,
}

func (p *parser) primitive(inh quals) (node, quals, error) {
	n, q, err := p.primitive1(inh)
	if err != nil {
		return nil, quals{}, err
	}
	return n, q, nil
}

func (p *parser) primitive1(inh quals) (node, quals, error) {
	start := p.pos
	var q quals
	q.ok = true
	head := false
	t := strings.ToLower(p.peek())
	if unsupported[t] {
		return nil, q, p.errf(p.peek(), "not supported by this capture-filter compiler")
	}

	// Protocol qualifier.
	switch t {
	case "ip", "ip6", "tcp", "udp", "ether":
		q.proto = map[string]int{"ip": protoIP, "ip6": protoIP6, "tcp": protoTCP, "udp": protoUDP, "ether": protoEther}[t]
		p.next()
		head = true
	case "icmp":
		p.next()
		return prim{kind: primAbbrev, num: 1}, quals{}, nil
	case "vlan":
		p.next()
		v := prim{kind: primVLAN}
		if s := p.peek(); s != "" && isNumber(s) {
			p.next()
			n, err := p.number(s, 4095)
			if err != nil {
				return nil, q, err
			}
			v.num, v.hasNum = n, true
		}
		return v, quals{}, nil
	}
	// Direction.
	switch strings.ToLower(p.peek()) {
	case "src", "dst":
		q.dir = dirSrc
		if strings.ToLower(p.next()) == "dst" {
			q.dir = dirDst
		}
		head = true
		// "src or dst" / "src and dst" as one qualifier.
		if p.pos+1 < len(p.toks) {
			a, b := strings.ToLower(p.toks[p.pos]), strings.ToLower(p.toks[p.pos+1])
			if (a == "or" || a == "and") && (b == "src" || b == "dst") && b != map[int]string{dirSrc: "src", dirDst: "dst"}[q.dir] {
				p.pos += 2
				q.dir = dirAny
				if a == "and" {
					q.dir = dirAnd
				}
			}
		}
	}
	// Type.
	switch strings.ToLower(p.peek()) {
	case "host":
		q.typ = typeHost
	case "net":
		q.typ = typeNet
	case "port":
		q.typ = typePort
	case "portrange":
		q.typ = typePortrange
	case "proto":
		q.typ = typeProto
	}
	if q.typ != typeNone {
		p.next()
		head = true
	}

	if !head {
		// A bare ID reuses the inherited qualifiers; with none in force
		// libpcap has a syntax error, and so do we.
		id := p.peek()
		if inh.ok {
			p.next()
			return p.id(inh, id)
		}
		return nil, q, p.errf(id, "not supported here (expected a primitive such as host, net, port, tcp, udp, ip, ip6, vlan)")
	}

	// Protocol abbreviations: "tcp", "ip6" with nothing following that is an ID.
	if q.typ == typeNone && q.dir == dirAny && p.pos == start+1 {
		nx := strings.ToLower(p.peek())
		if nx == "" || nx == ")" || nx == "and" || nx == "or" || nx == "&&" || nx == "||" {
			switch q.proto {
			case protoIP:
				return prim{kind: primEtherTy, num: 0x0800}, quals{}, nil
			case protoIP6:
				return prim{kind: primEtherTy, num: 0x86dd}, quals{}, nil
			case protoTCP:
				return prim{kind: primProto, num: 6}, quals{}, nil
			case protoUDP:
				return prim{kind: primProto, num: 17}, quals{}, nil
			case protoEther:
				return nil, q, p.errf("ether", "needs proto, or use ip/ip6")
			}
		}
	}
	id := p.peek()
	if id == "" || id == "(" || id == ")" || id == "!" || keywords[strings.ToLower(id)] || unsupported[strings.ToLower(id)] {
		return nil, q, p.errf(strings.Join(p.toks[start:p.pos], " "), "needs a value (an address, a number or a range)")
	}
	p.next()
	return p.id(q, id)
}

// id builds the primitive for qualifiers q and value id.
func (p *parser) id(q quals, id string) (node, quals, error) {
	n, err := p.id1(q, id)
	if q.typ == typeNone {
		q.typ = typeHost
	}
	return n, q, err
}

func (p *parser) id1(q quals, id string) (node, error) {
	if unsupported[strings.ToLower(id)] || keywords[strings.ToLower(id)] {
		return nil, p.errf(id, "expected a value, not a keyword")
	}
	if q.typ == typeNone {
		if _, err := netip.ParseAddr(id); err != nil {
			return nil, p.errf(id, "needs a type (host, net, port, portrange, proto)")
		}
		q.typ = typeHost
	}
	if q.proto == protoEther && q.typ != typeProto {
		return nil, p.errf("ether", "only ether proto is supported")
	}
	switch q.typ {
	case typeHost, typeNet:
		return p.hostNet(q, id)
	case typePort, typePortrange:
		if q.proto == protoIP || q.proto == protoIP6 {
			return nil, p.errf(protoName(q.proto), "port needs tcp, udp or no protocol qualifier")
		}
		v := prim{kind: primPort, q: q}
		if q.typ == typePort {
			n, err := p.number(id, 65535)
			if err != nil {
				return nil, err
			}
			v.port = [2]uint16{uint16(n), uint16(n)}
		} else {
			lo, hi, ok := strings.Cut(id, "-")
			if !ok {
				return nil, p.errf(id, "portrange needs LOW-HIGH")
			}
			a, err := p.number(lo, 65535)
			if err != nil {
				return nil, err
			}
			b, err := p.number(hi, 65535)
			if err != nil {
				return nil, err
			}
			if a > b { // libpcap swaps them
				a, b = b, a
			}
			v.port = [2]uint16{uint16(a), uint16(b)}
		}
		return v, nil
	case typeProto:
		if q.dir != dirAny {
			return nil, p.errf(dirName(q.dir), "not allowed with proto")
		}
		if q.proto == protoEther {
			n, err := p.protoNumber(id, 0xffff, etherNames)
			if err != nil {
				return nil, err
			}
			if n <= 1500 {
				return nil, p.errf(id, "ether proto values up to 1500 (802.3 length/LLC) are not supported")
			}
			return prim{kind: primEtherTy, num: n}, nil
		}
		if q.proto == protoTCP || q.proto == protoUDP {
			return nil, p.errf(protoName(q.proto), "not allowed with proto")
		}
		n, err := p.protoNumber(id, 255, ipNames)
		if err != nil {
			return nil, err
		}
		return prim{kind: primProto, q: q, num: n}, nil
	}
	return nil, p.errf(id, "unsupported")
}

var etherNames = map[string]uint32{"ip": 0x0800, "ip6": 0x86dd, "arp": 0x0806, "rarp": 0x8035}
var ipNames = map[string]uint32{"icmp": 1, "tcp": 6, "udp": 17}

func (p *parser) protoNumber(id string, max uint32, names map[string]uint32) (uint32, error) {
	if strings.HasPrefix(id, "\\") {
		if n, ok := names[strings.ToLower(id[1:])]; ok {
			return n, nil
		}
		return 0, p.errf(id, "unknown protocol name")
	}
	return p.number(id, max)
}

func (p *parser) hostNet(q quals, id string) (node, error) {
	if q.proto == protoTCP || q.proto == protoUDP {
		return nil, p.errf(protoName(q.proto), "not allowed with host or net")
	}
	v := prim{kind: primHost, q: q}
	if q.typ == typeHost {
		a, err := netip.ParseAddr(id)
		if err != nil || a.Zone() != "" {
			return nil, p.errf(id, "not an IPv4 or IPv6 address (host names are not resolved)")
		}
		a = a.Unmap()
		v.addr = netip.PrefixFrom(a, a.BitLen())
	} else {
		// net A/len, net A mask M, or net a.b[.c] (mask from the number of parts).
		pfx, err := p.netPrefix(id)
		if err != nil {
			return nil, err
		}
		v.addr = pfx
	}
	if v.addr.Addr().Is4() && q.proto == protoIP6 || v.addr.Addr().Is6() && q.proto == protoIP {
		return nil, p.errf(id, "address family does not match %s", protoName(q.proto))
	}
	return v, nil
}

func (p *parser) netPrefix(id string) (netip.Prefix, error) {
	if strings.Contains(id, "/") {
		pfx, err := netip.ParsePrefix(id)
		if err != nil {
			a, l, _ := strings.Cut(id, "/")
			if n, ok := parseV4Partial(a); ok && !strings.Contains(a, ":") {
				bits, err := strconv.Atoi(l)
				if err == nil && bits >= 0 && bits <= 32 {
					pfx = netip.PrefixFrom(n, bits)
					return p.checkNet(id, pfx)
				}
			}
			return pfx, p.errf(id, "not a network (want A/LEN)")
		}
		return p.checkNet(id, pfx)
	}
	if strings.ToLower(p.peek()) == "mask" {
		p.next()
		m := p.next()
		ma, err := netip.ParseAddr(m)
		if err != nil || !ma.Is4() {
			return netip.Prefix{}, p.errf(m, "not an IPv4 netmask")
		}
		a, err := netip.ParseAddr(id)
		if err != nil || !a.Is4() {
			return netip.Prefix{}, p.errf(id, "not an IPv4 network")
		}
		mb := ma.As4()
		mu := uint32(mb[0])<<24 | uint32(mb[1])<<16 | uint32(mb[2])<<8 | uint32(mb[3])
		bits := 0
		for bits < 32 && mu&(1<<(31-bits)) != 0 {
			bits++
		}
		if bits < 32 && mu<<bits != 0 {
			return netip.Prefix{}, p.errf(m, "non-contiguous netmasks are not supported")
		}
		return p.checkNet(id, netip.PrefixFrom(a, bits))
	}
	if a, err := netip.ParseAddr(id); err == nil {
		return p.checkNet(id, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	if a, ok := parseV4Partial(id); ok {
		return netip.PrefixFrom(a, 8*(strings.Count(id, ".")+1)), nil
	}
	return netip.Prefix{}, p.errf(id, "not a network")
}

func (p *parser) checkNet(id string, pfx netip.Prefix) (netip.Prefix, error) {
	if pfx.Masked() != pfx {
		return pfx, p.errf(id, "non-network bits set")
	}
	return pfx, nil
}

// parseV4Partial parses "a", "a.b", "a.b.c" as libpcap does for net.
func parseV4Partial(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i, x := range parts {
		n, err := strconv.ParseUint(x, 10, 8)
		if err != nil || x == "" || len(x) > 1 && x[0] == '0' {
			return netip.Addr{}, false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom4(b), true
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 0, 32)
	return err == nil
}

// number parses decimal, 0x hex or 0-prefixed octal, as libpcap does.
func (p *parser) number(s string, max uint32) (uint32, error) {
	n, err := strconv.ParseUint(s, 0, 32)
	ls := strings.ToLower(s)
	if err != nil || strings.Contains(s, "_") || strings.HasPrefix(ls, "0b") || strings.HasPrefix(ls, "0o") {
		if s != "" && (s[0] < '0' || s[0] > '9') {
			return 0, p.errf(s, "names are not resolved: use a number")
		}
		return 0, p.errf(s, "not a number")
	}
	if uint32(n) > max {
		return 0, p.errf(s, "out of range (max %d)", max)
	}
	return uint32(n), nil
}

func protoName(p int) string {
	return map[int]string{protoIP: "ip", protoIP6: "ip6", protoTCP: "tcp", protoUDP: "udp", protoEther: "ether"}[p]
}

func dirName(d int) string {
	return map[int]string{dirSrc: "src", dirDst: "dst", dirAnd: "src and dst", dirAny: "src or dst"}[d]
}
