package replay

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/capture"
)

// fuzzRules are the rule sets FuzzRewrite picks from with its first byte's
// low bits: IPv4 and IPv6 addresses always, ports and MACs sometimes.
var fuzzRules = [][]string{
	{"ip.src=198.51.100.1"},
	{"ip.dst=198.51.100.2", "ipv6.src=2001:db8::1"},
	{"ipv6.dst=2001:db8::2"},
	{"ip.src=198.51.100.1", "ip.dst=198.51.100.2", "ipv6.src=2001:db8::1", "ipv6.dst=2001:db8::2"},
	{"ip.src=198.51.100.1", "ipv6.dst=2001:db8::2", "udp.srcport=7000", "tcp.dstport=8080"},
	{"ipv6.src=2001:db8::1", "udp.dstport=4791", "eth.dst=02:00:00:00:00:02"},
	{"ip.dst=198.51.100.2", "udp.dstport=7002"},
	{"ipv6.src=::", "ip.src=0.0.0.0"},
}

// FuzzRewrite feeds arbitrary frames with arbitrary link types through the
// rewriter as Run does (prepare). It must not panic; the output is as long
// as the input; a frame it will not send is left as it was; and a frame it
// rewrote whose checksums (IPv4 header, TCP/UDP/ICMPv6, RoCEv2 ICRC) were
// valid before has them valid after, by the independent check in verify.
func FuzzRewrite(f *testing.F) {
	seed := func(rules byte, lt uint16, b []byte) { f.Add(rules, lt, b) }
	set16 := func(b []byte, off int, v uint16) []byte { binary.BigEndian.PutUint16(b[off:], v); return b }
	valid := func(b []byte) []byte {
		ff := locate(b)
		if ff.ipv == 4 {
			fixIPv4(b[ff.l3:])
		}
		if ff.l4 >= 0 && ff.l4Whole && ff.bad == OK {
			fixL4(ff)
		}
		return b
	}
	seed(0, 1, valid(ethIPv4(17, udpHdr(1, 2, 10))))
	seed(4, 1, valid(ethIPv4(6, append([]byte{0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x50}, make([]byte, 11)...))))
	seed(3, 1, valid(ethIPv4(17, roce(32))))
	seed(5, 1, valid(ethIPv6(17, roce(16))))
	seed(2, 1, valid(ethIPv6(58, []byte{128, 0, 0, 0, 0, 1, 0, 1})))
	seed(3, 1, valid(ethIPv6(0, append([]byte{17, 0, 1, 4, 0, 0, 0, 0}, udpHdr(1, 2, 6)...))))
	seed(0, 1, set16(ethIPv4(17, udpHdr(1, 2, 0)), 16, 24))
	seed(2, 1, set16(ethIPv6(17, udpHdr(1, 2, 0)), 18, 4))
	seed(0, 1, ethIPv4(17, roce(64))[:80])
	seed(3, 101, valid(ethIPv4(17, udpHdr(1, 2, 10))))
	frag := valid(ethIPv4(17, udpHdr(1, 2, 40)))
	set16(frag, 20, 0x2000) // first fragment: adjusted, not recomputed
	seed(6, 1, frag)
	seed(1, 1, append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x81, 0, 0, 5}, valid(ethIPv4(17, udpHdr(1, 2, 3)))[12:]...))
	f.Fuzz(func(t *testing.T, rules byte, lt uint16, in []byte) {
		rs := make([]Rewrite, 0, 4)
		for _, s := range fuzzRules[int(rules)%len(fuzzRules)] {
			r, err := ParseRewrite(s)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		orig := bytes.Clone(in)
		before := verify(orig)
		out, why := prepare(nil, &capture.Packet{Data: in, LinkType: lt}, rs)
		if !bytes.Equal(in, orig) {
			t.Fatal("prepare wrote to the packet it was given")
		}
		if lt != capture.LinkEthernet {
			if why != NotEthernet {
				t.Fatalf("link type %d: %v", lt, why)
			}
			return
		}
		if len(out) != len(in) {
			t.Fatalf("length %d -> %d", len(in), len(out))
		}
		_ = Summary(out)
		if why != OK {
			if !bytes.Equal(out, orig) {
				t.Fatalf("frame refused (%v) but changed:\n%x\n%x", why, orig, out)
			}
			return
		}
		if !before.known {
			return
		}
		after := verify(out)
		if !after.known {
			t.Fatalf("rewrite made a checkable frame uncheckable:\n%x\n%x", orig, out)
		}
		if before.ip && !after.ip || before.l4 && !after.l4 || before.roce && after.roce && before.icrc && !after.icrc {
			t.Fatalf("checksums valid before, not after (before %+v, after %+v):\n%x\n%x", before, after, orig, out)
		}
	})
}
