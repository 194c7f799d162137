package dissect

// IP over InfiniBand in InfiniBand SENDs (RFC 4391 6): the payload starts
// with a 4-octet encapsulation header, the EtherType and two reserved octets
// that are zero.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|             Type              |           Reserved            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

// IPoIBHdrLen is the IPoIB encapsulation header's length.
const IPoIBHdrLen = 4

// Ethertypes IPoIB carries besides IPv4 and IPv6.
const (
	EtherTypeARP  uint16 = 0x0806
	EtherTypeRARP uint16 = 0x8035
)

// IPoIBType reads the IPoIB encapsulation header at the start of payload: ok
// when the reserved octets are zero and the EtherType is one IPoIB carries
// (IPv4, IPv6, ARP, RARP), so that other SEND payloads are not taken for it.
func IPoIBType(payload []byte) (typ uint16, ok bool) {
	if len(payload) < IPoIBHdrLen || payload[2] != 0 || payload[3] != 0 {
		return 0, false
	}
	typ = uint16(payload[0])<<8 | uint16(payload[1])
	switch typ {
	case EtherTypeIPv4, EtherTypeIPv6, EtherTypeARP, EtherTypeRARP:
		return typ, true
	}
	return 0, false
}
