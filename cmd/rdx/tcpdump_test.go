package main

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// tcpdump's names for the calls in its afs.pcap test, with the service's
// opcode (OpenAFS numbers; /work/shared/specs/rx.md §7).
var tcpdumpOps = map[string]struct {
	field string
	op    uint64
}{
	"cb callback": {"afs.cb.opcode", 204}, "cb probe": {"afs.cb.opcode", 206},
	"fs fetch-data": {"afs.fs.opcode", 130}, "fs fetch-status": {"afs.fs.opcode", 132}, "fs give-cbs": {"afs.fs.opcode", 147},
	"fs makedir": {"afs.fs.opcode", 141}, "fs remove-file": {"afs.fs.opcode", 136}, "fs rmdir": {"afs.fs.opcode", 142},
	"fs symlink": {"afs.fs.opcode", 139}, "pt id-to-name": {"afs.prot.opcode", 505}, "pt list-elements": {"afs.prot.opcode", 514},
	"pt list-entry": {"afs.prot.opcode", 512}, "pt name-to-id": {"afs.prot.opcode", 504}, "pt same-mbr-of": {"afs.prot.opcode", 515},
	"vldb get-entry-by-id-n": {"afs.vldb.opcode", 518}, "vldb get-entry-by-name": {"afs.vldb.opcode", 504},
	"vldb get-entry-by-name-n": {"afs.vldb.opcode", 519}, "vol list-one-volume": {"afs.vol.opcode", 121},
}

// TestTcpdumpAFSNames: every call tcpdump names in its afs.pcap test (service
// and opcode, from its expected rx.out) rdx names the same. tcpdump names a
// call on its first DATA packet; rdx on the packet that completes it, so the
// match is searched from tcpdump's frame on, within the same direction.
func TestTcpdumpAFSNames(t *testing.T) {
	if dissect.Lookup("afs.fs.opcode") == nil {
		t.Fatal("the afs dissector is not linked in")
	}
	got, err := tsharktest.Decode("../../pcaps/public/the-tcpdump-group+tcpdump__afs.pcap", dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../pcaps/public/the-tcpdump-group+tcpdump__rx.out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := regexp.MustCompile(`^\s*(\d+) .* rx data ([a-z]+) (call|reply) ([a-z0-9-]+)`)
	used := map[uint64]bool{}
	sc := bufio.NewScanner(f)
	named, matched, fragments, retrans, wrong := 0, 0, 0, 0, 0
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		frame, _ := strconv.ParseUint(m[1], 10, 64)
		want, ok := tcpdumpOps[m[2]+" "+m[4]]
		if !ok {
			t.Errorf("frame %d: no opcode table entry for tcpdump's %q", frame, m[2]+" "+m[4])
			continue
		}
		named++
		op := strconv.FormatUint(want.op, 10)
		found := false
		end := frame + 200
		if m[3] == "call" {
			end = frame + 1 // a call is named on its own (single-packet) frame
		}
		for n := frame; n < end && !found; n++ {
			if used[n] {
				continue
			}
			ci := got[n]["rx.flags.client_init"]
			if len(ci) == 0 || (ci[0] == "1") != (m[3] == "call") {
				continue // wrong direction
			}
			for _, v := range got[n][want.field] {
				if v == op {
					found, used[n] = true, true
					break
				}
			}
		}
		switch {
		case found:
			matched++
		case tcpdumpWrong[frame] != "":
			wrong++
		case fragmented(got, frame):
			// tcpdump decodes the first fragment of a fragmented UDP datagram;
			// rdx does not reassemble IPv4 yet and leaves fragments undecoded
			// (a Note says so). Counted, not hidden.
			fragments++
		case retransmitted(got, frame, want.field, op):
			// the same DATA packet again with a new serial: tcpdump names it a
			// second time, rdx marks it rx.retransmission and does not hand it
			// to AFS twice.
			retrans++
		default:
			t.Errorf("frame %d: tcpdump says %s %s %s; rdx has no %s=%s from there on", frame, m[2], m[3], m[4], want.field, op)
		}
	}
	if named < 100 {
		t.Fatalf("only %d tcpdump call names parsed", named)
	}
	t.Logf("%d calls named by tcpdump: %d named the same by rdx, %d in IP fragments (not reassembled yet), %d retransmissions, %d tcpdump errors",
		named, matched, fragments, retrans, wrong)
}

// tcpdumpWrong lists frames where tcpdump names a reply after the wrong call.
var tcpdumpWrong = map[uint64]string{
	// Its own request lines (frames 95 and 111) say list-elements (PR 514);
	// tcpdump's reply cache hands back a stale list-entry. rdx matches the
	// reply to the request by connection, channel and call number.
	96:  "reply named list-entry, request was list-elements",
	112: "reply named list-entry, request was list-elements",
}

func fragmented(got map[uint64]map[string][]string, frame uint64) bool {
	for _, m := range got[frame]["_ws.expert.message"] {
		_ = m
	}
	_, udp := got[frame]["udp.srcport"]
	_, ip := got[frame]["ip.src"]
	return ip && !udp
}

// retransmitted: rdx flagged the frame as a retransmission of an earlier frame
// that carries the same opcode.
func retransmitted(got map[uint64]map[string][]string, frame uint64, field, op string) bool {
	r := got[frame]["rx.retransmission"]
	if len(r) == 0 {
		return false
	}
	first, err := strconv.ParseUint(r[0], 10, 64)
	if err != nil {
		return false
	}
	for n := first; n <= frame; n++ {
		for _, v := range got[n][field] {
			if v == op {
				return true
			}
		}
	}
	return false
}
