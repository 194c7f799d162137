package mpa

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// TestFPDUBuffersBudget: incomplete FPDUs held by many directions are
// charged to the budget as table "mpa"; Enforce drops the least recently
// fed buffer (the direction then resynchronises) and the budget holds; a
// closed connection gives its buffer back.
func TestFPDUBuffersBudget(t *testing.T) {
	const limit = 256 << 10
	b := budget.New(limit)
	d := New(nil)
	d.bufs.init(b)
	stream, _ := synth(true, false, true, []int{60000}, 1000)
	half := len(stream) - 30000 // the startup frame and half the FPDU
	var drops []budget.Drop
	var keys []tcp.FlowKey
	for i := range 40 {
		key, _ := tcp.NewFlowKey(netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), uint16(1000+i)), netip.MustParseAddrPort("10.0.0.2:2"))
		keys = append(keys, key)
		b.Tick(uint64(i + 1))
		f := &dissect.Frame{Num: uint64(i + 1)}
		d.StreamData(f, &tcp.Chunk{Key: key, Bytes: stream[:half], Seq: 1000, Frames: []tcp.FrameSpan{{Frame: f.Num, Len: half}}})
		drops = append(drops, b.Enforce()...)
		if b.Used() > limit {
			t.Fatalf("connection %d: budget holds %d > %d", i, b.Used(), limit)
		}
	}
	if len(drops) == 0 || drops[0].Table != "mpa" || !strings.HasPrefix(drops[0].What, "MPA buffer of 10.0.0.1:1000 → 10.0.0.2:2 (") {
		t.Fatalf("drops %+v", drops[:min(len(drops), 1)])
	}
	if h := &d.conns[keys[0]].h[0]; h.mode != modeResync || h.buf.Len() != 0 {
		t.Errorf("dropped direction: mode %d, %d octets held", h.mode, h.buf.Len())
	}
	for _, k := range keys {
		d.StreamClose(&dissect.Frame{}, k, tcp.CloseFIN)
	}
	if b.Used() != 0 {
		t.Errorf("budget holds %d after every connection closed", b.Used())
	}
}
