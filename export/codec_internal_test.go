package export

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/klauspost/compress/snappy"
)

// TestSnappyCodec: what snappyCodec writes is Snappy as the snappy package
// (a port of the reference implementation, not s2) reads it, also into a
// buffer reused from a longer page, and snappyCodec reads it back.
func TestSnappyCodec(t *testing.T) {
	var text bytes.Buffer
	for i := 0; text.Len() < 300_000; i++ {
		fmt.Fprintf(&text, "RC RDMA READ Response Middle QP 0x%06x PSN %d len 1024 [ICRC ok]", i%7, 2097152+i)
	}
	var dst []byte
	for _, src := range [][]byte{text.Bytes(), text.Bytes()[:1000], nil, {0}} {
		var err error
		if dst, err = (snappyCodec{}).Encode(dst, src); err != nil {
			t.Fatal(err)
		}
		if len(src) > 1000 && len(dst) > len(src)/4 {
			t.Errorf("%d octets compressed to %d", len(src), len(dst))
		}
		got, err := snappy.Decode(nil, dst)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("snappy.Decode of %d octets: %v, equal %v", len(src), err, bytes.Equal(got, src))
		}
		back, err := (snappyCodec{}).Decode(make([]byte, 0, 10), dst)
		if err != nil || !bytes.Equal(back, src) {
			t.Fatalf("Decode of %d octets: %v", len(src), err)
		}
	}
}
