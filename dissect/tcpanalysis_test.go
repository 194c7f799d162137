package dissect_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// seg builds a raw IPv4 TCP segment (link type 228) between 192.0.2.1:4000
// (client, c=true) and 192.0.2.2:80.
func anSeg(client bool, seq, ack uint32, flags byte, win uint16, n int) []byte {
	sp, dp := uint16(4000), uint16(80)
	if !client {
		sp, dp = dp, sp
	}
	tcp := append(testpkt.TCP(nil, sp, dp, seq, ack, flags, win), make([]byte, n)...)
	p := ipv4(6, 0, 0, false, tcp)
	if !client {
		copy(p[12:], []byte{192, 0, 2, 2})
		copy(p[16:], []byte{192, 0, 2, 1})
	}
	return p
}

const (
	fSYN = 0x02
	fACK = 0x10
	fSA  = 0x12
	fPA  = 0x18
	fRA  = 0x14
)

// TestTCPAnalysis walks a connection through every tshark analysis flag
// rdx implements, with Wireshark's definitions: the handshake RTT (2 ms)
// sets the out-of-order threshold; three equal ACKs are two duplicates; a
// retransmission of the duplicate-ACKed sequence within 20 ms of the ACK is
// fast; of acknowledged data, spurious; a keep-alive's ACK is not a
// duplicate; a window update neither is one nor ends the run.
func TestTCPAnalysis(t *testing.T) {
	ms := int64(1e6)
	steps := []struct {
		at     int64 // ms
		client bool
		seq    uint32
		ack    uint32
		flags  byte
		win    uint16
		n      int
		want   uint16
		dup    uint32 // duplicate_ack_num
		dupOf  uint64 // duplicate_ack_frame
	}{
		{0, true, 1000, 0, fSYN, 500, 0, 0, 0, 0},                           // 1
		{1, false, 5000, 1001, fSA, 900, 0, 0, 0, 0},                        // 2
		{2, true, 1001, 5001, fACK, 500, 0, 0, 0, 0},                        // 3: RTT 2 ms
		{10, true, 1001, 5001, fPA, 500, 100, 0, 0, 0},                      // 4
		{11, true, 1201, 5001, fPA, 500, 100, dissect.TCPLostSegment, 0, 0}, // 5: 1101-1200 not captured
		{12, true, 1101, 5001, fPA, 500, 100, dissect.TCPOutOfOrder, 0, 0},  // 6: 1 ms after the highest: reordered
		{20, false, 5001, 1301, fACK, 900, 0, 0, 0, 0},                      // 7
		{30, true, 1301, 5001, fPA, 500, 100, 0, 0, 0},                      // 8
		{31, true, 1401, 5001, fPA, 500, 100, 0, 0, 0},                      // 9
		{32, false, 5001, 1401, fACK, 900, 0, 0, 0, 0},                      // 10: new ACK
		{33, false, 5001, 1401, fACK, 900, 0, dissect.TCPDuplicateAck, 1, 10},
		{34, false, 5001, 1401, fACK, 900, 0, dissect.TCPDuplicateAck, 2, 10},
		{40, true, 1401, 5001, fPA, 500, 100, dissect.TCPFastRetransmission | dissect.TCPRetransmission, 0, 0}, // 13
		{100, true, 1001, 5001, fPA, 500, 100, dissect.TCPSpuriousRetransmission | dissect.TCPRetransmission, 0, 0},
		{200, true, 1401, 5001, fPA, 500, 100, dissect.TCPRetransmission, 0, 0}, // 15: 166 ms after the dup ACK: plain
		{210, false, 5001, 1501, fACK, 900, 0, 0, 0, 0},                         // 16: new ACK
		{300, true, 1500, 5001, fACK, 500, 0, dissect.TCPKeepAlive, 0, 0},       // 17
		{301, false, 5001, 1501, fACK, 900, 0, 0, 0, 0},                         // 18: keep-alive ACK
		{302, true, 1501, 5001, fPA, 500, 100, 0, 0, 0},                         // 19
		{303, false, 5001, 1501, fACK, 900, 0, dissect.TCPDuplicateAck, 1, 16},  // 20: the run counts from 16
		{304, false, 5001, 1501, fACK, 901, 0, 0, 0, 0},                         // 21: window update
		{305, false, 5001, 1501, fACK, 901, 0, dissect.TCPDuplicateAck, 2, 16},  // 22: it did not end the run
		{306, true, 1701, 5001, fRA, 500, 0, 0, 0, 0},                           // 23: an RST past a hole is not "lost"
		// 1601-1700 was never captured: the first ACK of it acknowledges an
		// unseen segment, a second one (a duplicate) does not say so again
		{307, false, 5001, 1701, fACK, 901, 0, dissect.TCPAckLostSegment, 0, 0}, // 24
		{308, false, 5001, 1701, fACK, 901, 0, dissect.TCPDuplicateAck, 1, 24},  // 25
		{400, true, 9000, 0, fSYN, 500, 0, dissect.TCPReusedPorts, 0, 0},        // 26: another ISN on the same ports
		{401, false, 7000, 9001, fSA, 900, 0, 0, 0, 0},                          // 27: the new connection's, not a lost segment
	}
	eng := dissect.NewEngine(dissect.Options{})
	for i, s := range steps {
		p := anSeg(s.client, s.seq, s.ack, s.flags, s.win, s.n)
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: s.at * ms, LinkType: dissect.LinkTypeIPv4, Data: p})
		n := &f.Net
		if n.TCPAnalysis != s.want || n.DupAckNum != s.dup || n.DupAckFrame != s.dupOf {
			t.Errorf("frame %d: analysis %#x dup #%d of %d, want %#x #%d of %d", i+1, n.TCPAnalysis, n.DupAckNum, n.DupAckFrame, s.want, s.dup, s.dupOf)
		}
	}
	tab := eng.Stat("tcp,analysis")
	var got []string
	for _, r := range tab.Rows {
		got = append(got, r[0]+"="+r[1])
	}
	want := "tcp.analysis.reused_ports=1 tcp.analysis.fast_retransmission=1 tcp.analysis.spurious_retransmission=1 tcp.analysis.retransmission=3 " +
		"tcp.analysis.out_of_order=1 tcp.analysis.lost_segment=1 tcp.analysis.ack_lost_segment=1 tcp.analysis.duplicate_ack=5 tcp.analysis.keep_alive=1"
	if strings.Join(got, " ") != want {
		t.Errorf("stats %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestTCPAnalysisFindings: the flags are findings with tshark's expert
// messages and fields usable in -Y, -e and the tree.
func TestTCPAnalysisFindings(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	segs := [][]byte{
		anSeg(true, 1000, 0, fSYN, 500, 0),
		anSeg(true, 1001, 0, fPA, 500, 10),
		anSeg(true, 1001, 0, fPA, 500, 10),
		anSeg(false, 1, 1011, fACK, 9, 0),
		anSeg(false, 1, 1011, fACK, 9, 0),
	}
	var msgs []string
	var tree dissect.Tree
	var fields []string
	for i, p := range segs {
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1e9, LinkType: dissect.LinkTypeIPv4, Data: p})
		for _, fd := range f.Findings {
			msgs = append(msgs, fd.Msg+" ["+fd.Field.Abbrev+"]")
		}
		eng.BuildTree(&tree, f)
		for _, nd := range tree.Nodes {
			if nd.F != nil && strings.HasPrefix(nd.F.Abbrev, "tcp.analysis.") {
				fields = append(fields, nd.F.Abbrev)
			}
		}
	}
	want := "This frame is a (suspected) retransmission [tcp.analysis.retransmission]|Duplicate ACK (#1) [tcp.analysis.duplicate_ack]"
	if got := strings.Join(msgs, "|"); got != want {
		t.Errorf("findings %s\nwant %s", got, want)
	}
	// frames 2 and 3: data after the handshake's ACK (the iRTT, SYN to
	// frame 2, and the bytes in flight); 4: acknowledges frame 2 (3 repeats
	// it); 5: a duplicate ACK
	wantF := "tcp.analysis.initial_rtt tcp.analysis.bytes_in_flight " +
		"tcp.analysis.initial_rtt tcp.analysis.bytes_in_flight tcp.analysis.flags tcp.analysis.retransmission " +
		"tcp.analysis.acks_frame tcp.analysis.ack_rtt tcp.analysis.initial_rtt " +
		"tcp.analysis.initial_rtt tcp.analysis.duplicate_ack tcp.analysis.duplicate_ack_num tcp.analysis.duplicate_ack_frame tcp.analysis.flags tcp.analysis.duplicate_ack"
	if got := strings.Join(fields, " "); got != wantF {
		t.Errorf("tree fields %s\nwant %s", got, wantF)
	}
}

// TestTCPAnalysisNoAlloc: analysing and flagging a frame allocates nothing
// once the table has grown (the summary, check and stats paths).
func TestTCPAnalysisNoAlloc(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	data := anSeg(true, 1001, 1, fPA, 500, 10)
	ackA := anSeg(false, 1, 1011, fACK, 9, 0)
	ackB := anSeg(false, 1, 1012, fACK, 9, 0)
	n := uint64(0)
	run := func() {
		// a retransmission (after the first), then ACKs each followed by its duplicate
		for _, p := range [][]byte{data, ackA, ackA, ackB, ackB} {
			n++
			eng.Decode(dissect.Packet{Num: n, TimeNS: int64(n), LinkType: dissect.LinkTypeIPv4, Data: p})
		}
	}
	for range 10 {
		run()
	}
	if a := testing.AllocsPerRun(200, run); a != 0 {
		t.Errorf("%.1f allocations per 5 flagged frames", a)
	}
}

// TestTCPAnalysisBounded: a flood of one-segment connections keeps the
// direction table at its limit, charged to the budget, with a finding
// when a direction is forgotten; with a small --max-mem the budget drops
// directions oldest first and stays under its limit.
func TestTCPAnalysisBounded(t *testing.T) {
	const limit = 1 << 20
	eng := dissect.NewEngine(dissect.Options{MaxMem: limit})
	p := anSeg(true, 1000, 0, fSYN, 500, 0)
	dropped := 0
	for i := range 20000 {
		// a new client port each time, above the test dissectors' ports
		binary.BigEndian.PutUint16(p[20:], uint16(1024+i))
		binary.BigEndian.PutUint16(p[16:], uint16((1024+i)>>16))
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: p})
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "memory budget") && strings.Contains(fd.Msg, "TCP analysis state of 192.0.2.1:") {
				dropped++
			}
		}
		if u := eng.Budget().Used(); u > limit {
			t.Fatalf("frame %d: budget holds %d > %d", i+1, u, limit)
		}
	}
	if dropped == 0 {
		t.Error("no budget finding named a dropped TCP direction")
	}
	if eng.Budget().Used() == 0 {
		t.Error("the table charged nothing")
	}
	_ = budget.DefaultLimit
}

// TestTCPAnalysisTableLimit: past maxTCPHalves directions the least
// recently active one is forgotten, with a finding, and the stats say how
// many were.
func TestTCPAnalysisTableLimit(t *testing.T) {
	// a budget the 65,536 directions fit in: this is the count limit's test
	// (the default, 32 MiB, evicts by budget first, which the test above covers)
	eng := dissect.NewEngine(dissect.Options{MaxMem: 256 << 20})
	p := anSeg(true, 1000, 0, fSYN, 500, 0)
	full := 0
	for i := range 1<<16 + 10 {
		binary.BigEndian.PutUint16(p[20:], uint16(i))
		binary.BigEndian.PutUint16(p[16:], uint16(i>>16))
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: p})
		for _, fd := range f.Findings {
			if strings.HasPrefix(fd.Msg, "TCP analysis table full (65536 directions)") {
				full++
			}
		}
	}
	if full != 10 {
		t.Errorf("%d table-full findings, want 10", full)
	}
	rows := eng.Stat("tcp,analysis").Rows
	if last := rows[len(rows)-1]; last[1] != "10" {
		t.Errorf("last stats row %q", last)
	}
}

// TestStreamLimitFinding: one-octet segments after a hole count their
// overhead, so the per-stream limit is reached after about 4 MiB /
// tcp.SegmentOverhead of them, and the frame that reaches it gets a
// finding saying a limit made rdx skip the hole (not that it was lost).
func TestStreamLimitFinding(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	syn := tcpSeg(1000, 0x02, nil)
	eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: syn})
	first := 0
	for i := range 40000 {
		p := tcpSeg(1001+2+uint32(2*i), 0x18, []byte{'x'}) // octets 1001, 1002 never come
		f := eng.Decode(dissect.Packet{Num: uint64(i + 2), TimeNS: int64(i + 1), LinkType: dissect.LinkTypeIPv4, Data: p})
		for _, fd := range f.Findings {
			if strings.HasPrefix(fd.Msg, "TCP stream gap: 2 bytes skipped, reassembly limit reached") && strings.HasSuffix(fd.Msg, "stream-limit)") {
				first = i
			}
		}
		if first > 0 {
			break
		}
	}
	if want := (4 << 20) / (1 + tcp.SegmentOverhead); first < want-2 || first > want+2 {
		t.Errorf("limit finding at segment %d, want about %d", first, want)
	}
}
