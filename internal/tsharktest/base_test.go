package tsharktest

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// baseLayers are the prefixes of the fields everybody types (issue 14):
// the frame, link, IP and transport layers rdx's engine decodes itself.
var baseLayers = []string{"frame.", "eth.", "vlan.", "ip.", "ipv6.", "udp.", "tcp."}

// baseKnown are the accepted differences with tshark's decode of the base
// layers, each with its reason.
var baseKnown = []Known{
	{Field: "frame.protocols", Reason: "the protocols above the transport differ (each protocol's own tshark test compares them)",
		Match: sameBaseChain},
}

// baseKnownIn are accepted differences of one capture. Only the first is
// tshark's error; the others are rdx gaps, each named with the work that
// would close it.
var baseKnownIn = map[string][]Known{
	// The ERF records carry InfiniBand: rdx counts the 16-octet ERF header
	// in frame.len and keeps microseconds of the ERF timestamp (issue 14,
	// "ERF: frame.len without the ERF header, nanosecond timestamps kept"),
	// shows no erf layer in frame.protocols nor the ERF interface as
	// frame.interface_id, and does not hand IP over InfiniBand datagrams
	// (infiniband_erf.pcap's ARP, IPv4/UDP and ICMPv6 frames) to IP.
	"ib2_erf.pcap":        erfGaps,
	"infiniband_erf.pcap": erfGaps,
	// A fuzzed capture (tcpdump's test suite). Frame 1's UDP length (8093)
	// runs past the datagram: rdx's engine does not decode such a UDP
	// header (a finding says the transport header is bad), tshark shows it
	// with an expert error; so its conversation is not counted and frame
	// 3's udp.stream is one lower. Frame 2's record header says
	// 2078753920 microseconds: tshark prints that as a negative fraction
	// ("00:00:00.-2078753920"), while a pcap record's fraction is below one
	// second (draft-ietf-opsawg-pcap, "Packet Record": microseconds) and
	// rdx carries the excess into the seconds; frame 2 is too short for an
	// Ethernet header, which tshark still names in frame.protocols.
	"the-tcpdump-group+tcpdump__rx_serviceid_oobr.pcap": {
		{Field: "*", Reason: "fuzzed capture: a UDP length past the datagram, a record fraction over one second (tshark prints it negative)",
			Match: func(frame uint64, _, _ string) bool { return frame <= 3 }},
	},
	// ICMPv6 frames: tshark also adds a hidden ip.version (6) in IPv6
	// headers; rdx registers ip.version under IPv4 only.
	"oferby+proxy__roce_icmpv6_arp.pcap": {pcapngIface, ipv6IPVersion},
	"ntop+nDPI__rx.pcap":                 {pcapngIface},
	"rocev1.pcap":                        {pcapngIface},
}

var (
	// pcapngIface: tshark shows frame.interface_id for every pcapng
	// record, rdx only when it is not 0 (a Packet does not say whether its
	// file is pcapng).
	pcapngIface   = Known{Field: "frame.interface_id", Reason: "rdx gap: interface 0 of a pcapng file not shown"}
	ipv6IPVersion = Known{Field: "ip.version", Reason: "rdx gap: no hidden ip.version in IPv6 headers"}
	erfGaps       = []Known{{Field: "*", Reason: "rdx gap: ERF header counted in frame.len, ERF timestamps cut to microseconds, no IP over InfiniBand"}}
)

// sameBaseChain: rdx's and tshark's protocol chains agree up to and including
// the transport (or the last layer rdx's engine decodes), and differ only in
// what comes after.
func sameBaseChain(_ uint64, rdx, tshark string) bool {
	return baseChain(rdx) == baseChain(tshark)
}

func baseChain(chain string) string {
	parts := strings.Split(chain, ":")
	last := 0
	for i, p := range parts {
		switch p {
		case "eth", "ethertype", "vlan", "sll", "null", "ipoib", "ip", "ipv6", "udp", "tcp",
			"ipv6.hopopts", "ipv6.routing", "ipv6.dstopts":
			last = i + 1
		}
	}
	return strings.Join(parts[:last], ":")
}

// TestBaseFieldsMatchTshark compares frame.*, eth.*, vlan.*, ip.*, ipv6.*,
// udp.* and tcp.* with tshark 4.0.17's decode (scripts/base-truth.sh: -2
// -n, every occurrence) on every capture under pcaps/ that has one, frame by
// frame and field by field.
func TestBaseFieldsMatchTshark(t *testing.T) {
	tsvs, err := filepath.Glob("../../pcaps/*.base-fields.tsv.gz")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../pcaps/*/*.base-fields.tsv.gz")
	tsvs = append(tsvs, more...)
	if len(tsvs) < 50 {
		t.Fatalf("only %d stored tshark decodes of the base layers (scripts/base-truth.sh writes them)", len(tsvs))
	}
	total := Result{Known: map[string]int{}, Fields: map[string]bool{}}
	for _, tsv := range tsvs {
		pcap := Capture(t, strings.TrimSuffix(tsv, ".base-fields.tsv.gz"))
		known := append(append([]Known(nil), baseKnown...), baseKnownIn[filepath.Base(pcap)]...)
		res := Compare(t, pcap, tsv, baseLayers, known, DecodeAs(t))
		total.Compared += res.Compared
		total.Equal += res.Equal
		for k, v := range res.Known {
			total.Known[k] += v
		}
		for f := range res.Fields {
			total.Fields[f] = true
		}
	}
	var names []string
	for f := range total.Fields {
		names = append(names, f)
	}
	sort.Strings(names)
	t.Logf("%d captures, %d values compared in %d fields, %d equal; accepted: %v", len(tsvs), total.Compared,
		len(names), total.Equal, total.Known)
	t.Logf("fields compared: %s", strings.Join(names, " "))
}
