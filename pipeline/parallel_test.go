package pipeline_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

// ipv4Hdr is a 20-octet IPv4 header of a UDP datagram piece.
func ipv4Hdr(src, dst [4]byte, id uint16, fragOff int, more bool, n int) []byte {
	h := make([]byte, 20)
	h[0], h[8], h[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(h[2:], uint16(20+n))
	binary.BigEndian.PutUint16(h[4:], id)
	fo := uint16(fragOff / 8)
	if more {
		fo |= 0x2000
	}
	binary.BigEndian.PutUint16(h[6:], fo)
	copy(h[12:], src[:])
	copy(h[16:], dst[:])
	return h
}

// interleavedFlows synthesizes Rx traffic between nflows client hosts and
// one server, the flows interleaved packet by packet: each flow makes calls
// (a request, a reply naming it) and every third call's request is an IP
// datagram sent as two fragments, so a flow's state (calls, response
// times, fragments) only adds up if its frames stay on one worker.
func interleavedFlows(nflows, calls int) []capture.Packet {
	server := [4]byte{198, 19, 255, 254}
	flows := make([][][]byte, nflows)
	for f := range flows {
		client := [4]byte{198, 18, byte((f + 1) >> 8), byte(f + 1)}
		h := rx.HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0000 + uint32(f)<<2, Type: rx.TypeData, ServiceID: 1}
		for c := range calls {
			h.CallNumber, h.Seq, h.Serial = uint32(c+1), 1, uint32(2*c+1)
			h.Flags = rx.FlagClientInitiated | rx.FlagLastPacket
			body := binary.BigEndian.AppendUint32(nil, 130) // FS FetchData
			body = append(body, make([]byte, 60)...)
			req := h.Encode(nil)
			req = append(req, body...)
			udp := testpkt.UDP4(nil, client, server, 7001, 7000, req)[20:]
			if c%3 == 2 && f%4 == 0 { // as two fragments, sent apart (fewer in flight than the reassembly table holds)
				id := uint16(c)
				flows[f] = append(flows[f], append(ipv4Hdr(client, server, id, 0, true, 48), udp[:48]...))
				flows[f] = append(flows[f], append(ipv4Hdr(client, server, id, 48, false, len(udp)-48), udp[48:]...))
			} else {
				flows[f] = append(flows[f], testpkt.UDP4(nil, client, server, 7001, 7000, req))
			}
			h.Flags, h.Serial = rx.FlagLastPacket, uint32(2*c+2)
			reply := append(h.Encode(nil), make([]byte, 40)...)
			flows[f] = append(flows[f], testpkt.UDP4(nil, server, client, 7000, 7001, reply))
		}
	}
	return alternate(flows, func(f int) int64 { return 1000 + int64(f%7)*10 })
}

// alternate makes raw IPv4 capture packets of flows' frames taken packet by
// packet, one of each flow in turn, a frame of flow f gap(f) ns after the
// one before it.
func alternate(flows [][][]byte, gap func(f int) int64) []capture.Packet {
	var pkts []capture.Packet
	t := int64(1_700_000_000) * 1e9
	for i := 0; ; i++ {
		added := false
		for f := range flows {
			if i < len(flows[f]) {
				t += gap(f)
				pkts = append(pkts, capture.Packet{Data: flows[f][i], TimeNS: t, CapLen: len(flows[f][i]),
					WireLen: len(flows[f][i]), LinkType: dissect.LinkTypeIPv4})
				added = true
			}
		}
		if !added {
			return pkts
		}
	}
}

// TestWorkersInterleaved: thousands of flows interleaved packet by packet
// across the workers print the same with -j 4 as with -j 1 in every mode.
func TestWorkersInterleaved(t *testing.T) {
	pkts := interleavedFlows(2000, 4)
	path := filepath.Join(t.TempDir(), "flows.pcap")
	writePcap(t, path, pkts, 1)
	in := pipeline.Input{File: path}
	fields := []string{"frame.number", "frame.time_delta", "frame.time_relative", "ip.src", "ip.flags",
		"rx.callnumber", "rx.seq", "afs.reqframe", "afs.repframe", "afs.time", "_ws.expert.message"}
	for name, cfg := range map[string]pipeline.Config{
		"summary":  {},
		"verbose":  {Print: pipeline.Print{Verbose: true, Hex: true}, Count: 3000},
		"fields":   {Print: pipeline.Print{Format: "fields", Fields: fields, FieldOpts: []string{"header=y"}}},
		"json":     {Print: pipeline.Print{Format: "json"}, Count: 2500},
		"jsonl":    {Print: pipeline.Print{Format: "jsonl"}, Count: 2500, SinglePass: true},
		"filter":   {Filter: "rx.seq == 1 && ip.src == 198.18.3.7"},
		"quiet -z": {Quiet: true, Stats: []string{"rx,srt", "conv,ip", "conv,udp"}},
		"check":    {Quiet: true, Check: &pipeline.CheckReport{Format: "json"}},
		"count":    {Count: 777},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.Input = in
			one, four, want := sameOnWorkers(t, cfg, 4)
			if len(want) == 0 {
				t.Fatal("-j 1 printed nothing: a comparison of nothing")
			}
			if one.Frames != four.Frames || one.Counts != four.Counts || one.ChecksFailed != four.ChecksFailed {
				t.Errorf("-j 4: %d frames %+v, -j 1: %d frames %+v", four.Frames, four.Counts, one.Frames, one.Counts)
			}
		})
	}
	// -w: the same pcapng.
	var files [2][]byte
	for i, j := range []int{1, 4} {
		w := filepath.Join(t.TempDir(), "out.pcapng")
		run(t, pipeline.Config{Input: in, Workers: j, Filter: "rx.seq == 1", Write: w})
		var err error
		if files[i], err = os.ReadFile(w); err != nil {
			t.Fatal(err)
		}
	}
	if len(files[0]) < 1000 || !bytes.Equal(files[0], files[1]) {
		t.Errorf("-w with -j 4: %d octets, with -j 1: %d, or they differ", len(files[1]), len(files[0]))
	}
}

// sameOnWorkers runs cfg with -j 1 and -j j and fails t unless they ran on
// 1 and j workers and printed the same; it returns both results and the
// output of -j 1.
func sameOnWorkers(t *testing.T, cfg pipeline.Config, j int) (one, many pipeline.Result, want string) {
	t.Helper()
	cfg.Workers = 1
	one, want = run(t, cfg)
	cfg.Workers = j
	many, got := run(t, cfg)
	if one.Workers != 1 || many.Workers != j {
		t.Errorf("ran on %d and %d workers, want 1 and %d", one.Workers, many.Workers, j)
	}
	if got != want {
		t.Errorf("-j %d differs from -j 1 (%d octets):\n%s", j, len(want), testpkt.DiffLines(got, want))
	}
	return one, many, want
}

// TestWorkersTruncated: a capture cut inside a record prints, with -j 2 as
// with -j 1, every frame before the bad record, then the error.
func TestWorkersTruncated(t *testing.T) {
	pkts := interleavedFlows(300, 3)
	path := filepath.Join(t.TempDir(), "cut.pcap")
	writePcap(t, path, pkts, 1)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)*2/3+5], 0o644); err != nil {
		t.Fatal(err)
	}
	var outs [2]string
	var errs [2]error
	var frames [2]uint64
	for i, j := range []int{1, 2} {
		var out bytes.Buffer
		res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: path}, Out: &out, Workers: j})
		outs[i], errs[i], frames[i] = out.String(), err, res.Frames
	}
	if errs[0] == nil || errs[1] == nil || errs[0].Error() != errs[1].Error() {
		t.Fatalf("errors: -j 1 %v, -j 2 %v", errs[0], errs[1])
	}
	if n := strings.Count(outs[0], "\n"); n < len(pkts)/2 || outs[0] != outs[1] || frames[0] != frames[1] {
		t.Errorf("-j 1 printed %d lines (%d frames), -j 2 %d (%d frames)", n, frames[0], strings.Count(outs[1], "\n"), frames[1])
	}
}

// TestWorkersCaptures: every capture in pcaps/ prints the same tree (-V -x,
// two passes) and check tally with -j 2 as with -j 1; under go test -race
// (make test) this is where every dissector runs on two goroutines.
func TestWorkersCaptures(t *testing.T) {
	var caps []string
	for _, pat := range []string{"*.pcap", "*/*.pcap", "*/*.pcap.gz", "*.cap.gz"} {
		m, _ := filepath.Glob(filepath.Join("../pcaps", pat))
		caps = append(caps, m...)
	}
	if len(caps) < 50 {
		t.Fatalf("%d captures", len(caps))
	}
	for _, c := range caps {
		t.Run(strings.TrimPrefix(c, "../pcaps/"), func(t *testing.T) {
			for _, cfg := range []pipeline.Config{
				{Print: pipeline.Print{Verbose: true, Hex: true}},
				{Quiet: true, Check: &pipeline.CheckReport{Format: "text"}},
			} {
				cfg.Input = pipeline.Input{File: c}
				if _, _, want := sameOnWorkers(t, cfg, 2); len(want) == 0 {
					t.Error("-j 1 printed nothing: a comparison of nothing")
				}
			}
		})
	}
}

// streamFlows synthesizes TCP and UDP between hosts host pairs, the pairs
// interleaved packet by packet so they spread over the workers: per pair a
// TCP connection, its SYN sent again (the same connection), a new SYN with
// another ISN on the same ports (a new tcp.stream), a connection seen
// mid-way (no SYN); five UDP conversations, a UDP datagram in two fragments
// sent last-first (numbered when the second completes it), and an ICMP
// port unreachable from a router (another address pair, so maybe another
// worker) quoting a UDP packet of a conversation seen nowhere else.
func streamFlows(hosts int) []capture.Packet {
	ip := func(proto byte, src, dst [4]byte, id uint16, fo uint16, body []byte) []byte {
		h := ipv4Hdr(src, dst, id, 0, false, len(body))
		h[9] = proto
		binary.BigEndian.PutUint16(h[6:], fo)
		return append(h, body...)
	}
	tcp := func(src, dst [4]byte, sp, dp uint16, seq, ack uint32, flags byte, n int) []byte {
		return ip(6, src, dst, 0, 0, append(testpkt.TCP(nil, sp, dp, seq, ack, flags, 8192), make([]byte, n)...))
	}
	const syn, ack, psh, fin = 0x02, 0x10, 0x08, 0x01
	router := [4]byte{203, 0, 113, 1}
	flows := make([][][]byte, hosts)
	for h := range flows {
		c, s := [4]byte{198, 18, byte(h >> 8), byte(h + 1)}, [4]byte{198, 19, byte(h >> 8), byte(h + 1)}
		p := &flows[h]
		add := func(b []byte) { *p = append(*p, b) }
		add(tcp(c, s, 40000, 80, 1000, 0, syn, 0))
		add(tcp(c, s, 40000, 80, 1000, 0, syn, 0)) // sent again: the same connection
		add(tcp(s, c, 80, 40000, 7000, 1001, syn|ack, 0))
		add(tcp(c, s, 40000, 80, 1001, 7001, ack|psh, 10))
		add(tcp(c, s, 40000, 80, 1011, 7001, ack|fin, 0))
		add(tcp(c, s, 40000, 80, 90000, 0, syn, 0)) // another ISN: a new connection
		add(tcp(s, c, 80, 40000, 3000, 90001, syn|ack, 0))
		add(tcp(c, s, 40000, 80, 90001, 3001, ack|psh, 5))
		add(tcp(s, c, 443, 50000, 123456, 654321, ack|psh, 20)) // mid-way
		add(tcp(c, s, 50000, 443, 654321, 123476, ack, 0))
		for u := range 5 {
			add(testpkt.UDP4(nil, c, s, uint16(6000+u), 53, make([]byte, 12)))
			add(testpkt.UDP4(nil, s, c, 53, uint16(6000+u), make([]byte, 30)))
		}
		dgram := testpkt.UDP4(nil, c, s, 7100, 7000, make([]byte, 80))[20:]
		add(ip(17, c, s, uint16(h), 48/8, dgram[48:]))
		add(ip(17, c, s, uint16(h), 0x2000, dgram[:48]))
		quoted := testpkt.UDP4(nil, c, s, 9999, 33434, make([]byte, 8))
		add(ip(1, router, c, 0, 0, append([]byte{3, 3, 0, 0, 0, 0, 0, 0}, quoted...)))
	}
	return alternate(flows, func(int) int64 { return 1000 })
}

// TestWorkersStreams: tcp.stream and udp.stream count the whole capture's
// conversations in order of first frame with -j 3 as with -j 1, port reuse,
// reassembly and ICMP quotes included, on three workers.
func TestWorkersStreams(t *testing.T) {
	const hosts = 40
	path := filepath.Join(t.TempDir(), "streams.pcap")
	writePcap(t, path, streamFlows(hosts), 1)
	for name, cfg := range map[string]pipeline.Config{
		"fields": {Print: pipeline.Print{Format: "fields", Fields: []string{"frame.number", "tcp.stream", "udp.stream"}}},
		"filter": {Filter: "tcp.stream == 77 || udp.stream == 200"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.Input = pipeline.Input{File: path}
			_, _, want := sameOnWorkers(t, cfg, 3)
			if name != "fields" {
				if strings.Count(want, "\n") < 2 {
					t.Errorf("the filter shows %q: a comparison of nothing", want)
				}
				return
			}
			// Per pair: three TCP connections, seven UDP conversations
			// (five, the reassembled one, the quoted one).
			tcps, udps := map[string]bool{}, map[string]bool{}
			for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
				f := strings.Split(l, "\t")
				if len(f) == 3 && f[1] != "" {
					tcps[f[1]] = true
				}
				if len(f) == 3 && f[2] != "" {
					udps[f[2]] = true
				}
			}
			if len(tcps) != 3*hosts || len(udps) != 7*hosts || !tcps[strconv.Itoa(3*hosts-1)] || !udps[strconv.Itoa(7*hosts-1)] {
				t.Errorf("%d tcp.stream and %d udp.stream numbers, want %d and %d, from 0", len(tcps), len(udps), 3*hosts, 7*hosts)
			}
		})
	}
}

// TestWorkersBulkRounds: frames of every size up to 9000 octets, so rounds
// end by octets as well as by frames and records straddle the reader's
// buffer (the -j reader copies what its buffer holds at once and takes the
// rest one record at a time), print the same on 2 and 3 workers (the low
// bits of the key and its remainder) as on one, whole and cut by -c.
func TestWorkersBulkRounds(t *testing.T) {
	var pkts []capture.Packet
	t0 := int64(1_700_000_000) * 1e9
	x := uint32(1)
	for i := range 3000 {
		x = x*1664525 + 1013904223
		n := int(x>>8) % 9000
		if i%7 == 0 {
			n = 8980 // some jumbo frames at any position
		}
		src := [4]byte{198, 18, 0, byte(x >> 28)}
		ip := testpkt.UDP4(nil, src, [4]byte{198, 19, 0, 1}, 4000+uint16(i%5), 9, make([]byte, n))
		pkts = append(pkts, capture.Packet{Data: ip, TimeNS: t0 + int64(i)*1000, CapLen: len(ip), WireLen: len(ip), LinkType: dissect.LinkTypeIPv4})
	}
	path := filepath.Join(t.TempDir(), "sizes.pcap")
	writePcap(t, path, pkts, 1)
	if fi, err := os.Stat(path); err != nil || fi.Size() < 8<<20 {
		t.Fatalf("capture of %v octets: fewer rounds than the test needs (%v)", fi.Size(), err)
	}
	for _, j := range []int{2, 3} {
		for _, count := range []int{0, 1, 2, 1999} {
			one, many, want := sameOnWorkers(t, pipeline.Config{Input: pipeline.Input{File: path}, Count: count}, j)
			if wantN := uint64(cmp.Or(count, len(pkts))); one.Frames != wantN || many.Frames != wantN || strings.Count(want, "\n") != int(wantN) {
				t.Errorf("-j %d -c %d: %d and %d frames, %d lines; want %d", j, count, one.Frames, many.Frames, strings.Count(want, "\n"), wantN)
			}
		}
	}
}

// TestSkewedFileOneWorker: a file of 8 MiB or more whose first frames are
// of one flow runs on one worker whatever -j says, printing what -j 1
// prints; one of many flows runs on the workers asked for; a skewed file
// under 8 MiB is not looked at.
func TestSkewedFileOneWorker(t *testing.T) {
	for _, c := range []struct {
		name         string
		flows, calls int
		big          bool // 8 MiB or more
		want         int
	}{
		{"one flow", 1, 40000, true, 1},
		{"64 flows", 64, 640, true, 2},
		{"one flow, small", 1, 2000, false, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.pcap")
			writePcap(t, path, interleavedFlows(c.flows, c.calls), 1)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if big := st.Size() >= 8<<20; big != c.big {
				t.Fatalf("%d octets: the case is not of the size it means to test", st.Size())
			}
			cfg := pipeline.Config{Input: pipeline.Input{File: path}, Quiet: true, Stats: []string{"rx,srt", "conv,ip"}}
			cfg.Workers = 1
			_, want := run(t, cfg)
			cfg.Workers = 2
			res, got := run(t, cfg)
			if res.Workers != c.want {
				t.Errorf("-j 2 ran on %d workers, want %d", res.Workers, c.want)
			}
			if got != want || len(want) == 0 {
				t.Errorf("-j 2 printed %d octets, -j 1 %d, or they differ", len(got), len(want))
			}
		})
	}
}

// TestWorkersNamedPipe: -j 2 reads a named pipe once, as it comes: the look
// at a file's first frames (skewed) must not open it, which would wait for
// the writer and then cut it off.
func TestWorkersNamedPipe(t *testing.T) {
	data, err := os.ReadFile("../pcaps/rx/bos-queries.pcap")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(data)
			f.Close()
		}
		wrote <- err
	}()
	type result struct {
		res pipeline.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: fifo}, Workers: 2, Quiet: true, Out: io.Discard})
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.res.Frames != 100 {
			t.Errorf("read %d frames (want 100), error %v", r.res.Frames, r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("-j 2 on a named pipe hangs")
	}
	if err := <-wrote; err != nil {
		t.Errorf("the writer: %v", err)
	}
}
