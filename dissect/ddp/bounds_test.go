package ddp

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// TestOpenSendsBounded: Send messages that never finish (1100 MSNs, each
// a first segment of 64 KiB) keep at most maxOpenMessage in progress, the
// least recently active dropped with a finding (the table was replaced
// whole, silently), and the budget holds what they keep.
func TestOpenSendsBounded(t *testing.T) {
	b := budget.New(512 << 20)
	d := New()
	d.register(b.Register("iwarp_ddp", d))
	pay := make([]byte, 64<<10)
	drops := 0
	for msn := uint32(1); msn <= maxOpenMessage+76; msn++ {
		b.Tick(uint64(msn))
		f := seg(d, uint64(msn), 0, EncodeUntagged(nil, false, OpSend, 0, 0, msn, 0, pay))
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "DDP Send messages in progress: dropped the least recently active") {
				drops++
			}
		}
		if len(d.msgs) > maxOpenMessage {
			t.Fatalf("%d messages open", len(d.msgs))
		}
	}
	if drops != 76 {
		t.Errorf("%d drops with a finding, want 76", drops)
	}
	if want := int64(maxOpenMessage * (len(pay) + msgCost)); b.Used() != want {
		t.Errorf("budget holds %d, want %d", b.Used(), want)
	}
	b2 := budget.New(1 << 20)
	d.acct.Close()
	d.Rewind()
	d.register(b2.Register("iwarp_ddp", d))
	for msn := uint32(1); msn <= 100; msn++ {
		b2.Tick(uint64(msn))
		seg(d, uint64(msn), 0, EncodeUntagged(nil, false, OpSend, 0, 0, msn, 0, pay))
		b2.Enforce()
		if b2.Used() > b2.Limit() {
			t.Fatalf("over budget: %d", b2.Used())
		}
	}
}

// TestReadRequestsBounded: Read Requests never answered (5000 sink STags)
// keep at most maxReads outstanding.
func TestReadRequestsBounded(t *testing.T) {
	d := New()
	for i := uint32(0); i < maxReads+904; i++ {
		rr := make([]byte, ReadReqLen)
		binary.BigEndian.PutUint32(rr, i) // sink STag
		binary.BigEndian.PutUint32(rr[12:], 8)
		seg(d, uint64(i+1), 0, EncodeUntagged(nil, true, OpReadRequest, 0, 1, i+1, 0, rr))
		if len(d.reads) > maxReads {
			t.Fatalf("%d Read Requests outstanding", len(d.reads))
		}
	}
}
