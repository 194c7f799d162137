package rds

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Summary implements dissect.PDU: e.g. "DATA 4000→4001 seq=3 len=1".
func (m *Message) Summary(dst []byte) []byte {
	if m.hidden {
		return dst
	}
	if m.segment {
		dst = append(dst, "[RDS segment"...)
		if m.have >= HeaderLen {
			dst = append(dst, " seq="...)
			dst = strconv.AppendUint(dst, m.Header().Seq(), 10)
			dst = append(dst, ' ')
			dst = strconv.AppendUint(dst, m.have, 10)
			dst = append(dst, '/')
			dst = strconv.AppendUint(dst, HeaderLen+uint64(m.Header().Len()), 10)
		}
		return append(dst, ']')
	}
	dst = appendHeaderSummary(dst, m.Header(), m.kind, m.congN)
	if m.trunc {
		dst = append(dst, " [truncated]"...)
	}
	if len(m.frames) > 1 {
		dst = append(dst, " ["...)
		dst = strconv.AppendInt(dst, int64(len(m.frames)), 10)
		dst = append(dst, " frames]"...)
	}
	return dst
}

// Tree implements dissect.PDU.
func (m *Message) Tree(t *dissect.Tree, f *dissect.Frame) {
	if m.hidden {
		return
	}
	hv := m.Header()
	o := m.off
	if o < 0 {
		t.SetBase(0, true)
		o = 0
	}
	if m.segment {
		// No rds.seq/rds.len here: those belong to the frame that completes
		// the message, so -T fields shows each message once.
		var lb [96]byte
		l := append(lb[:0], "segment of a message completed in a later frame"...)
		if !t.Labels() {
			l = l[:0]
		} else if m.have >= HeaderLen {
			l = append(l, " (seq "...)
			l = strconv.AppendUint(l, hv.Seq(), 10)
			l = append(l, ", "...)
			l = strconv.AppendUint(l, m.have, 10)
			l = append(l, " of "...)
			l = strconv.AppendUint(l, HeaderLen+uint64(hv.Len()), 10)
			l = append(l, " octets so far)"...)
		}
		t.Proto(PRDS, -1, 0, string(l))
		t.Uint(fSegment, -1, 0, 1)
		t.Uint(fStreamOff, -1, 0, m.sOff)
		f.TreeFindings(t, m.idx)
		return
	}
	var lb [64]byte
	n := HeaderLen + uint64(hv.Len())
	if m.trunc { // what arrived: a cut-short or impossible h_len (up to 4 GiB) must not size the node
		n = HeaderLen + m.have
	}
	label := ""
	if t.Labels() {
		label = string(m.Summary(lb[:0]))
	}
	t.Proto(PRDS, o, int(n), label)
	headerTree(t, hv, o, m.csum)
	t.Uint(fKind, -1, 0, uint64(m.kind))
	t.Uint(fStreamOff, -1, 0, m.sOff)
	var fb [256]byte
	frames := ""
	if t.Wants(fFrames) {
		frames = string(dissect.AppendNumbers(fb[:0], m.frames, ", "))
	}
	t.String(fFrames, -1, 0, frames)
	t.Open()
	for _, n := range m.frames {
		t.Uint(fFrame, -1, 0, n)
	}
	t.Close()
	t.Uint(fFrameCnt, -1, 0, uint64(len(m.frames)))
	if m.trunc {
		t.Uint(fTruncated, -1, 0, m.have)
	}
	if m.missing > 0 {
		t.Uint(fMissing, -1, 0, m.missing)
	}
	if m.kind == KindCong && !m.trunc {
		// the map's octets, which a malformed message may not have
		t.Uint(fCongCount, o+HeaderLen, min(CongMapLen, int(m.Header().Len())), uint64(m.congN))
		t.Open()
		for _, p := range m.cong {
			t.Uint(fCongPort, o+HeaderLen+int(p)/8, 1, uint64(p))
		}
		t.Close()
	}
	if m.retransOf != 0 {
		t.Uint(fRetransOf, -1, 0, m.retransOf)
	}
	ackTree(t, m.ackFrame, m.ackLatency)
	pingTree(t, m.pingFrame, m.pingRTT, m.pongFrame)
	f.TreeFindings(t, m.idx)
}

// ackTree adds the message an ack acknowledged and the time since.
func ackTree(t *dissect.Tree, frame uint64, latency int64) {
	if frame != 0 {
		t.Uint(fAckFrame, -1, 0, frame)
		t.Int(fAckLatency, -1, 0, latency)
	}
}

// pingTree adds a pong's ping and round trip, or a ping's pong (pingPong).
func pingTree(t *dissect.Tree, pingFrame uint64, rtt int64, pongFrame uint64) {
	if pingFrame != 0 {
		t.Uint(fPingFrame, -1, 0, pingFrame)
		t.Int(fPingRTT, -1, 0, rtt)
	}
	if pongFrame != 0 {
		t.Uint(fPongFrame, -1, 0, pongFrame)
	}
}

// appendHeaderSummary appends the info text of a complete message header:
// kind, ports, seq, ack, len, flags, congested count and path extensions.
func appendHeaderSummary(dst []byte, hv Header, kind uint8, congN int) []byte {
	dst = append(dst, kindSummary[kind]...)
	if kind != KindCong && kind != KindAckOnly {
		dst = append(dst, ' ')
		dst = strconv.AppendUint(dst, uint64(hv.Sport()), 10)
		dst = append(dst, "→"...)
		dst = strconv.AppendUint(dst, uint64(hv.Dport()), 10)
	}
	dst = append(dst, " seq="...)
	dst = strconv.AppendUint(dst, hv.Seq(), 10)
	if a := hv.Ack(); a != 0 {
		dst = append(dst, " ack="...)
		dst = strconv.AppendUint(dst, a, 10)
	}
	dst = append(dst, " len="...)
	dst = strconv.AppendUint(dst, uint64(hv.Len()), 10)
	if fl := hv.Flags(); fl != 0 && fl != FlagCongBitmap {
		dst = append(dst, " flags=0x"...)
		dst = strconv.AppendUint(dst, uint64(fl), 16)
	}
	if kind == KindCong {
		dst = append(dst, " congested="...)
		dst = strconv.AppendInt(dst, int64(congN), 10)
	}
	it := hv.Exts()
	for {
		typ, val, _, st := it.Next()
		if st != ExtOK {
			break
		}
		switch typ {
		case ExtNPaths:
			dst = append(dst, " npaths="...)
			dst = strconv.AppendUint(dst, uint64(be16(val)), 10)
		case ExtGenNum:
			dst = append(dst, " gen="...)
			dst = strconv.AppendUint(dst, uint64(be32(val)), 10)
		}
	}
	return dst
}

// headerTree adds the nodes of the 48 header octets at frame offset o.
func headerTree(t *dissect.Tree, hv Header, o int, csum uint8) {
	t.Uint(fSeq, o+offSeq, 8, hv.Seq())
	t.Uint(fAck, o+offAck, 8, hv.Ack())
	t.Uint(fLen, o+offLen, 4, uint64(hv.Len()))
	t.Uint(fSport, o+offSport, 2, uint64(hv.Sport()))
	t.Uint(fDport, o+offDport, 2, uint64(hv.Dport()))
	fl := hv.Flags()
	t.Flags(fFlags, o+offFlags, 1, uint64(fl), "", fFlagExtX, fFlagHBPo, fFlagHBPi, fFlagRetr, fFlagAckRq, fFlagCong)
	t.Uint(fCredit, o+offCredit, 1, uint64(hv.Credit()))
	t.Uint(fPad, o+offPad, 4, uint64(hv.Pad()))
	t.Uint(fCsum, o+offCsum, 2, uint64(hv.Csum()))
	t.Open()
	t.Uint(fCsumStat, -1, 0, uint64(csum))
	t.Close()
	it := hv.Exts()
	for {
		typ, val, eo, st := it.Next()
		if st == ExtEnd {
			break
		}
		p := o + offExt + eo
		t.Uint(fExtType, p, 1+len(val), uint64(typ))
		t.Open()
		if st != ExtOK {
			if len(val) > 0 {
				t.Bytes(fExtUnknown, p+1, len(val), val)
			}
			t.Close()
			break
		}
		switch typ {
		case ExtVersion:
			t.Uint(fExtVersion, p+1, 4, uint64(be32(val)))
		case ExtRDMA:
			t.Uint(fExtRKey, p+1, 4, uint64(be32(val)))
		case ExtRDMADest:
			t.Uint(fExtDRKey, p+1, 4, uint64(be32(val)))
			t.Uint(fExtDOff, p+5, 4, uint64(be32(val[4:])))
		case ExtRDMABytes:
			t.Uint(fExtBytes, p+1, 4, uint64(be32(val)))
			t.Uint(fExtBytesFl, p+5, 1, uint64(val[4]))
		case ExtNPaths:
			t.Uint(fExtNPaths, p+1, 2, uint64(be16(val)))
		case ExtGenNum:
			t.Uint(fExtGen, p+1, 4, uint64(be32(val)))
		case ExtCapBits:
			t.Uint(fExtCap, p+1, 4, uint64(be32(val)))
		}
		t.Close()
	}
}
