package main

import (
	"bytes"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rdsFields is the -T fields column set of the RDS goldens; rds.len etc.
// print every occurrence when a frame completes several messages.
var rdsFields = []string{"-e", "frame.number", "-e", "tcp.srcport", "-e", "rds.seq", "-e", "rds.ack", "-e", "rds.len",
	"-e", "rds.sport", "-e", "rds.dport", "-e", "rds.flags", "-e", "rds.csum", "-e", "rds.csum.status",
	"-e", "rds.msg_type", "-e", "rds.exthdr.type", "-e", "rds.exthdr.npaths", "-e", "rds.cong.count",
	"-e", "rds.frame_count", "-e", "rds.ping_frame", "-e", "rds.pong_frame", "-e", "_ws.expert.message", "-E", "header=y"}

func rdsGoldenCases() map[string][]string {
	c := "../../pcaps/kernel/rds_tcp.pcap"
	return map[string][]string{
		"rds_tcp.summary": {"read", "--color", "never", c},
		"rds_tcp.verbose": {"read", "-V", "-c", "33", c},
		"rds_tcp.fields":  append([]string{"read", "-T", "fields", c}, rdsFields...),
	}
}

// TestRDSDecodeAs checks that -d tcp.port==N,rds reaches the stream
// dissector: the capture on its real port decodes the same with the rule.
func TestRDSDecodeAs(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-d", "tcp.port==16385,rds", "-T", "fields", "-e", "rds.len", "../../pcaps/kernel/rds_tcp.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Contains(out.Bytes(), []byte("8192,0,0\n")) {
		t.Errorf("frame with three messages not shown as 8192,0,0:\n%s", out.String())
	}
}
