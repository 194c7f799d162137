package tsharktest

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/pipeline"
)

// zstatsTruth parses tshark's stored -z output (scripts/zstats-truth.sh)
// into "table/key" → "numbers": io,phs rows by protocol path
// ("phs/eth/ip/udp" → "808 698838"), endpoint rows by address (and port),
// io,stat,1 rows by interval number.
func zstatsTruth(t *testing.T, r io.Reader) map[string]string {
	out := map[string]string{}
	sec, ioRow := "", 0
	var path []string
	types := map[string]string{"IPv4": "ip", "IPv6": "ipv6", "TCP": "tcp", "UDP": "udp", "Ethernet": "eth"}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Protocol Hierarchy Statistics"):
			sec = "phs"
			continue
		case strings.HasSuffix(line, " Endpoints"):
			sec = "endpoints," + types[strings.Fields(line)[0]]
			continue
		case strings.HasSuffix(line, " Conversations"):
			sec = "conv," + types[strings.Fields(line)[0]]
			continue
		case strings.HasPrefix(line, "Filter:"):
			if f := strings.TrimPrefix(line, "Filter:"); f != "<No Filter>" && sec != "" {
				sec += "," + f
			}
			continue
		case strings.HasPrefix(line, "| IO Statistics"):
			sec, ioRow = "io", 0
			continue
		case sec == "io" && strings.HasPrefix(line, "| Col 1: ") && !strings.Contains(line, "Frames and bytes"):
			sec = "iof" // the io,stat with FILTER columns
			continue
		case strings.HasPrefix(line, "====="):
			if sec != "io" && sec != "iof" {
				sec = ""
			}
			continue
		}
		f := strings.Fields(line)
		switch {
		case sec == "phs" && len(f) == 3 && strings.HasPrefix(f[1], "frames:"):
			depth := (len(line) - len(strings.TrimLeft(line, " "))) / 2
			path = append(path[:min(depth, len(path))], f[0])
			out["phs/"+strings.Join(path, "/")] = strings.TrimPrefix(f[1], "frames:") + " " + strings.TrimPrefix(f[2], "bytes:")
		case strings.HasPrefix(sec, "endpoints") && (len(f) == 7 || len(f) == 8) && !strings.HasPrefix(line, " "):
			n := len(f) - 6
			out[sec+"/"+strings.Join(f[:n], " ")] = strings.Join(f[n:], " ")
		case strings.HasPrefix(sec, "conv") && len(f) == 14 && f[1] == "<->":
			// tshark's "<-" columns are B to A, "->" A to B; sizes as format_size
			a, b := f[0], f[2]
			ab, ba := f[6]+" "+f[7]+" "+f[8], f[3]+" "+f[4]+" "+f[5]
			if b < a {
				a, b, ab, ba = b, a, ba, ab
			}
			out[sec+"/"+a+" <-> "+b] = ab + " " + ba
		case (sec == "io" || sec == "iof") && strings.Contains(line, "<>"):
			var cells []string
			for _, c := range strings.Split(line, "|")[2:] {
				if c = strings.TrimSpace(c); c != "" {
					cells = append(cells, c)
				}
			}
			if len(cells) >= 2 {
				out[sec+"/"+pipelineItoa(ioRow)] = strings.Join(cells, " ")
				ioRow++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tsSize formats an octet count as tshark 4.0's conversation tables do
// (format_size, SI prefixes, truncated).
func tsSize(s string) string {
	n, err := strconv.ParseUint(s, 10, 64)
	switch {
	case err != nil:
		return s
	case n >= 10_000_000:
		return strconv.FormatUint(n/1_000_000, 10) + " MB"
	case n >= 10_000:
		return strconv.FormatUint(n/1000, 10) + " kB"
	}
	return s + " bytes"
}

func pipelineItoa(i int) string { return itoa(i) }

// zTable is the table part of a zstatsTruth key.
// zTable is the table part of a zstatsTruth key, without the FILTER: the
// known differences are by table kind (io for the io,stat with FILTER
// columns too).
func zTable(k string) string {
	t, _, _ := strings.Cut(k, "/")
	if t == "iof" {
		return "io"
	}
	if p := strings.SplitN(t, ",", 3); len(p) == 3 {
		return p[0] + "," + p[1]
	}
	return t
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// zstatsRdx runs rdx's tables on capture and keys them as zstatsTruth does.
func zstatsRdx(t *testing.T, capture string, workers int) map[string]string {
	names := []string{"io,phs", "endpoints,ip", "endpoints,ipv6", "endpoints,tcp", "endpoints,udp", "io,stat,1",
		"endpoints,eth", "conv,eth", "conv,ip", "conv,ipv6", "conv,tcp", "conv,udp",
		"conv,tcp,tcp.len>0", "endpoints,udp,frame.len>100", "conv,ip,ip.ttl<64", ioFiltered}
	res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: capture}, Quiet: true, Stats: names,
		Out: io.Discard, Workers: workers})
	if err != nil && res.Engine == nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, z := range names {
		tab := res.Engine.Stat(z)
		var path []string
		for i, r := range tab.Rows {
			switch {
			case z == "io,phs":
				depth := strings.Count(r[0], "· ")
				path = append(path[:min(depth, len(path))], strings.TrimLeft(r[0], "· "))
				out["phs/"+strings.Join(path, "/")] = r[1] + " " + r[2]
			case z == "io,stat,1":
				out["io/"+itoa(i)] = r[1] + " " + r[2]
			case z == ioFiltered:
				out["iof/"+itoa(i)] = strings.Join(r[1:], " ")
			case strings.HasPrefix(z, "conv,"):
				unbracket := strings.NewReplacer("[", "", "]", "") // tshark: 2001:db8::1:40123
				// ordered as zstatsTruth orders tshark's ends: by their text
				a, b := unbracket.Replace(r[0]), unbracket.Replace(r[1])
				ab, ba := r[2]+" "+tsSize(r[3]), r[4]+" "+tsSize(r[5])
				if b < a {
					a, b, ab, ba = b, a, ba, ab
				}
				out[z+"/"+a+" <-> "+b] = ab + " " + ba
			case strings.HasPrefix(z, "endpoints,tcp") || strings.HasPrefix(z, "endpoints,udp"):
				out[z+"/"+r[0]+" "+r[1]] = strings.Join(r[2:], " ")
			default:
				out[z+"/"+r[0]] = strings.Join(r[1:], " ")
			}
		}
	}
	return out
}

// ioFiltered is the io,stat with FILTER columns scripts/zstats-truth.sh asks
// tshark for.
const ioFiltered = "io,stat,1,tcp,udp,COUNT(tcp.len)tcp.len>0,SUM(udp.length)udp.length>0"

// phsBase: protocol levels up to the transport, which rdx's engine decodes
// itself; above them the hierarchy is frame.protocols', where rdx and
// tshark differ by design (TestBaseFieldsMatchTshark's sameBaseChain).
var phsBase = map[string]bool{"eth": true, "vlan": true, "sll": true, "null": true, "ipoib": true, "ip": true,
	"ipv6": true, "udp": true, "tcp": true, "arp": true}

// zstatsKnown are the differences from tshark's tables, by capture and
// table, with the reason.
var zstatsKnown = map[string]string{
	"ajbanjara+Wireshark-wiki__afs.cap.gz endpoints,udp":       "IP fragments: tshark counts every fragment of a reassembled datagram for its UDP ports, rdx (conv,udp too) only the frame with the UDP header",
	"public_the-tcpdump-group+tcpdump__afs.pcap endpoints,udp": "IP fragments: tshark counts every fragment of a reassembled datagram for its UDP ports, rdx (conv,udp too) only the frame with the UDP header",
	"crafted_base_fields.pcap endpoints,udp":                   "crafted UDP frames the engine counts in no UDP conversation (conv,udp neither): not yet looked into",
	"crafted_base_fields.pcap conv,udp":                        "crafted UDP frames the engine counts in no UDP conversation (endpoints,udp neither): not yet looked into",
	"crafted_base_fields.pcap conv,tcp":                        "crafted TCP frames tshark counts in no TCP conversation (its endpoints,tcp does): not yet looked into",
	"ajbanjara+Wireshark-wiki__afs.cap.gz conv,udp":            "IP fragments: tshark counts every fragment of a reassembled datagram for its UDP ports, rdx only the frame with the UDP header",
	"public_the-tcpdump-group+tcpdump__afs.pcap conv,udp":      "IP fragments: tshark counts every fragment of a reassembled datagram for its UDP ports, rdx only the frame with the UDP header",
	"public_the-tcpdump-group+tcpdump__rx_ubik-oobr.pcap io":   "a capture of one frame (duration 0): tshark prints no interval, rdx one row with the frame",
}

// TestZStatsMatchTshark compares rdx's -z io,phs, endpoints,eth|ip|ipv6|tcp|udp,
// conv,eth|ip|ipv6|tcp|udp, io,stat,1 and the forms with a FILTER
// (conv,tcp,FILTER, endpoints,udp,FILTER, conv,ip,FILTER and io,stat,1 with
// FILTER, COUNT(FIELD)FILTER and SUM(FIELD)FILTER columns) with tshark 4.0.17's (scripts/zstats-truth.sh) on every
// capture under pcaps/ tshark could read (the rx_serviceid_oobr capture
// spans 68 years: tshark's io,stat,1 runs out of memory on it), number by
// number, with -j 1 and -j 2. Protocol hierarchy levels above the
// transport may differ where frame.protocols does (see phsBase); every
// other difference fails.
func TestZStatsMatchTshark(t *testing.T) {
	truths, err := filepath.Glob("testdata/zstats/*.txt")
	if err != nil || len(truths) < 50 {
		t.Fatalf("stored tshark -z outputs: %d, %v", len(truths), err)
	}
	compared, upper := 0, 0
	known := map[string]int{}
	for _, tf := range truths {
		name := strings.TrimSuffix(filepath.Base(tf), ".txt")
		capture := filepath.Join("../../pcaps", strings.Replace(name, "_", "/", 1))
		if _, err := os.Stat(capture); err != nil {
			capture = filepath.Join("../../pcaps", name)
		}
		fh, err := os.Open(tf)
		if err != nil {
			t.Fatal(err)
		}
		want := zstatsTruth(t, fh)
		fh.Close()
		for _, w := range []int{1, 2} {
			got := zstatsRdx(t, capture, w)
			for k, v := range want {
				base := true
				if p, ok := strings.CutPrefix(k, "phs/"); ok {
					for _, proto := range strings.Split(p, "/") {
						base = base && phsBase[proto]
					}
				}
				switch {
				case got[k] == v:
					compared++
				case !base:
					upper++
				case zstatsKnown[name+" "+zTable(k)] != "":
					known[name+" "+zTable(k)]++
				default:
					t.Errorf("%s -j %d: %s: rdx %q, tshark %q", name, w, k, got[k], v)
				}
			}
			for k, v := range got {
				if _, ok := want[k]; ok || strings.HasPrefix(k, "phs/") {
					continue
				}
				if zstatsKnown[name+" "+zTable(k)] != "" {
					known[name+" "+zTable(k)]++
				} else {
					t.Errorf("%s -j %d: %s: rdx %q, tshark has no such row", name, w, k, v)
				}
			}
		}
	}
	t.Logf("%d rows equal; %d protocol hierarchy rows above the transport differ", compared, upper)
	for k, n := range known {
		t.Logf("%s: %d rows differ: %s", k, n, zstatsKnown[k])
	}
	for k := range zstatsKnown {
		if known[k] == 0 {
			t.Errorf("%s: listed as a known difference but equal to tshark now: remove it", k)
		}
	}
	if compared < 500 {
		t.Errorf("only %d rows compared", compared)
	}
}
