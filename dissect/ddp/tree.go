package ddp

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Summary implements dissect.PDU.
func (s *Segment) Summary(dst []byte) []byte {
	b := s.b
	if len(b) < 2 || len(b) < HeaderLen(b) {
		return append(dst, "DDP truncated"...)
	}
	op := Opcode(b)
	if n, ok := opNames[uint64(op)]; ok {
		dst = append(dst, n...)
	} else {
		dst = append(dst, "opcode 0x"...)
		dst = strconv.AppendUint(dst, uint64(op), 16)
	}
	if Tagged(b) {
		dst = append(dst, " STag 0x"...)
		dst = strconv.AppendUint(dst, uint64(STag(b)), 16)
		dst = append(dst, " TO 0x"...)
		dst = strconv.AppendUint(dst, TO(b), 16)
		dst = append(dst, " len "...)
		dst = strconv.AppendInt(dst, int64(len(b)-TaggedLen), 10)
	} else {
		dst = append(dst, " QN "...)
		dst = strconv.AppendUint(dst, uint64(QN(b)), 10)
		dst = append(dst, " MSN "...)
		dst = strconv.AppendUint(dst, uint64(MSN(b)), 10)
		dst = append(dst, " MO "...)
		dst = strconv.AppendUint(dst, uint64(MO(b)), 10)
		dst = append(dst, " len "...)
		dst = strconv.AppendInt(dst, int64(len(b)-UntaggedLen), 10)
		if op == OpReadRequest && len(b) >= UntaggedLen+ReadReqLen {
			dst = append(dst, " size "...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(b[UntaggedLen+12:])), 10)
		}
	}
	if Last(b) {
		dst = append(dst, " [last DDP segment]"...)
	}
	if s.respIn != 0 {
		dst = append(dst, " [response in "...)
		dst = strconv.AppendUint(dst, s.respIn, 10)
		dst = append(dst, ']')
	}
	if s.reqIn != 0 {
		dst = append(dst, " [request in "...)
		dst = strconv.AppendUint(dst, s.reqIn, 10)
		dst = append(dst, ']')
	}
	return dst
}

// Tree implements dissect.PDU.
func (s *Segment) Tree(t *dissect.Tree, f *dissect.Frame) {
	t.SetBase(max(s.off, 0), s.off < 0)
	b := s.b
	t.Proto(PDDP, 0, len(b), "")
	if len(b) < 2 || len(b) < HeaderLen(b) {
		f.TreeFindings(t, s.idx)
		return
	}
	hl := HeaderLen(b)
	t.Uint(fDDP, 0, hl, 0)
	t.Open()
	t.Uint(fDDPCtrl, 0, 1, 0)
	t.Open()
	c := uint64(b[0])
	t.Uint(fTFlag, 0, 1, c)
	t.Uint(fLFlag, 0, 1, c)
	t.Uint(fDDPRsvd, 0, 1, c)
	t.Uint(fDV, 0, 1, c)
	t.Close()
	op := Opcode(b)
	if Tagged(b) {
		t.Uint(fTagged, 2, 12, 0)
		t.Open()
		t.Uint(fSTag, 2, 4, uint64(STag(b)))
		t.Uint(fTO, 6, 8, TO(b))
		t.Close()
	} else {
		t.Bytes(fRsvdULP, 1, 5, b[1:6])
		t.Uint(fUntagged, 6, 12, 0)
		t.Open()
		t.Uint(fQN, 6, 4, uint64(QN(b)))
		t.Uint(fMSN, 10, 4, uint64(MSN(b)))
		t.Uint(fMO, 14, 4, uint64(MO(b)))
		t.Close()
	}
	t.Close()
	t.Uint(fRDMA, 1, 1, 0)
	t.Open()
	t.Uint(fRDMACtrl, 1, 1, 0)
	t.Open()
	r := uint64(b[1])
	t.Uint(fRV, 1, 1, r)
	t.Uint(fRDMARsv, 1, 1, r)
	t.Uint(fOpcode, 1, 1, r)
	t.Close()
	if !Tagged(b) {
		if op == OpSendInv || op == OpSendSEInv {
			t.Uint(fInvSTag, 2, 4, uint64(rsvdULP(b)))
		} else {
			t.Bytes(fReserved, 2, 4, b[2:6])
		}
	}
	p := b[hl:]
	switch op {
	case OpReadRequest:
		if len(p) >= ReadReqLen {
			t.Uint(fRR, hl, ReadReqLen, 0)
			t.Open()
			readReqTree(t, hl, p)
			t.Close()
		}
	case OpTerminate:
		termTree(t, hl, p)
	case OpImmediate, OpImmediateSE:
		if len(p) >= 8 {
			t.Uint(fImm, hl, 8, binary.BigEndian.Uint64(p))
		}
	case OpAtomicReq:
		if len(p) >= 52 {
			t.Uint(fAtOp, hl, 4, uint64(binary.BigEndian.Uint32(p)))
			t.Uint(fAtReqID, hl+4, 4, uint64(binary.BigEndian.Uint32(p[4:])))
			t.Uint(fAtSTag, hl+8, 4, uint64(binary.BigEndian.Uint32(p[8:])))
			t.Uint(fAtTO, hl+12, 8, binary.BigEndian.Uint64(p[12:]))
			if binary.BigEndian.Uint32(p)&0xf == 2 {
				t.Uint(fAtSwap, hl+20, 8, binary.BigEndian.Uint64(p[20:]))
				t.Uint(fAtSwapM, hl+28, 8, binary.BigEndian.Uint64(p[28:]))
			} else {
				t.Uint(fAtAdd, hl+20, 8, binary.BigEndian.Uint64(p[20:]))
				t.Uint(fAtAddMask, hl+28, 8, binary.BigEndian.Uint64(p[28:]))
			}
			t.Uint(fAtCmp, hl+36, 8, binary.BigEndian.Uint64(p[36:]))
			t.Uint(fAtCmpM, hl+44, 8, binary.BigEndian.Uint64(p[44:]))
		}
	case OpAtomicResp:
		if len(p) >= 12 {
			t.Uint(fAtOrigID, hl, 4, uint64(binary.BigEndian.Uint32(p)))
			t.Uint(fAtOrigVal, hl+4, 8, binary.BigEndian.Uint64(p[4:]))
		}
	}
	if s.respIn != 0 {
		t.Uint(fRespIn, -1, 0, s.respIn)
	}
	if s.reqIn != 0 {
		t.Uint(fReqIn, -1, 0, s.reqIn)
	}
	if s.msgFrags > 1 {
		t.Uint(fMsgLen, -1, 0, uint64(s.msgLen))
		t.Uint(fMsgFrames, -1, 0, uint64(s.msgFrags))
	}
	t.Close()
	f.TreeFindings(t, s.idx)
}

func readReqTree(t *dissect.Tree, o int, p []byte) {
	t.Uint(fSinkSTag, o, 4, uint64(binary.BigEndian.Uint32(p)))
	t.Uint(fSinkTO, o+4, 8, binary.BigEndian.Uint64(p[4:]))
	t.Uint(fRdSize, o+12, 4, uint64(binary.BigEndian.Uint32(p[12:])))
	t.Uint(fSrcSTag, o+16, 4, uint64(binary.BigEndian.Uint32(p[16:])))
	t.Uint(fSrcTO, o+20, 8, binary.BigEndian.Uint64(p[20:]))
}

// termTree shows a Terminate and decodes the terminated DDP (and RDMA)
// header it carries as fields again, not only as bytes.
func termTree(t *dissect.Tree, o int, p []byte) {
	if len(p) < 4 {
		return
	}
	t.Uint(fTerm, o, len(p), 0)
	t.Open()
	t.Uint(fTermCtrl, o, 4, 0)
	t.Open()
	c := uint64(p[0])
	t.Uint(fTermLayer, o, 1, c)
	switch c >> 4 {
	case 0:
		t.Uint(fEtypeRDMA, o, 1, c)
		t.Uint(fErrRDMA, o+1, 1, uint64(p[1]))
	case 1:
		t.Uint(fEtypeDDP, o, 1, c)
		switch c & 15 {
		case 1:
			t.Uint(fErrTag, o+1, 1, uint64(p[1]))
		case 2:
			t.Uint(fErrUntag, o+1, 1, uint64(p[1]))
		default:
			t.Uint(fErr, o+1, 1, uint64(p[1]))
		}
	case 2:
		t.Uint(fEtypeLLP, o, 1, c)
		t.Uint(fErrLLP, o+1, 1, uint64(p[1]))
	default:
		t.Uint(fErr, o+1, 1, uint64(p[1]))
	}
	t.Uint(fHdrct, o+2, 1, 0)
	t.Open()
	h := uint64(p[2])
	t.Uint(fHdrctM, o+2, 1, h)
	t.Uint(fHdrctD, o+2, 1, h)
	t.Uint(fHdrctR, o+2, 1, h)
	t.Close()
	t.Uint(fTermRsvd, o+2, 2, uint64(binary.BigEndian.Uint16(p[2:])))
	t.Close()
	q := p[4:]
	qo := o + 4
	if h&0xc0 != 0 && len(q) >= 2 {
		t.Bytes(fTermLen, qo, 2, q[:2])
		q, qo = q[2:], qo+2
	}
	if h&0x40 != 0 && len(q) >= 2 {
		hl := HeaderLen(q)
		if len(q) >= hl {
			t.Bytes(fTermDDP, qo, hl, q[:hl])
			t.Open()
			t.Uint(fTFlag, qo, 1, uint64(q[0]))
			t.Uint(fLFlag, qo, 1, uint64(q[0]))
			t.Uint(fDV, qo, 1, uint64(q[0]))
			t.Uint(fRV, qo+1, 1, uint64(q[1]))
			t.Uint(fOpcode, qo+1, 1, uint64(q[1]))
			if Tagged(q) {
				t.Uint(fSTag, qo+2, 4, uint64(STag(q)))
				t.Uint(fTO, qo+6, 8, TO(q))
			} else {
				t.Uint(fQN, qo+6, 4, uint64(QN(q)))
				t.Uint(fMSN, qo+10, 4, uint64(MSN(q)))
				t.Uint(fMO, qo+14, 4, uint64(MO(q)))
			}
			t.Close()
			q, qo = q[hl:], qo+hl
		}
	}
	if h&0x20 != 0 && len(q) >= ReadReqLen {
		t.Bytes(fTermRDMA, qo, ReadReqLen, q[:ReadReqLen])
		t.Open()
		readReqTree(t, qo, q)
		t.Close()
	}
	t.Close()
}
