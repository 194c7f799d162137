// Package mpa dissects MPA (Marker PDU Aligned framing, draft-ietf-rddp-mpa-00,
// RFC 5044, RFC 6581): the Request/Reply startup frames and the FPDU stream
// (ULPDU length, pad, CRC32c, markers). It reads whole TCP streams
// (dissect.StreamDissector), so marker positions come from exact stream
// sequence arithmetic, not from segment boundaries, and hands every ULPDU,
// markers removed, to the upper layer (DDP/RDMAP).
package mpa

import (
	"encoding/binary"
	"hash/crc32"
)

// Wire constants (RFC 5044 §6-7).
const (
	KeyLen         = 16
	StartupLen     = 20 // key + flags + rev + PD_Length
	MarkerInterval = 512
	MarkerLen      = 4
	CRCLen         = 4
	MaxULPDU       = 64768 // RFC 5044 §6.1: never larger, whatever the MSS
	MaxPrivate     = 512   // RFC 5044 §7.1.4 (rev >= 1)
)

// Startup frame flag bits (octet 16).
const (
	FlagM        = 0x80 // markers required by the sender of this frame
	FlagC        = 0x40 // CRC wanted
	FlagR        = 0x20 // reject (RFC 5044; reserved in draft-00)
	FlagEnhanced = 0x10 // RFC 6581 enhanced connection data present
)

// RFC 6581 IRD/ORD word bits.
const (
	IRDPeerToPeer = 0x8000
	IRDZeroRTR    = 0x4000
	ORDWriteRTR   = 0x8000
	ORDReadRTR    = 0x4000
	IRDORDMask    = 0x3fff
)

var (
	KeyReq = []byte("MPA ID Req Frame")
	KeyRep = []byte("MPA ID Rep Frame")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC is CRC-32C (Castagnoli) as MPA uses it; the wire carries it
// little-endian (verified against the draft's Fig. 5/6 dumps).
func CRC(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// PadLen is the pad after a ULPDU of n octets: the FPDU (2+n+pad) is a
// multiple of 4.
func PadLen(n int) int { return (4 - (2+n)%4) % 4 }

// LogicalLen is an FPDU's length without markers: length field, ULPDU, pad
// and CRC.
func LogicalLen(ulpdu int) int { return 2 + ulpdu + PadLen(ulpdu) + CRCLen }

// Layout places the markers of an FPDU with n logical octets whose first
// octet is at rel (stream position minus the marker base, mod 2^32; only rel
// mod 512 matters, so the arithmetic is right across sequence wrap). It
// returns the wire length and appends each marker's offset in the FPDU to dst.
// A marker due right after the last logical octet belongs to the next FPDU;
// one due at the first octet leads this FPDU (FPDUPTR 0).
func Layout(rel uint32, n int, dst []int32) (int, []int32) {
	w, logical := 0, 0
	for logical < n {
		ph := int((rel + uint32(w)) % MarkerInterval)
		if ph == 0 {
			dst = append(dst, int32(w))
			w += MarkerLen
			continue
		}
		step := min(MarkerInterval-ph, n-logical)
		w += step
		logical += step
	}
	return w, dst
}

// StartupFrame is a parsed Request or Reply.
type StartupFrame []byte

func (s StartupFrame) IsReq() bool     { return string(s[:KeyLen]) == string(KeyReq) }
func (s StartupFrame) IsRep() bool     { return string(s[:KeyLen]) == string(KeyRep) }
func (s StartupFrame) Flags() uint8    { return s[16] }
func (s StartupFrame) Rev() uint8      { return s[17] }
func (s StartupFrame) PDLen() int      { return int(binary.BigEndian.Uint16(s[18:])) }
func (s StartupFrame) Private() []byte { return s[StartupLen:] }

// IsKey reports whether b starts with a Request or Reply key (or a prefix of
// one, when b is shorter).
func IsKey(b []byte) bool {
	n := min(len(b), KeyLen)
	return n >= 8 && (string(b[:n]) == string(KeyReq[:n]) || string(b[:n]) == string(KeyRep[:n]))
}

// EncodeStartup appends a Request (rep false) or Reply frame.
func EncodeStartup(dst []byte, rep bool, flags, rev uint8, private []byte) []byte {
	if rep {
		dst = append(dst, KeyRep...)
	} else {
		dst = append(dst, KeyReq...)
	}
	dst = append(dst, flags, rev)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(private)))
	return append(dst, private...)
}

// EncodeFPDU appends an FPDU carrying ulpdu, with markers placed for a first
// octet at rel (see Layout) when markers is set, and a CRC when crc is set
// (zeros otherwise: the field is always there). Interior markers point back
// at the ULPDU_Length octet; a leading marker has FPDUPTR 0.
func EncodeFPDU(dst, ulpdu []byte, rel uint32, markers, crc bool) []byte {
	var lg [2]byte
	binary.BigEndian.PutUint16(lg[:], uint16(len(ulpdu)))
	pad := PadLen(len(ulpdu))
	n := LogicalLen(len(ulpdu)) - CRCLen // CRC appended after
	start := len(dst)
	logical := func(i int) byte {
		switch {
		case i < 2:
			return lg[i]
		case i < 2+len(ulpdu):
			return ulpdu[i-2]
		}
		return 0 // pad
	}
	lead := 0
	w := 0
	for i := 0; i < n; {
		if markers && (rel+uint32(w))%MarkerInterval == 0 {
			ptr := 0
			if w == 0 {
				lead = MarkerLen
			} else {
				ptr = w - lead
			}
			dst = append(dst, 0, 0, byte(ptr>>8), byte(ptr))
			w += MarkerLen
			continue
		}
		dst = append(dst, logical(i))
		i++
		w++
	}
	// A marker due just before the CRC is inside this FPDU (and CRC'd).
	if markers && (rel+uint32(w))%MarkerInterval == 0 {
		ptr := w - lead
		dst = append(dst, 0, 0, byte(ptr>>8), byte(ptr))
	}
	_ = pad
	var c uint32
	if crc {
		c = CRC(dst[start:])
	}
	return binary.LittleEndian.AppendUint32(dst, c)
}

// LayoutLegacy places markers by the rule of the 2008 software iWARP sender
// in the Wireshark wiki captures (iwarp_rdma/read_write_long_run_mrkr): a
// marker every 512 octets of the stream counting markers but not the 4-octet
// CRC fields. rel is the stream position minus the marker base, where the
// caller advances the base by CRCLen after every FPDU, so rel is the
// sender's own count. A marker due right after the pad goes after the CRC
// (it leads the next FPDU): the captures never show that case.
func LayoutLegacy(rel uint32, n int, dst []int32) (int, []int32) {
	w, dst := Layout(rel, n-CRCLen, dst)
	return w + CRCLen, dst
}

// EncodeFPDULegacy is EncodeFPDU with LayoutLegacy's marker placement and
// FPDUPTRs sent little-endian, as that sender does (for tests).
func EncodeFPDULegacy(dst, ulpdu []byte, rel uint32, crc bool) []byte {
	start := len(dst)
	var lg [2]byte
	binary.BigEndian.PutUint16(lg[:], uint16(len(ulpdu)))
	n := LogicalLen(len(ulpdu)) - CRCLen
	lead, w := 0, 0
	for i := 0; i < n; {
		if (rel+uint32(w))%MarkerInterval == 0 {
			ptr := 0
			if w == 0 {
				lead = MarkerLen
			} else {
				ptr = w - lead
			}
			dst = append(dst, 0, 0, byte(ptr), byte(ptr>>8))
			w += MarkerLen
			continue
		}
		switch {
		case i < 2:
			dst = append(dst, lg[i])
		case i < 2+len(ulpdu):
			dst = append(dst, ulpdu[i-2])
		default:
			dst = append(dst, 0)
		}
		i++
		w++
	}
	var c uint32
	if crc {
		c = CRC(dst[start:])
	}
	return binary.LittleEndian.AppendUint32(dst, c)
}

// markersOK checks the markers of one FPDU's wire octets fp: a leading
// marker (offset 0) is all zero, every other one has reserved 0 and points
// back at the FPDU start (FPDUPTR little-endian when le). decisive: an
// interior marker was checked.
func markersOK(fp []byte, marks []int32, lead int, le bool) (ok, decisive bool) {
	if len(marks) == 0 {
		return false, false
	}
	for _, m := range marks {
		mk := fp[m : m+MarkerLen]
		if m == 0 {
			if binary.BigEndian.Uint32(mk) != 0 {
				return false, decisive
			}
			continue
		}
		if binary.BigEndian.Uint16(mk) != 0 || markerPtr(mk, le)&^3 != int(m)-lead {
			return false, decisive
		}
		decisive = true
	}
	return true, decisive
}

// markerPtr reads a marker's FPDUPTR.
func markerPtr(mk []byte, le bool) int {
	if le {
		return int(binary.LittleEndian.Uint16(mk[2:]))
	}
	return int(binary.BigEndian.Uint16(mk[2:]))
}
