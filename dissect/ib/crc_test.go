package ib

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
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

func TestVCRCTable(t *testing.T) {
	// CRC-16/0x100B reflected of the empty input is 0 after the final complement of 0xFFFF.
	if VCRC(nil) != 0 {
		t.Errorf("VCRC(nil) = %#x", VCRC(nil))
	}
}
