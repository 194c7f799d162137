// Package xdr reads XDR (RFC 4506) data with every read bounds-checked. A read
// past the end sets a sticky error and returns zero values, so decoders can
// read a whole structure and check Err once, as miekg/dns threads offsets.
package xdr

import (
	"encoding/binary"
	"fmt"
)

// Reader is a cursor over XDR bytes.
type Reader struct {
	B   []byte
	Off int
	err error
}

// NewReader starts reading b at offset 0.
func NewReader(b []byte) Reader { return Reader{B: b} }

// Err is the first error met, nil if every read fit.
func (r *Reader) Err() error { return r.err }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int {
	if r.Off >= len(r.B) {
		return 0
	}
	return len(r.B) - r.Off
}

// ErrShort says a field did not fit in the data.
type ErrShort struct {
	What      string
	Off, Need int
	Have      int
}

func (e *ErrShort) Error() string {
	return fmt.Sprintf("%s at offset %d needs %d bytes, %d left", e.What, e.Off, e.Need, e.Have)
}

func (r *Reader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.Off < 0 || r.Off+n > len(r.B) || r.Off+n < r.Off {
		r.err = &ErrShort{What: what, Off: r.Off, Need: n, Have: r.Remaining()}
		return false
	}
	return true
}

// U32 reads an unsigned 32-bit integer.
func (r *Reader) U32() uint32 {
	// inlined (RPC headers are read a word at a time): no call, so the short
	// case builds need's error itself
	// in a form the compiler's prove pass reads as o+4 <= len(b): the load
	// is then one word with no further bounds checks
	o, b := r.Off, r.B
	if o >= 0 && o < len(b)-3 && r.err == nil {
		r.Off = o + 4
		return binary.BigEndian.Uint32(b[o : o+4])
	}
	if r.err == nil {
		r.err = &ErrShort{What: "uint32", Off: o, Need: 4, Have: r.Remaining()}
	}
	return 0
}

// I32 reads a signed 32-bit integer.
func (r *Reader) I32() int32 { return int32(r.U32()) }

// U64 reads an unsigned hyper.
func (r *Reader) U64() uint64 {
	if !r.need(8, "uint64") {
		return 0
	}
	v := binary.BigEndian.Uint64(r.B[r.Off:])
	r.Off += 8
	return v
}

// Bool reads an XDR boolean.
func (r *Reader) Bool() bool { return r.U32() != 0 }

// Fixed reads n opaque bytes plus padding to a multiple of 4.
func (r *Reader) Fixed(n int) []byte {
	if n < 0 { // pad(-3..-1) is 0: need alone would pass it
		r.need(-1, "opaque")
		return nil
	}
	if !r.need(pad(n), "opaque") {
		return nil
	}
	b := r.B[r.Off : r.Off+n]
	r.Off += pad(n)
	return b
}

// Opaque reads variable-length opaque data of at most max bytes (max <= 0: no limit).
func (r *Reader) Opaque(max int) []byte {
	start := r.Off
	n := r.U32()
	if r.err != nil {
		return nil
	}
	if max > 0 && int64(n) > int64(max) {
		r.err = fmt.Errorf("opaque at offset %d: length %d exceeds limit %d", start, n, max)
		return nil
	}
	if int64(n) > int64(r.Remaining()) {
		r.err = &ErrShort{What: "opaque", Off: r.Off, Need: int(min(int64(n), 1<<31-1)), Have: r.Remaining()}
		return nil
	}
	return r.Fixed(int(n))
}

// String reads an XDR string of at most max bytes.
func (r *Reader) String(max int) string { return string(r.Opaque(max)) }

// Skip advances n bytes.
func (r *Reader) Skip(n int) {
	if r.need(n, "skip") {
		r.Off += n
	}
}

// Count reads an array length and checks that count elements of at least
// elemSize bytes each can still fit, so a hostile count cannot make a decoder
// loop billions of times.
func (r *Reader) Count(elemSize int) int {
	start := r.Off
	n := r.U32()
	if r.err != nil {
		return 0
	}
	if elemSize < 1 {
		elemSize = 1
	}
	if int64(n)*int64(elemSize) > int64(r.Remaining()) {
		r.err = fmt.Errorf("array at offset %d: %d elements of %d bytes do not fit in %d bytes", start, n, elemSize, r.Remaining())
		return 0
	}
	return int(n)
}

func pad(n int) int { return (n + 3) &^ 3 }
