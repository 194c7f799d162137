package oncrpc

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/xdr"
)

// Tree implements dissect.PDU.
func (m *Msg) Tree(t *dissect.Tree, f *dissect.Frame) {
	t.SetBase(max(m.off, 0), m.off < 0)
	label := ""
	if t.Labels() {
		var lb [64]byte
		l := append(lb[:0], "Type:"...)
		if m.Type == Call {
			l = append(l, "Call XID:0x"...)
		} else {
			l = append(l, "Reply XID:0x"...)
		}
		l = dissect.AppendHexDigits(l, uint64(m.XID), 8)
		label = string(l)
	}
	t.Proto(PRPC, 0, len(m.data), label)
	if m.rm {
		o := -4
		if m.off < 0 {
			o = -1
		}
		t.Uint(fLastFrag, o, 4, uint64(m.fragHdr))
		t.Uint(fFragLen, o, 4, uint64(m.fragHdr))
	}
	if len(m.frames) > 1 {
		frames := ""
		if t.Wants(fFrames) {
			frames = string(dissect.AppendNumbers(nil, m.frames, ","))
		}
		t.String(fFrames, -1, 0, frames)
	}
	t.Uint(fXID, 0, 4, uint64(m.XID))
	t.Uint(fMsgType, 4, 4, uint64(m.Type))
	if m.Type == Call {
		t.Uint(fVersion, 8, 4, uint64(m.RPCVers))
		t.Uint(fProgram, 12, 4, uint64(m.Prog))
		t.Uint(FProgVers, 16, 4, uint64(m.Vers))
		t.UintLabel(fProcedure, 20, 4, uint64(m.Proc), procLabel(t, m))
		if m.cred.off > 0 {
			treeAuth(t, fCred, m.data, &m.cred, true)
		}
		if m.verf.off > 0 {
			treeAuth(t, fVerf, m.data, &m.verf, false)
		}
		if m.replyFrame != 0 {
			t.Uint(fReqFrame, -1, 0, m.replyFrame)
		}
		treeGSSBody(t, m)
	} else {
		if m.matched {
			t.Uint(fProgram, -1, 0, uint64(m.Prog))
			t.Uint(FProgVers, -1, 0, uint64(m.Vers))
			t.UintLabel(fProcedure, -1, 0, uint64(m.Proc), procLabel(t, m))
		}
		t.Uint(fReplyStat, 8, 4, uint64(m.ReplyStat))
		if m.matched {
			t.Uint(fRepFrame, -1, 0, m.callFrame)
			t.Int(fTime, -1, 0, m.rtt)
		}
		if m.ReplyStat == MsgAccepted {
			if m.verf.off > 0 || m.verfOff > 0 {
				treeAuth(t, fVerf, m.data, &m.verf, false)
			}
			if m.statOff+4 <= len(m.data) && !m.short {
				t.Uint(fAccept, m.statOff, 4, uint64(m.AcceptStat))
				if m.AcceptStat == ProgMismatch {
					t.Uint(fProgLow, m.statOff+4, 4, uint64(m.low))
					t.Uint(fProgHigh, m.statOff+8, 4, uint64(m.high))
				}
			}
			treeGSSBody(t, m)
		} else {
			// A denied reply cut short shows only the words that are there.
			word := func(fd *dissect.Field, off int, v uint32) {
				if off+4 <= len(m.data) {
					t.Uint(fd, off, 4, uint64(v))
				}
			}
			word(fReject, 12, uint32(m.RejectStat))
			switch m.RejectStat {
			case RPCMismatch:
				word(fVersLow, 16, m.low)
				word(fVersHigh, 20, m.high)
			case AuthError:
				word(fAuthState, 16, uint32(m.authStat))
			}
		}
	}
	f.TreeFindings(t, m.idx)
}

func procLabel(t *dissect.Tree, m *Msg) string {
	if !t.Labels() {
		return ""
	}
	n := ProcName(m.Prog, m.Vers, m.Proc)
	if n == "" {
		return ""
	}
	return n + " (" + strconv.Itoa(int(m.Proc)) + ")"
}

// treeAuth adds a credential or verifier.
func treeAuth(t *dissect.Tree, node *dissect.Field, data []byte, a *auth, cred bool) {
	o := a.off
	// Cut short (readAuth failed, so a.body is empty): judged by the length
	// on the wire, not by what readAuth kept.
	short := o+8 > len(data) || o+8+int(binary.BigEndian.Uint32(data[o+4:])) > len(data)
	if short || o+8+len(a.body) > len(data) {
		// Show the words that are there.
		t.Uint(node, o, min(len(data)-o, 8), 0)
		t.Open()
		if o+4 <= len(data) {
			t.Uint(fFlavor, o, 4, uint64(a.flavor))
		}
		if o+8 <= len(data) {
			t.Uint(fAuthLen, o+4, 4, uint64(binary.BigEndian.Uint32(data[o+4:])))
		}
		t.Close()
		return
	}
	t.Uint(node, o, 8+len(a.body), 0)
	t.Open()
	t.Uint(fFlavor, o, 4, uint64(a.flavor))
	bo := o + 8
	if a.flavor == RPCSecGSS && !cred {
		// a GSS verifier is a token; tshark shows it with its length word
		if bo+len(a.body) <= len(data) {
			t.Uint(fGSSTokenLen, o+4, 4, uint64(a.length))
			t.Bytes(fGSSToken, o+4, 4+len(a.body), data[o+4:bo+len(a.body)])
		}
		t.Close()
		return
	}
	t.Uint(fAuthLen, o+4, 4, uint64(a.length))
	switch {
	case a.flavor == AuthSys && cred:
		r := xdr.NewReader(a.body)
		word := treeWord(t, &r, bo)
		word(fStamp)
		if r.Err() == nil && TreeString(t, fMachine, &r, bo, 255) != nil {
			word(fUID)
			word(fGID)
			n := r.Count(4)
			if r.Err() == nil {
				t.Uint(fAuxGIDs, bo+r.Off-4, 4, uint64(n))
			}
			for i := 0; i < n && word(fGID); i++ {
			}
		}
	case a.flavor == RPCSecGSS && cred:
		r := xdr.NewReader(a.body)
		word := treeWord(t, &r, bo)
		_ = word(fGSSVers) && word(fGSSProc) && word(fGSSSeq) && word(fGSSService)
		s := r.Off
		h := r.Opaque(maxAuth)
		if r.Err() == nil {
			t.Uint(fGSSCtxLen, bo+s, 4, uint64(len(h)))
			t.Bytes(fGSSContext, bo+s+4, len(h), h)
		}
	case len(a.body) > 0:
		t.Bytes(fAuthBody, bo, len(a.body), a.body)
	}
	t.Close()
}

// treeWord returns a function that reads the next word of r and shows it as
// a field at base+offset, or shows nothing and reports false when the body
// ends first: a short credential never shows words it does not have.
func treeWord(t *dissect.Tree, r *xdr.Reader, base int) func(*dissect.Field) bool {
	return func(fd *dissect.Field) bool {
		at := base + r.Off
		v := r.U32()
		if r.Err() != nil {
			return false
		}
		t.Uint(fd, at, 4, uint64(v))
		return true
	}
}

// TreeString adds an XDR string read from r (at tree offset base+r.Off) as
// field fl, with Wireshark's rpc.opaque_length and rpc.fill_bytes children.
// It returns the string's bytes (nil if it did not fit).
func TreeString(t *dissect.Tree, fl *dissect.Field, r *xdr.Reader, base, max int) []byte {
	start := r.Off
	b := r.Opaque(max)
	if r.Err() != nil {
		return nil
	}
	s := ""
	if t.Wants(fl) {
		s = string(b)
	}
	t.String(fl, base+start, r.Off-start, s)
	t.Open()
	TreeOpaqueParts(t, base+start, b, r.B[start+4+len(b):r.Off])
	t.Close()
	return b
}

// TreeOpaqueParts adds rpc.opaque_length (at off) and, when the data is
// padded, rpc.fill_bytes.
func TreeOpaqueParts(t *dissect.Tree, off int, data, fill []byte) {
	t.Uint(FOpaqueLen, off, 4, uint64(len(data)))
	if len(fill) > 0 {
		t.Bytes(FFillBytes, off+4+len(data), len(fill), fill)
	}
}

// treeGSSBody shows the RPCSEC_GSS wrapping of a message body: INIT tokens
// and results, the integrity header and checksum, privacy data.
func treeGSSBody(t *dissect.Tree, m *Msg) {
	if !m.gss || m.gssOff == 0 {
		return
	}
	r := xdr.NewReader(m.data)
	r.Off = m.gssOff
	opaque := func(lf, df *dissect.Field) {
		s := r.Off
		b := r.Opaque(0)
		if r.Err() == nil {
			t.Uint(lf, s, 4, uint64(len(b)))
			t.Bytes(df, s+4, len(b), b)
		}
	}
	switch {
	case (m.gssProc == 1 || m.gssProc == 2) && m.Type == Call:
		opaque(fGSSTokenLen, fGSSToken)
	case m.gssProc == 1 || m.gssProc == 2:
		opaque(fGSSCtxLen, fGSSContext)
		for _, f := range []*dissect.Field{fGSSMajor, fGSSMinor, fGSSWindow} {
			o := r.Off
			v := r.U32()
			if r.Err() == nil {
				t.Uint(f, o, 4, uint64(v))
			}
		}
		opaque(fGSSTokenLen, fGSSToken)
	case m.gssProc == 0 && m.gssSvc == 2:
		n := r.U32()
		seq := r.U32()
		if r.Err() != nil {
			return
		}
		t.Uint(fGSSDataLen, m.gssOff, 4, uint64(n))
		t.Uint(fGSSSeq, m.gssOff+4, 4, uint64(seq))
		if n < 4 || int64(n)-4 > int64(r.Remaining()) {
			return
		}
		r.Off = m.gssOff + 4 + ((int(n) + 3) &^ 3) // past the padded databody
		s := r.Off
		if b := r.Opaque(0); r.Err() == nil {
			// as tshark: the checksum's bytes include its length word
			t.Uint(fGSSTokenLen, s, 4, uint64(len(b)))
			t.Bytes(fGSSChecksum, s, 4+len(b), m.data[s:s+4+len(b)])
		}
	case m.gssProc == 0 && m.gssSvc == 3:
		s := r.Off
		b := r.Opaque(0)
		if r.Err() == nil {
			t.Uint(fGSSDataLen, s, 4, uint64(len(b)))
			t.Bytes(fGSSData, s+4, len(b), b)
		}
	}
}
