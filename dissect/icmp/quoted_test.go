package icmp_test

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/tsharktest"
	"github.com/rdx-project/rdx/render"
)

// Documentation addresses: the client (a) and server (b).
var (
	macA = []byte{0x52, 0x54, 0, 0, 1, 1}
	macB = []byte{0x52, 0x54, 0, 0, 1, 2}
	ipA  = []byte{198, 51, 100, 1}
	ipB  = []byte{198, 51, 100, 2}
)

// csum is the Internet checksum of b (RFC 1071).
func csum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// ipv4 builds an IPv4 header (checksum set) followed by payload.
func ipv4(src, dst []byte, proto uint8, ttl uint8, id uint16, payload []byte) []byte {
	h := make([]byte, 20, 20+len(payload))
	h[0], h[8], h[9] = 0x45, ttl, proto
	binary.BigEndian.PutUint16(h[2:], uint16(20+len(payload)))
	binary.BigEndian.PutUint16(h[4:], id)
	h[6] = 0x40 // DF
	copy(h[12:], src)
	copy(h[16:], dst)
	binary.BigEndian.PutUint16(h[10:], csum(h))
	return append(h, payload...)
}

func udp(sport, dport uint16, payload []byte) []byte {
	u := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(u, sport)
	binary.BigEndian.PutUint16(u[2:], dport)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(payload)))
	return append(u, payload...) // checksum 0: none (RFC 768)
}

func eth(src, dst []byte, etype uint16, payload []byte) []byte {
	b := append(append(append([]byte{}, dst...), src...), byte(etype>>8), byte(etype))
	return append(b, payload...)
}

// icmpMsg builds an ICMP message with a correct checksum.
func icmpMsg(typ, code uint8, rest4 []byte, body []byte) []byte {
	m := append([]byte{typ, code, 0, 0}, rest4...)
	m = append(m, body...)
	binary.BigEndian.PutUint16(m[2:], csum(m))
	return m
}

// rxData is an Rx DATA packet from the server (not client-initiated) with
// LAST and REQUEST-ACK flags: epoch, cid, call, seq, serial.
func rxData(seq, serial uint32) []byte {
	h := make([]byte, 28, 60)
	binary.BigEndian.PutUint32(h[0:], 0x382b3948)
	binary.BigEndian.PutUint32(h[4:], 0xe09dbee8)
	binary.BigEndian.PutUint32(h[8:], 1)
	binary.BigEndian.PutUint32(h[12:], seq)
	binary.BigEndian.PutUint32(h[16:], serial)
	h[20], h[21] = 1, 0x06 // DATA, LAST|REQ-ACK
	binary.BigEndian.PutUint16(h[26:], 52)
	return append(h, make([]byte, 32)...)
}

// rocev2 builds IPv4+UDP+BTH (RC SEND Only)+payload+ICRC from a to b.
func rocev2(psn uint32) []byte {
	bth := (&ib.BTHFields{Opcode: 0x04, PKey: 0xffff, DestQP: 0x11, AckReq: true, PSN: psn}).Encode(nil)
	pkt := append(bth, make([]byte, 16)...)
	u := udp(49152, ib.RoCEv2Port, append(pkt, 0, 0, 0, 0))
	ip := ipv4(ipA, ipB, 17, 64, 7, u)
	crc, ok := ib.ICRCRoCEv2(ip[:20], ip[20:28], ip[28:len(ip)-4])
	if !ok {
		panic("icrc")
	}
	binary.LittleEndian.PutUint32(ip[len(ip)-4:], crc)
	return ip
}

// portUnreachable is b's ICMP error quoting the IP packet q (whole).
func portUnreachable(q []byte) []byte {
	return eth(macB, macA, 0x0800, ipv4(ipB, ipA, 1, 64, 9, icmpMsg(3, 3, []byte{0, 0, 0, 0}, q)))
}

type frameOut struct {
	info, protos string
	findings     []string
	fields       map[string][]string
	checks       map[string][2]int
}

// run decodes frames (Ethernet) through a fresh engine, two passes as
// `rdx read` does, and reports the second pass.
func run(t *testing.T, frames [][]byte, opts dissect.Options) []frameOut {
	t.Helper()
	if p := os.Getenv("RDX_WRITE_PCAP"); p != "" { // to compare with tshark by hand
		w, _ := os.Create(p + "-" + strings.ReplaceAll(t.Name(), "/", "_") + ".pcap")
		pw, _ := capture.NewPcapWriter(w, 1, 65535, false)
		for i, b := range frames {
			pw.WritePacket(&capture.Packet{Data: b, TimeNS: int64(i+1) * 1e9, CapLen: len(b), WireLen: len(b)})
		}
		w.Close()
	}
	eng := dissect.NewEngine(opts)
	var out []frameOut
	for pass := 1; pass <= 2; pass++ {
		for i, b := range frames {
			f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i+1) * 1e9, CapLen: len(b), WireLen: len(b), LinkType: 1, Iface: 0, Data: b, Pass: pass})
			if pass == 1 {
				continue
			}
			o := frameOut{fields: map[string][]string{}, checks: map[string][2]int{}}
			o.info = string(render.Info(nil, f))
			o.protos = string(eng.ProtoChain(nil, f))
			for _, fd := range f.Findings {
				o.findings = append(o.findings, fd.Msg)
			}
			for _, c := range f.Checks {
				v := o.checks[c.Check.Name]
				if c.OK {
					v[0]++
				} else {
					v[1]++
				}
				o.checks[c.Check.Name] = v
			}
			var tree dissect.Tree
			eng.BuildTree(&tree, f)
			for i := range tree.Nodes {
				n := &tree.Nodes[i]
				if n.F != nil && !n.IsExpert() {
					o.fields[n.F.Abbrev] = append(o.fields[n.F.Abbrev], string(dissect.AppendField(nil, n)))
				}
			}
			out = append(out, o)
		}
		eng.Rewind()
	}
	return out
}

func rxOpts(t *testing.T) dissect.Options {
	opts := tsharktest.DecodeAs(t, "udp.port==7000-7010,rx")
	return opts
}

// An ICMP port unreachable quoting an Rx DATA packet shows the quoted IP,
// UDP and Rx headers (tshark 4.0.17 on the same frames: Info "Destination
// unreachable (Port unreachable)", protocols eth:ethertype:ip:icmp:ip:udp:rx),
// and the quote is not taken for a retransmission: only the real one is.
func TestQuotedRx(t *testing.T) {
	data := ipv4(ipB, ipA, 17, 64, 1, udp(7003, 1792, rxData(1, 2)))
	again := ipv4(ipB, ipA, 17, 64, 2, udp(7003, 1792, rxData(1, 3)))
	frames := [][]byte{
		eth(macB, macA, 0x0800, data),
		portUnreachable(data),
		eth(macB, macA, 0x0800, again),
	}
	out := run(t, frames, rxOpts(t))
	q := out[1]
	if q.info != "Destination unreachable (Port unreachable)" {
		t.Errorf("info %q", q.info)
	}
	if q.protos != "eth:ethertype:ip:icmp:ip:udp:rx" {
		t.Errorf("protocols %q", q.protos)
	}
	for k, want := range map[string]string{
		"ip.src": "198.51.100.2;198.51.100.2", "ip.dst": "198.51.100.1;198.51.100.1",
		"udp.srcport": "7003", "udp.dstport": "1792", "rx.seq": "1", "rx.serial": "2",
		"icmp.type": "3", "icmp.code": "3", "icmp.checksum.status": "1",
	} {
		if got := strings.Join(q.fields[k], ";"); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if r := q.fields["rx.retransmission"]; len(r) != 0 || len(q.findings) != 0 {
		t.Errorf("the quote was analysed: retransmission %v, findings %q", r, q.findings)
	}
	if got := strings.Join(out[2].fields["rx.retransmission"], ";"); got != "1" {
		t.Errorf("the real retransmission: rx.retransmission %q, want 1 (call state lost or polluted)", got)
	}
	if q.checks["icmp.checksum"] != [2]int{1, 0} {
		t.Errorf("checks %v", q.checks)
	}
}

// The same for RoCEv2 (udp.port 4791): the quoted packet is decoded and
// its ICRC checked, but PSN tracking does not see it again, so neither the
// quote nor the next packet is out of order.
func TestQuotedRoCEv2(t *testing.T) {
	first := rocev2(100)
	frames := [][]byte{
		eth(macA, macB, 0x0800, first),
		portUnreachable(first),
		eth(macA, macB, 0x0800, rocev2(101)),
	}
	out := run(t, frames, dissect.Options{})
	q := out[1]
	if q.info != "Destination unreachable (Port unreachable)" {
		t.Errorf("info %q", q.info)
	}
	if q.protos != "eth:ethertype:ip:icmp:ip:udp:infiniband" {
		t.Errorf("protocols %q", q.protos)
	}
	if got := strings.Join(q.fields["infiniband.bth.psn"], ";"); got != "100" {
		t.Errorf("quoted PSN %q", got)
	}
	if q.checks["infiniband.icrc"] != [2]int{1, 0} {
		t.Errorf("quoted ICRC checks %v", q.checks)
	}
	for i, o := range out {
		if len(o.findings) != 0 {
			t.Errorf("frame %d findings %q", i+1, o.findings)
		}
	}
}

// A truncated quote (RFC 792's 8 octets of the transport header) gives the
// headers and nothing above; a bad checksum is a finding and a failed check.
func TestQuotedShortAndBadChecksum(t *testing.T) {
	data := ipv4(ipB, ipA, 17, 64, 1, udp(7003, 1792, rxData(1, 2)))
	fr := portUnreachable(data[:28])
	bad := portUnreachable(data[:28])
	bad[14+20+2] ^= 0xff
	out := run(t, [][]byte{fr, bad}, rxOpts(t))
	// tshark: eth:ethertype:ip:icmp:ip:udp, "Bad checksum [should be 0xda5d]"
	if out[0].protos != "eth:ethertype:ip:icmp:ip:udp" || len(out[0].findings) != 0 {
		t.Errorf("short quote: protocols %q, findings %q", out[0].protos, out[0].findings)
	}
	if out[1].checks["icmp.checksum"] != [2]int{0, 1} || out[1].fields["icmp.checksum.status"][0] != "0" {
		t.Errorf("bad checksum: checks %v status %v", out[1].checks, out[1].fields["icmp.checksum.status"])
	}
	if !strings.Contains(strings.Join(out[1].findings, ";"), "(should be 0xda5d)") {
		t.Errorf("bad checksum findings %q", out[1].findings)
	}
}
