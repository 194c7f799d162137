package rx_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/enginecheck"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/render"
)

// udp4 wraps payload in IPv4+UDP (link type 228, raw IPv4) from
// 192.0.2.1:sport to 192.0.2.2:dport; checksums are left zero (UDP allows it).
func udp4(sport, dport uint16, payload []byte) []byte {
	if sport < dport { // the server (low port) answers: addresses swap too
		return testpkt.UDP4(nil, testpkt.Server, testpkt.Client, sport, dport, payload)
	}
	return testpkt.UDP4(nil, testpkt.Client, testpkt.Server, sport, dport, payload)
}

type pkt struct {
	h    rx.HeaderFields
	body []byte
	back bool // server to client
}

// run decodes the packets in order and returns each frame's summary line
// (info part), its findings, and its -T fields values of the given field.
func run(t *testing.T, pkts []pkt, field string) (infos []string, findings [][]string, vals []string) {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	var tree dissect.Tree
	for i, p := range pkts {
		payload := p.h.Encode(nil)
		payload = append(payload, p.body...)
		data := udp4(40000, 7000, payload)
		if p.back {
			data = udp4(7000, 40000, payload)
		}
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1e6, LinkType: dissect.LinkTypeIPv4, Data: data})
		line := string(render.Summary(nil, f, 0, nil))
		_, info, _ := strings.Cut(line, "RX ")
		info = strings.TrimSpace(info)
		_, info, _ = strings.Cut(info, " ") // the length column
		infos = append(infos, strings.TrimSpace(info))
		var fs []string
		for _, fd := range f.Findings {
			fs = append(fs, fd.Sev.String()+": "+fd.Msg)
		}
		findings = append(findings, fs)
		if field != "" {
			eng.BuildTree(&tree, f)
			var v []string
			for k := range tree.Nodes {
				if n := &tree.Nodes[k]; n.F != nil && n.F.Abbrev == field {
					v = append(v, string(dissect.AppendField(nil, n)))
				}
			}
			vals = append(vals, strings.Join(v, ","))
		}
	}
	return
}

func hdr(call, seq, serial uint32, typ, flags uint8) rx.HeaderFields {
	return rx.HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0c04, CallNumber: call, Seq: seq, Serial: serial,
		Type: typ, Flags: flags, ServiceID: 1}
}

// A jumbogram of three sub-packets: 1412 octets, jumbo header, 1412 octets,
// jumbo header, then the last (shorter) one. Each sub-packet has its own seq
// and serial (full header's + k) and takes its flags from the jumbo header
// before it. tshark 4.0 and tcpdump 4.99 show this datagram as ONE DATA packet
// with seq 5 whose payload is 2828+... octets (anchors.md §3.2): rx.seq has a
// single value there, three here.
func TestJumbogramSplit(t *testing.T) {
	body := make([]byte, 0, 3*1416)
	body = append(body, make([]byte, 1412)...)
	body = append(body, rx.FlagJumbo|rx.FlagMorePackets|rx.FlagClientInitiated, 0, 0xab, 0xcd) // flags of sub-packet 2
	body = append(body, make([]byte, 1412)...)
	body = append(body, rx.FlagLastPacket|rx.FlagClientInitiated, 0, 0, 0) // flags of sub-packet 3
	body = append(body, []byte("tail")...)
	p := pkt{h: hdr(1, 5, 9, rx.TypeData, rx.FlagJumbo|rx.FlagClientInitiated), body: body}
	for field, want := range map[string]string{
		"rx.seq":         "5,6,7",
		"rx.serial":      "9,10,11",
		"rx.flags":       "0x21,0x29,0x05",
		"rx.data_len":    "1412,1412,4",
		"rx.jumbo.count": "3,3,3",
		"rx.jumbo.cksum": "43981,0",
	} {
		_, fs, vals := run(t, []pkt{p}, field)
		if vals[0] != want {
			t.Errorf("%s = %q, want %q", field, vals[0], want)
		}
		if len(fs[0]) != 1 || !strings.Contains(fs[0][0], "sequence gap") {
			// seq 5 without 1-4 is a gap; nothing else may be reported
			t.Errorf("findings %q", fs[0])
		}
	}
	infos, _, _ := run(t, []pkt{p}, "")
	if !strings.HasPrefix(infos[0], "DATA jumbogram 3 packets call 1 seq 5-7 ser 9-11") {
		t.Errorf("summary %q", infos[0])
	}
}

func TestJumbogramMalformed(t *testing.T) {
	// JUMBO set on a datagram too short to hold a second sub-packet.
	_, fs, _ := run(t, []pkt{{h: hdr(1, 1, 1, rx.TypeData, rx.FlagJumbo|rx.FlagClientInitiated), body: make([]byte, 100)}}, "")
	if !hasFinding(fs[0], "error: JUMBO flag set but only 100 data octets") {
		t.Errorf("findings %q", fs[0])
	}
	// A middle sub-packet whose jumbo header lacks JUMBO while data follows.
	body := append(make([]byte, 1412), rx.FlagClientInitiated, 0, 0, 0)
	body = append(body, make([]byte, 1412+4+10)...)
	_, fs, _ = run(t, []pkt{{h: hdr(1, 1, 1, rx.TypeData, rx.FlagJumbo|rx.FlagClientInitiated), body: body}}, "")
	if !hasFinding(fs[0], "error: jumbogram sub-packet 1 lacks the JUMBO flag") {
		t.Errorf("findings %q", fs[0])
	}
}

func hasFinding(fs []string, prefix string) bool {
	for _, f := range fs {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

func ackBody(first, serial uint32, reason uint8, acks []byte, trailer ...uint32) []byte {
	b := make([]byte, 18)
	binary.BigEndian.PutUint32(b[4:], first)
	binary.BigEndian.PutUint32(b[12:], serial)
	b[16], b[17] = reason, uint8(len(acks))
	b = append(b, acks...)
	b = append(b, 0, 0, 0)
	for _, w := range trailer {
		b = binary.BigEndian.AppendUint32(b, w)
	}
	return b
}

func TestAck(t *testing.T) {
	pkts := []pkt{
		{h: hdr(3, 1, 7, rx.TypeData, rx.FlagClientInitiated)},
		{h: hdr(3, 0, 4, rx.TypeAck, rx.FlagSlowStartOK), back: true,
			body: ackBody(5, 7, 3, []byte{1, 1, 1, 0, 1}, 5692, 1444, 32, 4)},
	}
	infos, fs, _ := run(t, pkts, "")
	want := "ACK OUT_OF_SEQUENCE call 3 first 5 serial 7 acked 5-7,9 nacked 8 rtt 0.001000000 <SLOW-START>"
	if infos[1] != want {
		t.Errorf("summary\n got %q\nwant %q", infos[1], want)
	}
	if len(fs[1]) != 0 {
		t.Errorf("findings %q", fs[1])
	}
	// The trailer's first word is the largest packet the sender accepts
	// (OpenAFS rxi_SendAck writes rx_maxReceiveSize first, then the
	// interface MTU; Linux rxrpc_ackinfo calls them rxMTU and maxMTU). tcpdump
	// prints them the other way round.
	for field, want := range map[string]string{"rx.max_mtu": "5692", "rx.if_mtu": "1444", "rx.rwind": "32",
		"rx.max_packets": "4", "rx.ack_type": "1,1,1,0,1", "rx.ack.seq": "5,6,7,8,9", "rx.ack.nacked": "8",
		"rx.ack.rtt": "0.001000000", "rx.ack.serial_frame": "1"} {
		_, _, vals := run(t, pkts, field)
		if vals[1] != want {
			t.Errorf("%s = %q, want %q", field, vals[1], want)
		}
	}
	// Trailer words appear one by one: two words -> only the MTUs.
	_, _, vals := run(t, []pkt{{h: hdr(3, 0, 4, rx.TypeAck, 0), body: ackBody(1, 0, 8, nil, 5692, 1444)}}, "rx.rwind")
	if vals[0] != "" {
		t.Errorf("rwind present with a 2-word trailer: %q", vals[0])
	}
}

func TestFindings(t *testing.T) {
	cases := []struct {
		name string
		pkts []pkt
		want string // expected finding prefix on the last packet
	}{
		{"truncated header", nil, "error: truncated Rx header: 10 of 28 octets"},
		{"unknown type", []pkt{{h: hdr(1, 1, 1, 42, 1)}}, "warning: unknown packet type 42"},
		{"data seq 0", []pkt{{h: hdr(1, 0, 1, rx.TypeData, 1)}}, "error: DATA packet with sequence number 0"},
		{"data call 0", []pkt{{h: hdr(0, 1, 1, rx.TypeData, 1)}}, "warning: DATA packet with call number 0"},
		{"ack count beyond packet", []pkt{{h: hdr(1, 0, 1, rx.TypeAck, 1), body: ackBody(1, 0, 1, []byte{1, 1})[:19]}},
			"error: ack count 2 runs beyond the packet"},
		{"ack truncated", []pkt{{h: hdr(1, 0, 1, rx.TypeAck, 1), body: make([]byte, 10)}}, "error: truncated ACK body"},
		{"abort length", []pkt{{h: hdr(1, 0, 1, rx.TypeAbort, 1), body: []byte{0, 0}}}, "warning: ABORT payload is 2 octets"},
		{"abort code", []pkt{{h: hdr(1, 0, 1, rx.TypeAbort, 0), body: []byte{0xff, 0xff, 0xfe, 0x39}, back: true}},
			"note: call aborted with code -455 (RXGEN_OPCODE)"},
		{"retransmission", []pkt{{h: hdr(1, 1, 1, rx.TypeData, 1)}, {h: hdr(1, 1, 2, rx.TypeData, 1)}},
			"note: retransmission of seq 1 (first sent in frame 1), new serial 2"},
		{"gap", []pkt{{h: hdr(1, 1, 1, rx.TypeData, 1)}, {h: hdr(1, 4, 2, rx.TypeData, 1)}},
			"warning: sequence gap: seq 2-3 not seen (yet)"},
		{"after last", []pkt{{h: hdr(1, 1, 1, rx.TypeData, 1|rx.FlagLastPacket)}, {h: hdr(1, 2, 2, rx.TypeData, 1)}},
			"error: seq 2 after the last packet (seq 1)"},
		{"reply without request", []pkt{{h: hdr(9, 1, 1, rx.TypeData, rx.FlagLastPacket), back: true}},
			"note: reply without request"},
		{"busy with payload", []pkt{{h: hdr(1, 0, 1, rx.TypeBusy, 0), body: []byte{1}, back: true}},
			"note: BUSY packet carries 1 octets"},
		{"service change", []pkt{{h: hdr(1, 1, 1, rx.TypeData, 5)}, {h: func() rx.HeaderFields { h := hdr(2, 1, 2, rx.TypeData, 5); h.ServiceID = 52; return h }()}},
			"note: service ID changed from 1 to 52"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var fs [][]string
			if c.pkts == nil {
				eng := dissect.NewEngine(dissect.Options{})
				data := udp4(40000, 7000, make([]byte, 10))
				f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: data})
				var l []string
				for _, fd := range f.Findings {
					l = append(l, fd.Sev.String()+": "+fd.Msg)
				}
				fs = [][]string{l}
			} else {
				_, fs, _ = run(t, c.pkts, "")
			}
			if last := fs[len(fs)-1]; !hasFinding(last, c.want) {
				t.Errorf("want %q, got %q", c.want, last)
			}
		})
	}
}

// A call of three DATA packets arriving 1, 3, 2 is reassembled and handed to
// the service on the frame that completes it (frame 3), naming all frames.
func TestCallReassembly(t *testing.T) {
	var got []rx.Call
	observe(t, func(c *rx.Call) {
		if c.Epoch == 0x01020304 {
			cp := *c
			cp.Data = append([]byte(nil), c.Data...)
			cp.Frames = append([]uint64(nil), c.Frames...)
			got = append(got, cp)
		}
	})
	h := func(seq, serial uint32, flags uint8) rx.HeaderFields {
		x := hdr(7, seq, serial, rx.TypeData, flags|rx.FlagClientInitiated)
		x.Epoch = 0x01020304
		return x
	}
	r := hdr(7, 1, 1, rx.TypeData, rx.FlagLastPacket)
	r.Epoch = 0x01020304
	run(t, []pkt{
		{h: h(1, 1, 0), body: []byte{0, 0, 0, 132, 'a'}},
		{h: h(3, 2, rx.FlagLastPacket), body: []byte("c")},
		{h: h(2, 3, 0), body: []byte("b")},
		{h: r, back: true, body: []byte{0, 0, 0, 0}},
	}, "")
	if len(got) != 2 {
		t.Fatalf("service called %d times, want 2 (request, reply)", len(got))
	}
	req, rep := got[0], got[1]
	if string(req.Data[4:]) != "abc" || req.Opcode != 132 || !req.HasOpcode || req.Reply {
		t.Errorf("request data %q opcode %d", req.Data, req.Opcode)
	}
	if len(req.Frames) != 3 || req.Frames[0] != 1 || req.Frames[1] != 2 || req.Frames[2] != 3 || req.ReqFrame != 3 {
		t.Errorf("request frames %v reqframe %d", req.Frames, req.ReqFrame)
	}
	if !rep.Reply || rep.ReqFrame != 3 || rep.RepFrame != 4 || rep.RespTime != 1e6 || rep.Opcode != 132 {
		t.Errorf("reply %+v", rep)
	}
}

func FuzzRx(f *testing.F) {
	h := hdr(1, 1, 1, rx.TypeData, rx.FlagJumbo|1)
	f.Add(append(h.Encode(nil), make([]byte, 3000)...))
	a := hdr(1, 0, 1, rx.TypeAck, 0)
	f.Add(append(a.Encode(nil), ackBody(1, 1, 1, []byte{1, 0, 1}, 1, 2, 3, 4)...))
	for _, typ := range []uint8{rx.TypeAbort, rx.TypeChallenge, rx.TypeResponse, rx.TypeDebug, rx.TypeVersion, rx.TypeBusy} {
		x := hdr(0, 0, 1, typ, 0)
		f.Add(append(x.Encode(nil), make([]byte, 70)...))
	}
	p := enginecheck.NewPair(dissect.Options{})
	var n uint64
	var buf []byte
	f.Fuzz(func(t *testing.T, payload []byte) {
		if h := rx.Header(payload); h.Valid() {
			hf := rx.HeaderFields{Epoch: h.Epoch(), CID: h.CID(), CallNumber: h.CallNumber(), Seq: h.Seq(), Serial: h.Serial(),
				Type: h.Type(), Flags: h.Flags(), UserStatus: h.UserStatus(), SecIdx: h.SecurityIndex(), Spare: h.Spare(), ServiceID: h.ServiceID()}
			if enc := hf.Encode(nil); string(enc) != string(payload[:rx.HeaderLen]) {
				t.Fatalf("header % x encodes back to % x", payload[:rx.HeaderLen], enc)
			}
		}
		for _, dir := range []bool{false, true} {
			n++
			data := udp4(40000, 7000, payload)
			if dir {
				data = udp4(7000, 40000, payload)
			}
			fr := p.Decode(t, n, 228, data)
			if len(payload) >= rx.HeaderLen && fr.Proto != "rx" && fr.Proto != "afs" {
				t.Fatalf("%d octets to port 7000 decoded as %q, not Rx", len(payload), fr.Proto)
			}
			buf = render.JSON(buf[:0], p.Tree(), 0, false)
		}
	})
}

// BenchmarkDecodeRx: the decode path (link, IP, UDP, Rx, call tracking, AFS
// hand-off) on 8-packet calls; the frame is built once and its header
// rewritten in place, so allocations reported are the decoder's own.
func BenchmarkDecodeRx(b *testing.B) {
	h := hdr(1, 1, 1, rx.TypeData, rx.FlagClientInitiated)
	data := udp4(40000, 7000, append(h.Encode(nil), make([]byte, 64)...))
	binary.BigEndian.PutUint32(data[28+28:], 130) // each call an FS FetchData request
	eng := dissect.NewEngine(dissect.Options{})
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		h.CallNumber = uint32(i/8 + 1)
		h.Seq = uint32(i%8 + 1)
		h.Serial = uint32(i + 1)
		h.Flags = rx.FlagClientInitiated
		if i%8 == 7 {
			h.Flags |= rx.FlagLastPacket
		}
		h.Encode(data[28:28])
		eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: data})
	}
}

// BenchmarkSummaryRx adds the summary line, as `rdx read` prints it.
func BenchmarkSummaryRx(b *testing.B) {
	h := hdr(1, 1, 1, rx.TypeData, rx.FlagClientInitiated)
	data := udp4(40000, 7000, append(h.Encode(nil), make([]byte, 64)...))
	binary.BigEndian.PutUint32(data[28+28:], 130)
	eng := dissect.NewEngine(dissect.Options{})
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.CallNumber, h.Seq, h.Serial = uint32(i/8+1), uint32(i%8+1), uint32(i+1)
		h.Flags = rx.FlagClientInitiated
		if i%8 == 7 {
			h.Flags |= rx.FlagLastPacket
		}
		h.Encode(data[28:28])
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: data})
		buf = render.Summary(buf[:0], f, 0, nil)
	}
}

// fuzzType feeds arbitrary bodies behind a fixed header of type typ with
// flags, both directions, through the engine, summary and tree.
func fuzzType(f *testing.F, typ, flags uint8, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	p := enginecheck.NewPair(dissect.Options{})
	var n uint64
	f.Fuzz(func(t *testing.T, body []byte) {
		h := hdr(1, 1, 1, typ, flags)
		for _, back := range []bool{false, true} {
			n++
			payload := append(h.Encode(nil), body...)
			data := udp4(40000, 7000, payload)
			if back {
				data = udp4(7000, 40000, payload)
			}
			if fr := p.Decode(t, n, 228, data); len(fr.PDUs) == 0 || fr.PDUs[0].Proto().Abbrev != "rx" {
				t.Fatalf("an Rx header of type %d decoded as %q", typ, fr.Proto)
			}
		}
	})
}

func FuzzAck(f *testing.F) {
	fuzzType(f, rx.TypeAck, rx.FlagSlowStartOK, ackBody(1, 1, 1, []byte{1, 0, 1}, 1444, 1444, 32, 4), ackBody(5, 0, 9, nil))
}

func FuzzJumbo(f *testing.F) {
	two := append(make([]byte, 1412), rx.FlagJumbo, 0, 0, 0)
	two = append(two, make([]byte, 100)...)
	fuzzType(f, rx.TypeData, rx.FlagJumbo|rx.FlagClientInitiated, two, make([]byte, 3000))
}

// A truncated Rx header's protocol node covers the octets there are, not
// 28: it ran past the end of the frame (found by FuzzEngine).
func TestTruncatedHeaderTree(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	data := udp4(40000, 7000, []byte{1, 2, 3, 4})
	fr := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: data})
	var tree dissect.Tree
	eng.BuildTree(&tree, fr)
	enginecheck.Tree(t, fr, &tree)
	for _, n := range tree.Nodes {
		if n.F != nil && n.F.Abbrev == "rx" && (n.Off != 28 || n.Len != 4) {
			t.Errorf("rx node at %d length %d, want 28, 4", n.Off, n.Len)
		}
	}
}

// Linux AF_RXRPC and OpenAFS send a VERSION packet of one zero octet,
// without the client-initiated flag, as a keepalive: not a short reply.
func TestVersionKeepalive(t *testing.T) {
	ka := hdr(0, 0, 0, rx.TypeVersion, rx.FlagLastPacket)
	infos, fs, _ := run(t, []pkt{{h: ka, body: []byte{0}}, {h: ka, body: []byte("x\x00")}}, "")
	if infos[0] != "VERSION keepalive" || len(fs[0]) != 0 {
		t.Errorf("keepalive: %q %q", infos[0], fs[0])
	}
	if !hasFinding(fs[1], "note: VERSION reply of 2 octets") {
		t.Errorf("short VERSION reply: %q", fs[1])
	}
}

// decodeAll decodes Rx payloads (client to server) one frame each with the
// given budget and checks after every frame that the budget holds.
func decodeAll(t *testing.T, maxMem int64, payloads [][]byte) (eng *dissect.Engine, findings []string) {
	t.Helper()
	eng = dissect.NewEngine(dissect.Options{MaxMem: maxMem})
	for i, pl := range payloads {
		data := udp4(40000, 7000, pl)
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: data})
		for _, fd := range f.Findings {
			findings = append(findings, fd.Msg)
		}
		if u := eng.Budget().Used(); u > maxMem {
			t.Fatalf("frame %d: %d octets held, budget %d", i+1, u, maxMem)
		}
	}
	return eng, findings
}

// Calls of maximum jumbograms that never finish are charged to the memory
// budget: the oldest go, with a finding naming them.
func TestCallsChargedToBudget(t *testing.T) {
	var body []byte
	for i := 0; i < 46; i++ {
		body = append(body, make([]byte, rx.JumboLen)...)
		if i < 45 {
			body = append(body, rx.FlagJumbo|rx.FlagMorePackets|rx.FlagClientInitiated, 0, 0, 0)
		}
	}
	var pls [][]byte
	for c := uint32(1); c <= 64; c++ {
		h := hdr(c, 1, 1, rx.TypeData, rx.FlagJumbo|rx.FlagClientInitiated)
		pls = append(pls, append(h.Encode(nil), body...))
	}
	const limit = 1 << 20
	eng, fs := decodeAll(t, limit, pls)
	if eng.Budget().Used() < limit/2 {
		t.Errorf("only %d octets charged for 16 calls of 64 KiB held", eng.Budget().Used())
	}
	if !hasFinding(fs, "memory budget of 1 MiB reached (--max-mem): dropped Rx call 1 of connection epoch 0x5f3a1b2c") {
		t.Errorf("no finding for the dropped call: %q", fs)
	}
}

// Out-of-order data counts against MaxCallData with what is kept in order:
// 256 packets held for a missing seq 1 are not 256 copies, and once seq 1
// comes the call is delivered as its contiguous prefix, truncated.
func TestOutOfOrderBounded(t *testing.T) {
	var got []rx.Call
	observe(t, func(c *rx.Call) {
		if c.Epoch == 0x0bad0bad {
			cp := *c
			cp.Data = append([]byte(nil), c.Data...)
			got = append(got, cp)
		}
	})
	pkt := func(seq uint32, flags uint8) []byte {
		h := hdr(1, seq, seq, rx.TypeData, flags|rx.FlagClientInitiated)
		h.Epoch = 0x0bad0bad
		return append(h.Encode(nil), bytesOf(byte(seq), 1000)...)
	}
	var pls [][]byte
	for s := uint32(2); s <= 256; s++ {
		fl := uint8(rx.FlagMorePackets)
		if s == 256 {
			fl = rx.FlagLastPacket
		}
		pls = append(pls, pkt(s, fl))
	}
	const limit = 1 << 20
	eng, _ := decodeAll(t, limit, pls)
	// MaxCallData of data; the call (1 KiB) and connection (6.25 KiB) structs,
	// the list of 256 held seqs (8 KiB) and frame numbers
	if u := eng.Budget().Used(); u > rx.MaxCallData+24<<10 || u < 60000 {
		t.Errorf("%d octets charged for one call holding 255 packets of 1000 octets, want MaxCallData (%d) and the structs",
			u, rx.MaxCallData)
	}
	data := udp4(40000, 7000, pkt(1, rx.FlagMorePackets))
	eng.Decode(dissect.Packet{Num: uint64(len(pls) + 1), LinkType: dissect.LinkTypeIPv4, Data: data})
	if len(got) != 1 {
		t.Fatalf("call delivered %d times, want once", len(got))
	}
	c := got[0]
	if !c.Truncated || c.DataLen != 256*1000 || len(c.Data) > rx.MaxCallData || len(c.Data) < 60000 {
		t.Fatalf("delivered %d of %d octets, truncated %v", len(c.Data), c.DataLen, c.Truncated)
	}
	for i, b := range c.Data {
		if want := byte(i/1000 + 1); b != want {
			t.Fatalf("octet %d is from seq %d, want seq %d: the kept data is not the call's prefix", i, b, want)
		}
	}
}

func bytesOf(b byte, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return s
}

// observer sees every call handed to the rx.service table while a test runs
// (observe); the services still get it.
var observer func(c *rx.Call)

func init() {
	dissect.AddHandler(rx.Services.Name(), "test-observer", []dissect.KeyRange{{Lo: 0, Hi: 65535}}, func(_ dissect.Dissector, _ *dissect.Frame, c *rx.Call) bool {
		if observer != nil {
			observer(c)
		}
		return false // on to the heuristics (AFS)
	})
}

func observe(t *testing.T, fn func(c *rx.Call)) {
	observer = fn
	t.Cleanup(func() { observer = nil })
}

// A connection's cached call entry (conn.lastCall) dropped by the memory
// budget and reused for another call must not take the dropped call's next
// packet: the call's earlier state is gone. The later calls are on the
// same connection's other channels, so the connection stays and channel
// 0's cache still points at the entry.
func TestCallCacheAfterDrop(t *testing.T) {
	const more = rx.FlagMorePackets | rx.FlagClientInitiated
	var pls [][]byte
	a := hdr(1, 1, 1, rx.TypeData, more)
	pls = append(pls, append(a.Encode(nil), make([]byte, 1400)...))
	for c := uint32(2); c <= 80; c++ {
		h := hdr(c, 1, c, rx.TypeData, more)
		h.CID |= 1 + c%3 // channels 1-3
		pls = append(pls, append(h.Encode(nil), make([]byte, 1400)...))
	}
	a.Seq, a.Serial, a.Flags = 2, 81, rx.FlagLastPacket|rx.FlagClientInitiated
	pls = append(pls, append(a.Encode(nil), make([]byte, 100)...))
	_, fs := decodeAll(t, 64<<10, pls)
	if len(fs) > 6 {
		fs = append(fs[:3], fs[len(fs)-3:]...)
	}
	if !hasFinding(fs, "memory budget of 64 KiB reached (--max-mem): dropped Rx call 1 of connection epoch 0x5f3a1b2c cid 0x8a2b0c04") {
		t.Fatalf("call 1 was not dropped: %q", fs)
	}
	if !hasFinding(fs, "Rx call 1: its earlier state was dropped") {
		t.Errorf("the dropped call's next packet was taken for a live call: %q", fs)
	}
}

// TestDecodeAllocs: the allocations of the -q decode path on 8-packet calls
// (BenchmarkDecodeRx's traffic). While the call table fills, a new call
// makes its table entry only: the reassembly state with its data buffer and
// frame list is given back when the call is delivered and taken again by
// the next call (it used to be part of every entry, with buffers allocated
// per call); once the table is full, the calls dropped are reused and a
// call allocates nothing.
func TestDecodeAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the call table")
	}
	h := hdr(1, 1, 1, rx.TypeData, rx.FlagClientInitiated)
	data := udp4(40000, 7000, append(h.Encode(nil), make([]byte, 64)...))
	binary.BigEndian.PutUint32(data[28+28:], 130)
	eng := dissect.NewEngine(dissect.Options{})
	i := 0
	call := func() { // the 8 packets of the next call
		for range 8 {
			h.CallNumber, h.Seq, h.Serial = uint32(i/8+1), uint32(i%8+1), uint32(i+1)
			h.Flags = rx.FlagClientInitiated
			if i%8 == 7 {
				h.Flags |= rx.FlagLastPacket
			}
			h.Encode(data[28:28])
			eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: data})
			i++
		}
	}
	for range 8 { // warm the engine's per-frame buffers
		call()
	}
	if n := testing.AllocsPerRun(200, call); n > 1 {
		t.Errorf("%v allocations per new call while the call table fills, want at most 1 (the entry)", n)
	}
	for i < (1<<14+16)*8 { // past the call table's limit
		call()
	}
	if n := testing.AllocsPerRun(200, call); n != 0 {
		t.Errorf("%v allocations per call once the call table is full, want 0", n)
	}
}

// An epoch with its high bit set names the connection by epoch and CID
// alone: a resend of seq 1 from another client address is a retransmission
// of the same call. Without the bit, the other address is another
// connection, whose seq 1 is new.
func TestAnyAddressEpoch(t *testing.T) {
	for _, anyAddr := range []bool{true, false} {
		h := hdr(1, 1, 1, rx.TypeData, rx.FlagClientInitiated)
		if anyAddr {
			h.Epoch |= 1 << 31
		}
		eng := dissect.NewEngine(dissect.Options{})
		var retrans []bool
		for i, src := range [][4]byte{testpkt.Client, {192, 0, 2, 9}} {
			h.Serial = uint32(i + 1)
			payload := append(h.Encode(nil), 0, 0, 0, 130)
			data := testpkt.UDP4(nil, src, testpkt.Server, 40000+uint16(i), 7000, payload)
			f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1e6, LinkType: dissect.LinkTypeIPv4, Data: data})
			r := false
			for _, fd := range f.Findings {
				r = r || strings.Contains(fd.Msg, "retransmission of seq 1")
			}
			retrans = append(retrans, r)
		}
		if retrans[0] || retrans[1] != anyAddr {
			t.Errorf("epoch high bit %v: retransmission findings %v, want [false %v]", anyAddr, retrans, anyAddr)
		}
	}
}
