package oncrpc

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// tcpFrame builds a raw IPv4 TCP segment (link type 228) from
// 192.0.2.1:port to 192.0.2.2:2049.
func tcpFrame(port uint16, seq uint32, flags byte, payload []byte) []byte {
	b := make([]byte, 40+len(payload))
	b[0], b[8], b[9] = 0x45, 64, 6
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
	copy(b[12:], []byte{192, 0, 2, 1})
	copy(b[16:], []byte{192, 0, 2, 2})
	binary.BigEndian.PutUint16(b[20:], port)
	binary.BigEndian.PutUint16(b[22:], 2049)
	binary.BigEndian.PutUint32(b[24:], seq)
	b[32], b[33] = 5<<4, flags
	binary.BigEndian.PutUint16(b[34:], 65535)
	copy(b[40:], payload)
	return b
}

// TestRecordBuffersBudget: partial record-marked RPC records (each stream
// announces a 3 MiB record and sends 256 KiB of it) are charged to the
// budget as table "rpc"; with --max-mem 1M the least recently fed buffer
// is dropped, with a finding naming it, and the budget holds. Issue 10: 60
// such connections took 535 MB.
func TestRecordBuffersBudget(t *testing.T) {
	const limit = 1 << 20
	eng := dissect.NewEngine(dissect.Options{MaxMem: limit})
	num := uint64(0)
	dropped := 0
	feed := func(p []byte) {
		num++
		f := eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num), LinkType: dissect.LinkTypeIPv4, Data: p})
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "dropped ONC RPC record buffer of 192.0.2.1:") {
				dropped++
			}
		}
		if u := eng.Budget().Used(); u > limit {
			t.Fatalf("frame %d: budget holds %d > %d", num, u, limit)
		}
	}
	chunk := make([]byte, 1400)
	for c := range uint16(20) {
		port := 40000 + c
		feed(tcpFrame(port, 99, 0x02, nil))
		mark := binary.BigEndian.AppendUint32(nil, 0x80000000|3<<20)
		feed(tcpFrame(port, 100, 0x18, mark))
		for i := range 187 { // 256 KiB
			feed(tcpFrame(port, 104+uint32(i*len(chunk)), 0x18, chunk))
		}
	}
	if dropped == 0 {
		t.Error("no finding named a dropped RPC record buffer")
	}
	eng.Finish()
}
