package replay

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/inet"
)

// sums is an independent check of a frame's checksums, written apart from
// the rewriter's locate: the IPv4 header checksum, and the TCP, UDP or
// ICMPv6 checksum and RoCEv2 ICRC of a whole, unfragmented datagram with
// no IPv6 extension headers and no IPv4 source route. known is false for
// anything else.
type sums struct {
	known, ip, l4, roce, icrc bool
}

func verify(b []byte) (s sums) {
	if len(b) < 14 {
		return
	}
	off := 12
	et := binary.BigEndian.Uint16(b[off:])
	for (et == 0x8100 || et == 0x88a8 || et == 0x9100) && len(b) >= off+6 {
		off += 4
		et = binary.BigEndian.Uint16(b[off:])
	}
	off += 2
	var ip, seg []byte
	var pseudo uint32
	var proto byte
	switch et {
	case 0x0800:
		if len(b) < off+20 || b[off]>>4 != 4 {
			return
		}
		ihl := int(b[off]&15) * 4
		tl := int(binary.BigEndian.Uint16(b[off+2:]))
		if ihl < 20 || tl < ihl || off+tl > len(b) || binary.BigEndian.Uint16(b[off+6:])&0x3fff != 0 {
			return
		}
		for o := off + 20; o < off+ihl; {
			if b[o] == 0 {
				break
			}
			if b[o] == 1 {
				o++
				continue
			}
			if o+1 >= off+ihl || b[o+1] < 2 || b[o] == 131 || b[o] == 137 {
				return
			}
			o += int(b[o+1])
		}
		ip, proto = b[off:off+ihl], b[off+9]
		s.ip = inet.Fold(inet.Sum(0, ip)) == 0xffff
		seg = b[off+ihl : off+tl]
		pseudo = inet.Sum(0, ip[12:20])
	case 0x86dd:
		if len(b) < off+40 || b[off]>>4 != 6 {
			return
		}
		pl := int(binary.BigEndian.Uint16(b[off+4:]))
		if off+40+pl > len(b) {
			return
		}
		ip, proto = b[off:off+40], b[off+6]
		s.ip = true
		seg = b[off+40 : off+40+pl]
		pseudo = inet.Sum(0, ip[8:40])
	default:
		return
	}
	switch {
	case proto == 6 && len(seg) >= 20:
	case proto == 17 && len(seg) >= 8:
		ul := int(binary.BigEndian.Uint16(seg[4:]))
		if ul < 8 || ul > len(seg) {
			return
		}
		seg = seg[:ul]
	case proto == 58 && len(ip) == 40 && len(seg) >= 4:
	default:
		return
	}
	s.known = true
	if proto == 17 && len(ip) != 40 && binary.BigEndian.Uint16(seg[6:]) == 0 {
		s.l4 = true // no checksum
	} else {
		s.l4 = inet.Fold(inet.Sum(pseudo+uint32(proto)+uint32(len(seg)), seg)) == 0xffff
	}
	if proto == 17 && binary.BigEndian.Uint16(seg[2:]) == 4791 && len(seg) >= 8+ib.BTHLen+4 {
		s.roce = true
		crc, ok := ib.ICRCRoCEv2(ip, seg[:8], seg[8:len(seg)-4])
		s.icrc = ok && crc == binary.LittleEndian.Uint32(seg[len(seg)-4:])
	}
	return
}

// fixAll makes a crafted frame's checksums right (the rewriter's own fix,
// with no rule applied), so tests start from valid frames.
func fixAll(t *testing.T, b []byte) []byte {
	t.Helper()
	f := locate(b)
	if f.ipv == 4 {
		fixIPv4(b[f.l3:])
	}
	if f.l4 >= 0 && f.l4Whole && f.bad == OK {
		if f.proto == 17 {
			b[f.l4+6] = 1 // a non-zero checksum, so it is computed
		}
		fixL4(f)
	}
	if v := verify(b); !v.known || !v.ip || !v.l4 || v.roce && !v.icrc {
		t.Fatalf("bad test frame %x: %+v", b, v)
	}
	return b
}

func udpHdr(sport, dport uint16, payload int) []byte {
	u := make([]byte, 8+payload)
	binary.BigEndian.PutUint16(u, sport)
	binary.BigEndian.PutUint16(u[2:], dport)
	binary.BigEndian.PutUint16(u[4:], uint16(len(u)))
	return u
}

func ethIPv6(nh byte, l4 []byte) []byte {
	b := make([]byte, 14+40)
	b[12], b[13] = 0x86, 0xdd
	ip := b[14:]
	ip[0] = 0x60
	binary.BigEndian.PutUint16(ip[4:], uint16(len(l4)))
	ip[6], ip[7] = nh, 64
	ip[8], ip[9], ip[23] = 0x20, 0x01, 1
	ip[24], ip[25], ip[39] = 0x20, 0x01, 2
	return append(b, l4...)
}

func roce(payload int) []byte {
	u := udpHdr(49152, 4791, ib.BTHLen+payload+4)
	u[8] = 0x04 // RC SEND only
	return u
}

// TestRewriteUnfixable: frames whose checksums the rewriter cannot fix are
// left untouched and the reason given (before, several of them panicked:
// fixL4 sliced b[l4:l3End] with the IP length short of the UDP header).
func TestRewriteUnfixable(t *testing.T) {
	all := mustRewrites(t, "ip.src=198.51.100.1", "ipv6.dst=2001:db8::9", "udp.srcport=7000")
	set16 := func(b []byte, off int, v uint16) []byte { binary.BigEndian.PutUint16(b[off:], v); return b }
	lsrr := func() []byte {
		b := ethIPv4(17, udpHdr(1, 2, 4))
		// An IHL of 8: the header grows by an LSRR option (3+4 octets) and a pad.
		opt := []byte{131, 7, 4, 198, 51, 100, 9, 0, 0, 0, 0, 0}
		b = append(b[:34], append(opt, b[34:]...)...)
		b[14] = 0x48
		set16(b, 16, uint16(32+12))
		return b
	}
	cases := []struct {
		name  string
		frame []byte
		want  Reason
	}{
		{"short frame", make([]byte, 10), ShortFrame},
		{"IPv4 length short of the UDP header", set16(ethIPv4(17, udpHdr(1, 2, 0)), 16, 24), L4Cut},
		{"IPv4 length below its IHL", set16(ethIPv4(17, udpHdr(1, 2, 0)), 16, 10), L4Cut},
		{"IPv4 TCP length short of the header", set16(ethIPv4(6, make([]byte, 20)), 16, 30), L4Cut},
		{"IPv6 payload length short of the UDP header", set16(ethIPv6(17, udpHdr(1, 2, 0)), 18, 4), L4Cut},
		{"IPv6 payload length 0 (jumbogram)", set16(ethIPv6(17, udpHdr(1, 2, 0)), 18, 0), L4Cut},
		{"IPv4 IHL beyond the frame", func() []byte { b := ethIPv4(17, nil); b[14] = 0x4f; return b }(), BadIPHeader},
		{"IPv4 header cut", ethIPv4(17, nil)[:30], BadIPHeader},
		{"IPv6 header cut", ethIPv6(17, nil)[:50], BadIPHeader},
		{"IPv4 snapped inside the UDP header", ethIPv4(17, udpHdr(1, 2, 100))[:38], L4Cut},
		{"VLAN, then a cut IPv4 header", append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x81, 0, 0, 5}, ethIPv4(17, nil)[12:28]...), BadIPHeader},
		{"UDP length beyond the IP packet", set16(ethIPv4(17, udpHdr(1, 2, 4)), 38, 40), BadUDPLength},
		{"UDP length below 8", set16(ethIPv4(17, udpHdr(1, 2, 4)), 38, 3), BadUDPLength},
		{"RoCEv2 cut by the snapshot length", ethIPv4(17, roce(64))[:80], PartialRoCE},
		{"RoCEv2 too short for an ICRC", ethIPv4(17, udpHdr(1, 4791, 6)), PartialRoCE},
		{"IPv4 loose source route", lsrr(), SourceRoute},
		{"IPv6 routing header with segments left", ethIPv6(43, append([]byte{17, 2, 0, 1, 0, 0, 0, 0}, append(make([]byte, 16), udpHdr(1, 2, 4)...)...)), SourceRoute},
		{"IPv6 ESP", ethIPv6(50, make([]byte, 32)), IPsec},
		{"IPv4 AH", ethIPv4(51, make([]byte, 24)), IPsec},
		{"IPv6 extension chain cut", ethIPv6(0, []byte{17, 0, 0, 0}), L4Cut},
		{"IPv6 extension chain too long", ethIPv6(60, bytes.Repeat([]byte{60, 0, 0, 0, 0, 0, 0, 0}, 10)), BadIPHeader},
	}
	for _, c := range cases {
		b := append([]byte(nil), c.frame...)
		changed, why := Apply(all, b)
		if why != c.want || changed || !bytes.Equal(b, c.frame) {
			t.Errorf("%s: Apply = %v, %v (changed bytes: %v); want %v and the frame untouched", c.name, changed, why, !bytes.Equal(b, c.frame), c.want)
		}
		_ = Summary(b) // must not panic either
	}
	// --dry-run goes through Run and Summary: every frame is skipped and
	// counted, none panics.
	path := filepath.Join(t.TempDir(), "bad.pcap")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := capture.NewPcapWriter(fh, capture.LinkEthernet, 65535, true)
	for i, c := range cases {
		pw.WritePacket(&capture.Packet{Data: c.frame, TimeNS: int64(i) * 1000})
	}
	fh.Close()
	open := func() (capture.Source, error) { return capture.Open(path) }
	var lines []string
	st, err := Run(open, DryRun{}, Options{TopSpeed: true, Rewrites: all}, func(n uint64, _ time.Duration, b []byte, why Reason) {
		lines = append(lines, why.String()+" "+Summary(b))
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Reason]uint64{}
	for _, c := range cases {
		want[c.want]++
	}
	for r := range NumReasons {
		if st.Skipped[r] != want[r] {
			t.Errorf("skipped for %q: %d, want %d", r, st.Skipped[r], want[r])
		}
	}
	if st.Packets != 0 || st.SkippedTotal() != uint64(len(cases)) || len(lines) != len(cases) {
		t.Errorf("sent %d, skipped %d, %d lines; want 0, %d, %d", st.Packets, st.SkippedTotal(), len(lines), len(cases), len(cases))
	}
}

// The fixable relatives of the frames above: checksums right before are
// right after.
func TestRewriteFixable(t *testing.T) {
	rs := mustRewrites(t, "ip.src=198.51.100.1", "ipv6.src=2001:db8::7", "ipv6.dst=2001:db8::9", "udp.srcport=7000")
	vlan := func(b []byte) []byte {
		return append(append(append([]byte(nil), b[:12]...), 0x81, 0, 0, 5), b[12:]...)
	}
	cases := map[string][]byte{
		"IPv4 UDP":                       ethIPv4(17, udpHdr(1, 2, 10)),
		"IPv4 UDP with Ethernet padding": append(ethIPv4(17, udpHdr(1, 2, 1)), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		"IPv4 TCP":                       ethIPv4(6, append([]byte{0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x50}, make([]byte, 11)...)),
		"VLAN IPv4 UDP":                  vlan(ethIPv4(17, udpHdr(1, 2, 10))),
		"IPv4 RoCEv2":                    ethIPv4(17, roce(32)),
		"IPv6 UDP":                       ethIPv6(17, udpHdr(1, 2, 9)),
		"IPv6 RoCEv2":                    ethIPv6(17, roce(16)),
		"IPv6 ICMPv6 echo":               ethIPv6(58, []byte{128, 0, 0, 0, 0, 1, 0, 1, 'h', 'i'}),
	}
	for name, b := range cases {
		b = fixAll(t, b)
		if _, why := Apply(rs, b); why != OK {
			t.Errorf("%s: %v", name, why)
			continue
		}
		if v := verify(b); !v.ip || !v.l4 || v.roce && !v.icrc {
			t.Errorf("%s: checksums after the rewrite: %+v", name, v)
		}
	}
	// IPv6 with a hop-by-hop header: the rewriter walks it to the UDP
	// header (verify does not, so check by hand).
	b := ethIPv6(0, append([]byte{17, 0, 1, 4, 0, 0, 0, 0}, udpHdr(1, 2, 6)...))
	b[14+40+8+6] = 0x55
	if _, why := Apply(rs, b); why != OK {
		t.Fatal(why)
	}
	seg := b[14+48:]
	if s := inet.Sum(0, b[22:54]) + 17 + uint32(len(seg)); !valid(s, seg) || binary.BigEndian.Uint16(seg) != 7000 {
		t.Errorf("UDP after a hop-by-hop header not fixed: %x", seg)
	}
}
