// Package nfs decodes NFSv3 (RFC 1813) procedure arguments and results
// carried by ONC RPC (dissect/oncrpc): file handles, READ/WRITE offset,
// count and stability, LOOKUP/CREATE/REMOVE names, ACCESS bits, READDIRPLUS
// cookies and counts, COMMIT, and the status of every reply. READ data that
// RPC-over-RDMA moved into a write chunk is shown from the chunk.
package nfs

import (
	"hash/crc32"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/dissect/xdr"
)

const maxFH = 64 // NFS3_FHSIZE

var procNames = func() map[uint64]string {
	m := map[uint64]string{}
	for p := uint32(0); p <= 21; p++ {
		m[uint64(p)] = oncrpc.ProcName(100003, 3, p)
	}
	return m
}()

var stableNames = map[uint64]string{0: "UNSTABLE", 1: "DATA_SYNC", 2: "FILE_SYNC"}
var statusNames = map[uint64]string{0: "NFS3_OK", 1: "NFS3ERR_PERM", 2: "NFS3ERR_NOENT", 5: "NFS3ERR_IO", 13: "NFS3ERR_ACCES",
	17: "NFS3ERR_EXIST", 20: "NFS3ERR_NOTDIR", 21: "NFS3ERR_ISDIR", 22: "NFS3ERR_INVAL", 28: "NFS3ERR_NOSPC", 70: "NFS3ERR_STALE",
	10001: "NFS3ERR_BADHANDLE", 10008: "NFS3ERR_JUKEBOX"}

var (
	PNFS = dissect.RegisterProto("nfs", "Network File System", "")

	fProc     = dissect.Register(&dissect.Field{Abbrev: "nfs.procedure_v3", Name: "V3 Procedure", Type: dissect.TUint32, Names: procNames})
	fFH       = dissect.Register(&dissect.Field{Abbrev: "nfs.fhandle", Name: "FileHandle", Type: dissect.TBytes})
	fFHLen    = dissect.Register(&dissect.Field{Abbrev: "nfs.fh.length", Name: "length", Type: dissect.TUint32})
	fFHHash   = dissect.Register(&dissect.Field{Abbrev: "nfs.fh.hash", Name: "hash (CRC-32)", Type: dissect.TUint32, Base: dissect.BaseHex})
	fOffset   = dissect.Register(&dissect.Field{Abbrev: "nfs.offset3", Name: "offset", Type: dissect.TUint64})
	fCount    = dissect.Register(&dissect.Field{Abbrev: "nfs.count3", Name: "count", Type: dissect.TUint32})
	fStable   = dissect.Register(&dissect.Field{Abbrev: "nfs.write.stable", Name: "Stable", Type: dissect.TUint32, Names: stableNames})
	fCommit   = dissect.Register(&dissect.Field{Abbrev: "nfs.write.committed", Name: "Committed", Type: dissect.TUint32, Names: stableNames})
	fStatus3  = dissect.Register(&dissect.Field{Abbrev: "nfs.status3", Name: "Status", Type: dissect.TUint32, Names: statusNames})
	fName     = dissect.Register(&dissect.Field{Abbrev: "nfs.name", Name: "Name", Type: dissect.TString})
	fAccess   = dissect.Register(&dissect.Field{Abbrev: "nfs.access_check", Name: "Check access", Type: dissect.TUint8, Base: dissect.BaseHex})
	fCookie   = dissect.Register(&dissect.Field{Abbrev: "nfs.cookie3", Name: "cookie", Type: dissect.TUint64})
	fVerifier = dissect.Register(&dissect.Field{Abbrev: "nfs.verifier", Name: "Verifier", Type: dissect.TBytes})
	fDirCount = dissect.Register(&dissect.Field{Abbrev: "nfs.count3_dircount", Name: "dircount", Type: dissect.TUint32})
	fMaxCount = dissect.Register(&dissect.Field{Abbrev: "nfs.count3_maxcount", Name: "maxcount", Type: dissect.TUint32})
	fData     = dissect.Register(&dissect.Field{Abbrev: "nfs.data", Name: "Data", Type: dissect.TBytes})
	fDDP      = dissect.Register(&dissect.Field{Abbrev: "nfs.data_ddp_length", Name: "Data moved by RDMA (write chunk)", Type: dissect.TUint32, Desc: "READ data length found in the RPC-over-RDMA write chunk (rdx)"})
)

type prog struct{}

func init() { oncrpc.RegisterProgram(100003, 3, prog{}) }

func (prog) Proto() *dissect.ProtoInfo { return PNFS }

// Summary implements oncrpc.Program: "V3 WRITE Call".
func (prog) Summary(dst []byte, m *oncrpc.Msg) []byte { return oncrpc.AppendProc(dst, m) }

func treeFH(t *dissect.Tree, r *xdr.Reader) []byte {
	s := r.Off
	fh := r.Opaque(maxFH)
	if r.Err() != nil {
		return nil
	}
	t.Bytes(fFH, s+4, len(fh), fh)
	t.Open()
	t.Uint(fFHLen, s, 4, uint64(len(fh)))
	t.Uint(fFHHash, s+4, len(fh), uint64(crc32.ChecksumIEEE(fh)))
	t.Close()
	return fh
}

// Tree implements oncrpc.Program.
func (prog) Tree(t *dissect.Tree, m *oncrpc.Msg) {
	b := m.Data()
	t.Proto(PNFS, m.BodyOff(), len(b)-m.BodyOff(), "")
	t.Uint(oncrpc.FProgVers, -1, 0, uint64(m.Vers))
	t.UintLabel(fProc, -1, 0, uint64(m.Proc), procNames[uint64(m.Proc)]+" ("+strconv.Itoa(int(m.Proc))+")")
	r := xdr.NewReader(b)
	r.Off = m.BodyOff()
	if m.Type == oncrpc.Call {
		call(t, m, &r)
	} else {
		reply(t, m, &r)
	}
}

func call(t *dissect.Tree, m *oncrpc.Msg, r *xdr.Reader) {
	switch m.Proc {
	case 1, 2, 5, 18, 19, 20: // GETATTR SETATTR READLINK FSSTAT FSINFO PATHCONF: object handle first
		treeFH(t, r)
	case 3, 8, 9, 10, 11, 12, 13: // LOOKUP CREATE MKDIR SYMLINK MKNOD REMOVE RMDIR: diropargs
		treeFH(t, r)
		oncrpc.TreeString(t, fName, r, 0, 1024)
	case 4: // ACCESS
		treeFH(t, r)
		t.Uint(fAccess, r.Off, 4, uint64(r.U32()))
	case 6: // READ
		treeFH(t, r)
		t.Uint(fOffset, r.Off, 8, r.U64())
		t.Uint(fCount, r.Off, 4, uint64(r.U32()))
	case 7: // WRITE
		treeFH(t, r)
		t.Uint(fOffset, r.Off, 8, r.U64())
		t.Uint(fCount, r.Off, 4, uint64(r.U32()))
		t.Uint(fStable, r.Off, 4, uint64(r.U32()))
		s := r.Off
		data := r.Opaque(0)
		if r.Err() == nil {
			t.Bytes(fData, s+4, len(data), data)
			t.Open()
			oncrpc.TreeOpaqueParts(t, s, data, r.B[s+4+len(data):r.Off])
			t.Close()
		}
	case 14, 15: // RENAME, LINK
		treeFH(t, r)
	case 16, 17: // READDIR, READDIRPLUS
		treeFH(t, r)
		t.Uint(fCookie, r.Off, 8, r.U64())
		s := r.Off
		v := r.Fixed(8)
		if v != nil {
			t.Bytes(fVerifier, s, 8, v)
		}
		if m.Proc == 17 {
			t.Uint(fDirCount, r.Off, 4, uint64(r.U32()))
			t.Uint(fMaxCount, r.Off, 4, uint64(r.U32()))
		} else {
			t.Uint(fCount, r.Off, 4, uint64(r.U32()))
		}
	case 21: // COMMIT
		treeFH(t, r)
		t.Uint(fOffset, r.Off, 8, r.U64())
		t.Uint(fCount, r.Off, 4, uint64(r.U32()))
	}
}

// skipPostOpAttr skips a post_op_attr (a fattr3 is 84 octets).
func skipPostOpAttr(r *xdr.Reader) {
	if r.Bool() {
		r.Skip(84)
	}
}

// skipWcc skips wcc_data: pre_op_attr (24 octets) then post_op_attr.
func skipWcc(r *xdr.Reader) {
	if r.Bool() {
		r.Skip(24)
	}
	skipPostOpAttr(r)
}

func reply(t *dissect.Tree, m *oncrpc.Msg, r *xdr.Reader) {
	if !m.Matched() {
		return
	}
	st := r.U32()
	if r.Err() != nil {
		return
	}
	t.Uint(fStatus3, r.Off-4, 4, uint64(st))
	if st != 0 {
		return
	}
	switch m.Proc {
	case 3: // LOOKUP: the object's handle first
		treeFH(t, r)
	case 8, 9, 10, 11: // CREATE MKDIR SYMLINK MKNOD: post_op_fh3
		if r.Bool() {
			treeFH(t, r)
		}
	case 6: // READ: post_op_attr, count, eof, data
		skipPostOpAttr(r)
		t.Uint(fCount, r.Off, 4, uint64(r.U32()))
		r.U32() // eof
		s := r.Off
		n := r.U32()
		if r.Err() != nil {
			return
		}
		if ddp := m.DDP(); len(ddp) > 0 && r.Remaining() < int(n) {
			// the data went by RDMA WRITE into the write chunk: the length stays inline
			t.Uint(fDDP, s, 4, uint64(len(ddp[0])))
			return
		}
		r.Off = s
		data := r.Opaque(0)
		if r.Err() == nil {
			t.Bytes(fData, s+4, len(data), data)
		}
	case 7: // WRITE: wcc_data, count, committed, verifier
		skipWcc(r)
		t.Uint(fCount, r.Off, 4, uint64(r.U32()))
		t.Uint(fCommit, r.Off, 4, uint64(r.U32()))
		s := r.Off
		if v := r.Fixed(8); v != nil {
			t.Bytes(fVerifier, s, 8, v)
		}
	}
}
