// Package mpa dissects MPA (Marker PDU Aligned framing, draft-ietf-rddp-mpa-00,
// RFC 5044, RFC 6581): the Request/Reply startup frames and the FPDU stream
// (ULPDU length, pad, CRC32c, markers). It reads whole TCP streams
// (dissect.StreamDissector), so marker positions come from exact stream
// sequence arithmetic, not from segment boundaries, and hands every ULPDU,
// markers removed, to the upper layer (DDP/RDMAP).
package mpa

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"
	"sync/atomic"
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

// castagnoli is hash/crc32's Castagnoli table, fetched on the first CRC:
// made at init, it took ~1% of a short run's CPU, iWARP or not, and
// crc32.MakeTable on every call cost 8 ns (10%) of a 1,448-octet CRC.
var castagnoli atomic.Pointer[crc32.Table]

// CRC is CRC-32C (Castagnoli) as MPA uses it; the wire carries it
// little-endian (verified against the draft's Fig. 5/6 dumps).
func CRC(b []byte) uint32 {
	if t := castagnoli.Load(); t != nil { // inlined: the first call alone goes on
		return crc32.Checksum(b, t)
	}
	return firstCRC(b)
}

func firstCRC(b []byte) uint32 {
	t := crc32.MakeTable(crc32.Castagnoli) // the same table every time
	castagnoli.Store(t)
	return crc32.Checksum(b, t)
}

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

// EncodeIRDORD appends the RFC 6581 §9.1 enhanced connection data word:
// IRD with the peer-to-peer (P) and zero-length-Send RTR (Z) bits, ORD
// with the zero-length Write (W) and Read (R) RTR bits. ird and ord are
// cut to 14 bits.
func EncodeIRDORD(dst []byte, ird, ord uint16, ctrlIRD, ctrlORD uint16) []byte {
	dst = binary.BigEndian.AppendUint16(dst, ird&IRDORDMask|ctrlIRD&^IRDORDMask)
	return binary.BigEndian.AppendUint16(dst, ord&IRDORDMask|ctrlORD&^IRDORDMask)
}

// IRDORD reads the enhanced connection data word at the start of private
// data p (len(p) >= 4): the two 14-bit values and the control bits.
func IRDORD(p []byte) (ird, ord, ctrlIRD, ctrlORD uint16) {
	i, o := binary.BigEndian.Uint16(p), binary.BigEndian.Uint16(p[2:])
	return i & IRDORDMask, o & IRDORDMask, i &^ IRDORDMask, o &^ IRDORDMask
}

// MULPDU is the largest ULPDU a sender hands DDP for an effective MSS of
// emss (RFC 5044 §8.1): EMSS − (6 + 4·⌈EMSS/512⌉ + EMSS mod 4) with
// markers, EMSS − (6 + EMSS mod 4) without, never below 128 nor above
// MaxULPDU.
func MULPDU(emss int, markers bool) int {
	m := emss - (6 + emss%4)
	if markers {
		m -= 4 * ((emss + MarkerInterval - 1) / MarkerInterval)
	}
	return max(128, min(m, MaxULPDU))
}

// WireLen returns the wire length of the FPDU at the head of b, whose first
// octet is at rel (see Layout), and false when b is too short to tell
// (fewer octets than the leading marker and ULPDU_Length).
func WireLen(b []byte, rel uint32, markers bool) (int, bool) {
	lead := 0
	if markers && rel%MarkerInterval == 0 {
		lead = MarkerLen
	}
	if len(b) < lead+2 {
		return 0, false
	}
	n := LogicalLen(int(binary.BigEndian.Uint16(b[lead:])))
	if !markers {
		return n, true
	}
	w, _ := Layout(rel, n, nil)
	return w, true
}

// FrameError is what Unframe found wrong with an FPDU: the error an MPA
// receiver answers with a Terminate (RFC 5044 §8: LLP error codes 2 and 3).
type FrameError struct {
	Marker bool   // a marker's FPDUPTR is wrong (else the CRC)
	Offset int    // the bad marker's offset in the FPDU
	Got    uint32 // the wire CRC or FPDUPTR
	Want   uint32
}

func (e *FrameError) Error() string {
	if e.Marker {
		return "MPA marker at FPDU offset " + strconv.Itoa(e.Offset) + " has FPDUPTR " + strconv.Itoa(int(e.Got)) +
			", expected " + strconv.Itoa(int(e.Want))
	}
	return "bad MPA CRC: computed 0x" + strconv.FormatUint(uint64(e.Want), 16) + ", FPDU carries 0x" + strconv.FormatUint(uint64(e.Got), 16)
}

// Unframe checks the wire octets fp of one whole FPDU (len(fp) is its
// WireLen) whose first octet is at rel: every marker points back at the
// FPDU's start and, when crc is set, the CRC verifies. It appends the ULPDU,
// markers removed, to dst.
func Unframe(dst, fp []byte, rel uint32, markers, crc bool) ([]byte, error) {
	if w, ok := WireLen(fp, rel, markers); !ok || w != len(fp) {
		return dst, errors.New("MPA FPDU of " + strconv.Itoa(len(fp)) + " octets does not match its ULPDU_Length")
	}
	if crc {
		if want, got := CRC(fp[:len(fp)-CRCLen]), binary.LittleEndian.Uint32(fp[len(fp)-CRCLen:]); want != got {
			return dst, &FrameError{Got: got, Want: want}
		}
	}
	lead := 0
	var marks []int32
	if markers {
		if rel%MarkerInterval == 0 {
			lead = MarkerLen
		}
		_, marks = Layout(rel, LogicalLen(int(binary.BigEndian.Uint16(fp[lead:]))), nil)
	}
	start := len(dst)
	prev := 0
	for _, m := range marks {
		want := 0
		if m != 0 {
			want = int(m) - lead
		}
		if ptr := markerPtr(fp[m:], false); ptr&^3 != want {
			return dst[:start], &FrameError{Marker: true, Offset: int(m), Got: uint32(ptr), Want: uint32(want)}
		}
		dst = append(dst, fp[prev:m]...)
		prev = int(m) + MarkerLen
	}
	dst = append(dst, fp[prev:len(fp)-CRCLen]...)
	ulen := int(binary.BigEndian.Uint16(dst[start:]))
	return append(dst[:start], dst[start+2:start+2+ulen]...), nil
}
