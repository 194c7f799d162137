package nfs

import (
	"hash/crc32"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/dissect/xdr"
)

// Limits against hostile input.
const (
	maxFH      = 128  // NFS3_FHSIZE is 64, NFS4_FHSIZE 128
	maxName    = 1024 // names and paths
	maxEntries = 4096 // directory entries, exports, mappings shown
)

// d decodes XDR into tree nodes: every read checks the bounds, and nothing is
// added once a read has failed. Offsets are message offsets (the reader runs
// over the whole RPC message).
type d struct {
	t *dissect.Tree
	r *xdr.Reader
	// chk decodes fattr4 values without a tree (Validate); the first
	// operation (1 + its number) or attribute rdx cannot get past is kept
	// with the octets left after it, for a finding.
	chk       bool
	badOp     int64
	badAttr   int
	badLeft   int
	shortAttr int   // 1 + the attribute attr_vals ended inside
	curOp     int64 // 1 + the operation being decoded (0: its opcode)
	opIdx     int   // its place in the COMPOUND, from 1
}

func (x *d) ok() bool { return x.r.Err() == nil }

func (x *d) u32(f *dissect.Field) uint32 {
	o := x.r.Off
	v := x.r.U32()
	if x.t != nil && x.ok() {
		if bs, ok := withBits[f]; ok {
			x.t.Flags(f, o, 4, uint64(v), "", bs...)
		} else {
			x.t.Uint(f, o, 4, uint64(v))
		}
	}
	return v
}

// count reads the length of an XDR array whose items take at least min
// octets each and adds it as f.
func (x *d) count(f *dissect.Field, min int) int {
	n := x.r.Count(min)
	if x.t != nil && x.ok() {
		x.t.Uint(f, x.r.Off-4, 4, uint64(n))
	}
	return n
}

// withBits gives the fields Wireshark shows with all their bits, wherever
// they are decoded.
var withBits = map[*dissect.Field][]*dissect.Field{fSeqFlags: seqFlagBits, fRflags: rflagBits, fMode4: mode4Bits}

// dataLen adds the length word of the opaque data at the reader without
// reading it (Wireshark's nfs.read.data_length, nfs.write.data_length).
func (x *d) dataLen(f *dissect.Field) {
	if x.t != nil && x.ok() && x.r.Remaining() >= 4 {
		x.t.Uint(f, x.r.Off, 4, uint64(peekU32(x.r)))
	}
}

func (x *d) u64(f *dissect.Field) uint64 {
	o := x.r.Off
	v := x.r.U64()
	if x.t != nil && x.ok() {
		x.t.Uint(f, o, 8, v)
	}
	return v
}

func (x *d) flags(f *dissect.Field, bits []*dissect.Field) uint32 {
	o := x.r.Off
	v := x.r.U32()
	if x.t != nil && x.ok() {
		x.t.Flags(f, o, 4, uint64(v), "", bits...)
	}
	return v
}

// str adds an XDR string with rpc.opaque_length and rpc.fill_bytes.
func (x *d) str(f *dissect.Field) []byte {
	if !x.ok() {
		return nil
	}
	if x.t == nil {
		return x.r.Opaque(maxName)
	}
	return oncrpc.TreeString(x.t, f, x.r, 0, maxName)
}

// opaque adds variable-length opaque data with its length.
func (x *d) opaque(f *dissect.Field, max int) []byte {
	s := x.r.Off
	b := x.r.Opaque(max)
	if x.t != nil && x.ok() {
		x.t.Bytes(f, s+4, len(b), b)
		x.t.Open()
		oncrpc.TreeOpaqueParts(x.t, s, b, x.r.B[s+4+len(b):x.r.Off])
		x.t.Close()
	}
	return b
}

func (x *d) fixed(f *dissect.Field, n int) []byte {
	o := x.r.Off
	b := x.r.Fixed(n)
	if x.t != nil && x.ok() {
		x.t.Bytes(f, o, n, b)
	}
	return b
}

// follows reads an XDR boolean shown as rpc.value_follows.
func (x *d) follows() bool {
	o := x.r.Off
	v := x.r.U32()
	if x.t != nil && x.ok() {
		x.t.Uint(oncrpc.FValueFollows, o, 4, uint64(v))
	}
	return v != 0 && x.ok()
}

// group opens a text node for a structure; end sets its length.
func (x *d) group(label string) int {
	if x.t == nil {
		return -1
	}
	x.t.Text(x.r.Off, 0, label)
	i := x.t.Last() // -1 when a sparse tree does not keep it
	x.t.Open()
	return i
}

func (x *d) end(i int) {
	if x.t == nil {
		return
	}
	x.t.Close()
	if i >= 0 && i < len(x.t.Nodes) && x.t.Nodes[i].Off >= 0 {
		x.t.Nodes[i].Len = int32(x.r.Off) - (x.t.Nodes[i].Off - x.base())
	}
}

func (x *d) base() int32 {
	b, det := x.t.Base()
	if det {
		return 0
	}
	return int32(b)
}

// fh adds a file handle (nfs_fh3 / nfs_fh4: opaque<>) with its length and
// Wireshark's hash, the CRC-32 of the handle bytes.
func (x *d) fh(label string) []byte {
	s := x.r.Off
	fh := x.r.Opaque(maxFH)
	if x.t == nil || !x.ok() {
		return fh
	}
	x.t.Text(s, x.r.Off-s, label)
	x.t.Open()
	x.t.Uint(fFHLen, s, 4, uint64(len(fh)))
	x.t.Uint(fFHHash, s+4, len(fh), uint64(crc32.ChecksumIEEE(fh)))
	x.t.Bytes(fFH, s+4, len(fh), fh)
	x.t.Close()
	return fh
}

// fhFixed adds an NFSv2 / MOUNTv1 handle (32 octets).
func (x *d) fhFixed(label string) {
	s := x.r.Off
	fh := x.r.Fixed(32)
	if x.t == nil || !x.ok() {
		return
	}
	x.t.Text(s, 32, label)
	x.t.Open()
	x.t.Uint(fFHHash, s, 32, uint64(crc32.ChecksumIEEE(fh)))
	x.t.Bytes(fFH, s, 32, fh)
	x.t.Close()
}

// fhHash is the hash of the handle at the reader without adding nodes (for
// summaries; m remembers the last handle's); ok is false if it does not fit.
func fhHash(r *xdr.Reader, m *oncrpc.Msg) (uint32, bool) {
	fh := r.Opaque(maxFH)
	if r.Err() != nil {
		return 0, false
	}
	return m.ChecksumIEEE(fh), true
}

// node adds a structure node (FT_NONE) and opens it; close ends it.
func (x *d) node(f *dissect.Field) {
	if x.t != nil {
		x.t.Uint(f, x.r.Off, 0, 0)
		x.t.Open()
	}
}

func (x *d) close() {
	if x.t != nil {
		x.t.Close()
	}
}
