package dissect

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// addrHashBytes is addrHash octet by octet, as it was before IPv4's and
// IPv6's lengths loaded whole words: the keys (so which worker has which
// flow, and so -j N output) must not change.
func addrHashBytes(a []byte) uint64 {
	var h uint64 = 0xcbf29ce484222325
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

func TestAddrHashWords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b [16]byte
	for i := range 20000 {
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		n := i % 17
		if got, want := addrHash(b[:n]), addrHashBytes(b[:n]); got != want {
			t.Fatalf("addrHash(%x) = %#x, octet by octet %#x", b[:n], got, want)
		}
	}
}

func BenchmarkShardKeyIPv4(b *testing.B) {
	f := make([]byte, 14+28)
	binary.BigEndian.PutUint16(f[12:], EtherTypeIPv4)
	f[14] = 0x45
	copy(f[26:], []byte{198, 18, 0, 7, 198, 19, 255, 1})
	var s uint64
	for b.Loop() {
		s += ShardKey(LinkTypeEthernet, f)
	}
	_ = s
}

// pairKeyBytes is pairKey on addrHashBytes: the keys as they always were.
func pairKeyBytes(a, b []byte) uint64 {
	ha, hb := addrHashBytes(a), addrHashBytes(b)
	if ha > hb {
		ha, hb = hb, ha
	}
	return mix64(ha*0x9e3779b97f4a7c15 ^ hb)
}

// TestShardKeyIPv4Words: untagged Ethernet IPv4 (ShardKey's first test),
// tagged and raw IPv4 (ipKey) key as pairKeyBytes does, so no flow moves
// to another worker.
func TestShardKeyIPv4Words(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ip := make([]byte, 28)
	ip[0] = 0x45
	for range 20000 {
		binary.BigEndian.PutUint64(ip[12:], r.Uint64())
		if r.Uint32()%8 == 0 { // equal addresses too
			copy(ip[16:20], ip[12:16])
		}
		want := pairKeyBytes(ip[12:16], ip[16:20])
		untagged := append([]byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0}, ip...)
		tagged := append([]byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x81, 0, 0, 7, 8, 0}, ip...)
		for _, c := range []struct {
			link uint16
			b    []byte
		}{{LinkTypeEthernet, untagged}, {LinkTypeEthernet, tagged}, {LinkTypeRaw, ip}} {
			if got := ShardKey(c.link, c.b); got != want {
				t.Fatalf("link %d % x: key %#x, want %#x", c.link, c.b, got, want)
			}
		}
	}
}

// TestShardCache: a ShardCache keys as ShardKey does, for frames of a few
// address pairs (hits), of many (slots taken over), of pairs whose slot is
// another's, and of other link types and EtherTypes (not cached); and
// allocates nothing.
func TestShardCache(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	frame := func(link uint16, et uint16, pair uint64) []byte {
		b := make([]byte, 14+28)
		binary.BigEndian.PutUint16(b[12:], et)
		b[14] = 0x45
		binary.BigEndian.PutUint64(b[26:], pair)
		if link != LinkTypeEthernet {
			return b[14:] // raw IP
		}
		return b
	}
	few := []uint64{0xc6120001c613fffe, 0xc613fffec6120001, 0xc6120002c613fffe}
	// two pairs in one slot: each replaces the other
	var same [2]uint64
	for same[1] == 0 {
		a, b := r.Uint64(), r.Uint64()
		if (a*0x9e3779b97f4a7c15)>>56 == (b*0x9e3779b97f4a7c15)>>56 && a != b {
			same = [2]uint64{a, b}
		}
	}
	var c ShardCache
	hits := 0
	for i := range 50000 {
		var pair uint64
		switch i % 4 {
		case 0:
			pair = few[r.IntN(len(few))]
		case 1:
			pair = same[r.IntN(2)]
		default:
			pair = r.Uint64() % 5000 // many pairs, more than the slots
		}
		link, et := uint16(LinkTypeEthernet), uint16(EtherTypeIPv4)
		switch r.IntN(8) {
		case 0:
			link = LinkTypeRaw
		case 1:
			et = EtherTypeIPv6
		}
		b := frame(link, et, pair)
		v4 := true
		if link == LinkTypeEthernet && r.IntN(8) == 0 {
			b[14], v4 = 0x65, false // EtherType IPv4, IP version 6
		}
		if c.slots[(pair*0x9e3779b97f4a7c15)>>56].pair == pair {
			hits++
		}
		want := ShardKey(link, b)
		// Cached hits exactly when the slot holds the pair of an IPv4 frame
		hit := link == LinkTypeEthernet && et == EtherTypeIPv4 && v4 && c.slots[(pair*0x9e3779b97f4a7c15)>>56].pair == pair && c.slots[(pair*0x9e3779b97f4a7c15)>>56].ok
		if got, ok := c.Cached(link, b); ok != hit || ok && got != want {
			t.Fatalf("frame %d (link %d, EtherType %#x, pair %#x): Cached %#x %v, ShardKey %#x, hit %v", i, link, et, pair, got, ok, want, hit)
		}
		if got := c.Key(link, b); got != want {
			t.Fatalf("frame %d (link %d, EtherType %#x, pair %#x): cached key %#x, ShardKey %#x", i, link, et, pair, got, want)
		}
	}
	if hits < 10000 {
		t.Errorf("only %d of 50000 frames found their pair cached", hits)
	}
	b := frame(LinkTypeEthernet, EtherTypeIPv4, few[0])
	if a := testing.AllocsPerRun(100, func() { c.Key(LinkTypeEthernet, b) }); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

func BenchmarkShardCacheIPv4(b *testing.B) {
	f := make([]byte, 14+28)
	binary.BigEndian.PutUint16(f[12:], EtherTypeIPv4)
	f[14] = 0x45
	copy(f[26:], []byte{198, 18, 0, 7, 198, 19, 255, 1})
	var c ShardCache
	var s uint64
	for b.Loop() {
		s += c.Key(LinkTypeEthernet, f)
	}
	_ = s
}
