package ib

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"strconv"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestICRCVectors checks the two verified vectors of the spec (§9.1). Byte
// order: the CRC-32 is sent least significant octet first, so the 4 wire
// octets read little-endian equal crc32.ChecksumIEEE of the masked input.
func TestICRCVectors(t *testing.T) {
	// A: RoCEv2 CNP from a ConnectX-4 Lx (IPv4 TOS 0xc2).
	ip := unhex(t, "45 c2 00 3c 71 8c 40 00 40 11 91 61 0a 00 11 01 0a 00 12 01")
	udp := unhex(t, "00 00 12 b7 00 28 00 00")
	ib := unhex(t, "81 00 ff ff 40 00 01 18 00 00 00 00"+strings.Repeat(" 00", 16))
	wire := unhex(t, "82 fd 00 2a")
	crc, ok := ICRCRoCEv2(ip, udp, ib)
	if !ok || crc != 0x2A00FD82 || binary.LittleEndian.Uint32(wire) != crc {
		t.Errorf("vector A: got %#x ok=%v, want 0x2a00fd82", crc, ok)
	}
	// B: RoCEv2 UC SEND_ONLY with MigReq and PadCnt 2.
	ip = unhex(t, "45 01 00 40 04 78 40 00 40 11 b4 d5 c0 a8 00 07 c0 a8 00 07")
	udp = unhex(t, "c0 00 12 b7 00 2c ac a2")
	ib = unhex(t, "24 60 ff ff 00 00 00 d3 00 cf 17 10 46 30 81 8b e2 89 35 d9 0e 9a 95 50 54 01 be 88 5e 50 00 00")
	wire = unhex(t, "78 f3 53 f3")
	crc, ok = ICRCRoCEv2(ip, udp, ib)
	if !ok || crc != 0xF353F378 || binary.LittleEndian.Uint32(wire) != crc {
		t.Errorf("vector B: got %#x ok=%v, want 0xf353f378", crc, ok)
	}
	h := BTH(ib)
	if h.Opcode() != 0x24 || !h.MigReq() || h.PadCnt() != 2 || h.DestQP() != 211 || h.PSN() != 13571856 || h.Transport() != UC {
		t.Errorf("vector B BTH decode wrong")
	}
	// The seed Linux rxe uses: the register after 8 octets of 0xFF.
	if got := ^crc32.Update(0, crc32.IEEETable, ones8[:]); got != 0xDEBB20E3 {
		t.Errorf("seed %#x, want 0xdebb20e3", got)
	}
}

// zeroLead and the run layout of finish are an optimisation only: every
// ICRC must equal crc32.ChecksumIEEE over the plainly masked packet, for
// every payload length around the 16- and 64-octet boundaries, on each
// carrier (RoCEv2 over IPv4 with and without options, IPv6 with and without
// an extension header, RoCEv1, native IB with and without a GRH).
func TestICRCMatchesPlainChecksum(t *testing.T) {
	for z := range lead {
		if got := crc32.Update(zeroLead[z], crc32.IEEETable, make([]byte, z)); got != 0 {
			t.Fatalf("zeroLead[%d]: %d zeros lead to %#x, not 0", z, z, got)
		}
	}
	var s scratch
	pat := func(n, seed int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + seed)
		}
		return b
	}
	ones := func(b []byte, idx ...int) []byte {
		b = append([]byte(nil), b...)
		for _, i := range idx {
			b[i] = 0xFF
		}
		return b
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	ip4 := pat(20, 1)
	ip4[0] = 0x45
	ip4opt := pat(28, 2)
	ip4opt[0] = 0x47
	ip6 := pat(40, 3)
	ip6[0] = 0x60
	ip6ext := pat(48, 4)
	ip6ext[0] = 0x60
	udp := pat(8, 5)
	for n := 0; n <= moveMax+40; n++ {
		ib := pat(BTHLen+n, n)
		bth := ones(ib[:BTHLen], 4)
		for _, ip := range [][]byte{ip4, ip4opt} {
			want := crc32.ChecksumIEEE(cat(ones8[:], ones(ip, 1, 8, 10, 11), ones(udp, 6, 7), bth, ib[BTHLen:]))
			if got, ok := icrcRoCEv2(&s, ip, udp, ib); !ok || got != want {
				t.Fatalf("RoCEv2/IPv4 (header %d), payload %d: %#x, want %#x", len(ip), n, got, want)
			}
		}
		for _, ip := range [][]byte{ip6, ip6ext} {
			m := ones(ip, 1, 2, 3, 7)
			m[0] |= 0x0F
			want := crc32.ChecksumIEEE(cat(ones8[:], m, ones(udp, 6, 7), bth, ib[BTHLen:]))
			if got, ok := icrcRoCEv2(&s, ip, udp, ib); !ok || got != want {
				t.Fatalf("RoCEv2/IPv6 (header %d), payload %d: %#x, want %#x", len(ip), n, got, want)
			}
		}
		grh := pat(GRHLen, 6)
		mg := ones(grh, 1, 2, 3, 7)
		mg[0] |= 0x0F
		want := crc32.ChecksumIEEE(cat(ones8[:], mg, bth, ib[BTHLen:]))
		if got, ok := icrcRoCEv1(&s, cat(grh, ib)); !ok || got != want {
			t.Fatalf("RoCEv1, payload %d: %#x, want %#x", n, got, want)
		}
		lrh := pat(LRHLen, 7)
		lrh[1] = 2 // LNH: local, no GRH
		ml := append([]byte(nil), lrh...)
		ml[0] |= 0xF0
		want = crc32.ChecksumIEEE(cat(ml, bth, ib[BTHLen:]))
		if got, ok := icrcNative(&s, cat(lrh, ib)); !ok || got != want {
			t.Fatalf("native IB, payload %d: %#x, want %#x", n, got, want)
		}
		lrh[1] = 3 // LNH: global, GRH follows
		want = crc32.ChecksumIEEE(cat(ones8[:], mg, bth, ib[BTHLen:]))
		if got, ok := icrcNative(&s, cat(lrh, grh, ib)); !ok || got != want {
			t.Fatalf("native IB with GRH, payload %d: %#x, want %#x", n, got, want)
		}
	}
}

func TestVCRCTable(t *testing.T) {
	// CRC-16/0x100B reflected of the empty input is 0 after the final complement of 0xFFFF.
	if VCRC(nil) != 0 {
		t.Errorf("VCRC(nil) = %#x", VCRC(nil))
	}
}

// BenchmarkICRC is the RoCEv2 ICRC over IPv4, with the dissector's reused
// scratch, for the payload sizes an NFS exchange has: an ACK (AETH only), a
// small SEND, a PMTU-sized READ Response Middle (1024) and First (AETH +
// 1024); and roce4/N, the template path the dissector takes (template
// cached), also for a READ Request (RETH, 16) and a 104-octet SEND.
func BenchmarkICRC(b *testing.B) {
	var s scratch
	var c icrcCache
	for _, n := range []int{4, 16, 104, 148, 1024, 1028} {
		ip := make([]byte, 20)
		ip[0] = 0x45
		udp := make([]byte, 8)
		pkt := make([]byte, BTHLen+n)
		if n != 16 && n != 104 {
			b.Run(strconv.Itoa(n), func(b *testing.B) {
				b.SetBytes(int64(len(pkt)))
				for i := 0; i < b.N; i++ {
					icrcRoCEv2(&s, ip, udp, pkt)
				}
			})
		}
		b.Run("roce4/"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(pkt)))
			for i := 0; i < b.N; i++ {
				c.roce4(&s, ip, udp, pkt)
			}
		})
	}
}
