package testpkt

import (
	"encoding/binary"
	"math/bits"

	"github.com/rdx-project/rdx/dissect/ib"
)

// ERFIB is one native InfiniBand packet (LRH without GRH, BTH, a DETH for
// UD opcodes, payload, ICRC and VCRC, both correct) in an ERF record of
// type InfiniBand captured on ERF port port at timeNS, as ibdump and DAG
// cards write them.
func ERFIB(timeNS int64, port uint8, slid, dlid uint16, opcode uint8, qp, psn uint32, payload []byte) []byte {
	pad := (4 - len(payload)%4) % 4
	var p []byte
	p = append(p, 0, 0x02, byte(dlid>>8), byte(dlid), 0, 0, byte(slid>>8), byte(slid)) // LRH: LNH 2, BTH next
	p = append(p, opcode, byte(pad)<<4, 0xff, 0xff, 0, byte(qp>>16), byte(qp>>8), byte(qp), 0,
		byte(psn>>16), byte(psn>>8), byte(psn))
	if opcode>>5 == 3 { // UD: DETH, Q_Key 0x0b1b (IPoIB's usual), source QP 0x48
		p = append(p, 0, 0, 0x0b, 0x1b, 0, 0, 0, 0x48)
	}
	p = append(p, payload...)
	p = append(p, make([]byte, pad)...)
	words := (len(p) + ib.ICRCLen) / 4
	binary.BigEndian.PutUint16(p[4:], uint16(words))
	crc, _ := ib.ICRCNative(p)
	p = binary.LittleEndian.AppendUint32(p, crc)
	p = binary.BigEndian.AppendUint16(p, bits.ReverseBytes16(ib.VCRC(p)))

	rec := make([]byte, 16, 16+len(p))
	sec, ns := uint64(timeNS/1e9), uint64(timeNS%1e9)
	binary.LittleEndian.PutUint64(rec, sec<<32|(ns<<32)/1e9)
	rec[8], rec[9] = ib.ERFTypeIB, port&3|0x04 // varying record length
	binary.BigEndian.PutUint16(rec[10:], uint16(16+len(p)))
	binary.BigEndian.PutUint16(rec[14:], uint16(len(p)))
	return append(rec, p...)
}

// IPoIB is an IP over InfiniBand payload: the 4-octet encapsulation header
// (EtherType, two reserved zero octets) and pkt.
func IPoIB(etherType uint16, pkt []byte) []byte {
	return append([]byte{byte(etherType >> 8), byte(etherType), 0, 0}, pkt...)
}
