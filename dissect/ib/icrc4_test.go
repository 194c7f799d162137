package ib

import (
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
)

// checkRoCE4 compares the template path with the reference icrcRoCEv2 on
// one packet, through the cache c (whose state carries over, as in the
// dissector): it must take every IPv4 header without options and agree.
func checkRoCE4(t testing.TB, c *icrcCache, s *scratch, ip, udp, ib []byte) {
	t.Helper()
	want, wok := icrcRoCEv2(s, ip, udp, ib)
	got, ok := c.roce4(s, ip, udp, ib)
	shape := len(ip) == 20 && ip[0] == 0x45 && len(udp) >= 8 && len(ib) >= BTHLen
	if ok != shape {
		t.Fatalf("roce4 ok=%v for ip % x (want %v)", ok, ip[:min(len(ip), 1)], shape)
	}
	if ok && (!wok || got != want) {
		t.Fatalf("roce4 %#x, icrcRoCEv2 %#x (ok %v): ip % x udp % x ib % x", got, want, wok, ip, udp, ib[:min(len(ib), 16)])
	}
}

// TestRoCE4MatchesReference: random headers of a few QPs (so templates hit,
// miss and collide in the direct-mapped cache), changing octets varied per
// packet, every payload length up to 600.
func TestRoCE4MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var c icrcCache
	var s scratch
	type flow struct{ ip, udp, bth []byte }
	flows := make([]flow, 12)
	for i := range flows {
		f := flow{make([]byte, 20), make([]byte, 8), make([]byte, BTHLen)}
		rng.Read(f.ip)
		rng.Read(f.udp)
		rng.Read(f.bth)
		f.ip[0] = 0x45
		flows[i] = f
	}
	// and pairs of flows that share a cache slot
	slot := func(f flow) uint8 {
		return icrcSlot(binary.LittleEndian.Uint64(f.ip[8:])&icrcKeepIP1, binary.LittleEndian.Uint32(f.ip[16:]), (*[BTHLen]byte)(f.bth))
	}
	// (each differing from its flow in one unchanging field only: source
	// or destination address, QP, P_Key, ports, fragment field)
	for i, at := range []struct { // (the octet at o, and the one after it)
		b func(f flow) []byte
		o int
	}{{func(f flow) []byte { return f.ip }, 12}, {func(f flow) []byte { return f.ip }, 17}, {func(f flow) []byte { return f.bth }, 6},
		{func(f flow) []byte { return f.bth }, 2}, {func(f flow) []byte { return f.udp }, 0}, {func(f flow) []byte { return f.udp }, 2},
		{func(f flow) []byte { return f.ip }, 6}, {func(f flow) []byte { return f.bth }, 7}, {func(f flow) []byte { return f.ip }, 15}} {
		f := flow{append([]byte(nil), flows[i].ip...), append([]byte(nil), flows[i].udp...), append([]byte(nil), flows[i].bth...)}
		b, o := at.b(f), at.o
		for n := uint16(1); slot(f) != slot(flows[i]) || n == 1; n++ {
			b[o], b[o+1] = at.b(flows[i])[o]^byte(n), at.b(flows[i])[o+1]^byte(n>>8) // until it lands in the same slot
		}
		flows = append(flows, f)
	}
	for n := 0; n <= 600; n++ {
		for k := 0; k < 4; k++ {
			f := flows[rng.Intn(len(flows))]
			ip, udp := append([]byte(nil), f.ip...), append([]byte(nil), f.udp...)
			ib := make([]byte, BTHLen+n)
			copy(ib, f.bth)
			rng.Read(ib[BTHLen:])
			for _, i := range []int{2, 3, 4, 5} { // length, ID
				ip[i] = byte(rng.Intn(256))
			}
			ip[1], ip[8], ip[10], ip[11] = byte(rng.Intn(256)), byte(rng.Intn(256)), byte(rng.Intn(256)), byte(rng.Intn(256)) // masked
			udp[4], udp[5], udp[6], udp[7] = byte(rng.Intn(256)), byte(rng.Intn(256)), byte(rng.Intn(256)), byte(rng.Intn(256))
			for _, i := range []int{0, 1, 4, 8, 9, 10, 11} {
				ib[i] = byte(rng.Intn(256))
			}
			if k == 3 { // an unchanging octet changed: a new template in the same slot
				bit := byte(1) << rng.Intn(8)
				switch rng.Intn(3) {
				case 0:
					ip[[]int{6, 7, 9, 12, 15, 16, 19}[rng.Intn(7)]] ^= bit
				case 1:
					udp[rng.Intn(4)] ^= bit // a port
				default:
					ib[[]int{2, 3, 5, 6, 7}[rng.Intn(5)]] ^= bit // P_Key, QP
				}
			}
			checkRoCE4(t, &c, &s, ip, udp, ib)
		}
	}
	// other shapes are left to icrcRoCEv2
	checkRoCE4(t, &c, &s, append([]byte{0x46}, make([]byte, 23)...), make([]byte, 8), make([]byte, BTHLen))
	checkRoCE4(t, &c, &s, append([]byte{0x60}, make([]byte, 39)...), make([]byte, 8), make([]byte, BTHLen))
	checkRoCE4(t, &c, &s, append([]byte{0x45}, make([]byte, 19)...), make([]byte, 8), make([]byte, BTHLen-1))
}

// TestRoCE4Captures: on every RoCEv2-over-IPv4 packet of every capture in
// pcaps/, the template path gives the reference's ICRC.
func TestRoCE4Captures(t *testing.T) {
	var c icrcCache
	var s scratch
	n := 0
	err := filepath.Walk("../../pcaps", func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !(strings.HasSuffix(path, ".pcap") || strings.HasSuffix(path, ".pcapng") || strings.HasSuffix(path, ".cap.gz") || strings.HasSuffix(path, ".pcap.gz")) {
			return err
		}
		r, err := capture.Open(path)
		if err != nil {
			return nil // not a capture this reader takes
		}
		defer r.Close()
		var p capture.Packet
		for {
			if err := r.Next(&p); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Logf("%s: %v", path, err)
				}
				return nil
			}
			ip, udp, ib, ok := roce4Frame(p.LinkType, p.Data)
			if ok {
				checkRoCE4(t, &c, &s, ip, udp, ib)
				n++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d RoCEv2/IPv4 packets found in pcaps/", n)
	}
	t.Logf("%d RoCEv2/IPv4 packets", n)
}

// roce4Frame finds the IPv4 header, UDP header and IB packet (ICRC excluded)
// of an Ethernet frame carrying RoCEv2 (UDP port 4791).
func roce4Frame(link uint16, b []byte) (ip, udp, ib []byte, ok bool) {
	if link != 1 || len(b) < 14 {
		return
	}
	et, o := binary.BigEndian.Uint16(b[12:]), 14
	for et == 0x8100 && len(b) >= o+4 {
		et, o = binary.BigEndian.Uint16(b[o+2:]), o+4
	}
	if et != 0x0800 || len(b) < o+20 || b[o]>>4 != 4 {
		return
	}
	hl := int(b[o]&0x0F) * 4
	if hl < 20 || b[o+9] != 17 || len(b) < o+hl+8 {
		return
	}
	ip, udp = b[o:o+hl], b[o+hl:o+hl+8]
	ulen := int(binary.BigEndian.Uint16(udp[4:]))
	if binary.BigEndian.Uint16(udp[2:]) != RoCEv2Port || ulen < 8+BTHLen+ICRCLen || o+hl+ulen > len(b) {
		return
	}
	return ip, udp, b[o+hl+8 : o+hl+ulen-ICRCLen], true
}

// FuzzRoCE4 compares the template path with icrcRoCEv2 on arbitrary
// headers and payload, twice through one cache (a hit after the miss) and
// once more with the changing octets flipped (a hit with other values).
func FuzzRoCE4(f *testing.F) {
	f.Add(append([]byte{0x45}, make([]byte, 19)...), make([]byte, 8), make([]byte, BTHLen+4))
	f.Add([]byte{0x45, 0xc2, 0, 0x3c, 0x71, 0x8c, 0x40, 0, 0x40, 0x11, 0x91, 0x61, 10, 0, 0x11, 1, 10, 0, 0x12, 1},
		[]byte{0, 0, 0x12, 0xb7, 0, 0x28, 0, 0}, append([]byte{0x81, 0, 0xff, 0xff, 0x40, 0, 1, 0x18, 0, 0, 0, 0}, make([]byte, 16)...))
	f.Fuzz(func(t *testing.T, ip, udp, ib []byte) {
		var c icrcCache
		var s scratch
		checkRoCE4(t, &c, &s, ip, udp, ib)
		checkRoCE4(t, &c, &s, ip, udp, ib)
		if len(ip) == 20 && len(udp) >= 8 && len(ib) >= BTHLen {
			ip2, udp2, ib2 := append([]byte(nil), ip...), append([]byte(nil), udp...), append([]byte(nil), ib...)
			ip2[2], ip2[5], udp2[4], ib2[0], ib2[1], ib2[8], ib2[11] = ^ip2[2], ^ip2[5], ^udp2[4], ^ib2[0], ^ib2[1], ^ib2[8], ^ib2[11]
			checkRoCE4(t, &c, &s, ip2, udp2, ib2)
		}
	})
}
