package oncrpc

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// TestManyRecordsOneFrame: one TCP segment carries 300 record-marked RPC
// calls. Each is a PDU of its own with its own XID; the old pool started
// over after 257 values in a frame and handed the first PDUs out again.
func TestManyRecordsOneFrame(t *testing.T) {
	const records = 300
	eng := dissect.NewEngine(dissect.Options{})
	syn := tcpFrame(700, 99, 0x02, nil)
	eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: syn})
	seq := uint32(100)
	// twice: the first frame grows the pool (moving its values), the
	// second finds it warm, where a pool that wraps overwrites PDUs
	for pass := range 2 {
		base := 0x4000 + uint32(pass)<<12
		var seg []byte
		for i := range records {
			m := binary.BigEndian.AppendUint32(nil, base+uint32(i)) // XID
			for _, v := range []uint32{Call, 2, 100003, 3, 1, 0, 0, 0, 0} {
				m = binary.BigEndian.AppendUint32(m, v)
			}
			m = binary.BigEndian.AppendUint32(m, 4) // a file handle of 4 octets
			m = append(m, 1, 2, 3, 4)
			seg = binary.BigEndian.AppendUint32(seg, 0x80000000|uint32(len(m)))
			seg = append(seg, m...)
		}
		p := tcpFrame(700, seq, 0x18, seg)
		seq += uint32(len(seg))
		f := eng.Decode(dissect.Packet{Num: uint64(2 + pass), TimeNS: int64(1 + pass), LinkType: dissect.LinkTypeIPv4, Data: p})
		var got []string
		for _, pdu := range f.PDUs {
			if pdu.Proto().Abbrev == "rpc" {
				got = append(got, string(pdu.Summary(nil)))
			}
		}
		if len(got) != records {
			t.Errorf("frame %d: %d RPC PDUs, want %d", f.Num, len(got), records)
		}
		for i := range min(len(got), records) {
			if want := fmt.Sprintf("Call XID 0x%08x NFS V3 GETATTR Call", base+uint32(i)); got[i] != want {
				t.Errorf("frame %d: PDU %d: %q, want %q", f.Num, i, got[i], want)
			}
		}
	}
}
