package rds_test

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rds"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/internal/tsharktest"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

const ibCapture = "../../pcaps/kernel/rds_rdma_roce.pcap"

// ibDecode runs a capture through an engine and returns one line per PDU
// above InfiniBand ("frame: proto{summary}"), the findings of rds and
// rpcordma, and the check tallies.
func ibDecode(t *testing.T, path string) (pdus, findings []string, checks map[string][2]int) {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	checks = map[string][2]int{}
	err := testpkt.Each(path, func(p dissect.Packet) error {
		n := p.Num
		f := eng.Decode(p)
		for _, pd := range f.PDUs {
			if a := pd.Proto().Abbrev; a != "infiniband" {
				pdus = append(pdus, strconv.FormatUint(n, 10)+": "+a+"{"+string(pd.Summary(nil))+"}")
			}
		}
		for _, fd := range f.Findings {
			if fd.Proto == "rds" || fd.Proto == "rpcordma" || fd.Sev == dissect.Error {
				findings = append(findings, strconv.FormatUint(n, 10)+": "+fd.Proto+": "+fd.Sev.String()+": "+fd.Msg)
			}
		}
		tsharktest.TallyChecks(checks, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pdus, findings, checks
}

// TestIBCapture checks the RDS/IB decode of the real capture: the messages
// the sender sent (congestion maps, ping/pong, 1..100000-octet datagrams
// echoed back), every fragment rule holding, and RPC-over-RDMA's heuristic
// claiming none of the RDS SENDs.
func TestIBCapture(t *testing.T) {
	pdus, findings, checks := ibDecode(t, ibCapture)
	var msgs []string
	for _, p := range pdus {
		if strings.Contains(p, "rds{") && !strings.Contains(p, "[RDS fragment") {
			msgs = append(msgs, p)
		}
		if strings.Contains(p, "rpcordma") {
			t.Errorf("RPC-over-RDMA claims an RDS SEND: %s", p)
		}
	}
	want := []string{
		"17: rds{CONG_MAP seq=0 len=8192 congested=0 [2 fragments]}",
		"59: rds{DATA 4001→4000 seq=5 ack=4 len=5000 [2 fragments]}",
		"143: rds{DATA 4001→4000 seq=6 ack=5 len=60000 [15 fragments]}",
		"537: rds{DATA 4000→4001 seq=7 ack=7 len=100000 [25 fragments]}",
		"542: rds{PONG 0→4001 seq=8 ack=8 len=0}",
	}
	for _, w := range want {
		if !slicesContains(msgs, w) {
			t.Errorf("missing %s", w)
		}
	}
	if len(msgs) != 21 {
		t.Errorf("%d messages, want 21:\n%s", len(msgs), strings.Join(msgs, "\n"))
	}
	if len(findings) != 0 {
		t.Errorf("findings:\n%s", strings.Join(findings, "\n"))
	}
	if c := checks["rds.ib.fragment_header"]; c[0] != 80 || c[1] != 0 {
		t.Errorf("rds.ib.fragment_header %v, want 80 passed", c)
	}
	if c := checks["rds.csum"]; c[1] != 0 || c[0] != 101 {
		t.Errorf("rds.csum %v, want 101 passed", c)
	}
	if c := checks["rds.cm.version"]; c[1] != 0 || c[0] != 2 {
		t.Errorf("rds.cm.version %v, want 2 passed (REQ, REP)", c)
	}
	for _, w := range []string{
		"5: ibcm{CM ConnectRequest comm 0xf3cdb977 QPN 0x000021 PSN 0x697b4c RDMA CM TCP port 18634 192.0.2.2:59067→192.0.2.1 RDS 3.1 credit=0}",
		"6: ibcm{CM ConnectReply comm 0xb13af33e QPN 0x000021 PSN 0x0bec47 RDS 3.1 credit=0}",
		"7: ibcm{CM ReadyToUse comm 0xf3cdb977}",
	} {
		if !slicesContains(pdus, w) {
			t.Errorf("missing %s", w)
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestIBNotRPCoRDMA feeds every SEND message of the capture, assembled
// without any upper layer, to both heuristics: each is RDS, none is
// RPC-over-RDMA.
func TestIBNotRPCoRDMA(t *testing.T) {
	r, err := capture.Open(ibCapture)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a := ibasm.New()
	var p capture.Packet
	sends := 0
	for n := uint64(1); ; n++ {
		if err := r.Next(&p); err != nil {
			break
		}
		d := p.Data
		if len(d) < 58 || d[12] != 8 || d[13] != 0 || d[23] != 17 || binary.BigEndian.Uint16(d[36:]) != 4791 {
			continue
		}
		b := d[42:]
		q := &ibasm.Packet{Src: netip.AddrFrom4([4]byte(d[26:30])), Dst: netip.AddrFrom4([4]byte(d[30:34])),
			Opcode: b[0], DestQP: uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7]), PSN: uint32(b[9])<<16 | uint32(b[10])<<8 | uint32(b[11]),
			Frame: n}
		if b[0]>>5 != 0 { // RC only (QP1 MADs are UD)
			continue
		}
		q.Payload = b[12 : len(b)-4-int(b[1]>>4&3)]
		m, ev := a.Add(q)
		if ev != ibasm.Complete || m.Kind != ibasm.KindSend {
			continue
		}
		sends++
		if rpcrdma.Heuristic(m.Data) {
			t.Errorf("frame %d: rpcrdma.Heuristic claims an RDS SEND", n)
		}
		if !rds.IBHeuristic(m.Data) {
			t.Errorf("frame %d: not RDS", n)
		}
	}
	if sends != 101 {
		t.Errorf("%d SENDs, want 101", sends)
	}
}

// TestIBSummaryAllocs: decoding the capture a second time (pools warm) and
// formatting every PDU's summary allocates nothing.
func TestIBSummaryAllocs(t *testing.T) {
	pkts := testpkt.ReadAll(t, ibCapture)
	eng := dissect.NewEngine(dissect.Options{})
	buf := make([]byte, 0, 512)
	pass := func() {
		for i := range pkts {
			p := &pkts[i]
			f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: p.TimeNS, CapLen: p.CapLen, WireLen: p.WireLen, LinkType: p.LinkType, Iface: p.Iface, Data: p.Data})
			for _, pd := range f.PDUs {
				buf = pd.Summary(buf[:0])
			}
		}
		eng.Rewind()
	}
	pass()
	if n := testing.AllocsPerRun(3, pass); n != 0 {
		t.Errorf("%v allocations per pass over %d frames", n, len(pkts))
	}
}

// TestIBAcks: over RDS/IB each h_ack that moves on acknowledges the other
// direction's message of that sequence number (Linux rds_rdma piggy-backs
// the last one received): rds.ack.frame names its frame and
// rds.ack.latency the time since, as over TCP. Counted here from the
// complete messages and the frames' times.
func TestIBAcks(t *testing.T) {
	type at struct {
		frame uint64
		ns    int64
	}
	sentBy := map[string]map[uint64]at{} // "src>dst" -> seq -> message
	lastAck := map[string]uint64{}
	want := map[uint64][2]string{} // frame -> ack.frame, ack.latency
	eng := dissect.NewEngine(dissect.Options{})
	err := testpkt.Each(ibCapture, func(p dissect.Packet) error {
		f := eng.Decode(p)
		for _, pd := range f.PDUs {
			m, ok := pd.(*rds.IBMsg)
			if !ok || !m.Final() {
				continue
			}
			h := m.Header()
			dir, back := f.Net.Src.String()+">"+f.Net.Dst.String(), f.Net.Dst.String()+">"+f.Net.Src.String()
			if h.Seq() != 0 && !h.IsCong() {
				if sentBy[dir] == nil {
					sentBy[dir] = map[uint64]at{}
				}
				sentBy[dir][h.Seq()] = at{p.Num, p.TimeNS}
			}
			if a := h.Ack(); a > lastAck[dir] {
				lastAck[dir] = a
				if s, ok := sentBy[back][a]; ok {
					want[p.Num] = [2]string{strconv.FormatUint(s.frame, 10), fmt.Sprintf("%d.%09d", (p.TimeNS-s.ns)/1e9, (p.TimeNS-s.ns)%1e9)}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tsharktest.Decode(ibCapture, dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for frame, fs := range got {
		fr, lat := fs["rds.ack.frame"], fs["rds.ack.latency"]
		w, ok := want[frame]
		switch {
		case !ok && len(fr) == 0:
		case !ok || len(fr) != 1 || len(lat) != 1 || fr[0] != w[0] || lat[0] != w[1]:
			t.Errorf("frame %d: rds.ack.frame %q latency %q, want %v", frame, fr, lat, w)
		default:
			n++
		}
	}
	if n != len(want) || n != 16 { // every ack that moves on in the capture: frames 22, 38, 42 ... 544
		t.Errorf("%d acks matched of %d counted", n, len(want))
	}
}
