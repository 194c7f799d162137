package dissect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Hand-off tables are the one way a protocol passes data to the protocol
// above it, as Wireshark's dissector tables: each table has a name
// ("udp.port", "rx.service"), exact keys and an ordered list of verifying
// heuristics. Protocols register into a table by name at init; the engine
// builds one copy per Engine, binding each entry to that engine's instance of
// the protocol and applying decode-as rules (-d TABLE==KEY,PROTO); the lower
// protocol hands on with one call on the handle it declared:
//
//	var Services = dissect.NewDissectorTable[*Call]("rx.service", "Rx service ID (call data)", 16)
//	...
//	Services.Call(f, uint64(cl.ServiceID), cl)
//
// Keys up to 16 bits are looked up in an array per engine, wider ones in a
// map. Nothing is allocated per call: hand the context as a pointer to a
// struct the lower protocol keeps (a scratch value), since it escapes.

// Handler receives a hand-off: d is the registering protocol's dissector in
// the frame's engine (nil when the protocol has none), c the table's typed
// context. It reports whether it took the data; a false answer lets the
// next heuristic try.
type Handler[C any] func(d Dissector, f *Frame, c C) bool

// KeyRange is an inclusive range of table keys.
type KeyRange struct{ Lo, Hi uint64 }

// maxTableEntries bounds the protocols one table can hold per engine: entry
// numbers are octets in the per-engine key arrays.
const maxTableEntries = 255

// maxSparseKeys bounds how many keys one decode-as rule adds to a table
// keyed wider than 16 bits (a map entry each).
const maxSparseKeys = 1 << 16

// The engine-level tables: the engine dispatches on them itself, calling
// the entry's Dissector.Dissect with the layer's payload. Protocols enter
// them through their Registration's fields (UDPPorts, HeuristicUDP, ...).
const (
	TableLinkType  = "wtap_encap"
	TableEtherType = "ethertype"
	TableIPProto   = "ip.proto"
	TableUDPPort   = "udp.port"
	TableTCPPort   = "tcp.port"
)

type tableDef struct {
	name, desc string
	bits       int  // key width; 0: heuristics only
	hex        bool // keys shown in hex
	declared   bool
	engine     bool // an engine-level table (see above)
	id         int
	check      func(h any) bool // h is a Handler of the table's context type
	regs       []handlerReg     // in registration order
}

type handlerReg struct {
	proto string
	keys  []KeyRange
	heur  bool
	h     any
	// keyed: a heuristic that declines every key but only (AddHeuristicFor)
	keyed bool
	only  uint64
}

var (
	tabMu     sync.Mutex
	tabByName = map[string]*tableDef{}
	tabList   []*tableDef // declared tables, in declaration order
)

// tableNamed finds or creates (undeclared) the table called name; tabMu held.
func tableNamed(name string) *tableDef {
	t := tabByName[name]
	if t == nil {
		t = &tableDef{name: name}
		tabByName[name] = t
	}
	return t
}

func declare(name, desc string, bits int, hex, engine bool, check func(any) bool) *tableDef {
	tabMu.Lock()
	defer tabMu.Unlock()
	t := tableNamed(name)
	if t.declared {
		panic("dissect: table declared twice: " + name)
	}
	t.desc, t.bits, t.hex, t.engine, t.check, t.declared = desc, bits, hex, engine, check, true
	t.id = len(tabList)
	tabList = append(tabList, t)
	return t
}

func init() {
	declare(TableLinkType, "capture link type (LINKTYPE_*)", 16, false, true, nil)
	declare(TableEtherType, "EtherType", 16, true, true, nil)
	declare(TableIPProto, "IP protocol", 8, false, true, nil)
	declare(TableUDPPort, "UDP port", 16, false, true, nil)
	declare(TableTCPPort, "TCP port", 16, false, true, nil)
}

// DissectorTable is the handle of a hand-off table whose context has type C. The
// protocol below declares it at init, once, with NewDissectorTable.
type DissectorTable[C any] struct{ def *tableDef }

// NewDissectorTable declares table name, keyed by an integer of bits bits (0: no
// exact keys, heuristics only). Call it at init, from the package that hands
// data on.
func NewDissectorTable[C any](name, desc string, bits int) DissectorTable[C] {
	return DissectorTable[C]{declare(name, desc, bits, false, false, func(h any) bool {
		_, ok := h.(Handler[C])
		return ok
	})}
}

// NewHexDissectorTable is NewDissectorTable for keys people write in hex (QPs, STags).
func NewHexDissectorTable[C any](name, desc string, bits int) DissectorTable[C] {
	t := NewDissectorTable[C](name, desc, bits)
	t.def.hex = true
	return t
}

// Name is the table's name, as decode-as spells it.
func (t DissectorTable[C]) Name() string { return t.def.name }

// AddHandler adds proto's handler to table under keys (none: proto is only
// offered to decode-as, -d TABLE==KEY,PROTO). A protocol registers one
// handler per table; its decode-as rules use it too. Call it at init.
func AddHandler[C any](table, proto string, keys []KeyRange, h Handler[C]) {
	addReg(table, handlerReg{proto: proto, keys: keys, h: h})
}

// AddHeuristic appends proto's heuristic to table: it is tried, in
// registration order, on data no exact key claimed, and must verify
// strongly (a false positive mislabels traffic). Call it at init.
func AddHeuristic[C any](table, proto string, h Handler[C]) {
	addReg(table, handlerReg{proto: proto, heur: true, h: h})
}

// AddHeuristicFor is AddHeuristic for a heuristic that declines every key
// but key (ibcm's: CM MADs go to QP 1 only). Call tries it, in its place in
// the order, on key alone: on any other key it is skipped without a call,
// which gives the same result. rdx tables lists it as any heuristic.
func AddHeuristicFor[C any](table, proto string, key uint64, h Handler[C]) {
	addReg(table, handlerReg{proto: proto, heur: true, h: h, keyed: true, only: key})
}

func addReg(table string, r handlerReg) {
	tabMu.Lock()
	defer tabMu.Unlock()
	t := tableNamed(table)
	for _, o := range t.regs {
		if o.proto == r.proto && o.heur == r.heur {
			panic("dissect: " + r.proto + " registered twice in table " + table)
		}
	}
	t.regs = append(t.regs, r)
}

// engTable is one engine's copy of a table.
type engTable struct {
	def    *tableDef
	dense  []uint8          // key → 1+index into ents (keys of ≤16 bits)
	sparse map[uint64]uint8 // the same for wider keys
	ents   []engEntry
	heurs  []engEntry
	// the last sparse lookup: a table is mostly called with the key of
	// the call before (one QP, one RPC program), and its keys never
	// change once the engine is built
	lastKey uint64
	lastIdx int
	lastOK  bool
}

type engEntry struct {
	d      Dissector
	h      any               // Handler[C]; nil in engine-level tables
	verify func([]byte) bool // engine-level heuristics
	proto  string
	keyed  bool   // a heuristic tried on key only (AddHeuristicFor)
	only   uint64 // that key
	stream bool   // d is a StreamDissector: asked once, not per TCP segment (wantsStream)
}

// lookup gives the entry index for key, or -1.
func (t *engTable) lookup(key uint64) int {
	if t.dense != nil {
		if key < uint64(len(t.dense)) {
			return int(t.dense[key]) - 1
		}
		return -1
	}
	if len(t.sparse) == 0 {
		return -1
	}
	if t.lastOK && key == t.lastKey {
		return t.lastIdx
	}
	i := -1
	if j, ok := t.sparse[key]; ok {
		i = int(j) - 1
	}
	t.lastKey, t.lastIdx, t.lastOK = key, i, true
	return i
}

// addEntry appends an entry and returns its index.
func (t *engTable) addEntry(en engEntry) int {
	if len(t.ents) == maxTableEntries {
		panic("dissect: more than " + strconv.Itoa(maxTableEntries) + " protocols in table " + t.def.name)
	}
	_, en.stream = en.d.(StreamDissector)
	t.ents = append(t.ents, en)
	return len(t.ents) - 1
}

// set points keys lo..hi at entry i.
func (t *engTable) set(r KeyRange, i int) {
	t.lastOK = false
	if t.def.bits <= 16 {
		if t.dense == nil {
			t.dense = make([]uint8, 1<<t.def.bits)
		}
		for k := r.Lo; k <= r.Hi && k < uint64(len(t.dense)); k++ {
			t.dense[k] = uint8(i + 1)
		}
		return
	}
	if t.sparse == nil {
		t.sparse = map[uint64]uint8{}
	}
	for k := r.Lo; k <= r.Hi; k++ {
		t.sparse[k] = uint8(i + 1)
		if k == r.Hi { // r.Hi may be the largest uint64
			break
		}
	}
}

// buildTables makes the engine's copies of every declared table: the
// registered handlers bound to this engine's instances, then the decode-as
// rules, which win over registered keys.
func (e *Engine) buildTables() {
	tabMu.Lock()
	defs := append([]*tableDef(nil), tabList...)
	regs := make([][]handlerReg, len(defs))
	for i, d := range defs {
		regs[i] = append([]handlerReg(nil), d.regs...)
	}
	tabMu.Unlock()
	e.tabs = make([]engTable, len(defs))
	for i, d := range defs {
		t := &e.tabs[i]
		t.def = d
		for _, r := range regs[i] {
			if d.engine {
				panic("dissect: " + r.proto + " registered in " + d.name + " by AddHandler: engine-level tables take the Registration's fields")
			}
			if !d.check(r.h) {
				panic(fmt.Sprintf("dissect: %s registered a %T in table %s, which wants another context type", r.proto, r.h, d.name))
			}
			en := engEntry{d: e.instanceOf(r.proto), h: r.h, proto: r.proto, keyed: r.keyed, only: r.only}
			if r.heur {
				t.heurs = append(t.heurs, en)
				continue
			}
			if len(r.keys) == 0 {
				continue // a decode-as candidate only
			}
			j := t.addEntry(en)
			for _, k := range r.keys {
				t.set(k, j)
			}
		}
	}
	// The engine-level tables take the registrations' shorthand fields.
	tab := func(name string) *engTable { return &e.tabs[tabByNameLocked(name).id] }
	e.tLink, e.tEther, e.tIP, e.tUDP, e.tTCP = tab(TableLinkType), tab(TableEtherType), tab(TableIPProto), tab(TableUDPPort), tab(TableTCPPort)
	engTabs := []*engTable{e.tLink, e.tEther, e.tIP, e.tUDP, e.tTCP}
	for i, r := range e.regs {
		for _, t := range engTabs {
			keys, _ := regKeys(r, t.def.name)
			if len(keys) == 0 {
				continue
			}
			j := t.addEntry(engEntry{d: e.inst[i], proto: r.Name})
			for _, k := range keys {
				t.set(k, j)
			}
		}
		if r.HeuristicUDP != nil {
			e.tUDP.heurs = append(e.tUDP.heurs, engEntry{d: e.inst[i], verify: r.HeuristicUDP, proto: r.Name})
		}
		if r.HeuristicTCP != nil {
			e.tTCP.heurs = append(e.tTCP.heurs, engEntry{d: e.inst[i], verify: r.HeuristicTCP, proto: r.Name})
			if _, ok := e.inst[i].(StreamDissector); ok {
				e.streamHeur = true
			}
		}
	}
	for _, t := range engTabs {
		if t.dense == nil {
			t.dense = make([]uint8, 1<<t.def.bits) // dispatch indexes them unchecked
		}
	}
	for _, da := range e.Opts.DecodeAs {
		t := e.tableFor(da.Table)
		if t == nil {
			continue // refused by ParseDecodeAs; an engine cannot report it
		}
		en, ok := e.candidate(t, da.Proto, regs[t.def.id])
		if !ok {
			continue
		}
		t.set(KeyRange{da.Lo, da.Hi}, t.entryFor(en))
	}
}

// entryFor gives the index of proto's entry, added if new: however many
// rules name it, a protocol has one entry per table (a table cannot hold
// more than there are protocols, which stay far below maxTableEntries).
func (t *engTable) entryFor(en engEntry) int {
	for i := range t.ents {
		if t.ents[i].proto == en.proto {
			return i
		}
	}
	return t.addEntry(en)
}

func tabByNameLocked(name string) *tableDef {
	tabMu.Lock()
	defer tabMu.Unlock()
	return tabByName[name]
}

func (e *Engine) tableFor(name string) *engTable {
	d := tabByNameLocked(name)
	if d == nil || !d.declared || d.id >= len(e.tabs) {
		return nil
	}
	return &e.tabs[d.id]
}

// candidate is the entry decode-as gives proto in table t: in the
// engine-level tables any dissector, elsewhere the handler proto registered.
func (e *Engine) candidate(t *engTable, proto string, regs []handlerReg) (engEntry, bool) {
	if t.def.engine {
		d := e.instanceOf(proto)
		return engEntry{d: d, proto: proto}, d != nil
	}
	for _, r := range regs {
		if r.proto == proto && !r.heur {
			return engEntry{d: e.instanceOf(proto), h: r.h, proto: proto}, true
		}
	}
	return engEntry{}, false
}

func (e *Engine) instanceOf(name string) Dissector {
	for i, r := range e.regs {
		if r.Name == name {
			return e.inst[i]
		}
	}
	return nil
}

// regKeys gives the keys Registration r puts in the engine-level table
// called name, and whether it has a heuristic there.
func regKeys(r *Registration, name string) (keys []KeyRange, heur bool) {
	switch name {
	case TableLinkType:
		return u16Keys(r.LinkTypes), false
	case TableEtherType:
		return u16Keys(r.EtherTypes), false
	case TableIPProto:
		for _, p := range r.IPProtos {
			keys = append(keys, KeyRange{uint64(p), uint64(p)})
		}
		return keys, false
	case TableUDPPort:
		return portKeys(r.UDPPorts), r.HeuristicUDP != nil
	case TableTCPPort:
		return portKeys(r.TCPPorts), r.HeuristicTCP != nil
	}
	return nil, false
}

func u16Keys(v []uint16) []KeyRange {
	var out []KeyRange
	for _, k := range v {
		out = append(out, KeyRange{uint64(k), uint64(k)})
	}
	return out
}

func portKeys(v []PortRange) []KeyRange {
	var out []KeyRange
	for _, p := range v {
		out = append(out, KeyRange{uint64(p.Lo), uint64(p.Hi)})
	}
	return out
}

// Call hands c to the protocol registered under key in the frame's engine,
// or, when none is or it declines, to the table's heuristics in order. It
// reports whether a protocol took it.
func (t DissectorTable[C]) Call(f *Frame, key uint64, c C) bool {
	e := f.eng
	if e == nil || t.def.id >= len(e.tabs) {
		return false
	}
	et := &e.tabs[t.def.id]
	if i := et.lookup(key); i >= 0 {
		en := &et.ents[i]
		if en.h.(Handler[C])(en.d, f, c) {
			return true
		}
	}
	for i := range et.heurs {
		en := &et.heurs[i]
		if en.keyed && en.only != key {
			continue // it declines any other key (AddHeuristicFor)
		}
		if en.h.(Handler[C])(en.d, f, c) {
			return true
		}
	}
	return false
}

// Has reports whether the frame's engine has any protocol in the table, so
// a lower layer can skip work (e.g. message assembly) nobody would read.
func (t DissectorTable[C]) Has(f *Frame) bool {
	e := f.eng
	if e == nil || t.def.id >= len(e.tabs) {
		return false
	}
	et := &e.tabs[t.def.id]
	return len(et.ents) > 0 || len(et.heurs) > 0
}

// DecodeAs is one `-d` rule: keys Lo..Hi of Table go to the protocol Proto.
type DecodeAs struct {
	Table  string // "udp.port", "rx.service", "infiniband.destqp", ...
	Lo, Hi uint64
	Proto  string
}

// ParseDecodeAs parses tshark's `-d` syntax, TABLE==KEY,PROTO, for every
// table: "udp.port==7000,rx", "tcp.port==4000-4010,mpa", "udp.port==7000:3,rx"
// (a range by count), "rx.service==52,afs_vl",
// "infiniband.destqp==0x11,rpcordma". Keys are decimal or 0x hex.
func ParseDecodeAs(s string) (DecodeAs, error) {
	var d DecodeAs
	sel, proto, ok := strings.Cut(s, ",")
	if !ok {
		return d, fmt.Errorf("decode-as %q: want TABLE==KEY,PROTOCOL (rdx tables lists them)", s)
	}
	name, val, ok := strings.Cut(sel, "==")
	if !ok {
		return d, fmt.Errorf("decode-as %q: want TABLE==KEY,PROTOCOL (rdx tables lists them)", s)
	}
	d.Table, d.Proto = strings.TrimSpace(name), strings.TrimSpace(proto)
	tabMu.Lock()
	t := tabByName[d.Table]
	var regs []handlerReg
	if t != nil {
		regs = append(regs, t.regs...)
	}
	tabMu.Unlock()
	if t == nil || !t.declared || t.bits == 0 {
		return d, fmt.Errorf("decode-as %q: unknown table %q (known: %s)", s, d.Table, strings.Join(keyedTables(), ", "))
	}
	what := "key"
	if t.engine && strings.HasSuffix(t.name, ".port") {
		what = "port"
	}
	max := uint64(1)<<t.bits - 1
	parse := func(v string) (uint64, error) {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 0, 64)
		if err != nil || n > max {
			return 0, fmt.Errorf("decode-as %q: bad %s %q (%d bits, decimal or 0x hex)", s, what, v, t.bits)
		}
		return n, nil
	}
	if lo, hi, isRange := strings.Cut(val, "-"); isRange {
		a, err := parse(lo)
		if err != nil {
			return d, err
		}
		b, err := parse(hi)
		if err != nil {
			return d, err
		}
		if b < a {
			return d, fmt.Errorf("decode-as %q: empty %s range", s, what)
		}
		d.Lo, d.Hi = a, b
	} else if lo, cnt, isCount := strings.Cut(val, ":"); isCount {
		a, err := parse(lo)
		if err != nil {
			return d, err
		}
		c, err := parse(cnt)
		if err != nil || c == 0 || a+c-1 > max || a+c-1 < a {
			return d, fmt.Errorf("decode-as %q: bad %s count", s, what)
		}
		d.Lo, d.Hi = a, a+c-1
	} else {
		a, err := parse(val)
		if err != nil {
			return d, err
		}
		d.Lo, d.Hi = a, a
	}
	if t.bits > 16 && d.Hi-d.Lo >= maxSparseKeys {
		return d, fmt.Errorf("decode-as %q: more than %d keys in one rule", s, maxSparseKeys)
	}
	var cands []string
	if t.engine {
		cands = DissectorNames()
	} else {
		for _, r := range regs {
			if !r.heur {
				cands = append(cands, r.proto)
			}
		}
		sort.Strings(cands)
	}
	for _, c := range cands {
		if c == d.Proto {
			return d, nil
		}
	}
	return d, fmt.Errorf("decode-as %q: unknown protocol %q for %s (known: %s)", s, d.Proto, d.Table, strings.Join(cands, ", "))
}

func keyedTables() []string {
	tabMu.Lock()
	defer tabMu.Unlock()
	var out []string
	for _, t := range tabList {
		if t.bits > 0 {
			out = append(out, t.name)
		}
	}
	sort.Strings(out)
	return out
}

// TableInfo describes one table for `rdx tables` and `-d help`.
type TableInfo struct {
	Name, Desc string
	Bits       int  // 0: heuristics only
	Hex        bool // keys are written in hex
	Entries    []TableEntry
	Heuristics []string // protocol names, in the order they are tried
	DecodeAs   []string // protocols -d accepts for the table (nil: every dissector)
}

// TableEntry is a key range a protocol registered.
type TableEntry struct {
	Keys  KeyRange
	Proto string
}

// KeyString spells a key range as -d takes it.
func (t TableInfo) KeyString(r KeyRange) string {
	f := func(v uint64) string { return strconv.FormatUint(v, 10) }
	if t.Hex {
		f = func(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }
	}
	if r.Lo == r.Hi {
		return f(r.Lo)
	}
	return f(r.Lo) + "-" + f(r.Hi)
}

// Tables lists the declared tables by name, with what the registrations put
// in them (decode-as rules of an engine are not included).
func Tables() []TableInfo {
	regsMu.Lock()
	var shorthand []*Registration
	shorthand = append(shorthand, regs...)
	regsMu.Unlock()
	tabMu.Lock()
	defer tabMu.Unlock()
	var out []TableInfo
	for _, d := range tabList {
		ti := TableInfo{Name: d.name, Desc: d.desc, Bits: d.bits, Hex: d.hex}
		for _, r := range d.regs {
			switch {
			case r.heur:
				ti.Heuristics = append(ti.Heuristics, r.proto)
			default:
				for _, k := range r.keys {
					ti.Entries = append(ti.Entries, TableEntry{k, r.proto})
				}
				ti.DecodeAs = append(ti.DecodeAs, r.proto)
			}
		}
		if d.engine {
			for _, r := range shorthand {
				keys, heur := regKeys(r, d.name)
				for _, k := range keys {
					ti.Entries = append(ti.Entries, TableEntry{k, r.Name})
				}
				if heur {
					ti.Heuristics = append(ti.Heuristics, r.Name)
				}
			}
			ti.DecodeAs = nil
		} else {
			sort.Strings(ti.DecodeAs)
		}
		sort.SliceStable(ti.Entries, func(i, j int) bool { return ti.Entries[i].Keys.Lo < ti.Entries[j].Keys.Lo })
		out = append(out, ti)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Bind makes f a frame of e, for tests that drive a dissector directly and
// want its hand-offs to reach e's tables.
func (e *Engine) Bind(f *Frame) { f.eng = e }
