package icmp

import . "github.com/rdx-project/rdx/dissect"

// Checksum status values of icmp.checksum.status and icmpv6.checksum.status,
// as Wireshark numbers them.
const (
	CksumBad        = 0
	CksumGood       = 1
	CksumUnverified = 2
)

var cksumStatusNames = map[uint64]string{CksumBad: "Bad", CksumGood: "Good", CksumUnverified: "Unverified"}

// Field names, types and bases are Wireshark's (tshark -G fields).
var (
	PICMP   = RegisterProto("icmp", "Internet Control Message Protocol", "")
	PICMPv6 = RegisterProto("icmpv6", "Internet Control Message Protocol v6", "")

	fType     = Register(&Field{Abbrev: "icmp.type", Name: "Type", Type: TUint8, Names: typeNames})
	fCode     = Register(&Field{Abbrev: "icmp.code", Name: "Code", Type: TUint8})
	fCksum    = Register(&Field{Abbrev: "icmp.checksum", Name: "Checksum", Type: TUint16, Base: BaseHex})
	fCkStat   = Register(&Field{Abbrev: "icmp.checksum.status", Name: "Checksum Status", Type: TUint8, Names: cksumStatusNames})
	fUnused   = Register(&Field{Abbrev: "icmp.unused", Name: "Unused", Type: TBytes})
	fIdent    = Register(&Field{Abbrev: "icmp.ident", Name: "Identifier (BE)", Type: TUint16, Base: BaseDecHex})
	fIdentLE  = Register(&Field{Abbrev: "icmp.ident_le", Name: "Identifier (LE)", Type: TUint16, Base: BaseDecHex})
	fSeq      = Register(&Field{Abbrev: "icmp.seq", Name: "Sequence Number (BE)", Type: TUint16, Base: BaseDecHex})
	fSeqLE    = Register(&Field{Abbrev: "icmp.seq_le", Name: "Sequence Number (LE)", Type: TUint16, Base: BaseDecHex})
	fMTU      = Register(&Field{Abbrev: "icmp.mtu", Name: "MTU of next hop", Type: TUint16})
	fPointer  = Register(&Field{Abbrev: "icmp.pointer", Name: "Pointer", Type: TUint32})
	fGateway  = Register(&Field{Abbrev: "icmp.redir_gw", Name: "Gateway address", Type: TIPv4})
	fDataTime = Register(&Field{Abbrev: "icmp.data_time", Name: "Timestamp from icmp data", Type: TAbsTime,
		Desc: "the timestamp in the first 8 bytes of the echo data (ping's), when it lies within a day of the frame's time"})
	fDataTimeRel = Register(&Field{Abbrev: "icmp.data_time_relative", Name: "Timestamp from icmp data (relative)", Type: TRelTime})

	f6Type     = Register(&Field{Abbrev: "icmpv6.type", Name: "Type", Type: TUint8, Names: type6Names})
	f6Code     = Register(&Field{Abbrev: "icmpv6.code", Name: "Code", Type: TUint8})
	f6Cksum    = Register(&Field{Abbrev: "icmpv6.checksum", Name: "Checksum", Type: TUint16, Base: BaseHex})
	f6CkStat   = Register(&Field{Abbrev: "icmpv6.checksum.status", Name: "Checksum Status", Type: TUint8, Names: cksumStatusNames})
	f6Reserved = Register(&Field{Abbrev: "icmpv6.reserved", Name: "Reserved", Type: TBytes})
	f6Data     = Register(&Field{Abbrev: "icmpv6.data", Name: "Data", Type: TBytes})
	f6MTU      = Register(&Field{Abbrev: "icmpv6.mtu", Name: "MTU", Type: TUint32})
	f6Pointer  = Register(&Field{Abbrev: "icmpv6.pointer", Name: "Pointer", Type: TUint32})
	f6EchoID   = Register(&Field{Abbrev: "icmpv6.echo.identifier", Name: "Identifier", Type: TUint16, Base: BaseHex})
	f6EchoSeq  = Register(&Field{Abbrev: "icmpv6.echo.sequence_number", Name: "Sequence", Type: TUint16})
	f6NSTarget = Register(&Field{Abbrev: "icmpv6.nd.ns.target_address", Name: "Target Address", Type: TIPv6})
	f6NAFlag   = Register(&Field{Abbrev: "icmpv6.nd.na.flag", Name: "Flags", Type: TUint32, Base: BaseHex})
	f6NAFlagR  = Register(&Field{Abbrev: "icmpv6.nd.na.flag.r", Name: "Router", Type: TBool, Mask: 0x80000000, Bits: 32})
	f6NAFlagS  = Register(&Field{Abbrev: "icmpv6.nd.na.flag.s", Name: "Solicited", Type: TBool, Mask: 0x40000000, Bits: 32})
	f6NAFlagO  = Register(&Field{Abbrev: "icmpv6.nd.na.flag.o", Name: "Override", Type: TBool, Mask: 0x20000000, Bits: 32})
	f6NATarget = Register(&Field{Abbrev: "icmpv6.nd.na.target_address", Name: "Target Address", Type: TIPv6})
	f6RAHop    = Register(&Field{Abbrev: "icmpv6.nd.ra.cur_hop_limit", Name: "Cur hop limit", Type: TUint8})
	f6RAFlag   = Register(&Field{Abbrev: "icmpv6.nd.ra.flag", Name: "Flags", Type: TUint8, Base: BaseHex})
	f6RALife   = Register(&Field{Abbrev: "icmpv6.nd.ra.router_lifetime", Name: "Router lifetime (s)", Type: TUint16})
	f6RAReach  = Register(&Field{Abbrev: "icmpv6.nd.ra.reachable_time", Name: "Reachable time (ms)", Type: TUint32})
	f6RARetr   = Register(&Field{Abbrev: "icmpv6.nd.ra.retrans_timer", Name: "Retrans timer (ms)", Type: TUint32})
	f6Opt      = Register(&Field{Abbrev: "icmpv6.opt", Name: "ICMPv6 Option", Type: TNone})
	f6OptType  = Register(&Field{Abbrev: "icmpv6.opt.type", Name: "Type", Type: TUint8, Names: optNames})
	f6OptLen   = Register(&Field{Abbrev: "icmpv6.opt.length", Name: "Length", Type: TUint8})
	f6OptLink  = Register(&Field{Abbrev: "icmpv6.opt.linkaddr", Name: "Link-layer address", Type: TBytes})
	f6OptSrcLL = Register(&Field{Abbrev: "icmpv6.opt.src_linkaddr", Name: "Source Link-layer address", Type: TBytes})
	f6OptTgtLL = Register(&Field{Abbrev: "icmpv6.opt.target_linkaddr", Name: "Target Link-layer address", Type: TBytes})
	f6MLDRecs  = Register(&Field{Abbrev: "icmpv6.mldr.nb_mcast_records", Name: "Number of Multicast Address Records", Type: TUint16})
)

// ICMPv4 types (RFC 792, 950, 1256), with Wireshark's names.
var typeNames = map[uint64]string{
	0: "Echo (ping) reply", 3: "Destination unreachable", 4: "Source quench (flow control)", 5: "Redirect",
	8: "Echo (ping) request", 9: "Router advertisement", 10: "Router solicitation", 11: "Time-to-live exceeded",
	12: "Parameter problem", 13: "Timestamp request", 14: "Timestamp reply", 15: "Information request",
	16: "Information reply", 17: "Address mask request", 18: "Address mask reply",
}

var unreachNames = [...]string{"Network unreachable", "Host unreachable", "Protocol unreachable", "Port unreachable",
	"Fragmentation needed", "Source route failed", "Destination network unknown", "Destination host unknown",
	"Source host isolated", "Network administratively prohibited", "Host administratively prohibited",
	"Network unreachable for TOS", "Host unreachable for TOS", "Communication administratively filtered",
	"Host precedence violation", "Precedence cutoff in effect"}

var redirectNames = [...]string{"Redirect for network", "Redirect for host", "Redirect for TOS and network", "Redirect for TOS and host"}

var timeExNames = [...]string{"Time to live exceeded in transit", "Fragment reassembly time exceeded"}

var paramNames = [...]string{"Pointer indicates the error", "Required option missing", "Bad length"}

// codeName is Wireshark's name of an ICMPv4 code, "" when the type has
// none or the code is unknown (Summary then says "Unknown code: N").
func codeName(typ, code uint8) string {
	var names []string
	switch typ {
	case 3:
		names = unreachNames[:]
	case 5:
		names = redirectNames[:]
	case 11:
		names = timeExNames[:]
	case 12:
		names = paramNames[:]
	default:
		return ""
	}
	if int(code) < len(names) {
		return names[code]
	}
	return ""
}

// ICMPv6 types (RFC 4443, 4861, 3810), with Wireshark's names.
var type6Names = map[uint64]string{
	1: "Destination Unreachable", 2: "Packet Too Big", 3: "Time Exceeded", 4: "Parameter Problem",
	128: "Echo (ping) request", 129: "Echo (ping) reply", 130: "Multicast Listener Query",
	131: "Multicast Listener Report", 132: "Multicast Listener Done", 133: "Router Solicitation",
	134: "Router Advertisement", 135: "Neighbor Solicitation", 136: "Neighbor Advertisement",
	137: "Redirect", 143: "Multicast Listener Report Message v2",
}

var unreach6Names = [...]string{"no route to destination", "Administratively prohibited",
	"Beyond scope of source address", "Address unreachable", "Port unreachable",
	"Source address failed ingress/egress policy", "Reject route to destination", "Error in Source Routing Header"}

var timeEx6Names = [...]string{"hop limit exceeded in transit", "fragment reassembly time exceeded"}

var param6Names = [...]string{"erroneous header field encountered", "unrecognized Next Header type encountered",
	"unrecognized IPv6 option encountered", "IPv6 First Fragment has incomplete IPv6 Header Chain"}

func code6Name(typ, code uint8) string {
	var names []string
	switch typ {
	case 1:
		names = unreach6Names[:]
	case 3:
		names = timeEx6Names[:]
	case 4:
		names = param6Names[:]
	default:
		return ""
	}
	if int(code) < len(names) {
		return names[code]
	}
	return ""
}

var optNames = map[uint64]string{1: "Source link-layer address", 2: "Target link-layer address", 3: "Prefix information",
	4: "Redirected header", 5: "MTU", 14: "Nonce", 25: "Recursive DNS Server", 31: "DNS Search List"}
