package dissect

import "encoding/binary"

// Flow sharding (rdx read -j N): the pipeline hands every frame to the
// worker engine ShardKey(frame) % N names, so every frame whose decoding
// shares state must get the same key. The key is the unordered pair of IP
// addresses (after the Ethernet, VLAN, SLL, null/loop, raw or IPoIB link
// header): both directions of a flow, every IP fragment of a datagram
// (ports are only in the first), RDS's TCP paths between two hosts, RoCEv2
// whose UDP source port differs per direction, iWARP and RPC-over-RDMA all
// share it. RoCEv1 (EtherType 0x8915) is keyed by its GRH's unordered GID
// pair, native InfiniBand (link type 247, ERF) by its LRH's unordered LID
// pair. Anything else (ARP, an unknown link type, a truncated header) is 0.
// The outer pair keys a tunnel (IP in IP) and an ICMP error: state is only
// read from quoted packets, never learnt (Frame.InError).

// ShardKey returns the flow key of a frame's bytes. It allocates nothing
// and reads only inside data.
func ShardKey(linkType uint16, data []byte) uint64 {
	// Untagged IPv4 over Ethernet, most frames: the same key without the
	// switches and calls below (a third of the -j reader's cost).
	if pair, ok := etherIPv4Pair(linkType, data); ok {
		return pairKey4(uint32(pair>>32), uint32(pair))
	}
	var et uint16
	switch linkType {
	case LinkTypeEthernet:
		if len(data) < 14 {
			return 0
		}
		et = binary.BigEndian.Uint16(data[12:])
		data = data[14:]
		// 802.1Q, 802.1ad and the old QinQ tag: 4 octets each, any depth
		// the frame holds (the engine decodes them the same way).
		for et == 0x8100 || et == 0x88a8 || et == 0x9100 {
			if len(data) < 4 {
				return 0
			}
			et = binary.BigEndian.Uint16(data[2:])
			data = data[4:]
		}
	case LinkTypeLinuxSLL:
		if len(data) < 16 {
			return 0
		}
		et, data = binary.BigEndian.Uint16(data[14:]), data[16:]
	case LinkTypeLinuxSLL2:
		if len(data) < 20 {
			return 0
		}
		et, data = binary.BigEndian.Uint16(data[0:]), data[20:]
	case LinkTypeNull, LinkTypeLoop: // a 4-octet address family in either byte order
		if len(data) < 4 {
			return 0
		}
		return ipKey(data[4:])
	case LinkTypeRaw, LinkTypeRawDLT12, LinkTypeRawDLT14, LinkTypeIPv4, LinkTypeIPv6:
		return ipKey(data)
	case LinkTypeIPoIB:
		if len(data) < ipoibLen {
			return 0
		}
		et, data = binary.BigEndian.Uint16(data[40:]), data[ipoibLen:]
	case linkTypeIB:
		return lidKey(data)
	case linkTypeERF:
		return erfKey(data)
	default:
		return 0
	}
	switch et {
	case EtherTypeIPv4, EtherTypeIPv6:
		return ipKey(data)
	case etherTypeRoCEv1:
		// The GRH is laid out as an IPv6 header: source GID at 8, destination
		// GID at 24.
		if len(data) < 40 {
			return 0
		}
		return pairKey(data[8:24], data[24:40])
	}
	return 0
}

// etherIPv4Pair is the source and destination address (high and low 32
// bits) of untagged IPv4 over Ethernet; ok is false for any other frame.
func etherIPv4Pair(linkType uint16, data []byte) (pair uint64, ok bool) {
	if linkType == LinkTypeEthernet && len(data) >= 34 && binary.BigEndian.Uint16(data[12:]) == EtherTypeIPv4 && data[14]>>4 == 4 {
		return binary.BigEndian.Uint64(data[26:]), true
	}
	return 0, false
}

// ShardCache keys frames as ShardKey does, remembering the keys of the
// address pairs of untagged IPv4 over Ethernet it last saw: a capture of
// a few flows costs a lookup a frame instead of three rounds of mixing.
// The zero value is ready; it is not safe for concurrent use.
type ShardCache struct {
	// slots is direct-mapped by a hash of the pair: a fixed size, a new
	// pair replaces the one in its slot.
	slots [shardCacheSlots]struct {
		pair, key uint64
		ok        bool
	}
}

// shardCacheSlots is how many pairs a ShardCache holds (24 octets each).
const shardCacheSlots = 256

// Key is ShardKey(linkType, data).
func (c *ShardCache) Key(linkType uint16, data []byte) uint64 {
	if k, ok := c.Cached(linkType, data); ok {
		return k
	}
	return c.miss(linkType, data)
}

// Cached is Key(linkType, data) and true for a frame of untagged IPv4 over
// Ethernet whose address pair c holds, else false (call Key). It inlines:
// a loop that keys frames of a few flows costs about 20 instructions a
// frame (a call and etherIPv4Pair's separate checks were half of Key's).
func (c *ShardCache) Cached(linkType uint16, data []byte) (uint64, bool) {
	if linkType == LinkTypeEthernet && len(data) >= 34 &&
		// EtherType IPv4 and IP version 4 in one load: octets 12 to 14
		// and the version nibble of 14
		binary.BigEndian.Uint32(data[12:])&0xfffff000 == uint32(EtherTypeIPv4)<<16|4<<12 {
		pair := binary.BigEndian.Uint64(data[26:])
		if s := &c.slots[(pair*0x9e3779b97f4a7c15)>>56]; s.pair == pair && s.ok {
			return s.key, true
		}
	}
	return 0, false
}

// miss is Key of a frame that is not untagged IPv4 over Ethernet, or of a
// pair not in its slot, which it puts there.
func (c *ShardCache) miss(linkType uint16, data []byte) uint64 {
	pair, ok := etherIPv4Pair(linkType, data)
	if !ok {
		return ShardKey(linkType, data)
	}
	s := &c.slots[(pair*0x9e3779b97f4a7c15)>>56]
	s.pair, s.key, s.ok = pair, pairKey4(uint32(pair>>32), uint32(pair)), true
	return s.key
}

// Link and EtherType numbers the ib package owns; repeated here because
// dissect cannot import its dissectors.
const (
	linkTypeIB      = 247    // LINKTYPE_INFINIBAND
	linkTypeERF     = 197    // LINKTYPE_ERF
	erfTypeIB       = 21     // ERF record type InfiniBand
	etherTypeRoCEv1 = 0x8915 // RoCEv1: GRH + BTH over Ethernet
)

// ipKey keys an IPv4 or IPv6 header by its unordered address pair; the
// version nibble says which.
func ipKey(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	switch b[0] >> 4 {
	case 4:
		if len(b) < 20 {
			return 0
		}
		return pairKey4(binary.BigEndian.Uint32(b[12:]), binary.BigEndian.Uint32(b[16:]))
	case 6:
		if len(b) < 40 {
			return 0
		}
		return pairKey(b[8:24], b[24:40])
	}
	return 0
}

// lidKey keys a native InfiniBand packet by its LRH's unordered SLID/DLID
// pair.
func lidKey(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return pairKey(b[2:4], b[6:8])
}

// erfKey skips an ERF record header (16 octets and its extension headers)
// of an InfiniBand record and keys the LRH after it.
func erfKey(b []byte) uint64 {
	if len(b) < 16 || b[8]&0x7f != erfTypeIB {
		return 0
	}
	hl := 16
	for ext := b[8]&0x80 != 0; ext; hl += 8 {
		if hl+8 > len(b) {
			return 0
		}
		ext = b[hl]&0x80 != 0
	}
	return lidKey(b[hl:])
}

// pairKey hashes two equally long addresses independent of their order.
func pairKey(a, b []byte) uint64 {
	ha, hb := addrHash(a), addrHash(b)
	if ha > hb {
		ha, hb = hb, ha
	}
	return mix64(ha*0x9e3779b97f4a7c15 ^ hb)
}

// pairKey4 is pairKey of two IPv4 addresses.
func pairKey4(a, b uint32) uint64 {
	ha, hb := addrHash4(a), addrHash4(b)
	if ha > hb {
		ha, hb = hb, ha
	}
	return mix64(ha*0x9e3779b97f4a7c15 ^ hb)
}

// addrHash4 is addrHash of an IPv4 address.
func addrHash4(a uint32) uint64 { return mix64(addrSeed ^ uint64(a) ^ 4<<56) }

// addrSeed starts every address hash (FNV-1's offset basis).
const addrSeed uint64 = 0xcbf29ce484222325

// addrHash folds an address of up to 16 octets into 64 bits. IPv4's and
// IPv6's lengths load whole words (the loop below gives the same value,
// octet by octet: five times the instructions of the reader's frame).
func addrHash(a []byte) uint64 {
	const seed = addrSeed
	switch len(a) {
	case 4:
		return addrHash4(binary.BigEndian.Uint32(a))
	case 16:
		h := mix64(mix64(seed^binary.BigEndian.Uint64(a)) ^ binary.BigEndian.Uint64(a[8:]))
		return mix64(h)
	}
	h := seed
	for len(a) >= 8 {
		h = mix64(h ^ binary.BigEndian.Uint64(a))
		a = a[8:]
	}
	var v uint64
	for _, c := range a {
		v = v<<8 | uint64(c)
	}
	return mix64(h ^ v ^ uint64(len(a))<<56)
}

// mix64 is splitmix64's finaliser: every input bit reaches the low bits a
// modulo by a small worker count looks at.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// DecodeShard decodes *pkt as Decode does on an engine that sees only some
// of the capture's frames (a -j worker): first and prev are the capture's
// first frame time and the time of the frame just before pkt, which the
// frame's time fields (frame.time_delta, frame.time_relative) and the
// summary's time column are relative to. pkt is a pointer: the packet is
// not copied (DecodeRef).
func (e *Engine) DecodeShard(pkt *Packet, first, prev int64) *Frame {
	// The capture's first time before Decode too: -z io,stat counts from it.
	e.firstTime, e.seenFirst = first, true
	f := e.DecodeRef(pkt)
	e.ShardTimes(first, prev)
	return f
}

// ShardTimes sets the times DecodeShard leaves after decoding, for a frame
// a dissector panic cut short inside Guard (DecodeShard did not return).
// Nothing else reads the times during decoding: the tree and the printer
// do, after it.
func (e *Engine) ShardTimes(first, prev int64) {
	e.firstTime, e.prevTime, e.seenFirst = first, prev, true
}
