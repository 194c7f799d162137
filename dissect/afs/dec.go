package afs

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/dissect/xdr"
)

// dec walks a call's XDR data once per use: at dissect time with t == nil,
// only to learn whether the data fits (no allocation), and again with a tree
// when an output mode asks for one. Every read is bounds-checked by
// xdr.Reader; after the first failure reads return zero values and add
// nothing, so decoders read whole structures and never check in between.
type dec struct {
	r xdr.Reader
	t *dissect.Tree
	c *rx.Call
	// partial is set when a streamed length runs past data rdx did not
	// keep (Call.Truncated): decoding stops there without an error.
	partial bool
	// over and overMax are set when an array's count exceeds the bound
	// its .xg type declares (AFSCBFids<AFSCBMAX>...): decoding stops and
	// the call is malformed. over is never 0 then (it exceeds a bound).
	over, overMax uint32
}

// isOver reports whether an array's count exceeded its declared bound.
func (d *dec) isOver() bool { return d.over != 0 }

func (d *dec) reset(c *rx.Call, t *dissect.Tree, off int) {
	d.r = xdr.NewReader(c.Data)
	d.r.Off = off
	d.t = t
	d.c = c
	d.partial = false
	d.over = 0
}

// ok reports whether decoding may go on.
func (d *dec) ok() bool { return d.r.Err() == nil && !d.partial && !d.isOver() }

func (d *dec) tree() bool { return d.t != nil && d.r.Err() == nil && !d.isOver() }

// u32 reads an unsigned word and shows it as f.
func (d *dec) u32(f *dissect.Field) uint32 {
	off := d.r.Off
	v := d.r.U32()
	if f != nil && d.tree() {
		d.t.Uint(f, off, 4, uint64(v))
	}
	return v
}

// u64 reads an XDR hyper.
func (d *dec) u64(f *dissect.Field) uint64 {
	off := d.r.Off
	v := d.r.U64()
	if f != nil && d.tree() {
		d.t.Uint(f, off, 8, v)
	}
	return v
}

// time32 reads Unix seconds and shows them as an absolute time.
func (d *dec) time32(f *dissect.Field) uint32 {
	off := d.r.Off
	v := d.r.U32()
	if f != nil && d.tree() {
		d.t.Uint(f, off, 4, uint64(v)*1e9)
	}
	return v
}

// secs32 reads a duration in seconds (a relative time).
func (d *dec) secs32(f *dissect.Field) uint32 {
	off := d.r.Off
	v := d.r.U32()
	if f != nil && d.tree() {
		d.t.Uint(f, off, 4, uint64(v)*1e9)
	}
	return v
}

// ipv4 reads an address in network order.
func (d *dec) ipv4(f *dissect.Field) {
	off := d.r.Off
	b := d.r.Fixed(4)
	if f != nil && d.tree() {
		d.t.Bytes(f, off, 4, b)
	}
}

// str reads an XDR string of at most max octets.
func (d *dec) str(f *dissect.Field, max int) {
	off := d.r.Off
	b := d.r.Opaque(max)
	if f != nil && d.tree() {
		d.t.String(f, off, d.r.Off-off, ifWanted(d.t, f, cString, b))
	}
}

// opaque reads variable-length opaque data.
func (d *dec) opaque(f *dissect.Field, max int) {
	off := d.r.Off
	b := d.r.Opaque(max)
	if f != nil && d.tree() {
		d.t.Bytes(f, off, d.r.Off-off, b)
	}
}

// chars reads a C char array that rxgen sends as n XDR words, one character
// each (prname, volume names in VLDB entries, bozo keys), and shows the text
// up to the first NUL.
func (d *dec) chars(f *dissect.Field, n int) {
	off := d.r.Off
	b := d.r.Fixed(4 * n)
	if f != nil && d.tree() {
		d.t.String(f, off, 4*n, ifWanted(d.t, f, charWords, b))
	}
}

// charBytes is chars for binary content: the low octet of each word.
func (d *dec) charBytes(f *dissect.Field, n int) {
	off := d.r.Off
	b := d.r.Fixed(4 * n)
	if d.tree() {
		out := make([]byte, n)
		for i := range out {
			out[i] = b[4*i+3]
		}
		d.t.Bytes(f, off, 4*n, out)
	}
}

// count reads an array length (shown as f when f != nil) and checks that
// that many elements of elemSize octets can be there.
func (d *dec) count(f *dissect.Field, elemSize int) int {
	off := d.r.Off
	n := d.r.Count(elemSize)
	if f != nil && d.tree() {
		d.t.Uint(f, off, 4, uint64(n))
	}
	return n
}

// countMax is count for an array type with a declared bound (T x<max>):
// a longer count ends decoding as malformed, as the rxgen stubs reject it.
func (d *dec) countMax(f *dissect.Field, elemSize, max int) int {
	if d.ok() && d.r.Remaining() >= 4 {
		b := d.r.B[d.r.Off:]
		if n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]); n > uint32(max) {
			off := d.r.Off
			d.r.U32()
			if f != nil && d.tree() {
				d.t.Uint(f, off, 4, uint64(n)) // shown, then stop
			}
			d.over, d.overMax = n, uint32(max)
			return 0
		}
	}
	return d.count(f, elemSize)
}

// stream reads a streamed call's length word (8 octets when wide) and the
// octets that follow, shown as fLen and fData. When rdx did not keep the
// whole call the data is cut short; that is not an error but ends decoding.
func (d *dec) stream(fLen, fData *dissect.Field, wide bool) {
	off := d.r.Off
	var n uint64
	if wide {
		n = d.r.U64()
	} else {
		n = uint64(d.r.U32())
	}
	if d.r.Err() != nil {
		return
	}
	if d.t != nil {
		d.t.Uint(fLen, off, d.r.Off-off, n)
	}
	d.raw(fData, n)
}

// raw shows n octets of streamed data (no XDR padding).
func (d *dec) raw(f *dissect.Field, n uint64) {
	have := uint64(d.r.Remaining())
	if n > have {
		if !d.c.Truncated {
			d.r.Skip(int(min(n, 1<<31-1))) // fails: the data is short
			return
		}
		n = have
		d.partial = true
	}
	off := d.r.Off
	b := d.r.B[off : off+int(n)]
	d.r.Off += int(n)
	if d.t != nil && n > 0 {
		d.t.Bytes(f, off, int(n), b)
	}
}

// rest shows whatever is left as f (opaque data rdx does not decode).
func (d *dec) rest(f *dissect.Field) {
	if d.r.Err() != nil || d.r.Remaining() == 0 {
		return
	}
	off := d.r.Off
	b := d.r.B[off:]
	d.r.Off = len(d.r.B)
	if d.t != nil {
		d.t.Bytes(f, off, len(b), b)
	}
}

// group opens a labelled subtree over the next n octets; end closes it.
func (d *dec) group(n int, label string) {
	if d.tree() {
		d.t.Text(d.r.Off, min(n, d.r.Remaining()), label)
		d.t.Open()
	}
}

func (d *dec) end() {
	if d.t != nil {
		d.t.Close()
	}
}

// ifWanted is format(b) when t keeps nodes of f, else "" (a sparse tree
// stores no value of f: building the string would be wasted).
func ifWanted(t *dissect.Tree, f *dissect.Field, format func([]byte) string, b []byte) string {
	if !t.Wants(f) {
		return ""
	}
	return format(b)
}

// cString is b up to its first NUL (servers often send the terminator).
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// charWords turns XDR words holding one character each into a string.
func charWords(b []byte) string {
	out := make([]byte, 0, len(b)/4)
	for i := 0; i+4 <= len(b); i += 4 {
		c := b[i+3]
		if c == 0 {
			break
		}
		out = append(out, c)
	}
	return string(out)
}

// uuidString formats the 11 XDR words of an afsUUID as OpenAFS prints it
// (afsUUID_to_string): time_low-time_mid-time_hi-clock_seq hi,low-node.
func uuidString(b []byte) string {
	w := func(i int) uint32 { return binary.BigEndian.Uint32(b[4*i:]) }
	out := make([]byte, 0, 36)
	out = dissect.AppendHexDigits(out, uint64(w(0)), 8)
	out = append(out, '-')
	out = dissect.AppendHexDigits(out, uint64(w(1)&0xffff), 4)
	out = append(out, '-')
	out = dissect.AppendHexDigits(out, uint64(w(2)&0xffff), 4)
	out = append(out, '-')
	out = dissect.AppendHexDigits(out, uint64(w(3)&0xff), 2)
	out = dissect.AppendHexDigits(out, uint64(w(4)&0xff), 2)
	out = append(out, '-')
	for i := 5; i < 11; i++ {
		out = dissect.AppendHexDigits(out, uint64(w(i)&0xff), 2)
	}
	return string(out)
}

// uuid reads an afsUUID and shows it as f: as the formatted string for
// TString fields, as the raw 44 octets for TBytes fields (tshark's way).
func (d *dec) uuid(f *dissect.Field) {
	off := d.r.Off
	b := d.r.Fixed(uuidLen)
	if !d.tree() {
		return
	}
	if f.Type == dissect.TString {
		d.t.String(f, off, uuidLen, ifWanted(d.t, f, uuidString, b))
	} else {
		d.t.Bytes(f, off, uuidLen, b)
	}
}

const uuidLen = 44

// partitionName spells a partition index as OpenAFS does: 0-25 are
// /vicepa-/vicepz, then two letters (/vicepaa is 26).
func partitionName(p uint32) string {
	switch {
	case p < 26:
		return "/vicep" + string(rune('a'+p))
	case p < 26*26+26:
		return "/vicep" + string(rune('a'+p/26-1)) + string(rune('a'+p%26))
	}
	return "partition " + strconv.FormatUint(uint64(p), 10)
}
