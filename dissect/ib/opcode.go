package ib

// Transport is the opcode's class (its top 3 bits).
type Transport uint8

const (
	RC Transport = iota
	UC
	RD
	UD
	CNP
	XRC
	Reserved6
	Manufacturer
)

var transportNames = [...]string{"RC", "UC", "RD", "UD", "CNP", "XRC", "RSV", "MSP"}

func (t Transport) String() string { return transportNames[t&7] }

// Ext is a set of extended transport headers.
type Ext uint16

const (
	ExtRDETH Ext = 1 << iota
	ExtDETH
	ExtXRCETH
	ExtRETH
	ExtAtomicETH
	ExtAETH
	ExtAtomicAckETH
	ExtImmDt
	ExtIETH
	ExtFETH
	ExtCNP // the 16 reserved octets of a CNP
)

// OpInfo describes one opcode.
type OpInfo struct {
	Name      string // operation, e.g. "SEND Only"
	Transport Transport
	Ext       Ext  // extended headers after the BTH, in wire order
	Payload   bool // carries payload
	Known     bool // false: reserved / manufacturer specific
	Request   bool // requester-to-responder packet (PSN in the request sequence)
}

// The RC operations (0x00-0x1F); the other classes derive from them.
var rcOps = [32]OpInfo{
	0x00: {Name: "SEND First", Payload: true, Request: true},
	0x01: {Name: "SEND Middle", Payload: true, Request: true},
	0x02: {Name: "SEND Last", Payload: true, Request: true},
	0x03: {Name: "SEND Last with Immediate", Ext: ExtImmDt, Payload: true, Request: true},
	0x04: {Name: "SEND Only", Payload: true, Request: true},
	0x05: {Name: "SEND Only with Immediate", Ext: ExtImmDt, Payload: true, Request: true},
	0x06: {Name: "RDMA WRITE First", Ext: ExtRETH, Payload: true, Request: true},
	0x07: {Name: "RDMA WRITE Middle", Payload: true, Request: true},
	0x08: {Name: "RDMA WRITE Last", Payload: true, Request: true},
	0x09: {Name: "RDMA WRITE Last with Immediate", Ext: ExtImmDt, Payload: true, Request: true},
	0x0A: {Name: "RDMA WRITE Only", Ext: ExtRETH, Payload: true, Request: true},
	0x0B: {Name: "RDMA WRITE Only with Immediate", Ext: ExtRETH | ExtImmDt, Payload: true, Request: true},
	0x0C: {Name: "RDMA READ Request", Ext: ExtRETH, Request: true},
	0x0D: {Name: "RDMA READ Response First", Ext: ExtAETH, Payload: true},
	0x0E: {Name: "RDMA READ Response Middle", Payload: true},
	0x0F: {Name: "RDMA READ Response Last", Ext: ExtAETH, Payload: true},
	0x10: {Name: "RDMA READ Response Only", Ext: ExtAETH, Payload: true},
	0x11: {Name: "Acknowledge", Ext: ExtAETH},
	0x12: {Name: "ATOMIC Acknowledge", Ext: ExtAETH | ExtAtomicAckETH},
	0x13: {Name: "CmpSwap", Ext: ExtAtomicETH, Request: true},
	0x14: {Name: "FetchAdd", Ext: ExtAtomicETH, Request: true},
	0x16: {Name: "SEND Last with Invalidate", Ext: ExtIETH, Payload: true, Request: true},
	0x17: {Name: "SEND Only with Invalidate", Ext: ExtIETH, Payload: true, Request: true},
	0x1C: {Name: "FLUSH", Ext: ExtRETH | ExtFETH, Request: true},
	0x1D: {Name: "ATOMIC WRITE", Ext: ExtRETH, Payload: true, Request: true},
}

// Ops is the opcode table, indexed by BTH opcode.
var Ops = buildOps()

func buildOps() (ops [256]OpInfo) {
	for op := 0; op < 256; op++ {
		t := Transport(op >> 5)
		low := op & 0x1F
		o := OpInfo{Transport: t}
		base := rcOps[low]
		switch t {
		case RC:
			o = base
		case UC:
			if low <= 0x0B {
				o = base
			}
		case RD:
			if low <= 0x14 && base.Name != "" || low == 0x1C {
				o = base
				o.Ext |= ExtRDETH
				if o.Request {
					o.Ext |= ExtDETH
				}
			}
		case UD:
			if low == 0x04 || low == 0x05 {
				o = base
				o.Ext |= ExtDETH
			}
		case CNP:
			if op == OpCNP {
				o = OpInfo{Name: "Congestion Notification", Ext: ExtCNP}
			}
		case XRC:
			if low <= 0x17 && base.Name != "" {
				o = base
				if o.Request {
					o.Ext |= ExtXRCETH
				}
			}
		}
		o.Transport = t
		o.Known = o.Name != ""
		ops[op] = o
	}
	return ops
}

// extLen is the size of each extended header.
func extLen(e Ext) int {
	switch e {
	case ExtRDETH:
		return RDETHLen
	case ExtDETH:
		return DETHLen
	case ExtXRCETH:
		return XRCETHLen
	case ExtRETH:
		return RETHLen
	case ExtAtomicETH:
		return AtomicETHLen
	case ExtAETH:
		return AETHLen
	case ExtAtomicAckETH:
		return AtomicAckETHLen
	case ExtImmDt:
		return ImmDtLen
	case ExtIETH:
		return IETHLen
	case ExtFETH:
		return FETHLen
	case ExtCNP:
		return CNPReservedLen
	}
	return 0
}

// extOrder is the wire order of the extended headers after the BTH.
var extOrder = [...]Ext{ExtRDETH, ExtDETH, ExtXRCETH, ExtRETH, ExtAtomicETH, ExtAETH, ExtAtomicAckETH, ExtImmDt, ExtIETH, ExtFETH, ExtCNP}

// extLens[i] is extLen(extOrder[i]) (Ext bit i).
var extLens = func() (t [len(extOrder)]int) {
	for i, e := range extOrder {
		if e != 1<<i {
			panic("ib: extOrder out of bit order")
		}
		t[i] = extLen(e)
	}
	return
}()

// ExtLen is the total size of the extended headers in e.
func ExtLen(e Ext) int {
	n := 0
	for _, x := range extOrder {
		if e&x != 0 {
			n += extLen(x)
		}
	}
	return n
}

// NAK code names.
var nakNames = [...]string{"PSN Sequence Error", "Invalid Request", "Remote Access Error", "Remote Operational Error", "Invalid RD Request"}

// NAKName names a NAK code ("" for reserved codes).
func NAKName(code uint8) string {
	if int(code) < len(nakNames) {
		return nakNames[code]
	}
	return ""
}

// creditCounts maps the AETH credit count code to credits (IBA; 31 = invalid/unlimited).
var creditCounts = [31]uint32{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
	1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768}
