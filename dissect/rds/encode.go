package rds

import "encoding/binary"

// Encoders shared by everything that builds RDS/TCP traffic (active/synth's
// frames, active/rds's live stack): one copy of the wire layout.

// MaxPaths is Linux RDS_MPATH_WORKERS: the paths (TCP connections) one
// address pair may use, and the NPATHS a Linux probe advertises.
const MaxPaths = 8

// ProbeExt returns the extension area of a multipath handshake probe or
// pong: RDS_EXTHDR_NPATHS, then RDS_EXTHDR_GEN_NUM when gen is not 0. Linux
// 6.1's rds_message_add_extension refuses a second extension, so a 6.1
// kernel's probe carries NPATHS only (pcaps/kernel/rds_tcp.pcap); its
// receiver (rds_recv_hs_exthdrs) walks and accepts both.
func ProbeExt(npaths uint16, gen uint32) (e [ExtLen]byte) {
	e[0] = ExtNPaths
	binary.BigEndian.PutUint16(e[1:], npaths)
	if gen != 0 {
		e[3] = ExtGenNum
		binary.BigEndian.PutUint32(e[4:], gen)
	}
	return e
}

// Handshake reads a probe's or pong's NPATHS and GEN_NUM extensions; a
// missing one reads as 0 (Linux then takes one path and keeps the old
// generation number).
func (h Header) Handshake() (npaths uint16, gen uint32) {
	it := h.Exts()
	for {
		typ, val, _, st := it.Next()
		if st != ExtOK {
			return npaths, gen
		}
		switch typ {
		case ExtNPaths:
			npaths = binary.BigEndian.Uint16(val)
		case ExtGenNum:
			gen = binary.BigEndian.Uint32(val)
		}
	}
}

// IsProbe reports the handshake probe (from RDS port 1 to 0) and IsProbePong
// its answer (0 to 1): Linux RDS_HS_PROBE.
func (h Header) IsProbe() bool     { return h.Sport() == ProbePort && h.Dport() == 0 }
func (h Header) IsProbePong() bool { return h.Sport() == 0 && h.Dport() == ProbePort }

// CongSet marks port congested (on) or not in a congestion map: one bit per
// port in little-endian 64-bit words (Linux rds_cong_set_bit, __set_bit_le).
func CongSet(m []byte, port uint16, on bool) {
	i := int(port) / 64 * 8
	w := binary.LittleEndian.Uint64(m[i:])
	if on {
		w |= 1 << (port % 64)
	} else {
		w &^= 1 << (port % 64)
	}
	binary.LittleEndian.PutUint64(m[i:], w)
}

// CongIsSet reports whether port is congested in map m.
func CongIsSet(m []byte, port uint16) bool {
	return binary.LittleEndian.Uint64(m[int(port)/64*8:])&(1<<(port%64)) != 0
}
