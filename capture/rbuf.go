package capture

import (
	"bufio"
	"io"

	"github.com/rdx-project/rdx/internal/prefault"
)

// rbuf is the Reader's read buffer: bufio.Reader's Peek, Discard and Read,
// and one thing bufio cannot do: lend its buffer. After lend, views of what
// is buffered are in use elsewhere (Prefetch's batches hand them to the
// decoder instead of copying every record), so the next fill does not slide
// the unread octets over them: it moves to a fresh buffer (from spare, or
// new) and keeps the lent one in retired until its borrower is done.
type rbuf struct {
	buf  []byte
	r, w int // buf[r:w] is buffered
	src  io.Reader
	err  error // the source's last error, returned once (as bufio does)
	lent bool

	// spare are buffers whose views are no longer used, for the fills after
	// a lend; retired are lent buffers left behind. Both only with lend;
	// the borrowers bound how many buffers there are (Prefetch's batches,
	// rdx -j's rounds: a fixed number, each with views of a bounded number
	// of octets), and a new one is made only when spare is empty.
	spare, retired [][]byte
}

// newRbuf makes the buffer; filled says the reads will fill it whole (it is
// no larger than what is left of a file), so its pages are mapped in at
// once (newBuf).
func newRbuf(src io.Reader, size int, filled bool) *rbuf {
	if filled {
		return &rbuf{buf: newBuf(size), src: src}
	}
	return &rbuf{buf: make([]byte, size), src: src}
}

// newBuf makes a read buffer that the reads will fill whole, its pages
// mapped in at once: on a fresh page the read's copy faults a page at a
// time, about 12 µs a fault on a paravirtualised guest against 2.5 µs a
// page populated (rdx read -q of 1M Rx frames makes 3 such buffers, 770
// faults; rds100m, 1,500).
func newBuf(size int) []byte {
	b := make([]byte, size)
	if size >= prefaultMin {
		prefault.Write(b)
	}
	return b
}

// prefaultMin is the smallest buffer prefaulted: below it a few faults
// cost less than the system call.
const prefaultMin = 64 << 10

// maxEmptyReads is how many (0, nil) reads fill tolerates, as bufio does.
const maxEmptyReads = 100

// fill reads at least one more octet into the buffer (or sets err); the
// buffer must not be full.
func (b *rbuf) fill() {
	switch {
	case b.lent:
		var nb []byte
		if n := len(b.spare); n > 0 {
			nb, b.spare = b.spare[n-1], b.spare[:n-1]
		} else { // more is coming: another buffer's worth, likely
			nb = newBuf(len(b.buf))
		}
		b.retired = append(b.retired, b.buf)
		b.w = copy(nb, b.buf[b.r:b.w])
		b.buf, b.r, b.lent = nb, 0, false
	case b.r > 0:
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	for range maxEmptyReads {
		n, err := b.src.Read(b.buf[b.w:])
		b.w += n
		if err != nil {
			b.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	b.err = io.ErrNoProgress
}

func (b *rbuf) readErr() error {
	err := b.err
	b.err = nil
	return err
}

// lend marks what is buffered as viewed elsewhere until retired.
func (b *rbuf) lend() { b.lent = true }

// Size is the buffer's size.
func (b *rbuf) Size() int { return len(b.buf) }

// Buffered is how many octets can be read without reading the source.
func (b *rbuf) Buffered() int { return b.w - b.r }

// Peek returns the next n octets without consuming them, as bufio.Reader's
// Peek: fewer, with an error, when the source ends first or n exceeds the
// buffer.
func (b *rbuf) Peek(n int) ([]byte, error) {
	for b.w-b.r < n && b.w-b.r < len(b.buf) && b.err == nil {
		b.fill()
	}
	if n > len(b.buf) {
		return b.buf[b.r:b.w], bufio.ErrBufferFull
	}
	var err error
	if avail := b.w - b.r; avail < n {
		n = avail
		if err = b.readErr(); err == nil {
			err = bufio.ErrBufferFull
		}
	}
	return b.buf[b.r : b.r+n], err
}

// Discard skips the next n octets, as bufio.Reader's Discard.
func (b *rbuf) Discard(n int) (int, error) {
	remain := n
	for {
		skip := b.w - b.r
		if skip == 0 {
			b.fill()
			skip = b.w - b.r
		}
		skip = min(skip, remain)
		b.r += skip
		remain -= skip
		if remain == 0 {
			return n, nil
		}
		if b.err != nil {
			return n - remain, b.readErr()
		}
	}
}

// Read reads up to len(p) octets, as bufio.Reader's Read (but through the
// buffer even for a large p: lent octets must not be overwritten, and only
// the file header and pcapng blocks are read this way).
func (b *rbuf) Read(p []byte) (int, error) {
	if len(p) == 0 {
		if b.w > b.r {
			return 0, nil
		}
		return 0, b.readErr()
	}
	if b.r == b.w {
		if b.err != nil {
			return 0, b.readErr()
		}
		b.fill()
		if b.r == b.w {
			return 0, b.readErr()
		}
	}
	n := copy(p, b.buf[b.r:b.w])
	b.r += n
	return n, nil
}
