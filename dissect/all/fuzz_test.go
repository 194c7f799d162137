package all_test

import (
	"encoding/binary"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/enginecheck"
	"github.com/rdx-project/rdx/internal/strict"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// TestMain runs every engine strict: a dissector panic fails.
func TestMain(m *testing.M) { strict.Main(m) }

// fuzzLinkTypes are the link types FuzzEngine's first octet picks from:
// Ethernet (and VLAN inside it), Linux SLL and SLL2, raw IPv4 and IPv6,
// IPoIB, native InfiniBand, BSD null and ERF.
var fuzzLinkTypes = [...]uint16{1, 113, 276, 228, 229, 242, 247, 0, 197}

const (
	maxFuzzFrames = 16
	maxFuzzInput  = 64 << 10
)

// splitFrames reads FuzzEngine's input: a link type index, then frames, each
// a 2-octet big-endian length and its bytes (the last one takes what is
// left when the length runs past the end).
func splitFrames(in []byte) (uint16, [][]byte) {
	if len(in) == 0 {
		return fuzzLinkTypes[0], nil
	}
	lt := fuzzLinkTypes[int(in[0])%len(fuzzLinkTypes)]
	in = in[1:]
	var frames [][]byte
	for len(in) >= 2 && len(frames) < maxFuzzFrames {
		n := min(int(binary.BigEndian.Uint16(in)), len(in)-2)
		frames = append(frames, in[2:2+n])
		in = in[2+n:]
	}
	return lt, frames
}

// joinFrames is splitFrames' inverse, for seeds.
func joinFrames(lt uint16, frames [][]byte) []byte {
	i := 0
	for i < len(fuzzLinkTypes) && fuzzLinkTypes[i] != lt {
		i++
	}
	out := []byte{byte(i)}
	for _, f := range frames {
		out = binary.BigEndian.AppendUint16(out, uint16(len(f)))
		out = append(out, f...)
	}
	return out
}

// firstFrames reads up to n frames of a capture in pcaps/, each cut to max
// octets.
func firstFrames(tb testing.TB, name string, n, max int) (uint16, [][]byte) {
	tb.Helper()
	src, err := capture.Open(filepath.Join("../../pcaps", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	var p capture.Packet
	var lt uint16
	var out [][]byte
	for len(out) < n && src.Next(&p) == nil {
		lt = p.LinkType
		out = append(out, append([]byte(nil), p.Data[:min(len(p.Data), max)]...))
	}
	if len(out) == 0 {
		tb.Fatalf("%s: no frames", name)
	}
	return lt, out
}

// relink moves Ethernet frames to another link type: the Ethernet header is
// replaced by that link's header for the same EtherType.
func relink(lt uint16, frames [][]byte) [][]byte {
	var out [][]byte
	for _, f := range frames {
		if len(f) < 14 {
			continue
		}
		et, rest := binary.BigEndian.Uint16(f[12:]), f[14:]
		var h []byte
		switch lt {
		case 113: // SLL: packet type, ARPHRD, address length, address, protocol
			h = make([]byte, 16)
			binary.BigEndian.PutUint16(h[2:], 1)
			h[5] = 6
			copy(h[6:], f[6:12])
			binary.BigEndian.PutUint16(h[14:], et)
		case 276: // SLL2: protocol, reserved, ifindex, ARPHRD, type, address length, address
			h = make([]byte, 20)
			binary.BigEndian.PutUint16(h[0:], et)
			binary.BigEndian.PutUint16(h[8:], 1)
			h[11] = 6
			copy(h[12:], f[6:12])
		case 0: // null: the address family in host order (2, AF_INET, little-endian here)
			h = []byte{2, 0, 0, 0}
		case 242: // IPoIB: two 20-octet addresses, EtherType, 2 reserved
			h = make([]byte, 44)
			binary.BigEndian.PutUint16(h[40:], et)
		case 228, 229:
			h = nil
		}
		out = append(out, append(h, rest...))
	}
	return out
}

// FuzzEngine runs sequences of frames of any link type through the whole
// engine, strict, with every check of internal/enginecheck: link layers,
// VLAN, IPv4 reassembly, the TCP stream path and every dissector behind
// them. Seeds are the first frames of real captures, also moved to other
// link types, and IPv4 fragments. Each input gets fresh engines, so a
// failure reproduces from the input alone.
func FuzzEngine(f *testing.F) {
	for _, c := range []struct {
		name string
		n    int
	}{
		{"rx/pts-ops.pcap", 6},
		{"rx/vos-dump-bulk.pcap", 4},
		{"kernel/rds_tcp.pcap", 8},
		{"iwarp/iwarp_rping.pcap", 8},
		{"iwarp/nfs3_rdma_iwarp.pcap", 6},
		{"ib/roce_rc_pingpong.pcap", 6},
		{"ib/rocev1.pcap", 4},
		{"ib/ib2_erf.pcap", 6},
		{"kernel/nfs3_rdma_roce.pcap", 6},
		{"public/the-tcpdump-group+tcpdump__ipoib.pcap", 4},
		{"rdp/clean.pcap", 6},
	} {
		lt, frames := firstFrames(f, c.name, c.n, 1600)
		f.Add(joinFrames(lt, frames))
		switch lt {
		case 1:
			if c.name == "rx/pts-ops.pcap" || c.name == "kernel/rds_tcp.pcap" {
				for _, to := range []uint16{113, 276, 0, 242, 228} {
					f.Add(joinFrames(to, relink(to, frames)))
				}
			}
		case 197: // ERF: a 16-octet record header, then the IB packet
			var ib [][]byte
			for _, fr := range frames {
				if len(fr) > 16 {
					ib = append(ib, fr[16:])
				}
			}
			f.Add(joinFrames(247, ib))
		}
	}
	// An Rx datagram to port 7000 in two IPv4 fragments, out of order.
	udp := make([]byte, 8+60)
	binary.BigEndian.PutUint16(udp[0:], 7001)
	binary.BigEndian.PutUint16(udp[2:], 7000)
	binary.BigEndian.PutUint16(udp[4:], uint16(len(udp)))
	f.Add(joinFrames(228, [][]byte{testpkt.IPv4Frag(9, 32, false, udp[32:]), testpkt.IPv4Frag(9, 0, true, udp[:32])}))

	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > maxFuzzInput {
			return
		}
		lt, frames := splitFrames(in)
		p := enginecheck.NewPair(dissect.Options{})
		for i, fr := range frames {
			p.Decode(t, uint64(i+1), lt, fr)
		}
		p.Finish()
	})
}

// ipv4L4 is a raw IPv4 packet (link type 228) from 192.0.2.1:40000 to
// 192.0.2.2:port carrying a UDP datagram or a TCP segment (ACK, seq).
func ipv4L4(proto uint8, port uint16, seq uint32, payload []byte) []byte {
	hl := 8
	if proto == 6 {
		hl = 20
	}
	b := make([]byte, 20+hl, 20+hl+len(payload))
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], uint16(20+hl+len(payload)))
	b[8], b[9] = 64, proto
	copy(b[12:], []byte{192, 0, 2, 1})
	copy(b[16:], []byte{192, 0, 2, 2})
	binary.BigEndian.PutUint16(b[20:], 40000)
	binary.BigEndian.PutUint16(b[22:], port)
	if proto == 6 {
		binary.BigEndian.PutUint32(b[24:], seq)
		b[32], b[33] = 5<<4, 0x18 // PSH ACK
	} else {
		binary.BigEndian.PutUint16(b[24:], uint16(8+len(payload)))
	}
	return append(b, payload...)
}

// formatDecodeAs writes a rule back in ParseDecodeAs' syntax.
func formatDecodeAs(d dissect.DecodeAs) string {
	return d.Table + "==" + strconv.FormatUint(d.Lo, 10) + "-" + strconv.FormatUint(d.Hi, 10) + "," + d.Proto
}

// FuzzDecodeAs parses arbitrary -d rules: an error names the rule; an
// accepted rule is well formed, names a registered dissector and reads back
// the same from its canonical form; an engine built with it then decodes
// the payload on the rule's port or QP (UDP, TCP in two segments, RoCEv2
// SEND) through enginecheck.
func FuzzDecodeAs(f *testing.F) {
	for _, r := range []string{"udp.port==7000,rx", "tcp.port==4000-4010,mpa", "udp.port==7000:3,rx", "infiniband.destqp==0x11,rpcordma",
		"tcp.port==16385,rds", "udp.port==65535:1,rx", "tcp.port== 80 , rds", "udp.port==1-0,rx", "infiniband.destqp==1,ibcm", "udp.port==9,nosuch",
		"rx.service==52,afs_vl", "ethertype==0x8915,infiniband", "ip.proto==27,rdp", "iwarp_ddp.untagged==0,rpcordma", "nosuch.table==1,rx"} {
		f.Add(r, []byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8})
	}
	names := dissect.DissectorNames()
	f.Fuzz(func(t *testing.T, rule string, payload []byte) {
		if len(payload) > 4096 {
			return
		}
		d, err := dissect.ParseDecodeAs(rule)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "decode-as "+strconv.Quote(rule)) {
				t.Fatalf("%q: error %q does not name the rule", rule, err)
			}
			return
		}
		ti := tableInfo(d.Table)
		switch {
		case ti == nil:
			t.Fatalf("%q: accepted unknown table %q", rule, d.Table)
		case ti.DecodeAs == nil && !slices.Contains(names, d.Proto), ti.DecodeAs != nil && !slices.Contains(ti.DecodeAs, d.Proto):
			t.Fatalf("%q: accepted protocol %q, not a candidate of %s", rule, d.Proto, d.Table)
		case ti.Bits < 64 && d.Hi >= 1<<ti.Bits:
			t.Fatalf("%q: key %#x beyond %d bits", rule, d.Hi, ti.Bits)
		case d.Lo > d.Hi:
			t.Fatalf("%q: keys %d-%d", rule, d.Lo, d.Hi)
		}
		if back, err := dissect.ParseDecodeAs(formatDecodeAs(d)); err != nil || back != d {
			t.Fatalf("%q read as %+v; its canonical form %q reads as %+v, %v", rule, d, formatDecodeAs(d), back, err)
		}
		p := enginecheck.NewPair(dissect.Options{DecodeAs: []dissect.DecodeAs{d}})
		switch d.Table {
		case "udp.port":
			p.Decode(t, 1, 228, ipv4L4(17, uint16(d.Hi), 0, payload))
		case "tcp.port":
			h := len(payload) / 2
			p.Decode(t, 1, 228, ipv4L4(6, uint16(d.Lo), 1000, payload[:h]))
			p.Decode(t, 2, 228, ipv4L4(6, uint16(d.Lo), 1000+uint32(h), payload[h:]))
		case "infiniband.destqp":
			bth := (&ib.BTHFields{Opcode: 0x04, DestQP: uint32(d.Lo), PKey: 0xffff}).Encode(nil) // RC SEND Only
			roce := append(append(bth, payload...), 0, 0, 0, 0)                                  // ICRC (wrong: a finding)
			p.Decode(t, 1, 228, ipv4L4(17, 4791, 0, roce))
		}
		p.Finish()
	})
}

func tableInfo(name string) *dissect.TableInfo {
	for _, t := range dissect.Tables() {
		if t.Name == name {
			return &t
		}
	}
	return nil
}
