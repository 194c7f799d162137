package tcp

import "unsafe"

// Buffer accumulates contiguous chunks for a consumer whose PDUs span
// segments, and remembers which frames each byte came from, so that a PDU
// can say "reassembled from frames 4, 5, 7". Consumers that find whole PDUs
// inside one chunk should parse the chunk directly and only Append the rest.
type Buffer struct {
	buf   []byte
	start int    // consumed prefix of buf
	off   uint64 // stream offset of buf[start]
	seq   uint32
	spans []span // frames of buf[start:], in order
}

type span struct {
	frame uint64
	off   uint64 // stream offset
	n     int
}

// Len returns the number of buffered bytes.
func (b *Buffer) Len() int { return len(b.buf) - b.start }

// Bytes returns the buffered bytes; valid until the next Append or Consume.
func (b *Buffer) Bytes() []byte { return b.buf[b.start:] }

// Offset and Seq return the stream position of Bytes()[0].
func (b *Buffer) Offset() uint64 { return b.off }
func (b *Buffer) Seq() uint32    { return b.seq }

// Append copies c's bytes. It returns false, and keeps nothing, when c does
// not continue the buffered bytes (after a gap: Reset first).
func (b *Buffer) Append(c *Chunk) bool {
	if b.Len() == 0 {
		b.Reset()
		b.off, b.seq = c.Offset, c.Seq
	} else if c.Offset != b.off+uint64(b.Len()) {
		return false
	}
	if b.start > 0 && b.start >= len(b.buf)/2 {
		// Compact instead of growing forever.
		n := copy(b.buf, b.buf[b.start:])
		b.buf, b.start = b.buf[:n], 0
	}
	for _, f := range c.Frames {
		o := c.Offset + uint64(f.Off)
		if k := len(b.spans) - 1; k >= 0 && b.spans[k].frame == f.Frame && b.spans[k].off+uint64(b.spans[k].n) == o {
			b.spans[k].n += f.Len
			continue
		}
		b.spans = append(b.spans, span{frame: f.Frame, off: o, n: f.Len})
	}
	b.buf = append(b.buf, c.Bytes...)
	return true
}

// Frames appends to dst the frames of n bytes at i in Bytes(), with Off
// relative to i.
func (b *Buffer) Frames(dst []FrameSpan, i, n int) []FrameSpan {
	lo, hi := b.off+uint64(i), b.off+uint64(i+n)
	for _, s := range b.spans {
		se := s.off + uint64(s.n)
		if se <= lo || s.off >= hi {
			continue
		}
		from, to := max(s.off, lo), min(se, hi)
		dst = append(dst, FrameSpan{Frame: s.frame, Off: int(from - lo), Len: int(to - from)})
	}
	return dst
}

// Consume drops n bytes from the front.
func (b *Buffer) Consume(n int) {
	n = min(n, b.Len())
	b.start += n
	b.off += uint64(n)
	b.seq += uint32(n)
	k := 0
	for k < len(b.spans) && b.spans[k].off+uint64(b.spans[k].n) <= b.off {
		k++
	}
	b.spans = append(b.spans[:0], b.spans[k:]...)
	if b.Len() == 0 {
		b.Reset()
	}
}

// Cap is the memory the buffer holds, in octets (its bytes and frame
// spans), for charging a memory budget.
func (b *Buffer) Cap() int { return cap(b.buf) + cap(b.spans)*int(unsafe.Sizeof(span{})) }

// Free forgets the buffered bytes and gives the memory back.
func (b *Buffer) Free() { *b = Buffer{} }

// Reset forgets the buffered bytes, keeping the memory.
func (b *Buffer) Reset() {
	b.buf, b.start, b.spans = b.buf[:0], 0, b.spans[:0]
}
