package ib_test

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
)

// refICRC is an independent ICRC: mask a full copy of IP+UDP+IB (octet by
// octet, as the spec's table says) behind 8 octets of 0xFF and run
// crc32.ChecksumIEEE over it.
func refICRC(ipudpib []byte) uint32 {
	b := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ipudpib...)
	ip := b[8:]
	var udp []byte
	if ip[0]>>4 == 4 {
		ip[1], ip[8], ip[10], ip[11] = 0xff, 0xff, 0xff, 0xff
		udp = ip[int(ip[0]&15)*4:]
	} else {
		ip[0] |= 0x0f
		ip[1], ip[2], ip[3], ip[7] = 0xff, 0xff, 0xff, 0xff
		udp = ip[40:]
	}
	udp[6], udp[7] = 0xff, 0xff
	if len(udp) > 12 {
		udp[8+4] = 0xff // BTH octet 4
	}
	return crc32.ChecksumIEEE(b)
}

// roceV2 builds an Ethernet frame carrying ibPkt (BTH..pad) in RoCEv2 over
// IPv4 or IPv6 and appends the reference ICRC (least significant octet first).
func roceV2(v6 bool, tos uint8, ibPkt []byte) []byte {
	udpLen := 8 + len(ibPkt) + 4
	var ipb []byte
	if v6 {
		ipb = binary.BigEndian.AppendUint32(nil, 6<<28|uint32(tos)<<20|0xBEEF)
		ipb = binary.BigEndian.AppendUint16(ipb, uint16(udpLen))
		ipb = append(ipb, 17, 64)
		src := [16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 1}
		dst := [16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 2}
		ipb = append(append(ipb, src[:]...), dst[:]...)
	} else {
		ipb = []byte{0x45, tos, 0, 0, 0x12, 0x34, 0x40, 0, 64, 17, 0xab, 0xcd, 192, 0, 2, 1, 192, 0, 2, 2}
		binary.BigEndian.PutUint16(ipb[2:], uint16(20+udpLen))
	}
	udp := binary.BigEndian.AppendUint16(nil, 0xC123)
	udp = binary.BigEndian.AppendUint16(udp, ib.RoCEv2Port)
	udp = binary.BigEndian.AppendUint16(udp, uint16(udpLen))
	udp = append(udp, 0x55, 0xaa)
	body := append(append(append([]byte(nil), ipb...), udp...), ibPkt...)
	body = binary.LittleEndian.AppendUint32(body, refICRC(body))
	eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
	if v6 {
		eth[12], eth[13] = 0x86, 0xdd
	}
	return append(eth, body...)
}

type synth struct {
	eng  *dissect.Engine
	num  uint64
	tree dissect.Tree
}

func (s *synth) decode(data []byte) (string, *dissect.Frame, map[string]string) {
	s.num++
	f := s.eng.Decode(dissect.Packet{Num: s.num, TimeNS: int64(s.num) * 1000, LinkType: dissect.LinkTypeEthernet, Data: data})
	var sum []byte
	for _, p := range f.PDUs {
		sum = p.Summary(sum)
	}
	s.eng.BuildTree(&s.tree, f)
	m := map[string]string{}
	for i := range s.tree.Nodes {
		n := &s.tree.Nodes[i]
		if n.F != nil {
			m[n.F.Abbrev] = string(dissect.AppendField(nil, n))
		}
	}
	return string(sum), f, m
}

func newSynth() *synth { return &synth{eng: dissect.NewEngine(dissect.Options{})} }

func TestSynthCNP(t *testing.T) {
	s := newSynth()
	bth := (&ib.BTHFields{Opcode: ib.OpCNP, PKey: 0xFFFF, BECN: true, DestQP: 0x118}).Encode(nil)
	pkt := append(bth, make([]byte, 16)...)
	for _, v6 := range []bool{false, true} {
		frame := roceV2(v6, 0xc2, pkt)
		sum, f, m := s.decode(frame)
		if sum != "CNP QP 0x000118 PSN 0 BECN [ICRC ok]" {
			t.Errorf("v6=%v summary %q", v6, sum)
		}
		if len(f.Findings) != 0 || m["infiniband.icrc.status"] != "1" || m["infiniband.bth.becn"] != "1" ||
			m["infiniband.bth.opcode"] != "129" || m["infiniband.cnp.reserved"] == "" {
			t.Errorf("v6=%v findings %v fields %v", v6, f.Findings, m)
		}
		// the ICRC ignores the variant fields: change ECN/TOS, flow label, TTL/hop limit, BECN
		frame[15] ^= 0x03
		if v6 {
			frame[14+7] = 3
		} else {
			frame[14+8] = 3
		}
		frame[len(frame)-4-16-12+4] = 0x80 // FECN instead of BECN
		sum, f, _ = s.decode(frame)
		if !strings.HasSuffix(sum, "FECN [ICRC ok]") {
			t.Errorf("v6=%v variant fields changed: %q", v6, sum)
		}
		if len(f.Findings) != 1 || f.Findings[0].Msg != "CNP without BECN set" {
			t.Errorf("findings %v", f.Findings)
		}
		// an invariant field is covered
		frame[len(frame)-4-16-12+2] ^= 1 // P_Key
		sum, f, _ = s.decode(frame)
		if !strings.Contains(sum, "[ICRC BAD]") || f.Findings[len(f.Findings)-1].Group != dissect.GroupChecksum {
			t.Errorf("v6=%v P_Key changed: %q", v6, sum)
		}
	}
}

func TestSynthIPv6(t *testing.T) {
	s := newSynth()
	pkt := (&ib.BTHFields{Opcode: 0x0B, PKey: 0xFFFF, DestQP: 0x42, PSN: 0xFFFFFF, AckReq: true, PadCnt: 1}).Encode(nil)
	pkt = (&ib.RETHFields{VA: 0x1000, RKey: 0x77, DMALen: 3}).Encode(pkt)
	pkt = (&ib.Uint32Fields{Value: 0xCAFE}).Encode(pkt)
	pkt = append(pkt, 'a', 'b', 'c', 0)
	sum, f, m := s.decode(roceV2(true, 0, pkt))
	want := "RC RDMA WRITE Only with Immediate QP 0x000042 PSN 16777215 AckReq VA 0x1000 R_Key 0x00000077 DMA len 3 Imm 0x0000cafe len 3 [ICRC ok]"
	if sum != want || len(f.Findings) != 0 {
		t.Errorf("summary %q findings %v", sum, f.Findings)
	}
	if m["infiniband.reth.dmalen"] != "3" || m["infiniband.immdt"] != "0x0000cafe" || m["infiniband.payload"] != "616263" ||
		m["infiniband.pad"] != "00" || m["ipv6.src"] == "" {
		t.Errorf("fields %v", m)
	}
	// PSN wraps: the next request at PSN 0 is in order, PSN 2 is a gap, PSN 1 after it a duplicate.
	for i, c := range []struct {
		psn  uint32
		want string
	}{{0, ""}, {2, "PSN gap"}, {1, "duplicate PSN"}, {3, ""}} {
		p := (&ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x42, PSN: c.psn}).Encode(nil)
		sum, f, _ := s.decode(roceV2(true, 0, p))
		got := ""
		for _, fd := range f.Findings {
			got += fd.Msg
			if fd.Group != dissect.GroupSequence {
				t.Errorf("group %v", fd.Group)
			}
		}
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("step %d PSN %d: %q (%s)", i, c.psn, got, sum)
		}
	}
}

func TestSynthAETH(t *testing.T) {
	s := newSynth()
	for _, c := range []struct {
		syn  uint8
		sev  dissect.Severity
		g    dissect.Group
		msg  string
		summ string
		// The low 5 bits under tshark's field name (tshark -G fields):
		// lossy_nfs3_rdma_roce's NAKs are compared with tshark's
		// infiniband.aeth.syndrome.error_code.
		field, val string
	}{
		{0x60 | ib.NAKPSNSeqError, dissect.Warn, dissect.GroupSequence, "NAK: PSN Sequence Error at PSN 9", "NAK PSN Sequence Error MSN 4", "infiniband.aeth.syndrome.error_code", "0"},
		{0x60 | ib.NAKRemoteAccess, dissect.Warn, dissect.GroupProtocol, "NAK: Remote Access Error at PSN 9", "NAK Remote Access Error MSN 4", "infiniband.aeth.syndrome.error_code", "2"},
		{0x20 | 14, dissect.Note, dissect.GroupProtocol, "RNR NAK (receiver not ready), timer code 14, MSN 4", "RNR-NAK timer 14 MSN 4", "infiniband.aeth.syndrome.timer", "14"},
		{0x40, dissect.Warn, dissect.GroupMalformed, "AETH syndrome of reserved type 0x40", "syndrome 0x40 MSN 4", "infiniband.aeth.syndrome", "64"},
		{0x05, 0, 0, "", "ACK credits 6 MSN 4", "infiniband.aeth.syndrome.credit_count", "5"},
	} {
		p := (&ib.BTHFields{Opcode: 0x11, PKey: 0xFFFF, DestQP: 7, PSN: 9}).Encode(nil)
		p = (&ib.AETHFields{Syndrome: c.syn, MSN: 4}).Encode(p)
		sum, f, m := s.decode(roceV2(false, 0, p))
		if !strings.Contains(sum, c.summ) {
			t.Errorf("%#x: summary %q", c.syn, sum)
		}
		if m[c.field] != c.val {
			t.Errorf("%#x: %s = %q, want %q", c.syn, c.field, m[c.field], c.val)
		}
		if c.msg == "" {
			if len(f.Findings) != 0 {
				t.Errorf("%#x: %v", c.syn, f.Findings)
			}
			continue
		}
		if len(f.Findings) != 1 || f.Findings[0].Msg != c.msg || f.Findings[0].Sev != c.sev || f.Findings[0].Group != c.g {
			t.Errorf("%#x: %+v", c.syn, f.Findings)
		}
	}
}

// TestSynthMalformed: BTH and extended headers cut short give one Error
// finding each and no panic; the summary says what is known.
func TestSynthMalformed(t *testing.T) {
	s := newSynth()
	full := (&ib.BTHFields{Opcode: 0x13, PKey: 0xFFFF, DestQP: 7, PSN: 9}).Encode(nil)
	full = (&ib.AtomicETHFields{VA: 8, RKey: 1, SwapAdd: 2, Compare: 3}).Encode(full)
	for n := 0; n < len(full); n++ {
		_, f, m := s.decode(roceV2(false, 0, full[:n]))
		if len(f.Findings) != 1 || f.Findings[0].Group != dissect.GroupMalformed || f.Findings[0].Sev != dissect.Error {
			t.Errorf("len %d: %v", n, f.Findings)
		}
		if m["infiniband.icrc.status"] != "" {
			t.Errorf("len %d: ICRC judged on a malformed packet", n)
		}
	}
	_, f, _ := s.decode(roceV2(false, 0, full))
	if len(f.Findings) != 0 {
		t.Errorf("complete CmpSwap: %v", f.Findings)
	}
}

// TestSynthReadSentAgain: a READ request sent again by go-back-N (the same
// PSN, VA and length) is behind the expected PSN: the summary names the
// PSN expected (it said "PSN expected 0"), for the last READ and for an
// earlier one.
func TestSynthReadSentAgain(t *testing.T) {
	s := newSynth()
	req := func(psn uint32, va uint64) []byte {
		p := (&ib.BTHFields{Opcode: 0x0C, PKey: 0xFFFF, DestQP: 7, PSN: psn}).Encode(nil)
		return roceV2(false, 0, (&ib.RETHFields{VA: va, RKey: 3, DMALen: 20480}).Encode(p))
	}
	s.decode(req(100, 0x10000))
	if sum, _, _ := s.decode(req(100, 0x10000)); !strings.Contains(sum, "[PSN expected 101]") {
		t.Errorf("the last READ again: summary %q", sum)
	}
	s.decode(req(120, 0x15000))
	if sum, _, _ := s.decode(req(100, 0x10000)); !strings.Contains(sum, "[PSN expected 121]") {
		t.Errorf("an earlier READ again: summary %q", sum)
	}
}
