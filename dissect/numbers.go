package dissect

// Link types the engine decodes (LINKTYPE_* values of the pcap registry,
// Packet.LinkType). capture has the same values for its readers; a test
// keeps the two in step.
const (
	LinkTypeNull      uint16 = 0   // BSD loopback, host-order address family
	LinkTypeEthernet  uint16 = 1   // Ethernet II, 802.1Q
	LinkTypeRawDLT12  uint16 = 12  // DLT_RAW as some platforms number it
	LinkTypeRawDLT14  uint16 = 14  // DLT_RAW as OpenBSD numbers it
	LinkTypeRaw       uint16 = 101 // raw IPv4 or IPv6: the version nibble says which
	LinkTypeLoop      uint16 = 108 // OpenBSD loopback, network-order address family
	LinkTypeLinuxSLL  uint16 = 113 // Linux cooked v1
	LinkTypeIPv4      uint16 = 228
	LinkTypeIPv6      uint16 = 229
	LinkTypeIPoIB     uint16 = 242 // IP over InfiniBand (RFC 4391), 44-octet pseudo-header
	LinkTypeERF       uint16 = 197 // Endace ERF records: a 16-octet header (and extensions) before the packet
	LinkTypeLinuxSLL2 uint16 = 276 // Linux cooked v2
)

// IP protocol numbers (IANA) the engine and dissectors test Net.IPProto for.
const (
	IPProtoIPv4 uint8 = 4 // IP in IP
	IPProtoTCP  uint8 = 6
	IPProtoUDP  uint8 = 17
	IPProtoRDP  uint8 = 27
	IPProtoIPv6 uint8 = 41 // IPv6 in IP
)

// EtherTypes the engine reads itself (IPoIB's pseudo-header).
const (
	EtherTypeIPv4 uint16 = 0x0800
	EtherTypeIPv6 uint16 = 0x86dd
)

// TCP header flags, as TCPHeader.Flags holds them (NS is bit 8).
const (
	TCPFlagFIN uint16 = 1 << iota
	TCPFlagSYN
	TCPFlagRST
	TCPFlagPSH
	TCPFlagACK
	TCPFlagURG
	TCPFlagECE
	TCPFlagCWR
	TCPFlagNS
)
