package bpf

import (
	"fmt"
	"net/netip"

	"golang.org/x/net/bpf"
)

// Program is a compiled filter.
type Program struct {
	Insns []bpf.Instruction
	Raw   []bpf.RawInstruction
	// VLAN is set when the expression tests 802.1Q tags. Linux hands a packet
	// socket's filter the frame with the outer tag removed (it is in the
	// packet's metadata), so such a program is only right in user space, on
	// frames with the tag put back.
	VLAN bool
}

// Compile compiles expr for Ethernet frames; accepted packets are cut to
// snaplen bytes (as libpcap's "ret #snaplen"). An empty expression accepts
// everything.
func Compile(expr string, snaplen int) (*Program, error) {
	if snaplen <= 0 || snaplen > 262144 {
		snaplen = 262144
	}
	n, err := parse(expr)
	if err != nil {
		return nil, err
	}
	g := &gen{linkOff: 12}
	if n == nil {
		g.items = append(g.items, item{ins: bpf.RetConstant{Val: uint32(snaplen)}})
	} else {
		t, f := g.label(), g.label()
		g.emit(n, t, f)
		g.place(t)
		g.items = append(g.items, item{ins: bpf.RetConstant{Val: uint32(snaplen)}})
		g.place(f)
		g.items = append(g.items, item{ins: bpf.RetConstant{Val: 0}})
	}
	insns, err := g.resolve()
	if err != nil {
		return nil, &Error{Expr: expr, Msg: err.Error()}
	}
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return nil, &Error{Expr: expr, Msg: err.Error()}
	}
	return &Program{Insns: insns, Raw: raw, VLAN: g.vlan}, nil
}

// item is an instruction, a conditional jump to labels, or a label.
type item struct {
	ins    bpf.Instruction
	cond   bool
	jump   bool // unconditional, to jt
	test   bpf.JumpTest
	val    uint32
	jt, jf int
	label  int // >0: this item is label number label-1
}

type gen struct {
	items   []item
	nlabels int
	linkOff uint32 // offset of the ethertype; each vlan primitive adds 4, as in libpcap
	vlan    bool
}

func (g *gen) label() int { g.nlabels++; return g.nlabels }

func (g *gen) place(l int) { g.items = append(g.items, item{label: l}) }

func (g *gen) ins(i ...bpf.Instruction) {
	for _, x := range i {
		g.items = append(g.items, item{ins: x})
	}
}

// trueNode always holds.
type trueNode struct{}

// leaf is a test: loads (and masks), then one comparison.
type leaf struct {
	pre  []bpf.Instruction
	test bpf.JumpTest
	val  uint32
}

// emit generates n so control reaches label t when it holds, f otherwise.
// Code is generated in expression order, which keeps libpcap's offset
// semantics for vlan (every primitive after "vlan" sees offsets moved by 4).
func (g *gen) emit(n node, t, f int) {
	switch n := n.(type) {
	case andNode:
		m := g.label()
		g.emit(n.a, m, f)
		g.place(m)
		g.emit(n.b, t, f)
	case orNode:
		m := g.label()
		g.emit(n.a, t, m)
		g.place(m)
		g.emit(n.b, t, f)
	case notNode:
		g.emit(n.a, f, t)
	case trueNode:
		g.items = append(g.items, item{jump: true, jt: t})
	case leaf:
		g.ins(n.pre...)
		g.items = append(g.items, item{cond: true, test: n.test, val: n.val, jt: t, jf: f})
	case prim:
		g.emit(g.expand(n), t, f)
	default:
		panic(fmt.Sprintf("bpf: unknown node %T", n))
	}
}

func ld(off uint32, size int) bpf.Instruction { return bpf.LoadAbsolute{Off: off, Size: size} }

func eq(off uint32, size int, v uint32) leaf {
	return leaf{pre: []bpf.Instruction{ld(off, size)}, test: bpf.JumpEqual, val: v}
}

func anyOf(ns ...node) node {
	n := ns[0]
	for _, m := range ns[1:] {
		n = orNode{n, m}
	}
	return n
}

func allOf(ns ...node) node {
	n := ns[0]
	for _, m := range ns[1:] {
		n = andNode{n, m}
	}
	return n
}

func (g *gen) ether(t uint32) node { return eq(g.linkOff, 2, t) }

// ipProto is "ip proto p" (IPv4 only, no fragment check, as libpcap).
func (g *gen) ipProto(p uint32) node {
	return allOf(g.ether(0x0800), eq(g.linkOff+2+9, 1, p))
}

// ip6Proto is "ip6 proto p": the next header, or the one after a fragment header.
func (g *gen) ip6Proto(p uint32) node {
	pl := g.linkOff + 2
	return allOf(g.ether(0x86dd), anyOf(eq(pl+6, 1, p), allOf(eq(pl+6, 1, 44), eq(pl+40, 1, p))))
}

func dir(d int, src, dst node) node {
	switch d {
	case dirSrc:
		return src
	case dirDst:
		return dst
	case dirAnd:
		return allOf(src, dst)
	}
	return anyOf(src, dst)
}

// expand turns a primitive into leaves at the current offsets.
func (g *gen) expand(p prim) node {
	switch p.kind {
	case primAbbrev: // icmp
		return g.ipProto(p.num)
	case primEtherTy:
		return g.ether(p.num)
	case primVLAN:
		g.vlan = true
		n := anyOf(eq(g.linkOff, 2, 0x8100), eq(g.linkOff, 2, 0x88a8), eq(g.linkOff, 2, 0x9100))
		if p.hasNum {
			n = allOf(n, leaf{pre: []bpf.Instruction{ld(g.linkOff+2, 2), bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0x0fff}}, test: bpf.JumpEqual, val: p.num})
		}
		g.linkOff += 4
		return n
	case primProto:
		switch p.q.proto {
		case protoIP:
			return g.ipProto(p.num)
		case protoIP6:
			return g.ip6Proto(p.num)
		}
		return anyOf(g.ipProto(p.num), g.ip6Proto(p.num))
	case primHost:
		return g.host(p)
	case primPort:
		return g.port(p)
	}
	panic("bpf: unknown primitive")
}

// addrTest compares len(words) 32-bit words at off under mask.
func addrTest(off uint32, a netip.Prefix) node {
	b := a.Addr().AsSlice()
	var ns []node
	bits := a.Bits()
	for i := 0; i < len(b); i += 4 {
		w := uint32(b[i])<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])
		m := uint32(0xffffffff)
		switch {
		case bits <= 0:
			m = 0
		case bits < 32:
			m = ^uint32(0) << (32 - bits)
		}
		bits -= 32
		if m == 0 {
			continue
		}
		l := leaf{pre: []bpf.Instruction{ld(off+uint32(i), 4)}, test: bpf.JumpEqual, val: w & m}
		if m != 0xffffffff {
			l.pre = append(l.pre, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: m})
		}
		ns = append(ns, l)
	}
	if len(ns) == 0 {
		// net 0.0.0.0/0 or ::/0: libpcap loads nothing (its optimizer drops
		// "and #0"), so a short frame still matches.
		return trueNode{}
	}
	return allOf(ns...)
}

func (g *gen) host(p prim) node {
	pl := g.linkOff + 2
	if p.addr.Addr().Is6() {
		return allOf(g.ether(0x86dd), dir(p.q.dir, addrTest(pl+8, p.addr), addrTest(pl+24, p.addr)))
	}
	n := allOf(g.ether(0x0800), dir(p.q.dir, addrTest(pl+12, p.addr), addrTest(pl+16, p.addr)))
	if p.q.proto == protoIP {
		return n
	}
	// Without "ip", libpcap also matches ARP and RARP sender/target addresses.
	arp := dir(p.q.dir, addrTest(pl+14, p.addr), addrTest(pl+24, p.addr))
	rarp := dir(p.q.dir, addrTest(pl+14, p.addr), addrTest(pl+24, p.addr))
	return anyOf(n, allOf(g.ether(0x0806), arp), allOf(g.ether(0x8035), rarp))
}

func portCmp(pre []bpf.Instruction, lo, hi uint16) node {
	if lo == hi {
		return leaf{pre: pre, test: bpf.JumpEqual, val: uint32(lo)}
	}
	return allOf(leaf{pre: pre, test: bpf.JumpGreaterOrEqual, val: uint32(lo)},
		notNode{leaf{test: bpf.JumpGreaterThan, val: uint32(hi)}})
}

func (g *gen) port(p prim) node {
	pl := g.linkOff + 2
	protos := func(off uint32) node {
		switch p.q.proto {
		case protoTCP:
			return eq(off, 1, 6)
		case protoUDP:
			return eq(off, 1, 17)
		}
		return anyOf(eq(off, 1, 132), eq(off, 1, 6), eq(off, 1, 17))
	}
	lo, hi := p.port[0], p.port[1]
	v6 := allOf(g.ether(0x86dd), protos(pl+6),
		dir(p.q.dir, portCmp([]bpf.Instruction{ld(pl+40, 2)}, lo, hi), portCmp([]bpf.Instruction{ld(pl+42, 2)}, lo, hi)))
	// IPv4: only the first fragment carries the ports.
	msh := bpf.LoadMemShift{Off: pl}
	v4 := allOf(g.ether(0x0800), protos(pl+9),
		notNode{leaf{pre: []bpf.Instruction{ld(pl+6, 2)}, test: bpf.JumpBitsSet, val: 0x1fff}},
		dir(p.q.dir,
			portCmp([]bpf.Instruction{msh, bpf.LoadIndirect{Off: pl, Size: 2}}, lo, hi),
			portCmp([]bpf.Instruction{msh, bpf.LoadIndirect{Off: pl + 2, Size: 2}}, lo, hi)))
	return anyOf(v4, v6)
}

// resolve lays out the code and turns labels into forward skips.
func (g *gen) resolve() ([]bpf.Instruction, error) {
	pcOf := make([]int, g.nlabels+1)
	pc := 0
	for _, it := range g.items {
		if it.label > 0 {
			pcOf[it.label] = pc
			continue
		}
		pc++
	}
	if pc > maxInsns {
		return nil, fmt.Errorf("program of %d instructions is longer than the kernel's limit of %d", pc, maxInsns)
	}
	out := make([]bpf.Instruction, 0, pc)
	for _, it := range g.items {
		if it.label > 0 {
			continue
		}
		here := len(out) + 1
		if it.jump {
			out = append(out, bpf.Jump{Skip: uint32(pcOf[it.jt] - here)})
			continue
		}
		if !it.cond {
			out = append(out, it.ins)
			continue
		}
		st, sf := pcOf[it.jt]-here, pcOf[it.jf]-here
		if st < 0 || sf < 0 || st > 255 || sf > 255 {
			return nil, fmt.Errorf("filter too large: a jump of %d instructions does not fit classic BPF", max(st, sf))
		}
		out = append(out, bpf.JumpIf{Cond: it.test, Val: it.val, SkipTrue: uint8(st), SkipFalse: uint8(sf)})
	}
	return out, nil
}

// maxInsns is the kernel's BPF_MAXINSNS.
const maxInsns = 4096
