package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rxInteropScript runs inside scripts/rxlab.sh's namespace with the cell up:
// each section is "=== NAME" then the command's output and "[exit N]".
const rxInteropScript = `
R=$RDX; D=$OUTDIR
sec() { name=$1; shift; echo "=== $name"; "$@" 2>&1; echo "[exit $?]"; }
sec rxdebug-version rxdebug $SRV 7003 -version
sec rdx-version     $R rx version $SRV:7003 --pcap $D/version.pcap
sec vos             vos listvldb -name root.cell -noauth
sec rdx-vl          $R rx call $SRV vl GetEntryByNameU root.cell --pcap $D/vl.pcap
sec rdx-vl-lossy    $R rx call $SRV vl GetEntryByNameU root.cell --impair drop=1 -v --pcap $D/vl-lossy.pcap
sec pts             pts examine system:administrators -noauth
sec rdx-pr          $R rx call $SRV pr NameToID system:administrators --pcap $D/pr.pcap
sec rdx-pr-name     $R rx call $SRV pr IDToName --pcap $D/pr-name.pcap -- -204
ids=$(for i in $(seq 1 40); do printf -- '-204 '; done)
names=$(for i in $(seq 1 40); do printf 'system:anyuser '; done)
sec rdx-pr-bigreply $R rx call $SRV pr IDToName --impair drop=2 -v --pcap $D/pr-bigreply.pcap -- $ids
sec rdx-pr-bigreq   $R rx call $SRV pr NameToID $names --impair drop=3 -v --pcap $D/pr-bigreq.pcap
sec bos             bos status -server $SRV -instance vlserver -noauth
sec rdx-bos         $R rx call $SRV bos GetStatus vlserver --pcap $D/bos.pcap
sec udebug          udebug $SRV 7003
sec rdx-vote        $R rx call $SRV:7003 vote XDebug --pcap $D/vote.pcap
sec rdx-fs          $R rx call $SRV fs GetTime --pcap $D/fs.pcap
sec rdx-fs-status   $R rx call $SRV fs FetchStatus 536870912.1.1 --pcap $D/fs-status.pcap
sec rdx-ping        $R rx ping $SRV:7003 -c 3 --pcap $D/ping.pcap
sec rdx-debug       $R rx debug $SRV:7000 -allconnections -peers --pcap $D/debug.pcap
$R rx serve --port 7010 --bind 127.0.0.1 --duration 8s --pcap $D/serve.pcap > $D/serve.log 2>&1 &
sleep 0.5
sec rdx-call-rdx        $R rx call 127.0.0.1:7010 4242 2 hello --raw --pcap $D/call-serve.pcap
sec rxdebug-rdx-version rxdebug 127.0.0.1 7010 -version
sec rxdebug-rdx-noconns rxdebug 127.0.0.1 7010 -noconns
sec rxdebug-rdx-all     rxdebug 127.0.0.1 7010 -allconnections -peers -rxstats
sec udebug-rdx          udebug 127.0.0.1 7010
wait
for f in $D/*.pcap; do sec "check $(basename $f)" $R check -d udp.port==7010,rx $f; done
`

// TestRxInteropOpenAFS compares rdx's Rx verbs with OpenAFS's own tools
// against a real cell (scripts/rxlab.sh: root, unshare, Debian's
// openafs-dbserver/fileserver/client), and probes rdx rx serve with
// rxdebug and udebug. About a minute.
func TestRxInteropOpenAFS(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP (LOUD): -short: the OpenAFS interop test brings a cell up (about a minute)")
	}
	if os.Geteuid() != 0 {
		t.Skip("SKIP (LOUD): not root: the OpenAFS interop test needs namespaces and /etc/openafs (make interop-rx as root)")
	}
	for _, bin := range []string{"/usr/sbin/bosserver", "rxdebug", "udebug", "vos", "pts", "bos", "unshare", "flock"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("SKIP (LOUD): %s not installed (apt-get install openafs-dbserver openafs-fileserver openafs-client): %v", bin, err)
		}
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	rdx := filepath.Join(dir, "rdx")
	if out, err := exec.Command("go", "build", "-o", rdx, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte(rxInteropScript), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command("bash", "../../scripts/rxlab.sh")
	cmd.Env = append(os.Environ(), "RXLAB_RUN=bash "+script, "RDX="+rdx, "OUTDIR="+dir, "LAB="+filepath.Join(dir, "lab"))
	out, err := cmd.CombinedOutput()
	t.Logf("rxlab.sh took %v", time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("rxlab.sh: %v\n%s", err, out)
	}
	sec := rxSections(string(out))
	show := func(names ...string) string {
		var b strings.Builder
		for _, n := range names {
			b.WriteString("=== " + n + "\n" + sec[n])
		}
		return b.String()
	}
	for name, body := range sec {
		if name == "rdx-fs-status" { // anonymous may lack rights on a fresh volume's root: an ABORT exits 1
			continue
		}
		if !strings.Contains(body, "[exit 0]") {
			t.Errorf("%s failed:\n%s", name, body)
		}
	}

	// version: the same string as rxdebug -version
	v := regexp.MustCompile(`AFS version: (.*)`)
	if a, b := v.FindStringSubmatch(sec["rxdebug-version"]), v.FindStringSubmatch(sec["rdx-version"]); a == nil || b == nil || a[1] != b[1] {
		t.Errorf("version differs:\n%s", show("rxdebug-version", "rdx-version"))
	}
	t.Logf("version: rxdebug %q, rdx %q", strings.TrimSpace(v.FindString(sec["rxdebug-version"])), strings.TrimSpace(v.FindString(sec["rdx-version"])))
	// VL GetEntryByNameU root.cell: the RW id vos listvldb shows, with and without loss
	rw := regexp.MustCompile(`RWrite: (\d+)`).FindStringSubmatch(sec["vos"])
	for _, s := range []string{"rdx-vl", "rdx-vl-lossy"} {
		if rw == nil || !strings.Contains(sec[s], "Volume Name: root.cell") || !strings.Contains(sec[s], "Read-Write Volume ID: "+rw[1]) {
			t.Errorf("VL entry differs from vos listvldb:\n%s", show("vos", s))
		}
	}
	if !strings.Contains(sec["rdx-vl-lossy"], "impair: unit 1") || !strings.Contains(sec["rdx-vl-lossy"], "resend seq 1") {
		t.Errorf("the lossy call did not drop and resend:\n%s", sec["rdx-vl-lossy"])
	}
	// PR: pts examine's id for the name, and the name back for the id
	id := regexp.MustCompile(`Name: system:administrators, id: (-?\d+)`).FindStringSubmatch(sec["pts"])
	got := regexp.MustCompile(`ID: (\d+)`).FindStringSubmatch(sec["rdx-pr"])
	if id != nil && got != nil && rw != nil {
		t.Logf("VL root.cell RW: vos %s, rdx %q; PR system:administrators: pts %s, rdx %s (%s)", rw[1],
			regexp.MustCompile(`Read-Write Volume ID: \d+`).FindString(sec["rdx-vl"]), id[1], got[1], rxInt32(got[1]))
	}
	if id == nil || got == nil || rxInt32(got[1]) != id[1] {
		t.Errorf("PR NameToID differs from pts examine:\n%s", show("pts", "rdx-pr"))
	}
	if !strings.Contains(sec["rdx-pr-name"], "Name: system:administrators") {
		t.Errorf("PR IDToName:\n%s", sec["rdx-pr-name"])
	}
	// multi-packet replies and requests with OpenAFS under loss: a dropped
	// ACK (the server resends) and a dropped request packet (rdx resends)
	if n := strings.Count(sec["rdx-pr-bigreply"], "Name: system:administrators"); n != 40 {
		t.Errorf("IDToName of 40 ids (10 KB reply, one ACK dropped): %d names\n%s", n, sec["rdx-pr-bigreply"])
	}
	if n := strings.Count(sec["rdx-pr-bigreq"], "ID: 4294967195"); n != 40 || !strings.Contains(sec["rdx-pr-bigreq"], "resend seq 3") {
		t.Errorf("NameToID of 40 names (10 KB request, packet 3 dropped): %d ids\n%s", n, sec["rdx-pr-bigreq"])
	}
	// BOS GetStatus: status 1 (BSTAT_NORMAL) is bos status' "running normally"
	if !strings.Contains(sec["bos"], "currently running normally") || !strings.Contains(sec["rdx-bos"], "Status: 1 ") {
		t.Errorf("BOS GetStatus differs from bos status:\n%s", show("bos", "rdx-bos"))
	}
	// VOTE XDebug: udebug's "I am sync site" is amSyncSite 1
	if strings.Contains(sec["udebug"], "I am sync site") != strings.Contains(sec["rdx-vote"], "Am Sync Site: 0x00000001") {
		t.Errorf("VOTE XDebug differs from udebug:\n%s", show("udebug", "rdx-vote"))
	}
	if !strings.Contains(sec["rdx-fs"], "Operation: GetTime (153)") || !strings.Contains(sec["rdx-fs"], "Server Time:") {
		t.Errorf("FS GetTime:\n%s", sec["rdx-fs"])
	}
	// FetchStatus of root.cell's root directory: its status, or the
	// fileserver's refusal by name
	if fsst := sec["rdx-fs-status"]; !strings.Contains(fsst, "Operation: FetchStatus (132)") && !regexp.MustCompile(`ABORT code \d+ \(`).MatchString(fsst) {
		t.Errorf("FS FetchStatus:\n%s", fsst)
	}
	t.Logf("FS FetchStatus 536870912.1.1: %s", strings.SplitN(strings.TrimSpace(sec["rdx-fs-status"]), "\n", 2)[0])
	if strings.Count(sec["rdx-ping"], "PING_RESPONSE from") != 3 {
		t.Errorf("ping:\n%s", sec["rdx-ping"])
	}
	if !strings.Contains(sec["rdx-debug"], "Debug version 'S'") || !strings.Contains(sec["rdx-debug"], "Peer at host") {
		t.Errorf("debug:\n%s", sec["rdx-debug"])
	}
	// OpenAFS's tools against rdx rx serve
	if !strings.Contains(sec["rxdebug-rdx-version"], "AFS version: rdx") {
		t.Errorf("rxdebug -version against rdx:\n%s", sec["rxdebug-rdx-version"])
	}
	for _, s := range []string{"rxdebug-rdx-noconns", "rxdebug-rdx-all"} {
		if !strings.Contains(sec[s], "threads are idle") {
			t.Errorf("%s against rdx:\n%s", s, sec[s])
		}
	}
	all := sec["rxdebug-rdx-all"]
	if !strings.Contains(all, "rx stats:") || !strings.Contains(all, "Peer at host 127.0.0.1") ||
		!strings.Contains(all, "Connection from host 127.0.0.1") || !strings.Contains(all, "packets read: data 1") {
		t.Errorf("rxdebug -rxstats -peers against rdx:\n%s", sec["rxdebug-rdx-all"])
	}
	if !strings.Contains(sec["udebug-rdx"], "I am not sync site") || strings.Contains(sec["udebug-rdx"], "return code") {
		t.Errorf("udebug against rdx:\n%s", sec["udebug-rdx"])
	}
	// every recording decodes with no error finding
	n := 0
	for name, body := range sec {
		if strings.HasPrefix(name, "check ") {
			n++
			if !strings.Contains(body, " 0 errors") {
				t.Errorf("%s:\n%s", name, body)
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d recordings checked", n)
	}
	if t.Failed() {
		t.Logf("full output:\n%s", out)
	}
}

// rxSections splits the script's output at "=== NAME" lines.
func rxSections(s string) map[string]string {
	m := map[string]string{}
	name := ""
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if n, ok := strings.CutPrefix(l, "=== "); ok {
			name = n
			continue
		}
		if name != "" {
			m[name] += l + "\n"
		}
	}
	return m
}

// rxInt32 shows an unsigned decimal as the int32 it encodes (the dissector
// shows PR ids unsigned, pts signed).
func rxInt32(s string) string {
	v, _ := strconv.ParseUint(s, 10, 32)
	return strconv.Itoa(int(int32(uint32(v))))
}
