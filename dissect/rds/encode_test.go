package rds

import "testing"

func TestProbeExtRoundTrip(t *testing.T) {
	for _, c := range []struct {
		n   uint16
		gen uint32
	}{{8, 0x5eed0001}, {1, 0}, {3, 7}} {
		f := HeaderFields{Sport: ProbePort, Ext: ProbeExt(c.n, c.gen)}
		h := Header(f.Encode(nil))
		if n, g := h.Handshake(); n != c.n || g != c.gen {
			t.Errorf("ProbeExt(%d,%#x) reads back %d,%#x", c.n, c.gen, n, g)
		}
		if !h.IsProbe() || h.IsProbePong() || h.Check() != 0 {
			t.Errorf("probe header: IsProbe %v IsProbePong %v problems %#x", h.IsProbe(), h.IsProbePong(), h.Check())
		}
	}
	// the Linux 6.1 probe of pcaps/kernel/rds_tcp.pcap: NPATHS 8 alone
	if e := ProbeExt(8, 0); e != [ExtLen]byte{ExtNPaths, 0, 8} {
		t.Errorf("ProbeExt(8, 0) = % x", e)
	}
}

func TestCongSet(t *testing.T) {
	m := make([]byte, CongMapLen)
	CongSet(m, 4001, true)
	CongSet(m, 65535, true)
	// port 4001: word 62 (octets 496-503), bit 33 -> octet 500, bit 1
	if m[500] != 0x02 || m[CongMapLen-1] != 0x80 || !CongIsSet(m, 4001) || CongIsSet(m, 4000) {
		t.Fatalf("bits: m[500]=%#x m[last]=%#x", m[500], m[CongMapLen-1])
	}
	CongSet(m, 4001, false)
	if CongIsSet(m, 4001) || m[500] != 0 {
		t.Fatal("CongSet off left the bit set")
	}
}
