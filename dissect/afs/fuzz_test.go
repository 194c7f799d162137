package afs

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/enginecheck"
)

var allServices = []*service{svcFS, svcCB, svcPT, svcVL, svcKA, svcVol, svcError, svcBOS, svcUp,
	svcRmtsys, svcBackup, svcButc, svcVote, svcDisk}

// fuzzFrame is reused, as the engine reuses its Frame (a new one per input
// would also grow the state map).
var (
	fuzzFrame dissect.Frame
	fuzzData  []byte
)

// exercise runs one PDU through check, Summary, Tree and every node's
// display, as the output paths do.
func exercise(t *testing.T, p *PDU, f *dissect.Frame) {
	buf := p.Summary(nil)
	var tr dissect.Tree
	p.Tree(&tr, f)
	for i := range tr.Nodes {
		buf = dissect.AppendField(buf[:0], &tr.Nodes[i])
		buf = dissect.AppendDisplay(buf[:0], &tr.Nodes[i])
		n := &tr.Nodes[i]
		if n.Off >= 0 && p.Call.DataOff >= 0 && int(n.Off)+int(n.Len) > p.Call.DataOff+len(p.Call.Data) {
			t.Fatalf("node %v runs past the call data", n.F)
		}
	}
}

// decoderList is every (service, opcode) that has decoders, in a fixed order.
func decoderList() []struct {
	svc *service
	op  uint32
} {
	var out []struct {
		svc *service
		op  uint32
	}
	for _, svc := range allServices {
		ops := make([]uint32, 0, len(svc.ops))
		for op := range svc.ops {
			ops = append(ops, op)
		}
		slices.Sort(ops)
		for _, op := range ops {
			out = append(out, struct {
				svc *service
				op  uint32
			}{svc, op})
		}
	}
	return out
}

// FuzzAFS runs dissectCall's service choice on arbitrary ids, ports and
// opcodes, and one service decoder (chosen by pick, so every decoder of
// every service gets its turn) on the same bytes, then Summary and Tree;
// nothing may panic. One decoder per input keeps executions fast, which
// the fuzzer's minimisation of new inputs needs.
func FuzzAFS(f *testing.F) {
	decoders := decoderList()
	for _, tc := range cases {
		f.Add(fixture(f, tc.data), tc.call.ServiceID, tc.call.ServerPort, tc.call.Opcode, tc.call.Reply, uint8(0), uint16(0))
	}
	// A seed for every decoder in both directions.
	for i := range decoders {
		f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3}, uint16(1), uint16(7000), uint32(0), i%2 == 1, uint8(0), uint16(i))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1}, uint16(1), uint16(7000), uint32(130), true, uint8(1), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, sid, port uint16, opcode uint32, reply bool, flags uint8, pick uint16) {
		fr := &fuzzFrame
		fr.Num++
		fr.PDUs, fr.Findings = fr.PDUs[:0], fr.Findings[:0]
		base := rx.Call{Frame: fr, ServiceID: sid, ServerPort: port, ClientPort: 40000, Reply: reply,
			Opcode: opcode, HasOpcode: flags&4 == 0, Data: data, DataLen: len(data) + int(flags>>4),
			Truncated: flags&1 != 0, Abort: flags&2 != 0, AbortCode: opcode, SecIdx: flags & 8 >> 2,
			DataOff: 42, ReqFrame: 3, RespTime: int64(opcode), HasRespTime: reply}
		// The frame holds the call data at DataOff, so enginecheck can
		// check every offset, finding and PDU tree against it.
		frameOf := func(c *rx.Call) {
			fuzzData = append(append(fuzzData[:0], make([]byte, c.DataOff)...), c.Data...)
			fr.Data = fuzzData
		}
		// The whole path: service choice, pool, findings.
		c := base
		frameOf(&c)
		dissectCall(&c)
		for _, pdu := range fr.PDUs {
			exercise(t, pdu.(*PDU), fr)
		}
		enginecheck.PDUs(t, fr)
		// One decoder, directly (a request's data starts with its opcode).
		d := decoders[int(pick)%len(decoders)]
		c = base
		c.Opcode, c.HasOpcode, c.Abort = d.op, true, false
		if !reply {
			c.Data = binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(data)), d.op)
			c.Data = append(c.Data, data...)
		}
		fr.PDUs, fr.Findings = fr.PDUs[:0], fr.Findings[:0]
		frameOf(&c)
		p := &PDU{Call: c, svc: d.svc}
		p.idx = fr.AddPDU(p)
		p.check()
		exercise(t, p, fr)
		enginecheck.PDUs(t, fr)
	})
}
