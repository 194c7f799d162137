package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// -z help needs no capture file, as tshark's; it lists the whole-capture
// tables and the forms with a parameter.
func TestZHelpWithoutFile(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-z", "help"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"expert", "io,phs", "io,stat,INTERVAL", "endpoints,ip", "endpoints,tcp", "conv,ip", "rpc,srt",
		"endpoints,eth", "conv,eth", "conv,ipv6", "conv,TYPE,FILTER", "endpoints,TYPE,FILTER", "io,stat,INTERVAL,FILTER...",
		"rpc,srt,PROGRAM,VERSION", "io,stat,INTERVAL,plot=FILE", "io,stat,INTERVAL,COUNT|SUM|MIN|MAX|AVG|LOAD(FIELD)FILTER"} {
		if !strings.Contains("\n"+out.String(), "\n"+name+"\n") {
			t.Errorf("-z help lacks %s:\n%s", name, out)
		}
	}
}

// The whole-capture tables on a capture: io,stat and the io,phs levels up
// to rx as tshark prints them (tshark -q -z io,phs -z io,stat,10; tshark's
// afs has 56 frames: its frame.protocols leaves afs out of continuation
// packets), a bad interval and io,stat's FILTER columns refused.
func TestZWholeCaptureTables(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-q", "-z", "io,phs", "-z", "io,stat,10", "-z", "expert", "-z", "endpoints,udp",
		"../../pcaps/rx/cell-bringup.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// numbers are right-aligned (render.Table), so spaces may lead them
	for _, want := range []string{`\| · · · rx +\| +94 \| +9214 \|`, `\| · · · · afs +\| +68 \| +6372 \|`,
		`\| 30 <> Dur +\| +62 \| +5872 \|`, `\| 10 <> 20 +\| +0 \| +0 \|`, "Expert information", `UDP endpoints`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, bad := range []string{"io,stat,x", "io,stat,-1", "io,stat,1,rx.nope", "endpoints,nope", "conv,tcp,tcp.nope==1",
		"conv,bogus,tcp", "io,stat,1,LOAD(tcp.len)tcp", "io,stat,1,MIN(ip.src)ip", "io,stat,0.0000001,LOAD(rpc.time)",
		"io,stat,1,AVG(tcp.len", "io,stat,1,SUM(tcp.flags.str)tcp", "rpc,srt,100003", "rpc,srt,x,3"} {
		io, _, _, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", "-z", bad, "../../pcaps/rx/cell-bringup.pcap"}); code != 2 || !strings.Contains(errOut.String(), bad) {
			t.Errorf("-z %s: exit %d %q", bad, code, errOut)
		}
	}
}

// -z rpc,srt,PROGRAM,VERSION: one program version's procedures with the
// calls tshark counts (tshark -z rpc,srt,100003,3 on this capture: NULL
// 2, GETATTR 9, LOOKUP 23, WRITE 24, COMMIT 1; its READ counts 20, each
// reply twice: see TestRPCSRTOnce), other programs left out; the same with
// -j 2.
func TestZRPCSRTProgram(t *testing.T) {
	for _, j := range []string{"1", "2"} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", "-j", j, "-z", "rpc,srt,100003,3", "../../pcaps/kernel/nfs3_rdma_roce.pcap"}); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{`of NFS version 3`, `\| +0 \| NULL +\| +2 \|`, `\| +1 \| GETATTR +\| +9 \|`,
			`\| +3 \| LOOKUP +\| +23 \|`, `\| +7 \| WRITE +\| +24 \|`, `\| +21 \| COMMIT +\| +1 \|`} {
			if !regexp.MustCompile(want).MatchString(out.String()) {
				t.Errorf("-j %s: no %q in:\n%s", j, want, out)
			}
		}
		if strings.Contains(out.String(), "GETPORT") || strings.Contains(out.String(), "MNT") {
			t.Errorf("-j %s: other programs in:\n%s", j, out)
		}
	}
}

// The -z tables with a FILTER print the same with -j 1 and -j 2 (each
// worker counts its frames, Engine.Merge adds them), with -Y not changing
// them (tshark's tables see every frame), and the Ethernet tables.
func TestZFilteredWorkers(t *testing.T) {
	args := func(j string) []string {
		return []string{"read", "-q", "-j", j, "-Y", "arp", "-z", "conv,tcp,tcp.len>0", "-z", "endpoints,udp,frame.len>100",
			"-z", "conv,ib,infiniband.bth.opcode==4", "-z", "io,stat,0.5,tcp,udp,COUNT(tcp.len)tcp.len>0,SUM(udp.length)udp",
			"-z", "endpoints,eth", "-z", "conv,eth", "../../pcaps/kernel/nfs3_rdma_roce.pcap"}
	}
	var outs []string
	for _, j := range []string{"1", "2"} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, args(j)); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		outs = append(outs, out.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("-j 1 and -j 2 differ:\n%s\n----\n%s", outs[0], outs[1])
	}
	// numbers from tshark -z endpoints,eth and -z io,stat,0.5,...,SUM(udp.length)udp.length>0 on the capture
	for _, want := range []string{"Ethernet endpoints", `Conversations \(ib: InfiniBand QPs, packets\) \(filter: infiniband.bth.opcode==4\)`,
		`\| 0.0 <> 0.5 +\| +22 \| +1820 \| +73 \| +10226 \| +6 \| +7744 \|`,
		`\| 2.5 <> 3.0 +\| +0 \| +0 \| +1148 \| +1063992 \| +0 \| +1024960 \|`,
		`1: Frames \| 1: Bytes \| 2: Frames \| 2: Bytes \| 3: COUNT \| +4: SUM`,
		`\| 52:54:00:00:00:01 \| +4043 \| +3449442 \| +2497 \| +2283822 \| +1546 \| +1165620 \|`} {
		if !regexp.MustCompile(want).MatchString(outs[0]) {
			t.Errorf("no %q in:\n%s", want, outs[0])
		}
	}
	if regexp.MustCompile(`filter: infiniband.bth.opcode==4\)\n\(none\)`).MatchString(outs[0]) {
		t.Errorf("conv,ib with a FILTER counted nothing:\n%s", outs[0])
	}
}

// -z rpc,srt,PROGRAM,VERSION,FILTER counts the replies in the frames FILTER
// matches: tshark -z 'rpc,srt,100003,3,frame.len<200' on this capture has
// exactly these six procedures (NULL 2, GETATTR 9, READDIRPLUS 3, FSSTAT 1,
// FSINFO 4, PATHCONF 2); the same with -j 2 and in two passes (-2).
func TestZRPCSRTFilter(t *testing.T) {
	var outs []string
	for _, args := range [][]string{{"-j", "1"}, {"-j", "2"}, {"-2"}} {
		io, _, out, errOut := iostreams.Test()
		a := append(append([]string{"read", "-q"}, args...), "-z", "rpc,srt,100003,3,frame.len<200", "../../pcaps/kernel/nfs3_rdma_roce.pcap")
		if code := run(io, a); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var rows []string
		for _, m := range regexp.MustCompile(`(?m)^\| +(\d+) \| (\S+) +\| +(\d+) \|`).FindAllStringSubmatch(out.String(), -1) {
			rows = append(rows, m[1]+" "+m[2]+" "+m[3])
		}
		got := strings.Join(rows, ";")
		if want := "0 NULL 2;1 GETATTR 9;17 READDIRPLUS 3;18 FSSTAT 1;19 FSINFO 4;20 PATHCONF 2"; got != want {
			t.Errorf("%v: rows %q, want %q:\n%s", args, got, want, out)
		}
		outs = append(outs, out.String())
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Errorf("-j 1, -j 2 and -2 differ:\n%s\n%s\n%s", outs[0], outs[1], outs[2])
	}
}

// -z io,stat with MIN, MAX, AVG and SUM of a signed field: rx.abort_code
// on this capture is -455, -453, -2, -2 (tshark -T fields). tshark 4.0
// compares signed values as unsigned there and prints MAX 0 and an AVG of
// 4611686018427387676; rdx prints MIN -455, MAX -2, AVG -228 (truncated),
// SUM -912. The same with -j 2.
func TestZIOStatSigned(t *testing.T) {
	for _, j := range []string{"1", "2"} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", "-j", j, "-z",
			"io,stat,0,MIN(rx.abort_code)rx.abort_code,MAX(rx.abort_code)rx.abort_code,AVG(rx.abort_code)rx.abort_code,SUM(rx.abort_code)rx.abort_code",
			"../../pcaps/rx/probe-busy-crafted.pcap"}); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want := `\| 0.000 <> 6.621 \| +-455 \| +-2 \| +-228 \| +-912 \|`
		if !regexp.MustCompile(want).MatchString(out.String()) || !strings.Contains(out.String(), "| 1: MIN | 2: MAX | 3: AVG | 4: SUM |") {
			t.Errorf("-j %s: no %q in:\n%s", j, want, out)
		}
	}
}
