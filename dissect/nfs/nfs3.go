// Package nfs decodes the ONC RPC programs of the NFS family carried by
// dissect/oncrpc: NFSv3 (RFC 1813) arguments and results of every procedure
// (fattr3, wcc_data, post_op_attr, sattr3, file handles with Wireshark's
// CRC-32 hash, directory entries, FSSTAT/FSINFO/PATHCONF), NFSv4.x COMPOUND
// and CB_COMPOUND (operation lists, per-operation status, common operations'
// arguments), MOUNT v1/v3, NLM v1/v3/v4, portmapper/rpcbind v2/v3/v4 and
// NFS_ACL v3. READ data that RPC-over-RDMA moved into a write chunk is shown
// from the chunk.
package nfs

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/dissect/xdr"
)

type nfs3 struct{}

func (nfs3) Proto() *dissect.ProtoInfo { return PNFS }

// CallExtra implements oncrpc.CallExtractor: ACCESS replies show the bits the
// call asked about.
func (nfs3) CallExtra(m *oncrpc.Msg) uint64 {
	if m.Proc != 4 {
		return 0
	}
	r := xdr.NewReader(m.Body())
	r.Opaque(maxFH)
	v := r.U32()
	if r.Err() != nil {
		return 0
	}
	return 1<<32 | uint64(v)
}

// Summary implements oncrpc.Program: "V3 LOOKUP Call, FH: 0x62d40c52" or
// "V3 LOOKUP Reply Error: NFS3ERR_NOENT", as tshark's Info column.
func (nfs3) Summary(dst []byte, m *oncrpc.Msg) []byte {
	dst = oncrpc.AppendProc(dst, m)
	r := xdr.NewReader(m.Body())
	if m.Type == oncrpc.Call {
		if m.Proc == 0 || m.Proc > 21 {
			return dst
		}
		h, ok := fhHash(&r, m)
		if !ok {
			return dst
		}
		switch m.Proc {
		case 3, 8, 9, 10, 11, 12, 13, 14: // diropargs first: "DH: 0x62d40c52/name"
			name := r.Opaque(maxName)
			if r.Err() != nil {
				return dst
			}
			dst = append(dst, ", DH: 0x"...)
			dst = dissect.AppendHex8(dst, h)
			dst = append(dst, '/')
			return append(dst, name...)
		}
		dst = append(dst, ", FH: 0x"...)
		return dissect.AppendHex8(dst, h)
	}
	if !m.Matched() || m.Proc == 0 {
		return dst
	}
	st := r.U32()
	if r.Err() == nil && st != 0 {
		dst = append(dst, " Error: "...)
		dst = appendName(dst, nfs3StatNames, uint64(st))
	}
	return dst
}

func appendName(dst []byte, names map[uint64]string, v uint64) []byte {
	if n, ok := names[v]; ok {
		return append(dst, n...)
	}
	return dissect.AppendUint(dst, v)
}

// Tree implements oncrpc.Program.
func (nfs3) Tree(t *dissect.Tree, m *oncrpc.Msg) {
	b := m.Data()
	t.Proto(PNFS, m.BodyOff(), len(b)-m.BodyOff(), "")
	t.Uint(oncrpc.FProgVers, -1, 0, uint64(m.Vers))
	t.UintLabel(fProc3, -1, 0, uint64(m.Proc), u32Label(t, fProc3.Names, uint64(m.Proc)))
	r := xdr.NewReader(b)
	r.Off = m.BodyOff()
	x := &d{t: t, r: &r}
	if m.Type == oncrpc.Call {
		call3(x, m)
	} else if m.Matched() {
		reply3(x, m)
	}
}

func (x *d) diropargs(label string) {
	g := x.group(label)
	x.fh("dir")
	x.str(fName)
	x.end(g)
}

func (x *d) time(f, fs, fns *dissect.Field) {
	o := x.r.Off
	s, ns := x.r.U32(), x.r.U32()
	if !x.ok() {
		return
	}
	v := int64(s)*1e9 + int64(ns)
	x.t.Uint(f, o, 8, uint64(v))
	x.t.Open()
	x.t.Uint(fs, o, 4, uint64(s))
	x.t.Uint(fns, o+4, 4, uint64(ns))
	x.t.Close()
}

// mode adds a mode3 with its permission bits, labelled in octal as tshark does.
func (x *d) mode() {
	o := x.r.Off
	v := x.r.U32()
	if x.t != nil && x.ok() {
		x.t.Flags(fMode, o, 4, uint64(v), "0"+strconv.FormatUint(uint64(v&0o7777), 8), modeBits...)
	}
}

// fattr3 adds a file's attributes (84 octets).
func (x *d) fattr3(label string) {
	g := x.group(label)
	x.u32(fType)
	x.mode()
	x.u32(fNlink)
	x.u32(fUID)
	x.u32(fGID)
	x.u64(fSize)
	x.u64(fUsed)
	x.u32(fSpec1)
	x.u32(fSpec2)
	x.u64(fFsid)
	x.u64(fFileid)
	x.time(fAtime, fAtimeSec, fAtimeNsec)
	x.time(fMtime, fMtimeSec, fMtimeNsec)
	x.time(fCtime, fCtimeSec, fCtimeNsec)
	x.end(g)
}

func (x *d) postOpAttr(label string) {
	g := x.group(label)
	if x.u32(fAttrFollow) == 1 {
		x.fattr3("attributes")
	}
	x.end(g)
}

func (x *d) wcc(label string) {
	g := x.group(label)
	b := x.group("before")
	if x.u32(fAttrFollow) == 1 {
		x.u64(fWccSize)
		x.time(fMtime, fMtimeSec, fMtimeNsec)
		x.time(fCtime, fCtimeSec, fCtimeNsec)
	}
	x.end(b)
	x.postOpAttr("after")
	x.end(g)
}

func (x *d) postOpFH(label string) {
	g := x.group(label)
	if x.u32(fFHFollow) == 1 {
		x.fh("handle")
	}
	x.end(g)
}

// sattr3 adds settable attributes: each guarded by set_it.
func (x *d) sattr3(label string) {
	g := x.group(label)
	if x.u32(fSetIt) == 1 {
		x.mode()
	}
	if x.u32(fSetIt) == 1 {
		x.u32(fUID3)
	}
	if x.u32(fSetIt) == 1 {
		x.u32(fGID3)
	}
	if x.u32(fSetIt) == 1 {
		x.u64(fSetSize)
	}
	if x.u32(fSetIt) == 2 {
		x.time(fAtime, fAtimeSec, fAtimeNsec)
	}
	if x.u32(fSetIt) == 2 {
		x.time(fMtime, fMtimeSec, fMtimeNsec)
	}
	x.end(g)
}

func (x *d) data(m *oncrpc.Msg) {
	s := x.r.Off
	n := x.r.U32()
	if !x.ok() {
		return
	}
	if ddp := m.DDP(); len(ddp) > 0 && x.r.Remaining() < int(n) {
		// the data went by RDMA WRITE into the write chunk: the length stays
		// inline (no tree on the summary path: a nil Tree keeps nothing)
		x.t.Uint(oncrpc.FOpaqueLen, s, 4, uint64(n))
		x.t.Uint(fDDP, s, 4, uint64(len(ddp[0])))
		return
	}
	x.r.Off = s
	x.opaque(fData, 0)
}

func call3(x *d, m *oncrpc.Msg) {
	switch m.Proc {
	case 1, 5, 18, 19, 20: // GETATTR READLINK FSSTAT FSINFO PATHCONF
		x.fh("object")
	case 2: // SETATTR
		x.fh("object")
		x.sattr3("new_attributes")
		g := x.group("guard")
		if x.u32(fGuard) == 1 {
			x.time(fCtime, fCtimeSec, fCtimeNsec)
		}
		x.end(g)
	case 3, 12, 13: // LOOKUP REMOVE RMDIR
		x.diropargs("object")
	case 4: // ACCESS
		x.fh("object")
		x.flags(fAccessCheck, setBits(accessBits, uint64(peekU32(x.r))))
	case 6: // READ
		x.fh("file")
		x.u64(fOffset)
		x.u32(fCount)
	case 7: // WRITE
		x.fh("file")
		x.u64(fOffset)
		x.u32(fCount)
		x.u32(fStable)
		x.opaque(fData, 0)
	case 8: // CREATE
		x.diropargs("where")
		switch x.u32(fCreateMode) {
		case 0, 1:
			x.sattr3("obj_attributes")
		case 2:
			x.fixed(fVerifier, 8)
		}
	case 9: // MKDIR
		x.diropargs("where")
		x.sattr3("attributes")
	case 10: // SYMLINK
		x.diropargs("where")
		x.sattr3("symlink_attributes")
		x.str(fSymlinkTo)
	case 11: // MKNOD
		x.diropargs("where")
		switch x.u32(fType) {
		case 3, 4:
			x.sattr3("dev_attributes")
			x.u32(fSpec1)
			x.u32(fSpec2)
		case 6, 7:
			x.sattr3("pipe_attributes")
		}
	case 14: // RENAME
		x.diropargs("from")
		x.diropargs("to")
	case 15: // LINK
		x.fh("file")
		x.diropargs("link")
	case 16, 17: // READDIR, READDIRPLUS
		x.fh("dir")
		x.u64(fCookie)
		x.fixed(fVerifier, 8)
		if m.Proc == 17 {
			x.u32(fDirCount)
			x.u32(fMaxCount)
		} else {
			x.u32(fCount)
		}
	case 21: // COMMIT
		x.fh("file")
		x.u64(fOffset)
		x.u32(fCount)
	}
}

func peekU32(r *xdr.Reader) uint32 {
	if r.Remaining() < 4 {
		return 0
	}
	return uint32(r.B[r.Off])<<24 | uint32(r.B[r.Off+1])<<16 | uint32(r.B[r.Off+2])<<8 | uint32(r.B[r.Off+3])
}

// setBits keeps the bit fields whose mask is set in v (Wireshark lists only
// the access bits asked about).
func setBits(bits []*dissect.Field, v uint64) []*dissect.Field {
	var out []*dissect.Field
	for _, b := range bits {
		if v&b.Mask != 0 {
			out = append(out, b)
		}
	}
	return out
}

// status3 adds nfsstat3 (and Wireshark's version-independent nfs.status).
func (x *d) status3() uint32 {
	o := x.r.Off
	st := x.r.U32()
	if x.ok() {
		x.t.Uint(fStatus3, o, 4, uint64(st))
		x.t.Uint(fStatus, o, 4, uint64(st))
	}
	return st
}

// accessReply adds the rights granted, with the bits the call asked about.
func (x *d) accessReply(m *oncrpc.Msg, f *dissect.Field) {
	asked := uint64(peekU32(x.r))
	if m.CallExtra>>32 == 1 {
		asked = m.CallExtra & 0xFFFFFFFF
	}
	x.flags(f, setBits(accessBits, asked))
}

func reply3(x *d, m *oncrpc.Msg) {
	if m.Proc == 0 {
		return
	}
	st := x.status3()
	if !x.ok() {
		return
	}
	okay := st == 0
	switch m.Proc {
	case 1: // GETATTR
		if okay {
			x.fattr3("obj_attributes")
		}
	case 2: // SETATTR
		x.wcc("obj_wcc")
	case 3: // LOOKUP
		if okay {
			x.fh("object")
			x.postOpAttr("obj_attributes")
		}
		x.postOpAttr("dir_attributes")
	case 4: // ACCESS
		x.postOpAttr("obj_attributes")
		if okay {
			x.accessReply(m, fAccessRights)
		}
	case 5: // READLINK
		x.postOpAttr("symlink_attributes")
		if okay {
			x.str(fReadlink)
		}
	case 6: // READ
		x.postOpAttr("file_attributes")
		if okay {
			x.u32(fCount)
			x.u32(fReadEOF)
			x.data(m)
		}
	case 7: // WRITE
		x.wcc("file_wcc")
		if okay {
			x.u32(fCount)
			x.u32(fCommitted)
			x.fixed(fVerifier, 8)
		}
	case 8, 9, 10, 11: // CREATE MKDIR SYMLINK MKNOD
		if okay {
			x.postOpFH("obj")
			x.postOpAttr("obj_attributes")
		}
		x.wcc("dir_wcc")
	case 12, 13: // REMOVE RMDIR
		x.wcc("dir_wcc")
	case 14: // RENAME
		x.wcc("fromdir_wcc")
		x.wcc("todir_wcc")
	case 15: // LINK
		x.postOpAttr("file_attributes")
		x.wcc("linkdir_wcc")
	case 16, 17: // READDIR READDIRPLUS
		x.postOpAttr("dir_attributes")
		if okay {
			x.fixed(fVerifier, 8)
			x.entries(m.Proc == 17)
			x.u32(fRdEOF)
		}
	case 18: // FSSTAT
		x.postOpAttr("obj_attributes")
		if okay {
			for _, f := range []*dissect.Field{fFsTbytes, fFsFbytes, fFsAbytes, fFsTfiles, fFsFfiles, fFsAfiles} {
				x.u64(f)
			}
			x.u32(fFsInvarsec)
		}
	case 19: // FSINFO
		x.postOpAttr("obj_attributes")
		if okay {
			for _, f := range []*dissect.Field{fFiRtmax, fFiRtpref, fFiRtmult, fFiWtmax, fFiWtpref, fFiWtmult, fFiDtpref} {
				x.u32(f)
			}
			x.u64(fFiMaxfilesize)
			o := x.r.Off
			s, ns := x.r.U32(), x.r.U32()
			if x.ok() {
				x.t.Int(fDtime, o, 8, int64(s)*1e9+int64(ns))
				x.t.Open()
				x.t.Uint(fDtimeSec, o, 4, uint64(s))
				x.t.Uint(fDtimeNsec, o+4, 4, uint64(ns))
				x.t.Close()
			}
			x.flags(fFiProps, fsinfoBits)
		}
	case 20: // PATHCONF
		x.postOpAttr("obj_attributes")
		if okay {
			x.u32(fPcLinkmax)
			x.u32(fPcNameMax)
			x.u32(fPcNoTrunc)
			x.u32(fPcChown)
			x.u32(fPcCaseInsen)
			x.u32(fPcCasePres)
		}
	case 21: // COMMIT
		x.wcc("file_wcc")
		if okay {
			x.fixed(fVerifier, 8)
		}
	}
}

// entries adds a READDIR or READDIRPLUS entry list.
func (x *d) entries(plus bool) {
	for i := 0; i < maxEntries && x.follows(); i++ {
		o := x.r.Off
		x.t.Uint(fRdEntry, o, 0, 0)
		x.t.Open()
		if plus {
			x.u64(fRdpFileid)
			x.str(fRdpName)
			x.u64(fRdpCookie)
			x.postOpAttr("name_attributes")
			x.postOpFH("name_handle")
		} else {
			x.u64(fRdFileid)
			x.str(fRdName)
			x.u64(fRdCookie)
		}
		x.t.Close()
	}
}
