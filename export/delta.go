package export

import (
	"encoding/binary"
	"math/bits"
	"sync"

	pqdelta "github.com/parquet-go/parquet-go/encoding/delta"
)

// deltaByteArray is DELTA_BYTE_ARRAY (Parquet's Encodings.md: the
// DELTA_BINARY_PACKED lengths of the prefixes each value shares with the
// one before, then those of the suffixes, then the suffixes), the octets
// parquet-go's writes, with the prefixes found 8 octets at a time:
// parquet-go compares octet by octet (560 instructions a frame of an
// export of 200k Rx frames, whose Info shares 89% with the row before).
// TestDeltaByteArray and FuzzDeltaByteArray hold it against parquet-go's.
type deltaByteArray struct {
	pqdelta.ByteArrayEncoding // all but EncodeByteArray
}

var deltaScratch = sync.Pool{New: func() any { return new(deltaBuffers) }}

type deltaBuffers struct {
	prefix, suffix []int32
	ints           []byte
}

// EncodeByteArray encodes the values src[offsets[i]:offsets[i+1]].
func (*deltaByteArray) EncodeByteArray(dst []byte, src []byte, offsets []uint32) ([]byte, error) {
	b := deltaScratch.Get().(*deltaBuffers)
	defer deltaScratch.Put(b)
	b.prefix, b.suffix = b.prefix[:0], b.suffix[:0]
	total := 0
	if len(offsets) > 0 {
		var last []byte
		start := offsets[0]
		for _, end := range offsets[1:] {
			v := src[start:end:end]
			p := sharedPrefix(last, v)
			b.prefix = append(b.prefix, int32(p))
			b.suffix = append(b.suffix, int32(len(v)-p))
			total += len(v) - p
			last, start = v, end
		}
	}
	var bp pqdelta.BinaryPackedEncoding
	b.ints, _ = bp.EncodeInt32(b.ints[:0], b.prefix)
	dst = append(dst[:0], b.ints...)
	b.ints, _ = bp.EncodeInt32(b.ints[:0], b.suffix)
	dst = append(dst, b.ints...)
	dst = grow(dst, total)
	if len(offsets) > 0 {
		i := offsets[0]
		for k, p := range b.prefix {
			n := uint32(p + b.suffix[k])
			dst = append(dst, src[i+uint32(p):i+n]...)
			i += n
		}
	}
	return dst, nil
}

// grow is b with room for n more octets.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		b = append(make([]byte, 0, len(b)+n), b...)
	}
	return b
}

// sharedPrefix is the length of the prefix a and b share.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
