package main

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rdx tables lists every table with its keys, heuristics and decode-as
// candidates, and -d help on every decoding verb prints the same without a
// capture.
func TestTablesVerb(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"tables"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	list := out.String()
	for _, want := range []string{
		"# rx.service\tRx service ID (call data)\t16-bit keys\n",
		"udp.port\t7000-7009\trx\n",
		"tcp.port\t16385\trds\n",
		"tcp.port\theuristic\tmpa\ntcp.port\theuristic\trpc\ntcp.port\theuristic\trds\n",
		"ethertype\t0x8915\tinfiniband\n",
		"ip.proto\t27\trdp\n",
		"wtap_encap\t247\tinfiniband\n",
		"infiniband.destqp\theuristic\tibcm\ninfiniband.destqp\theuristic\trds\ninfiniband.destqp\theuristic\trpcordma\n",
		"infiniband.destqp\tdecode-as\trpcordma\n",
		"iwarp_mpa.ulpdu\theuristic\tiwarp_ddp_rdmap\n",
		"iwarp_ddp.untagged\theuristic\trpcordma\n",
		"iwarp_ddp.tagged\theuristic\trpcordma\n",
		"rpcordma.message\theuristic\trpc\n",
		"rx.service\theuristic\tafs\n",
		"rx.service\tdecode-as\tafs_vl\n",
		"rx.abort_code\theuristic\tafs\n",
		"ibcm.service_id\t0x1064001\trds\n",
	} {
		if !strings.Contains(list, want) {
			t.Errorf("rdx tables lacks %q", want)
		}
	}
	for _, verb := range []string{"read", "check", "stats", "flows"} {
		io, _, out, errOut = iostreams.Test()
		if code := run(io, []string{verb, "-d", "help"}); code != 0 {
			t.Fatalf("%s -d help: exit %d: %s", verb, code, errOut)
		}
		if out.String() != list {
			t.Errorf("%s -d help differs from rdx tables:\n%s", verb, out)
		}
	}
}

// -d rx.service==ID,afs_X makes AFS decode the calls of a service ID as
// service X: the PT calls of pts-ops.pcap (service 73) read as VL calls.
func TestDecodeAsRxService(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "AFS PR NewEntry request"},
		{[]string{"-d", "rx.service==73,afs_vl"}, "AFS VL ReleaseLock request"},
	} {
		io, _, out, errOut := iostreams.Test()
		args := append(append([]string{"read", "-c", "1"}, tc.args...), "../../pcaps/rx/pts-ops.pcap")
		if code := run(io, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: want %q in\n%s", args, tc.want, out)
		}
	}
}

// A rule naming an unknown table, a protocol the table does not offer or a
// key wider than the table's is a usage error that says what is known.
func TestDecodeAsErrors(t *testing.T) {
	for _, tc := range []struct{ rule, want string }{
		{"nosuch.table==1,rx", `unknown table "nosuch.table" (known: ethertype, ibcm.service_id, infiniband.destqp`},
		{"rx.service==52,rx", `unknown protocol "rx" for rx.service (known: afs_bos,`},
		{"rx.service==65536,afs_vl", `bad key "65536" (16 bits`},
		{"infiniband.destqp==0x1000000,rpcordma", `bad key "0x1000000" (24 bits`},
	} {
		io, _, _, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-d", tc.rule, "../../pcaps/rx/pts-ops.pcap"}); code != exitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("-d %s: exit %d, %q; want usage error with %q", tc.rule, code, errOut, tc.want)
		}
	}
}
