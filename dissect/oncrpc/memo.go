package oncrpc

import (
	"bytes"
	"hash/crc32"
)

// crcMemo is the last octet string Msg.ChecksumIEEE hashed (at most
// len(b) octets) and its CRC: one per State, so per engine and goroutine.
type crcMemo struct {
	b  [128]byte // NFS4_FHSIZE
	n  int
	v  uint32
	ok bool
}

// ChecksumIEEE returns crc32.ChecksumIEEE(b), remembered for the last b of
// at most 128 octets. A program's summary hashes its call's file handle
// (NFS "FH: 0x..."), and the calls on one file repeat it frame after frame:
// comparing a 32-octet handle costs a fraction of hashing it (the IEEE
// table's sync.Once, the dispatch and slicing-by-8, about 75 instructions).
func (m *Msg) ChecksumIEEE(b []byte) uint32 {
	if m.d == nil {
		return crc32.ChecksumIEEE(b)
	}
	c := &m.d.crc
	if c.ok && len(b) == c.n && bytes.Equal(b, c.b[:c.n]) {
		return c.v
	}
	v := crc32.ChecksumIEEE(b)
	if len(b) <= len(c.b) {
		c.n = copy(c.b[:], b)
		c.v, c.ok = v, true
	}
	return v
}
