package dissect

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/rdx-project/rdx/capture"
)

// tcpView is what fastTCP4 promises of e.tcp: every field but the options
// (the header and payload: the same bytes of the frame, not equal ones).
type tcpView struct {
	hdr, payload                               *byte
	nhdr, npayload                             int
	SrcPort, DstPort                           layers.TCPPort
	Seq, Ack                                   uint32
	DataOffset                                 uint8
	FIN, SYN, RST, PSH, ACK, URG, ECE, CWR, NS bool
	Window, Checksum, Urgent                   uint16
}

func viewTCP(t *layers.TCP) tcpView {
	return tcpView{first(t.Contents), first(t.Payload), len(t.Contents), len(t.Payload), t.SrcPort, t.DstPort, t.Seq, t.Ack,
		t.DataOffset, t.FIN, t.SYN, t.RST, t.PSH, t.ACK, t.URG, t.ECE, t.CWR, t.NS, t.Window, t.Checksum, t.Urgent}
}

// ip4View is what fastTCP4 promises of e.ip4: every field but the options.
type ip4View struct {
	hdr, payload, src, dst           *byte
	nhdr, npayload, nsrc, ndst       int
	Version, IHL, TOS, TTL           uint8
	Length, Id, FragOffset, Checksum uint16
	Flags                            layers.IPv4Flag
	Protocol                         layers.IPProtocol
}

func viewIP4(i *layers.IPv4) ip4View {
	return ip4View{first(i.Contents), first(i.Payload), first(i.SrcIP), first(i.DstIP),
		len(i.Contents), len(i.Payload), len(i.SrcIP), len(i.DstIP),
		i.Version, i.IHL, i.TOS, i.TTL, i.Length, i.Id, i.FragOffset, i.Checksum, i.Flags, i.Protocol}
}

func first(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// TestFastTCP4 checks that whatever frame fastTCP4 accepts, decodeLayers and
// fillNet decode into the same Net (TCP analysis included: two engines see
// the same frames), layer list, and e.ip4 and e.tcp fields but the options:
// every Ethernet frame of the captures in pcaps/, every prefix of the first
// ones, frames with header octets changed at random, and crafted frames
// for each reason to refuse one.
func TestFastTCP4(t *testing.T) {
	fastE, slowE := NewEngine(Options{}), NewEngine(Options{})
	ff := &fastE.frame
	fast, frames := 0, 0
	check := func(name string, data []byte) bool {
		t.Helper()
		frames++
		ok := compareFastTCP4(t, fastE, slowE, name, data)
		if ok {
			fast++
		}
		return ok
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	eachPcapFrame(t, func(path string, i int, pkt *capture.Packet) {
		if pkt.LinkType != LinkTypeEthernet {
			return
		}
		check(path, pkt.Data)
		if i < 20 {
			for n := 0; n < min(len(pkt.Data), 80); n++ {
				check(path+" prefix", pkt.Data[:n])
			}
			for k := 0; k < 200 && len(pkt.Data) > 12; k++ {
				b := slices.Clone(pkt.Data)
				for m := 0; m < 1+k%3; m++ {
					b[12+rnd.IntN(min(len(b)-12, 50))] ^= byte(1 << rnd.IntN(8))
				}
				check(path+" mutated", b)
			}
		}
	})
	if fast < 1000 || fast == frames {
		t.Fatalf("fastTCP4 took %d of %d frames: the test compares too little", fast, frames)
	}

	// Each refusal, from a frame it takes: 192.0.2.1:40000 -> 192.0.2.2:80,
	// 12 octets of options, 5 of payload, 4 of Ethernet trailer.
	base := make([]byte, 14+20+32+5+4)
	binary.BigEndian.PutUint16(base[12:], 0x0800)
	ip := base[14:]
	ip[0], ip[8], ip[9] = 0x45, 64, 6
	binary.BigEndian.PutUint16(ip[2:], 20+32+5)
	copy(ip[12:], []byte{192, 0, 2, 1, 192, 0, 2, 2})
	th := ip[20:]
	binary.BigEndian.PutUint16(th, 40000)
	binary.BigEndian.PutUint16(th[2:], 80)
	th[12], th[13] = 8<<4, 0x18
	copy(th[20:], []byte{1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2})
	if !check("crafted", base) || ff.Net.PayloadLen != 5 || ff.Net.TCP.HdrLen != 32 {
		t.Fatalf("crafted frame refused or misread: %+v", ff.Net)
	}
	for _, c := range []struct {
		name string
		edit func(b []byte)
	}{
		{"VLAN", func(b []byte) { b[12] = 0x81 }},
		{"IPv6 ethertype", func(b []byte) { b[12], b[13] = 0x86, 0xdd }},
		{"IP options", func(b []byte) { b[14] = 0x46 }},
		{"IP length 0 (TSO)", func(b []byte) { b[16], b[17] = 0, 0 }},
		{"IP length past the frame", func(b []byte) { binary.BigEndian.PutUint16(b[16:], 20+32+5+5) }},
		{"IP length inside the TCP header", func(b []byte) { binary.BigEndian.PutUint16(b[16:], 20+30) }},
		{"UDP", func(b []byte) { b[23] = 17 }},
		{"more fragments", func(b []byte) { b[20] = 0x20 }},
		{"fragment offset", func(b []byte) { b[21] = 1 }},
		{"data offset 4", func(b []byte) { b[46] = 4 << 4 }},
		{"SYN", func(b []byte) { b[47] = 0x12 }},
		{"short", func(b []byte) {}},
	} {
		b := slices.Clone(base)
		c.edit(b)
		if c.name == "short" {
			b = b[:14+20+19]
		}
		if fastE.fastTCP4(ff, b) {
			t.Errorf("%s: taken", c.name)
		}
	}
}

// compareFastTCP4 decodes data with fastTCP4 in fastE and, if it takes the
// frame, with decodeLayers and fillNet in slowE, and fails t where they
// differ. It reports whether fastTCP4 took the frame.
func compareFastTCP4(t *testing.T, fastE, slowE *Engine, name string, data []byte) bool {
	t.Helper()
	ff, sf := &fastE.frame, &slowE.frame
	ff.reset()
	ff.Data = data
	if !fastE.fastTCP4(ff, data) {
		return false
	}
	sf.reset()
	sf.Data = data
	slowE.decodeLayers(layers.LayerTypeEthernet, data)
	slowE.fillNet(sf, bool(slowE.trunc))
	if ff.Net != sf.Net || !slices.Equal(fastE.types, slowE.types) || ff.Proto != "tcp" || sf.Proto != "tcp" || bool(fastE.trunc) {
		t.Fatalf("%s (%x):\nfast %+v %v\nlayers %+v %v %s", name, data, ff.Net, fastE.types, sf.Net, slowE.types, sf.Proto)
	}
	if a, b := viewTCP(&fastE.tcp), viewTCP(&slowE.tcp); a != b || len(fastE.tcp.Options) != 0 {
		t.Fatalf("%s (%x): e.tcp\nfast %+v\nlayers %+v", name, data, a, b)
	}
	if a, b := viewIP4(&fastE.ip4.IPv4), viewIP4(&slowE.ip4.IPv4); a != b {
		t.Fatalf("%s (%x): e.ip4\nfast %+v\nlayers %+v", name, data, a, b)
	}
	if len(ff.Findings) != len(sf.Findings) {
		t.Fatalf("%s: findings %v vs %v", name, ff.Findings, sf.Findings)
	}
	return true
}

// FuzzFastTCP4 is TestFastTCP4's comparison on any frame: whatever fastTCP4
// takes, decodeLayers and fillNet must decode alike (fresh engines per
// input; the input is one Ethernet frame).
func FuzzFastTCP4(f *testing.F) {
	for _, path := range []string{"../pcaps/kernel/rds_tcp.pcap", "../pcaps/iwarp/iwarp_rping.pcap"} {
		r, err := capture.Open(path)
		if err != nil {
			f.Fatal(err)
		}
		var pkt capture.Packet
		for i := 0; i < 8 && r.Next(&pkt) == nil; i++ {
			f.Add(slices.Clone(pkt.Data))
		}
		r.Close()
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareFastTCP4(t, NewEngine(Options{}), NewEngine(Options{}), "fuzz", data)
	})
}
