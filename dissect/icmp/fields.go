package icmp

import "github.com/rdx-project/rdx/dissect"

// Field names, types and bases are Wireshark's (tshark -G fields).
var (
	PICMP   = dissect.RegisterProto("icmp", "Internet Control Message Protocol", "")
	PICMPv6 = dissect.RegisterProto("icmpv6", "Internet Control Message Protocol v6", "")

	fType     = dissect.Register(&dissect.Field{Abbrev: "icmp.type", Name: "Type", Type: dissect.TUint8, Names: typeNames})
	fCode     = dissect.Register(&dissect.Field{Abbrev: "icmp.code", Name: "Code", Type: dissect.TUint8})
	fCksum    = dissect.Register(&dissect.Field{Abbrev: "icmp.checksum", Name: "Checksum", Type: dissect.TUint16, Base: dissect.BaseHex})
	fCkStat   = dissect.Register(&dissect.Field{Abbrev: "icmp.checksum.status", Name: "Checksum Status", Type: dissect.TUint8, Names: dissect.StatusNames})
	fUnused   = dissect.Register(&dissect.Field{Abbrev: "icmp.unused", Name: "Unused", Type: dissect.TBytes})
	fIdent    = dissect.Register(&dissect.Field{Abbrev: "icmp.ident", Name: "Identifier (BE)", Type: dissect.TUint16, Base: dissect.BaseDecHex})
	fIdentLE  = dissect.Register(&dissect.Field{Abbrev: "icmp.ident_le", Name: "Identifier (LE)", Type: dissect.TUint16, Base: dissect.BaseDecHex})
	fSeq      = dissect.Register(&dissect.Field{Abbrev: "icmp.seq", Name: "Sequence Number (BE)", Type: dissect.TUint16, Base: dissect.BaseDecHex})
	fSeqLE    = dissect.Register(&dissect.Field{Abbrev: "icmp.seq_le", Name: "Sequence Number (LE)", Type: dissect.TUint16, Base: dissect.BaseDecHex})
	fMTU      = dissect.Register(&dissect.Field{Abbrev: "icmp.mtu", Name: "MTU of next hop", Type: dissect.TUint16})
	fPointer  = dissect.Register(&dissect.Field{Abbrev: "icmp.pointer", Name: "Pointer", Type: dissect.TUint32})
	fGateway  = dissect.Register(&dissect.Field{Abbrev: "icmp.redir_gw", Name: "Gateway address", Type: dissect.TIPv4})
	fDataTime = dissect.Register(&dissect.Field{Abbrev: "icmp.data_time", Name: "Timestamp from icmp data", Type: dissect.TAbsTime,
		Desc: "the timestamp in the first 8 bytes of the echo data (ping's), when it lies within a day of the frame's time"})
	fDataTimeRel = dissect.Register(&dissect.Field{Abbrev: "icmp.data_time_relative", Name: "Timestamp from icmp data (relative)", Type: dissect.TRelTime})

	f6Type     = dissect.Register(&dissect.Field{Abbrev: "icmpv6.type", Name: "Type", Type: dissect.TUint8, Names: type6Names})
	f6Code     = dissect.Register(&dissect.Field{Abbrev: "icmpv6.code", Name: "Code", Type: dissect.TUint8})
	f6Cksum    = dissect.Register(&dissect.Field{Abbrev: "icmpv6.checksum", Name: "Checksum", Type: dissect.TUint16, Base: dissect.BaseHex})
	f6CkStat   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.checksum.status", Name: "Checksum Status", Type: dissect.TUint8, Names: dissect.StatusNames})
	f6Reserved = dissect.Register(&dissect.Field{Abbrev: "icmpv6.reserved", Name: "Reserved", Type: dissect.TBytes})
	f6Data     = dissect.Register(&dissect.Field{Abbrev: "icmpv6.data", Name: "Data", Type: dissect.TBytes})
	f6MTU      = dissect.Register(&dissect.Field{Abbrev: "icmpv6.mtu", Name: "MTU", Type: dissect.TUint32})
	f6Pointer  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.pointer", Name: "Pointer", Type: dissect.TUint32})
	f6EchoID   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.echo.identifier", Name: "Identifier", Type: dissect.TUint16, Base: dissect.BaseHex})
	f6EchoSeq  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.echo.sequence_number", Name: "Sequence", Type: dissect.TUint16})
	f6NSTarget = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.ns.target_address", Name: "Target Address", Type: dissect.TIPv6})
	f6NAFlag   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.na.flag", Name: "Flags", Type: dissect.TUint32, Base: dissect.BaseHex})
	f6NAFlagR  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.na.flag.r", Name: "Router", Type: dissect.TBool, Mask: 0x80000000, Bits: 32})
	f6NAFlagS  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.na.flag.s", Name: "Solicited", Type: dissect.TBool, Mask: 0x40000000, Bits: 32})
	f6NAFlagO  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.na.flag.o", Name: "Override", Type: dissect.TBool, Mask: 0x20000000, Bits: 32})
	f6NATarget = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.na.target_address", Name: "Target Address", Type: dissect.TIPv6})
	f6RAHop    = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.ra.cur_hop_limit", Name: "Cur hop limit", Type: dissect.TUint8})
	f6RAFlag   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.ra.flag", Name: "Flags", Type: dissect.TUint8, Base: dissect.BaseHex})
	f6RALife   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.ra.router_lifetime", Name: "Router lifetime (s)", Type: dissect.TUint16})
	f6RAReach  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.ra.reachable_time", Name: "Reachable time (ms)", Type: dissect.TUint32})
	f6RARetr   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.nd.ra.retrans_timer", Name: "Retrans timer (ms)", Type: dissect.TUint32})
	f6Opt      = dissect.Register(&dissect.Field{Abbrev: "icmpv6.opt", Name: "ICMPv6 Option", Type: dissect.TNone})
	f6OptType  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.opt.type", Name: "Type", Type: dissect.TUint8, Names: optNames})
	f6OptLen   = dissect.Register(&dissect.Field{Abbrev: "icmpv6.opt.length", Name: "Length", Type: dissect.TUint8})
	f6OptLink  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.opt.linkaddr", Name: "Link-layer address", Type: dissect.TBytes})
	f6OptSrcLL = dissect.Register(&dissect.Field{Abbrev: "icmpv6.opt.src_linkaddr", Name: "Source Link-layer address", Type: dissect.TBytes})
	f6OptTgtLL = dissect.Register(&dissect.Field{Abbrev: "icmpv6.opt.target_linkaddr", Name: "Target Link-layer address", Type: dissect.TBytes})
	f6MLDRecs  = dissect.Register(&dissect.Field{Abbrev: "icmpv6.mldr.nb_mcast_records", Name: "Number of Multicast Address Records", Type: dissect.TUint16})
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
