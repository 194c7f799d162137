package rds

import (
	"testing"

	"github.com/rdx-project/rdx/internal/enginecheck"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// FuzzRDS feeds arbitrary stream bytes to the framer, cut into segments by
// cuts (each byte a segment length), with an optional gap and a close: no
// panic, and memory stays bounded (message frame lists, congested-port
// lists, the PDU pool per frame).
func FuzzRDS(f *testing.F) {
	f.Add(append(msg(1, 4000, 4001, 10), msg(2, 4000, 4001, 0)...), []byte{7, 50, 3}, uint16(0), uint16(0))
	cong := HeaderFields{Flags: FlagCongBitmap, Len: CongMapLen}
	f.Add(append(cong.Encode(nil), make([]byte, 200)...), []byte{48, 100}, uint16(2), uint16(30))
	bad := HeaderFields{Seq: 1, Len: 1 << 30}
	f.Add(append(bad.Encode(nil), msg(2, 1, 0, 3)...), []byte{1, 2, 3, 4, 5}, uint16(1), uint16(60))
	f.Fuzz(func(t *testing.T, data []byte, cuts []byte, gapAfter, gapSize uint16) {
		x := newFeeder()
		pos, k := 0, 0
		for pos < len(data) {
			n := len(data) - pos
			if k < len(cuts) {
				n = min(n, int(cuts[k])+1)
			}
			fr := x.seg(tcp.Dir(k&1), data[pos:pos+n])
			enginecheck.PDUs(t, fr)
			if len(fr.PDUs) > n+2 {
				t.Fatalf("%d PDUs from %d bytes", len(fr.PDUs), n)
			}
			x.values(fr, "rds.len") // build the tree
			for _, p := range fr.PDUs {
				p.Summary(nil)
			}
			pos += n
			k++
			if gapAfter != 0 && k == int(gapAfter) {
				x.gap(tcp.Dir(k&1), uint64(gapSize)+1)
			}
		}
		for _, c := range x.d.conns.All() {
			for i := range c.half {
				h := &c.half[i]
				if len(h.frames) > maxMsgFrames || len(h.cong) > maxCongPorts || h.ntail >= HeaderLen || h.nhdr > HeaderLen {
					t.Fatalf("unbounded state: frames %d cong %d tail %d hdr %d", len(h.frames), len(h.cong), h.ntail, h.nhdr)
				}
			}
		}
		x.d.StreamClose(x.next(), x.key, tcp.CloseFIN)
		if x.d.conns.Len() != 0 {
			t.Fatal("state kept after close")
		}
	})
}
