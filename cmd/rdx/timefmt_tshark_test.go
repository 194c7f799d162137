package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// timeCaptures are real captures of every timestamp kind: microsecond pcap,
// nanosecond pcap, pcapng, 129 s (hms with minutes). Known differences,
// not compared:
//   - pcaps/ib/*_erf.pcap: tshark takes an ERF record's own nanosecond
//     timestamp (and 9 decimals); rdx's reader keeps the pcap record's
//     microseconds (issue 14's "ERF: nanosecond timestamps kept").
//   - pcaps/the-tcpdump-group+tcpdump__rx_serviceid_oobr.pcap: a fuzzed
//     record header with microseconds out of range; tshark prints them raw
//     ("00:00:00.-2078753"), rdx's reader carries them into the seconds.
var timeCaptures = []string{
	"../../pcaps/rx/bos-queries.pcap",
	"../../pcaps/rdp/lossy.pcap",
	"../../pcaps/ntop+nDPI__rx.pcap",
	"../../pcaps/public/the-tcpdump-group+tcpdump__afs.pcap",
}

// TestTimeFormatsTshark runs every -t format (and -u hms) under tshark and
// rdx on the captures above and wants the same Time column, frame by frame,
// also for -t dd with a display filter hiding frames. Local times use
// America/New_York in both (TZ for tshark, time.Local for rdx).
func TestTimeFormatsTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("SKIPPED: tshark is not installed, so rdx's -t formats are NOT compared with tshark's")
	}
	zone := "America/New_York"
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Logf("no tzdata (%v): local times compared in UTC", err)
		zone, loc = "UTC", time.UTC
	}
	saved := time.Local
	time.Local = loc
	defer func() { time.Local = saved }()

	type variant struct{ args, targs []string }
	var vs []variant
	for _, f := range []string{"r", "a", "ad", "adoy", "d", "dd", "e", "u", "ud", "udoy"} {
		vs = append(vs, variant{[]string{"-t", f}, []string{"-t", f}})
	}
	vs = append(vs,
		variant{[]string{"-u", "hms"}, []string{"-u", "hms"}},
		variant{[]string{"-t", "d", "-u", "hms"}, []string{"-t", "d", "-u", "hms"}},
		// frames up to 90 octets hidden: dd counts from the previous shown one
		variant{[]string{"-t", "dd", "-Y", "frame.len > 90"}, []string{"-t", "dd", "-Y", "frame.len > 90"}},
		variant{[]string{"-t", "dd", "-Y", "frame.len > 90", "-j", "2"}, []string{"-t", "dd", "-Y", "frame.len > 90"}})
	compared := 0
	for _, c := range timeCaptures {
		for _, v := range vs {
			name := c[strings.LastIndex(c, "/")+1:] + " " + strings.Join(v.args, " ")
			cmd := exec.Command(tshark, append([]string{"-r", c, "-T", "fields", "-e", "frame.number", "-e", "_ws.col.Time"}, v.targs...)...)
			cmd.Env = append(cmd.Environ(), "TZ="+zone)
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: tshark: %v", name, err)
			}
			io, _, out, errOut := iostreams.Test()
			args := append([]string{"read", "-r", c, "-T", "fields", "-e", "frame.number", "-e", "_ws.col.Time"}, v.args...)
			if code := run(io, args); code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, errOut)
			}
			if out.String() != string(want) {
				t.Errorf("%s: Time column differs from tshark's\n%s", name, firstDiff(out.String(), string(want)))
				continue
			}
			compared += strings.Count(out.String(), "\n")
		}
	}
	if compared == 0 {
		t.Fatal("compared no frames")
	}
	t.Logf("%d Time columns equal to tshark's", compared)
}
