// Package dissect is rdx's core model: the field registry, the lazily built
// protocol tree, findings (expert info), frames and PDUs, and the Engine that
// drives a captured frame through link, network, transport and protocol layers.
//
// Protocol packages (dissect/rx, dissect/afs, ...) own their byte offsets; this
// package only knows how to carry what they found.
package dissect

import (
	"fmt"
	"sort"
	"sync"
)

// Type is a field's value type; it decides how the value is displayed.
type Type uint8

const (
	TNone     Type = iota // a label or protocol node, no value
	TProtocol             // a protocol layer
	TBool
	TUint8
	TUint16
	TUint24
	TUint32
	TUint64
	TInt32
	TInt64
	TString
	TBytes
	TIPv4
	TIPv6
	TEther
	TAbsTime  // value: Unix time in nanoseconds
	TRelTime  // value: int64 nanoseconds
	TFrameNum // value: a frame number
	TFloat    // value: math.Float64bits
	TInt16    // value: the 16 bits, sign-extended when shown
)

var typeNames = [...]string{"FT_NONE", "FT_PROTOCOL", "FT_BOOLEAN", "FT_UINT8", "FT_UINT16", "FT_UINT24",
	"FT_UINT32", "FT_UINT64", "FT_INT32", "FT_INT64", "FT_STRING", "FT_BYTES", "FT_IPv4", "FT_IPv6",
	"FT_ETHER", "FT_ABSOLUTE_TIME", "FT_RELATIVE_TIME", "FT_FRAMENUM", "FT_DOUBLE", "FT_INT16"}

// String returns Wireshark's name for the type (as `tshark -G fields` prints it).
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("FT_%d", t)
}

// width is the value's size in bytes, for zero-padded hex.
func (t Type) width() int {
	switch t {
	case TUint8:
		return 1
	case TUint16, TInt16:
		return 2
	case TUint24:
		return 3
	case TUint32, TInt32:
		return 4
	case TUint64, TInt64:
		return 8
	}
	return 0
}

// Base is the display base of an integer field.
type Base uint8

const (
	BaseDec Base = iota
	BaseHex
	BaseDecHex // decimal, then hex in parentheses in the tree
	BaseHexDec // hex, then decimal in parentheses in the tree
	BaseOct    // octal with a leading 0 in the tree; decimal in fields, as tshark
)

var baseNames = [...]string{"BASE_DEC", "BASE_HEX", "BASE_DEC_HEX", "BASE_HEX_DEC", "BASE_OCT"}

func (b Base) String() string { return baseNames[b] }

// Field is one registered field: what `-e`, JSON keys, display of the tree and
// `rdx fields` know it by. Register fields once, at package init.
type Field struct {
	Abbrev string // Wireshark-style abbreviation, e.g. "rx.seq"
	Name   string // display name, e.g. "Sequence Number"
	Type   Type
	Base   Base
	Mask   uint64            // for bit fields: the bits inside the parent value
	Bits   int               // width of the parent value in bits, for the ".... ..1." display
	Names  map[uint64]string // value names (value_string)
	Desc   string            // one-line description for `rdx fields`
	Proto  string            // protocol abbreviation, filled in by Register
	// Hidden fields (Wireshark's hidden items: ip.addr, tcp.port, ...) are
	// in the tree for -e, -Y and -T json but not shown by -V.
	Hidden bool
	// Later marks a field whose value on a frame comes from a later frame
	// (a request's reply frame, a finding a later frame explains): only a
	// first pass over the whole input knows it, so asking for it (-e, -Y)
	// makes the pipeline read twice.
	Later bool
	// Global marks a field numbered over the whole capture in order of
	// first frame (tcp.stream, udp.stream): a -j worker sees only its own
	// flows, so when the output shows one (-e, -Y, a whole tree) the -j
	// reader numbers them for the workers (Engine.NumberStreams).
	Global bool
	id     int
}

// ID is the field's registration index (stable within one binary).
func (f *Field) ID() int { return f.id }

// registrySize is room for every field rdx registers (1,634 now, at
// init), so that the registry is made once, not grown and rehashed ten
// times over while every run starts (dissect/all's TestRegistryHasRoom
// says when the fields outgrow it).
const registrySize = 2048

var (
	regMu    sync.Mutex
	fields   = make([]*Field, 0, registrySize)
	byAbbrev = make(map[string]*Field, registrySize)
	protos   = map[string]*ProtoInfo{}
)

// ProtoInfo describes a protocol as `rdx fields` and `-T json` show it.
type ProtoInfo struct {
	Abbrev string // "rx"
	Name   string // "RX Protocol"
	Note   string // said in `rdx fields`, e.g. that rdx's rdp is RFC 908, not Remote Desktop
	Field  *Field // the protocol's own node field
	// Upper is Abbrev in capitals ("RX"), as the summary line names the
	// protocol: made once here, not letter by letter on every frame.
	Upper string
}

// RegisterProto declares a protocol and returns its info (with a TProtocol field
// of the same abbreviation, so `-e rx` and JSON keys work).
func RegisterProto(abbrev, name, note string) *ProtoInfo {
	p := &ProtoInfo{Abbrev: abbrev, Name: name, Note: note, Upper: asciiUpper(abbrev)}
	p.Field = Register(&Field{Abbrev: abbrev, Name: name, Type: TProtocol})
	regMu.Lock()
	protos[abbrev] = p
	regMu.Unlock()
	return p
}

// asciiUpper capitalises a-z only, as the summary always has.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}

// Register adds fields to the registry and returns the first. A duplicate
// abbreviation is a programming error and panics at init time.
func Register(fs ...*Field) *Field {
	regMu.Lock()
	defer regMu.Unlock()
	for _, f := range fs {
		if _, dup := byAbbrev[f.Abbrev]; dup {
			panic("dissect: field registered twice: " + f.Abbrev)
		}
		if f.Proto == "" {
			f.Proto = protoOf(f.Abbrev)
		}
		f.id = len(fields)
		fields = append(fields, f)
		byAbbrev[f.Abbrev] = f
	}
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}

func protoOf(abbrev string) string {
	for i := 0; i < len(abbrev); i++ {
		if abbrev[i] == '.' {
			return abbrev[:i]
		}
	}
	return abbrev
}

// Lookup finds a field by abbreviation.
func Lookup(abbrev string) *Field {
	regMu.Lock()
	defer regMu.Unlock()
	return byAbbrev[abbrev]
}

// Fields returns every registered field sorted by abbreviation.
func Fields() []*Field {
	regMu.Lock()
	out := append([]*Field(nil), fields...)
	regMu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Abbrev < out[j].Abbrev })
	return out
}

// Protocols returns every registered protocol sorted by abbreviation.
func Protocols() []*ProtoInfo {
	regMu.Lock()
	out := make([]*ProtoInfo, 0, len(protos))
	for _, p := range protos {
		out = append(out, p)
	}
	regMu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Abbrev < out[j].Abbrev })
	return out
}

// LookupProto finds a protocol by abbreviation.
func LookupProto(abbrev string) *ProtoInfo {
	regMu.Lock()
	defer regMu.Unlock()
	return protos[abbrev]
}
