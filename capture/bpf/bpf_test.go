package bpf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
)

// Packet corpus. Frames are built by hand so every field a filter looks at
// is deliberate.

type pkt struct {
	name string
	data []byte
}

func eth(tags []uint16, tpid uint16, etype uint16, payload []byte) []byte {
	b := []byte{0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1}
	for _, t := range tags {
		b = binary.BigEndian.AppendUint16(b, tpid)
		b = binary.BigEndian.AppendUint16(b, t)
	}
	b = binary.BigEndian.AppendUint16(b, etype)
	return append(b, payload...)
}

func l4(proto uint8, sport, dport uint16) []byte {
	switch proto {
	case 6:
		b := make([]byte, 20)
		binary.BigEndian.PutUint16(b, sport)
		binary.BigEndian.PutUint16(b[2:], dport)
		b[12] = 5 << 4
		return append(b, "payload"...)
	case 17, 132:
		b := make([]byte, 8)
		binary.BigEndian.PutUint16(b, sport)
		binary.BigEndian.PutUint16(b[2:], dport)
		return append(b, "payload"...)
	case 1:
		return []byte{8, 0, 0, 0, 0, 1, 0, 1, 'p', 'i', 'n', 'g'}
	}
	return []byte("opaque payload here")
}

func ipv4(src, dst string, proto uint8, frag uint16, opts bool, payload []byte) []byte {
	ihl := 5
	if opts {
		ihl = 6
	}
	b := make([]byte, ihl*4)
	b[0] = 0x40 | byte(ihl)
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)+len(payload)))
	binary.BigEndian.PutUint16(b[6:], frag)
	b[8] = 64
	b[9] = proto
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	copy(b[12:], s[:])
	copy(b[16:], d[:])
	return append(b, payload...)
}

func ipv6(src, dst string, nxt uint8, fragHdr bool, payload []byte) []byte {
	b := make([]byte, 40)
	b[0] = 0x60
	b[6] = nxt
	b[7] = 64
	s, d := netip.MustParseAddr(src).As16(), netip.MustParseAddr(dst).As16()
	copy(b[8:], s[:])
	copy(b[24:], d[:])
	if fragHdr {
		b[6] = 44
		b = append(b, nxt, 0, 0, 0, 0, 0, 0, 1)
	}
	binary.BigEndian.PutUint16(b[4:], uint16(len(b)-40+len(payload)))
	return append(b, payload...)
}

func arp(sender, target string) []byte {
	b := []byte{0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1}
	s, t := netip.MustParseAddr(sender).As4(), netip.MustParseAddr(target).As4()
	b = append(b, s[:]...)
	b = append(b, 0, 0, 0, 0, 0, 0)
	return append(b, t[:]...)
}

func corpus() []pkt {
	var ps []pkt
	add := func(name string, b []byte) { ps = append(ps, pkt{name, b}) }
	v4 := [][2]string{{"198.51.100.1", "198.51.100.2"}, {"198.51.100.2", "198.51.100.1"}, {"10.1.2.3", "192.0.2.7"}, {"192.0.2.7", "10.200.0.1"}}
	v6 := [][2]string{{"2001:db8::1", "2001:db8::2"}, {"2001:db8:1::2", "2001:db8::1"}, {"fe80::1", "2001:db8:ff::9"}}
	ports := [][2]uint16{{80, 443}, {443, 80}, {7000, 7002}, {7002, 7005}, {7009, 53}, {7010, 6999}, {53, 7001}}
	protos := []uint8{6, 17, 1, 132, 47}
	vl := []struct {
		tags []uint16
		tpid uint16
	}{{nil, 0}, {[]uint16{5}, 0x8100}, {[]uint16{7}, 0x8100}, {[]uint16{5, 7}, 0x8100}, {[]uint16{5}, 0x88a8}}
	for _, v := range vl {
		for i, a := range v4 {
			for _, pr := range protos {
				for j, pt := range ports {
					if pr == 1 || pr == 47 {
						if j > 0 {
							continue
						}
					}
					n := fmt.Sprintf("v%v/%x ip4 %s>%s p%d %d>%d", v.tags, v.tpid, a[0], a[1], pr, pt[0], pt[1])
					add(n, eth(v.tags, v.tpid, 0x0800, ipv4(a[0], a[1], pr, 0, false, l4(pr, pt[0], pt[1]))))
					if i == 0 && (pr == 6 || pr == 17) {
						add(n+" opts", eth(v.tags, v.tpid, 0x0800, ipv4(a[0], a[1], pr, 0, true, l4(pr, pt[0], pt[1]))))
						add(n+" MF", eth(v.tags, v.tpid, 0x0800, ipv4(a[0], a[1], pr, 0x2000, false, l4(pr, pt[0], pt[1]))))
						add(n+" frag185", eth(v.tags, v.tpid, 0x0800, ipv4(a[0], a[1], pr, 185, false, l4(pr, pt[0], pt[1]))))
						add(n+" DF", eth(v.tags, v.tpid, 0x0800, ipv4(a[0], a[1], pr, 0x4000, false, l4(pr, pt[0], pt[1]))))
					}
				}
			}
		}
		for i, a := range v6 {
			for _, pr := range protos {
				for j, pt := range ports {
					if (pr == 1 || pr == 47) && j > 0 {
						continue
					}
					n := fmt.Sprintf("v%v/%x ip6 %s>%s p%d %d>%d", v.tags, v.tpid, a[0], a[1], pr, pt[0], pt[1])
					add(n, eth(v.tags, v.tpid, 0x86dd, ipv6(a[0], a[1], pr, false, l4(pr, pt[0], pt[1]))))
					if i == 0 {
						add(n+" fraghdr", eth(v.tags, v.tpid, 0x86dd, ipv6(a[0], a[1], pr, true, l4(pr, pt[0], pt[1]))))
					}
				}
			}
		}
		add(fmt.Sprintf("v%v arp", v.tags), eth(v.tags, v.tpid, 0x0806, arp("198.51.100.1", "198.51.100.2")))
		add(fmt.Sprintf("v%v arp2", v.tags), eth(v.tags, v.tpid, 0x0806, arp("10.1.2.3", "198.51.100.9")))
		add(fmt.Sprintf("v%v rarp", v.tags), eth(v.tags, v.tpid, 0x8035, arp("192.0.2.7", "198.51.100.2")))
		add(fmt.Sprintf("v%v ether 0x88b5", v.tags), eth(v.tags, v.tpid, 0x88b5, []byte("local experimental ethertype payload....")))
	}
	// Truncated frames: every filter must agree on where loads fall off the end.
	full := eth(nil, 0, 0x0800, ipv4("198.51.100.1", "198.51.100.2", 17, 0, false, l4(17, 7000, 7002)))
	full6 := eth(nil, 0, 0x86dd, ipv6("2001:db8::1", "2001:db8::2", 6, false, l4(6, 80, 443)))
	for _, n := range []int{0, 10, 13, 14, 20, 24, 30, 33, 34, 36, 38} {
		add(fmt.Sprintf("trunc4 %d", n), full[:n])
	}
	for _, n := range []int{21, 40, 54, 55, 56, 58} {
		add(fmt.Sprintf("trunc6 %d", n), full6[:n])
	}
	return ps
}

func find(t *testing.T, ps []pkt, name string) []byte {
	t.Helper()
	for _, p := range ps {
		if p.name == name {
			return p.data
		}
	}
	t.Fatalf("no corpus packet %q", name)
	return nil
}

func run(t *testing.T, insns []bpf.Instruction, data []byte) bool {
	t.Helper()
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatalf("VM: %v", err)
	}
	n, err := vm.Run(data)
	if err != nil {
		t.Fatalf("VM run: %v", err)
	}
	return n > 0
}

// exprs is every supported form, used by the differential test.
var exprs = []string{
	"", "ip", "ip6", "tcp", "udp", "icmp", "not ip", "!tcp",
	"host 198.51.100.1", "src host 198.51.100.1", "dst host 198.51.100.1",
	"src or dst host 10.1.2.3", "src and dst host 198.51.100.1", "ip host 198.51.100.2",
	"host 198.51.100.1 or 10.1.2.3", "ip host 198.51.100.1 or 192.0.2.7", "src 192.0.2.7",
	"net 0.0.0.0/0 or ::/0", "src net ::/0 and udp", "host 2001:db8::1", "src host 2001:db8:1::2", "dst host 2001:db8::1", "ip6 host 2001:db8::2",
	"net 198.51.100.0/24", "net 10.0.0.0/8", "src net 10.1.0.0/16", "dst net 192.0.2.0/24",
	"net 198.51.100.0 mask 255.255.255.0", "net 10.1", "net 10", "net 192.0.2", "ip net 192.0.2.0/25",
	"net 2001:db8::/32", "src net 2001:db8:1::/48", "dst net 2001:db8::/126", "net 0.0.0.0/0",
	"port 80", "port 7002", "src port 443", "dst port 53", "tcp port 80", "udp port 7002", "udp dst port 7005",
	"tcp src port 443", "port 80 or 443", "port 80 and not 443", "udp port 7002 or 7005", "port 0x50",
	"portrange 7000-7009", "udp portrange 7000-7009", "tcp portrange 70-90", "src portrange 7001-7010",
	"dst portrange 7009-7000", "port 6999 or portrange 7010-7020",
	"vlan", "vlan 5", "vlan 7", "vlan and udp", "vlan 5 and udp port 7002", "vlan and vlan 7",
	"vlan and host 198.51.100.1", "udp or vlan", "not vlan and tcp", "vlan 5 and ip6 and port 80",
	"proto 6", "proto 17", "ip proto 1", "ip proto 47", "ip6 proto 17", "ip6 proto 132", "proto 132",
	"ip proto \\tcp", "ether proto 0x800", "ether proto 0x86dd", "ether proto 0x88b5", "ether proto \\arp",
	"ether proto 0x8035", "tcp and port 80", "udp && (port 7002 || port 7000)", "!(udp or tcp)",
	"host 198.51.100.1 and (port 80 or 443)", "host 198.51.100.1 and (port 80) or 198.51.100.2",
	"ip and not icmp", "ip6 or icmp", "(ip or ip6) and not (tcp or udp)", "not not udp",
	"tcp or udp and port 443", "icmp or src net 2001:db8::/32", "not port 80 and not port 443",
	"src host 198.51.100.1 and dst port 7002", "ip6 and src host 2001:db8::1 and tcp dst port 443",
}

func TestDifferentialTcpdump(t *testing.T) {
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("SKIP: tcpdump not installed; the hand-written corpus test still ran (apt-get install tcpdump to compare with libpcap)")
	}
	// A pcap with no packets: tcpdump -r compiles for it without opening a
	// device, so libpcap does not use the Linux-only VLAN extensions.
	empty := filepath.Join(t.TempDir(), "empty.pcap")
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 65535)
	binary.LittleEndian.PutUint32(h[20:], 1)
	if err := os.WriteFile(empty, h[:], 0o644); err != nil {
		t.Fatal(err)
	}
	ps := corpus()
	comparisons, truncOnly := 0, 0
	for _, e := range exprs {
		// Optimised and unoptimised (-O) libpcap programs. They differ only
		// on truncated frames: libpcap's optimiser treats loads as free of
		// side effects and reorders them, so a load past the end can abort
		// one and not the other. rdx keeps libpcap's unoptimised order.
		var refs [2][]bpf.Instruction
		for i, opt := range [][]string{nil, {"-O"}} {
			args := append(append([]string{"-r", empty}, opt...), "-ddd", e)
			out, err := exec.Command(tcpdump, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("tcpdump %q: %v\n%s", args, err, out)
			}
			if refs[i], err = parseDDD(out); err != nil {
				t.Fatalf("tcpdump %q: %v", args, err)
			}
		}
		prog, err := Compile(e, 65535)
		if err != nil {
			t.Errorf("Compile(%q): %v", e, err)
			continue
		}
		bad := 0
		for _, p := range ps {
			opt, unopt, got := run(t, refs[0], p.data), run(t, refs[1], p.data), run(t, prog.Insns, p.data)
			comparisons++
			trunc := strings.HasPrefix(p.name, "trunc")
			switch {
			case got == opt && got == unopt:
			case trunc && (got == unopt || got == opt):
				truncOnly++
			default:
				if bad++; bad <= 5 {
					t.Errorf("%q on %s: libpcap %v (unoptimised %v), rdx %v", e, p.name, opt, unopt, got)
				}
			}
		}
	}
	t.Logf("%d expressions × %d packets = %d comparisons against libpcap; %d truncated-frame decisions agree with only one of optimised/unoptimised libpcap",
		len(exprs), len(ps), comparisons, truncOnly)
}

// parseDDD reads tcpdump -ddd output: a count, then "code jt jf k" lines.
func parseDDD(out []byte) ([]bpf.Instruction, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var raw []bpf.RawInstruction
	for i, l := range lines {
		if strings.HasPrefix(l, "reading from") {
			continue
		}
		f := strings.Fields(l)
		if len(f) == 1 {
			continue // the count
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("line %d: %q", i, l)
		}
		var v [4]uint64
		for j := range f {
			n, err := strconv.ParseUint(f[j], 10, 32)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q", i, l)
			}
			v[j] = n
		}
		raw = append(raw, bpf.RawInstruction{Op: uint16(v[0]), Jt: uint8(v[1]), Jf: uint8(v[2]), K: uint32(v[3])})
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		return nil, fmt.Errorf("cannot disassemble %v", raw)
	}
	return insns, nil
}

// TestCorpus checks decisions written by hand, so the compiler is tested
// even where tcpdump is missing.
func TestCorpus(t *testing.T) {
	ps := corpus()
	const (
		u4    = "v[]/0 ip4 198.51.100.1>198.51.100.2 p17 7000>7002"
		u4opt = u4 + " opts"
		u4mf  = u4 + " MF"
		u4f   = u4 + " frag185"
		t4    = "v[]/0 ip4 198.51.100.1>198.51.100.2 p6 80>443"
		t6    = "v[]/0 ip6 2001:db8::1>2001:db8::2 p6 80>443"
		t6f   = t6 + " fraghdr"
		u6f   = "v[]/0 ip6 2001:db8::1>2001:db8::2 p17 7000>7002 fraghdr"
		ic4   = "v[]/0 ip4 10.1.2.3>192.0.2.7 p1 80>443"
		vu4   = "v[5]/8100 ip4 198.51.100.1>198.51.100.2 p17 7000>7002"
		vvu4  = "v[5 7]/8100 ip4 198.51.100.1>198.51.100.2 p17 7000>7002"
		adu4  = "v[5]/88a8 ip4 198.51.100.1>198.51.100.2 p17 7000>7002"
		ar    = "v[] arp"
		rar   = "v[] rarp"
		sc4   = "v[]/0 ip4 192.0.2.7>10.200.0.1 p132 7009>53"
		gre6  = "v[]/0 ip6 fe80::1>2001:db8:ff::9 p47 80>443"
		exp   = "v[] ether 0x88b5"
		tr34  = "trunc4 34"
	)
	cases := []struct {
		expr, pkt string
		want      bool
	}{
		{"", tr34, true},
		{"udp", u4, true}, {"udp", t4, false}, {"udp", u6f, true}, {"tcp", t6f, true}, {"tcp", u4mf, false},
		{"ip", u4, true}, {"ip", t6, false}, {"ip6", t6, true}, {"icmp", ic4, true}, {"icmp", t4, false},
		{"udp port 7002", u4, true}, {"udp port 7002", u4opt, true}, {"udp port 7002", u4mf, true},
		{"udp port 7002", u4f, false}, {"not udp port 7002", u4f, true}, {"udp port 7002", vu4, false},
		{"udp port 7002", u6f, false}, // libpcap does not look past an IPv6 fragment header for ports
		{"port 80", t6, true}, {"tcp port 80", t6, true}, {"udp port 80", t6, false}, {"port 53", sc4, true},
		{"src port 80", t4, true}, {"dst port 80", t4, false}, {"portrange 7001-7002", u4, true},
		{"portrange 7003-7009", u4, false}, {"src portrange 6000-7000", u4, true},
		{"host 198.51.100.1", u4, true}, {"host 198.51.100.1", ar, true}, {"ip host 198.51.100.1", ar, false},
		{"dst host 198.51.100.1", u4, false}, {"src and dst host 198.51.100.1", u4, false},
		{"host 198.51.100.2", rar, true}, {"src host 198.51.100.2", rar, false},
		{"net 198.51.100.0/24", u4, true}, {"net 198.51.101.0/24", u4, false}, {"net 198.51.100.0 mask 255.255.255.0", t4, true},
		{"host 2001:db8::2", t6, true}, {"src host 2001:db8::2", t6, false}, {"net 2001:db8::/32", t6, true},
		{"net 2001:db8::/32", gre6, true}, {"src net 2001:db8::/32", gre6, false},
		{"vlan", vu4, true}, {"vlan", u4, false}, {"vlan", adu4, true}, {"vlan 5", vu4, true}, {"vlan 7", vu4, false},
		{"vlan and udp port 7002", vu4, true}, {"udp port 7002 and vlan", vu4, false},
		{"vlan 5 and vlan 7 and udp", vvu4, true}, {"vlan 7", vvu4, false}, {"vlan and vlan 7", vvu4, true},
		{"proto 132", sc4, true}, {"ip6 proto 47", gre6, true}, {"ip proto 47", gre6, false}, {"ip6 proto 6", t6f, true},
		{"ether proto 0x88b5", exp, true}, {"ether proto \\ip", u4, true}, {"ether proto \\arp", ar, true},
		{"port 80 or 443", t4, true}, {"port 81 or 443", t4, true}, {"port 81 or 444", t4, false},
		{"icmp or host 10.1.2.3 or 198.51.100.1", u4, true}, {"icmp or host 10.1.2.3 or 192.0.2.8", u4, false}, {"udp or tcp and port 80", u4, false},
		{"port 7000", tr34, false}, {"not port 7000", tr34, false}, {"ip", tr34, true},
	}
	for _, c := range cases {
		prog, err := Compile(c.expr, 65535)
		if err != nil {
			t.Errorf("Compile(%q): %v", c.expr, err)
			continue
		}
		if got := run(t, prog.Insns, find(t, ps, c.pkt)); got != c.want {
			t.Errorf("%q on %s: got %v, want %v", c.expr, c.pkt, got, c.want)
		}
	}
	// Snaplen comes back as the accept value.
	prog, _ := Compile("udp", 96)
	vm, _ := bpf.NewVM(prog.Insns)
	if n, _ := vm.Run(find(t, ps, u4)); n != len(find(t, ps, u4)) && n != 96 {
		t.Errorf("snaplen: Run = %d", n)
	}
	if last := prog.Insns[len(prog.Insns)-2]; last != (bpf.RetConstant{Val: 96}) {
		t.Errorf("accept instruction %v, want ret #96", last)
	}
	if p, _ := Compile("vlan and udp", 0); !p.VLAN {
		t.Error("VLAN not reported")
	}
}

func TestRefused(t *testing.T) {
	cases := []struct{ expr, token string }{
		{"udp[8] = 0", "["}, {"less 100", "less"}, {"greater 60", "greater"}, {"arp", "arp"},
		{"icmp6", "icmp6"}, {"sctp port 9", "sctp"}, {"host example.com", "example.com"},
		{"port http", "http"}, {"ether host 02:00:00:00:00:01", "ether"}, {"ether proto 100", "100"},
		{"port 70000", "70000"}, {"vlan 5000", "5000"}, {"net 10.1.2.3/8", "10.1.2.3/8"},
		{"tcp or 80", "80"}, {"80", "80"}, {"198.51.100.9", "198.51.100.9"}, {"ip port 80", "ip"}, {"len > 60", ">"}, {"host", "host"},
		{"tcp and", ""}, {"(udp", ""}, {"udp)", ")"}, {"host 10.1", "10.1"}, {"gateway 1.2.3.4", "gateway"},
		{"net 10.0.0.0 mask 255.0.255.0", "255.0.255.0"}, {"ip6 host 1.2.3.4", "1.2.3.4"}, {"proto 256", "256"},
		{"tcp proto 6", "tcp"}, {"src proto 6", "src"}, {"broadcast", "broadcast"}, {"port 0b11", "0b11"},
	}
	for _, c := range cases {
		_, err := Compile(c.expr, 0)
		if err == nil {
			t.Errorf("Compile(%q) succeeded, want refusal", c.expr)
			continue
		}
		if c.token != "" && !strings.Contains(err.Error(), strconv.Quote(c.token)) {
			t.Errorf("Compile(%q): %v; want it to name %q", c.expr, err, c.token)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, e := range exprs {
		f.Add(e)
	}
	f.Add("host 1.2.3.4 and (port 80 or (not 443 and 8080))")
	ps := corpus()[:40]
	f.Fuzz(func(t *testing.T, expr string) {
		prog, err := Compile(expr, 65535)
		if err != nil {
			var e *Error
			if !asError(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		vm, err := bpf.NewVM(prog.Insns)
		if err != nil {
			t.Fatalf("%q compiled to an invalid program: %v", expr, err)
		}
		for _, p := range ps {
			if _, err := vm.Run(p.data); err != nil {
				t.Fatal(err)
			}
		}
		raw, _ := bpf.Assemble(prog.Insns)
		if len(raw) != len(prog.Raw) || !bytes.Equal(fmt.Append(nil, raw), fmt.Append(nil, prog.Raw)) {
			t.Fatal("Raw differs from Insns")
		}
	})
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}
