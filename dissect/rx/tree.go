package rx

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// The rxkad v2 RESPONSE (Linux struct rxkad_response, OpenAFS
// rxkad_v2Response): version, pad, 40 octets sealed with the session key
// (epoch, cid, checksum, security index, 4 call numbers, nonce+1, level),
// kvno, ticket length, ticket. tshark lays the sealed part out as if it were
// plaintext; rdx shows it as opaque.
const (
	respOffEncrypted = 8
	respEncryptedLen = 40
	respOffKvno      = respOffEncrypted + respEncryptedLen
	respOffTicketLen = respOffKvno + 4
	respOffTicket    = respOffTicketLen + 4
)

// Tree implements dissect.PDU.
func (p *Packet) Tree(t *dissect.Tree, f *dissect.Frame) {
	h := p.hdr
	label := ""
	if p.nsub > 1 && t.Labels() {
		label = "jumbogram sub-packet " + strconv.Itoa(p.sub+1) + " of " + strconv.Itoa(p.nsub)
	}
	t.SetBase(0, p.detached)
	t.Proto(PRx, p.off, len(h)+len(p.body), label) // a truncated header is shorter than HeaderLen
	if !h.Valid() {
		f.TreeFindings(t, p.idx)
		return
	}
	o := p.off
	if !t.SkipSpan(spanConn) {
		t.Uint(fEpoch, o, 4, uint64(h.Epoch())*1e9)
		t.Open()
		t.Uint(fEpochRaw, o, 4, uint64(h.Epoch()))
		t.Uint(fEpochAny, o, 4, uint64(h.Epoch()))
		t.Close()
		t.Uint(fCID, o+offCID, 4, uint64(h.CID()))
		t.Open()
		t.Uint(fConnID, o+offCID, 4, uint64(h.CID()&^3))
		t.Uint(fChannel, o+offCID, 4, uint64(h.CID()))
		t.Close()
	}
	t.Uint(fCall, o+offCall, 4, uint64(h.CallNumber()))
	// A sub-packet's sequence and serial are derived from the full header:
	// generated nodes (no bytes of their own).
	if p.sub > 0 {
		t.Uint(fSeq, -1, 0, uint64(p.seq))
	} else {
		t.Uint(fSeq, o+offSeq, 4, uint64(p.seq))
	}
	typ := h.Type()
	// rx.type and rx.serial alone do not walk the flags and the tail
	if !t.SkipSpan(spanRest) {
		if !t.SkipSpan(spanSerial) {
			if p.sub > 0 {
				t.Uint(fSerial, -1, 0, uint64(p.ser))
			} else {
				t.Uint(fSerial, o+offSerial, 4, uint64(p.ser))
			}
		}
		t.Uint(fType, o+offType, 1, uint64(typ))
		if !t.SkipSpan(spanFlags) {
			flagOff := o + offFlags
			if p.sub > 0 {
				flagOff = p.jhOff
			}
			bit20 := fFlagJumbo
			if typ == TypeAck {
				bit20 = fFlagSlow
			}
			flagsText := ""
			if t.Labels() { // formatted only for a tree that shows them
				flagsText = flagsLabel(p.flags, typ)
			}
			t.Flags(fFlags, flagOff, 1, uint64(p.flags), flagsText,
				bit20, fFlagFree, fFlagMore, fFlagLast, fFlagRA, fFlagCI)
		}
		if !t.SkipSpan(spanTail) {
			secText := ""
			if t.Labels() {
				secText = secLabel(h.SecurityIndex())
			}
			t.Uint(fUser, o+offUser, 1, uint64(h.UserStatus()))
			t.UintLabel(fSecIdx, o+offSecIdx, 1, uint64(h.SecurityIndex()), secText)
			t.Uint(fSpare, o+offSpare, 2, uint64(h.Spare()))
			t.Uint(fService, o+offService, 2, uint64(h.ServiceID()))
		}
	}
	if p.nsub > 1 {
		t.Uint(fJumbo, -1, 0, uint64(p.sub))
		t.Uint(fJumboCount, -1, 0, uint64(p.nsub))
		if p.sub > 0 {
			t.Uint(fJumboFlags, p.jhOff, 1, uint64(p.flags))
			t.Uint(fJumboPad, p.jhOff+1, 1, uint64(p.jh[1]))
			t.Uint(fJumboCksum, p.jhOff+2, 2, uint64(binary.BigEndian.Uint16(p.jh[2:])))
		}
	}
	b, bo := p.body, p.boff
	switch typ {
	case TypeData:
		if !t.SkipSpan(spanDataLen) {
			t.Uint(fDataLen, -1, 0, uint64(len(b)))
		}
		if p.retransOf != 0 {
			t.Uint(fRetrans, -1, 0, p.retransOf)
		}
	case TypeAck:
		ackTree(t, p, b, bo)
	case TypeAbort:
		t.Uint(fAbort, bo, len(b), 1)
		if len(b) >= 4 {
			code := binary.BigEndian.Uint32(b)
			t.Open()
			t.Int(fAbortCode, bo, 4, int64(int32(code)))
			if p.abortName != "" {
				t.String(fAbortName, bo, 4, p.abortName)
			}
			t.Close()
		}
	case TypeChallenge:
		t.Uint(fChallenge, bo, len(b), 1)
		t.Open()
		if len(b) >= 12 {
			t.Uint(fVersion, bo, 4, uint64(binary.BigEndian.Uint32(b)))
			t.Uint(fNonce, bo+4, 4, uint64(binary.BigEndian.Uint32(b[4:])))
			t.Uint(fMinLevel, bo+8, 4, uint64(binary.BigEndian.Uint32(b[8:])))
		} else if len(b) > 0 {
			t.Bytes(fPayload, bo, len(b), b)
		}
		t.Close()
	case TypeResponse:
		t.Uint(fResponse, bo, len(b), 1)
		t.Open()
		if len(b) >= respOffTicket {
			t.Uint(fVersion, bo, 4, uint64(binary.BigEndian.Uint32(b)))
			t.Uint(fEncrypted, bo+respOffEncrypted, respEncryptedLen, 0) // FT_NONE, as tshark
			t.Uint(fKvno, bo+respOffKvno, 4, uint64(binary.BigEndian.Uint32(b[respOffKvno:])))
			tl := binary.BigEndian.Uint32(b[respOffTicketLen:])
			t.Uint(fTicketLen, bo+respOffTicketLen, 4, uint64(tl))
			tk := b[respOffTicket:]
			if uint64(len(tk)) > uint64(tl) {
				tk = tk[:tl]
			}
			t.Bytes(fTicket, bo+respOffTicket, len(tk), tk)
		} else if len(b) > 0 {
			t.Bytes(fPayload, bo, len(b), b)
		}
		t.Close()
	case TypeDebug:
		debugTree(t, p, b, bo)
	case TypeVersion:
		if len(b) > 0 {
			v := ""
			if t.Wants(fVerString) {
				v = string(versionString(b))
			}
			t.String(fVerString, bo, len(b), v)
		}
	default:
		if len(b) > 0 {
			t.Bytes(fPayload, bo, len(b), b)
		}
	}
	f.TreeFindings(t, p.idx)
}

// The spans of the header (dissect.Tree.SkipSpan) around the call number
// and sequence, the fields scripts ask for most: the connection, and the
// rest, within which the flags with their bits and the tail are spans of
// their own, so that a tree keeping rx.type (or rx.serial) walks two nodes
// of the rest's thirteen. Bit 0x20 of the flags is one of two fields by
// packet type: the spans hold both (Alt), so that they are walked when
// either is kept.
var (
	spanConn = dissect.NewSpan(fEpoch, fEpochRaw, fEpochAny, fCID, fConnID, fChannel)
	spanRest = dissect.NewSpan(fSerial, fType, fFlags, fFlagJumbo, fFlagFree, fFlagMore,
		fFlagLast, fFlagRA, fFlagCI, fUser, fSecIdx, fSpare, fService).Alt(3, fFlagSlow)
	spanFlags = dissect.NewSpan(fFlags, fFlagJumbo, fFlagFree, fFlagMore, fFlagLast, fFlagRA, fFlagCI).Alt(1, fFlagSlow)
	spanTail  = dissect.NewSpan(fUser, fSecIdx, fSpare, fService)
	// one node each, on every DATA packet: a skipped span costs less than
	// a node the tree does not keep
	spanSerial  = dissect.NewSpan(fSerial)
	spanDataLen = dissect.NewSpan(fDataLen)
)

func secLabel(i uint8) string {
	s := strconv.Itoa(int(i))
	if n, ok := secNames[uint64(i)]; ok {
		return s + " (" + n + ")"
	}
	return s
}

var flagLong = [...]string{"Client Initiated", "Request Ack", "Last Packet", "More Packets", "Free Packet", "Jumbo Packet"}

// flagsLabel is "0x05, Last Packet, Client Initiated", highest bit first as
// Wireshark lists them.
func flagsLabel(fl uint8, typ uint8) string {
	var b []byte
	b = append(b, "0x"...)
	b = append(b, hexByte(fl)...)
	for i := 7; i >= 0; i-- {
		if fl&(1<<i) == 0 {
			continue
		}
		b = append(b, ", "...)
		switch {
		case i == 5 && typ == TypeAck:
			b = append(b, "Slow Start OK"...)
		case i < len(flagLong):
			b = append(b, flagLong[i]...)
		default:
			b = append(b, "Unknown 0x"...)
			b = append(b, hexByte(1<<i)...)
		}
	}
	return string(b)
}

func hexByte(v uint8) string { return string(dissect.AppendHexDigits(nil, uint64(v), 2)) }

func ackTree(t *dissect.Tree, p *Packet, b []byte, bo int) {
	a := Ack(b)
	t.Uint(fAck, bo, len(b), 1)
	if !a.Valid() {
		return
	}
	t.Open()
	t.Uint(fBufSpace, bo+ackOffBufSpace, 2, uint64(a.BufferSpace()))
	t.Uint(fMaxSkew, bo+ackOffMaxSkew, 2, uint64(a.MaxSkew()))
	t.Uint(fFirst, bo+ackOffFirst, 4, uint64(a.FirstPacket()))
	t.Uint(fPrev, bo+ackOffPrev, 4, uint64(a.PrevPacket()))
	t.Uint(fSerial, bo+ackOffSerial, 4, uint64(a.Serial()))
	if p.rttFrame != 0 {
		t.Open()
		t.Uint(fAckFrame, -1, 0, p.rttFrame)
		t.Int(fAckRTT, -1, 0, p.rtt)
		t.Close()
	}
	t.Uint(fReason, bo+ackOffReason, 1, uint64(a.Reason()))
	t.Uint(fNumAcks, bo+ackOffNAcks, 1, uint64(a.NAcks()))
	acks := a.Acks()
	if len(acks) > 0 {
		acked, nacked := "", ""
		if t.Wants(fAcked) {
			acked = string(appendRanges(nil, a.FirstPacket(), acks, 1))
		}
		if t.Wants(fNacked) {
			nacked = string(appendRanges(nil, a.FirstPacket(), acks, 0))
		}
		t.String(fAcked, -1, 0, acked)
		t.String(fNacked, -1, 0, nacked)
	}
	for i, v := range acks {
		label := ""
		if t.Labels() {
			label = ackLabel(v, a.FirstPacket()+uint32(i))
		}
		t.UintLabel(fAckType, bo+ackOffAcks+i, 1, uint64(v), label)
		t.Open()
		t.Uint(fAckSeq, -1, 0, uint64(a.FirstPacket())+uint64(i))
		t.Close()
	}
	to := a.TrailerOffset()
	if to <= len(b) {
		t.Bytes(fAckPad, bo+to-3, 3, b[to-3:to])
	}
	words := [...]*dissect.Field{fMaxMTU, fIfMTU, fRwind, fMaxPackets}
	for i := 0; i < a.TrailerWords(); i++ {
		t.Uint(words[i], bo+to+4*i, 4, uint64(a.TrailerWord(i)))
	}
	t.Close()
}

func ackLabel(v byte, seq uint32) string {
	name := "ACK"
	if v == 0 {
		name = "NACK"
	} else if v != 1 {
		name = "Unknown"
	}
	return name + " (" + strconv.Itoa(int(v)) + ") for seq " + strconv.FormatUint(uint64(seq), 10)
}

func appendDebugSummary(dst []byte, p *Packet) []byte {
	b := p.body
	if p.hdr.Flags()&FlagClientInitiated != 0 {
		dst = append(dst, " request"...)
		if len(b) >= 8 {
			dst = append(dst, ' ')
			dst = appendDebugType(dst, binary.BigEndian.Uint32(b))
			dst = append(dst, " index "...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(b[4:])), 10)
		}
		return dst
	}
	dst = append(dst, " reply"...)
	if p.debugType != 0 {
		dst = append(dst, ' ')
		dst = appendDebugType(dst, p.debugType)
	}
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	return append(dst, " bytes"...)
}

func appendDebugType(dst []byte, v uint32) []byte {
	if n, ok := debugTypeNames[uint64(v)]; ok {
		return append(dst, n...)
	}
	dst = append(dst, "type "...)
	return strconv.AppendUint(dst, uint64(v), 10)
}

// debugTree decodes DEBUG requests (type, index) and replies by the type of
// the request on the same connection: GETSTATS (struct rx_debugStats),
// GETCONN/GETALLCONN (rx_debugConn, leading fields), GETPEER (rx_debugPeer,
// leading fields), RXSTATS (a list of counters).
func debugTree(t *dissect.Tree, p *Packet, b []byte, bo int) {
	u32 := func(i int) uint64 { return uint64(binary.BigEndian.Uint32(b[i:])) }
	if p.hdr.Flags()&FlagClientInitiated != 0 {
		if len(b) >= 8 {
			t.Uint(fDbgType, bo, 4, u32(0))
			t.Uint(fDbgIndex, bo+4, 4, u32(4))
		} else if len(b) > 0 {
			t.Bytes(fPayload, bo, len(b), b)
		}
		return
	}
	labels := t.Labels() // "name: value" labels only for a tree that shows them
	word := func(name string, i int) {
		if i+4 <= len(b) {
			label := ""
			if labels {
				label = name + ": " + strconv.FormatUint(u32(i), 10)
			}
			t.UintLabel(fDbgWord, bo+i, 4, u32(i), label)
		}
	}
	label := func(l func() string) string {
		if labels {
			return l()
		}
		return ""
	}
	switch p.debugType {
	case 1: // GETSTATS
		t.Uint(fDbgType, -1, 0, 1)
		for i, n := range []string{"nFreePackets", "packetReclaims", "callsExecuted"} {
			word(n, 4*i)
		}
		if len(b) >= 16 {
			t.UintLabel(fDbgWord, bo+12, 1, uint64(b[12]), label(func() string { return "waitingForPackets: " + strconv.Itoa(int(b[12])) }))
			t.UintLabel(fDbgWord, bo+13, 1, uint64(b[13]), label(func() string { return "usedFDs: " + strconv.Itoa(int(b[13])) }))
			t.UintLabel(fDbgVer, bo+14, 1, uint64(b[14]), label(func() string { return strconv.QuoteRune(rune(b[14])) + " (0x" + hexByte(b[14]) + ")" }))
		}
		for i, n := range []string{"nWaiting", "idleThreads", "nWaited", "nPackets"} {
			word(n, 16+4*i)
		}
	case 2, 3: // GETCONN, GETALLCONN
		t.Uint(fDbgType, -1, 0, uint64(p.debugType))
		if len(b) >= 4 {
			if u32(4) == 0xFFFFFFFF || (len(b) >= 8 && u32(4) == 0xFFFFFFFF) {
				t.Text(bo, len(b), "end of connection list (cid 0xffffffff)")
			}
			t.Bytes(fDbgHost, bo, 4, b[:4])
		}
		for i, n := range []string{"cid", "serial", "callNumber[0]", "callNumber[1]", "callNumber[2]", "callNumber[3]", "error"} {
			word(n, 4+4*i)
		}
		if len(b) >= 34 {
			t.Uint(fDbgPort, bo+32, 2, uint64(binary.BigEndian.Uint16(b[32:])))
		}
	case 5: // GETPEER
		t.Uint(fDbgType, -1, 0, 5)
		if len(b) >= 4 {
			if u32(0) == 0xFFFFFFFF {
				t.Text(bo, 4, "end of peer list (host 0xffffffff)")
			}
			t.Bytes(fDbgHost, bo, 4, b[:4])
		}
		if len(b) >= 8 {
			t.Uint(fDbgPort, bo+4, 2, uint64(binary.BigEndian.Uint16(b[4:])))
			t.UintLabel(fDbgWord, bo+6, 2, uint64(binary.BigEndian.Uint16(b[6:])),
				label(func() string { return "ifMTU: " + strconv.Itoa(int(binary.BigEndian.Uint16(b[6:]))) }))
		}
	case 4: // RXSTATS
		t.Uint(fDbgType, -1, 0, 4)
		for i := 0; i+4 <= len(b) && i < 4*128; i += 4 {
			name := ""
			if labels {
				name = "counter[" + strconv.Itoa(i/4) + "]"
			}
			word(name, i)
		}
	}
	if len(b) > 0 {
		t.Bytes(fPayload, bo, len(b), b)
	}
}
