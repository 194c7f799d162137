package icmp

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Tree implements dissect.PDU with Wireshark's fields. The quoted packet of
// an error follows as its own PDUs (IP, UDP, the protocol above).
func (m *Message) Tree(t *dissect.Tree, f *dissect.Frame) {
	b := m.b
	o := func(k int) int {
		if m.off < 0 {
			return -1
		}
		return m.off + k
	}
	t.Proto(m.Proto(), o(0), len(b), "")
	if len(b) < HeaderLen {
		f.TreeFindings(t, m.idx)
		return
	}
	if m.v6 {
		m.tree6(t, f, o)
		return
	}
	typ := b[0]
	t.Uint(fType, o(0), 1, uint64(typ))
	codeNode(t, fCode, o(1), b[1], codeName(typ, b[1]))
	t.Uint(fCksum, o(2), 2, uint64(binary.BigEndian.Uint16(b[2:])))
	t.Uint(fCkStat, -1, 0, uint64(m.ckStatus))
	switch typ {
	case 0, 8, 13, 14, 15, 16, 17, 18:
		id, seq := binary.BigEndian.Uint16(b[4:]), binary.BigEndian.Uint16(b[6:])
		t.Uint(fIdent, o(4), 2, uint64(id))
		t.Uint(fIdentLE, o(4), 2, uint64(id>>8|id<<8))
		t.Uint(fSeq, o(6), 2, uint64(seq))
		t.Uint(fSeqLE, o(6), 2, uint64(seq>>8|seq<<8))
		m.treeMatch(t)
		if m.dataTime != 0 {
			t.Uint(fDataTime, o(8), 8, uint64(m.dataTime))
			t.Int(fDataTimeRel, -1, 0, m.frameNS-m.dataTime)
		}
	case 3:
		if b[1] == 4 { // fragmentation needed: RFC 1191's next-hop MTU
			t.Bytes(fUnused, o(4), 2, b[4:6])
			t.Uint(fMTU, o(6), 2, uint64(binary.BigEndian.Uint16(b[6:])))
		} else {
			t.Bytes(fUnused, o(4), 4, b[4:8])
		}
	case 4, 11:
		t.Bytes(fUnused, o(4), 4, b[4:8])
	case 5:
		t.Bytes(fGateway, o(4), 4, b[4:8])
	case 12:
		t.Uint(fPointer, o(4), 1, uint64(b[4]))
		t.Bytes(fUnused, o(5), 3, b[5:8])
	}
	f.TreeFindings(t, m.idx)
}

func (m *Message) tree6(t *dissect.Tree, f *dissect.Frame, o func(int) int) {
	b := m.b
	typ := b[0]
	t.Uint(f6Type, o(0), 1, uint64(typ))
	codeNode(t, f6Code, o(1), b[1], code6Name(typ, b[1]))
	t.Uint(f6Cksum, o(2), 2, uint64(binary.BigEndian.Uint16(b[2:])))
	t.Uint(f6CkStat, -1, 0, uint64(m.ckStatus))
	opts := -1 // where ND options start
	switch typ {
	case 1, 3:
		t.Bytes(f6Reserved, o(4), 4, b[4:8])
	case 2:
		t.Uint(f6MTU, o(4), 4, uint64(binary.BigEndian.Uint32(b[4:])))
	case 4:
		t.Uint(f6Pointer, o(4), 4, uint64(binary.BigEndian.Uint32(b[4:])))
	case 128, 129:
		t.Uint(f6EchoID, o(4), 2, uint64(binary.BigEndian.Uint16(b[4:])))
		t.Uint(f6EchoSeq, o(6), 2, uint64(binary.BigEndian.Uint16(b[6:])))
		m.treeMatch(t)
		if len(b) > HeaderLen {
			t.Bytes(f6Data, o(8), len(b)-8, b[8:])
		}
	case 133:
		t.Bytes(f6Reserved, o(4), 4, b[4:8])
		opts = 8
	case 134:
		t.Uint(f6RAHop, o(4), 1, uint64(b[4]))
		t.Uint(f6RAFlag, o(5), 1, uint64(b[5]))
		t.Uint(f6RALife, o(6), 2, uint64(binary.BigEndian.Uint16(b[6:])))
		if len(b) >= 16 {
			t.Uint(f6RAReach, o(8), 4, uint64(binary.BigEndian.Uint32(b[8:])))
			t.Uint(f6RARetr, o(12), 4, uint64(binary.BigEndian.Uint32(b[12:])))
			opts = 16
		}
	case 135:
		t.Bytes(f6Reserved, o(4), 4, b[4:8])
		if len(b) >= 24 {
			t.Bytes(f6NSTarget, o(8), 16, b[8:24])
			opts = 24
		}
	case 136:
		t.Flags(f6NAFlag, o(4), 4, uint64(binary.BigEndian.Uint32(b[4:])), "", f6NAFlagR, f6NAFlagS, f6NAFlagO)
		if len(b) >= 24 {
			t.Bytes(f6NATarget, o(8), 16, b[8:24])
			opts = 24
		}
	case 143:
		t.Bytes(f6Reserved, o(4), 2, b[4:6])
		t.Uint(f6MLDRecs, o(6), 2, uint64(binary.BigEndian.Uint16(b[6:])))
	}
	for p := opts; p >= 0 && p+2 <= len(b); {
		n := int(b[p+1]) * 8
		t.Uint(f6Opt, o(p), min(n, len(b)-p), 0)
		t.Open()
		t.Uint(f6OptType, o(p), 1, uint64(b[p]))
		t.Uint(f6OptLen, o(p+1), 1, uint64(b[p+1]))
		if n == 0 || p+n > len(b) {
			t.Close()
			break // a zero length would loop; a long one runs past the message
		}
		if typ := b[p]; (typ == 1 || typ == 2) && n > 2 {
			ll := b[p+2 : p+n]
			t.Bytes(f6OptLink, o(p+2), n-2, ll)
			if typ == 1 {
				t.Bytes(f6OptSrcLL, o(p+2), n-2, ll)
			} else {
				t.Bytes(f6OptTgtLL, o(p+2), n-2, ll)
			}
		}
		t.Close()
		p += n
	}
	f.TreeFindings(t, m.idx)
}

// codeNode adds the code, named by its type ("Port unreachable (3)") when
// the type has code names; -T fields and filters see the number.
func codeNode(t *dissect.Tree, f *dissect.Field, off int, code uint8, name string) {
	if name == "" {
		t.Uint(f, off, 1, uint64(code))
		return
	}
	t.UintLabel(f, off, 1, uint64(code), name+" ("+strconv.Itoa(int(code))+")")
}
