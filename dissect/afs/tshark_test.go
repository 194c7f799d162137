package afs_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// frameSets classifies a capture's frames from tshark's own rx columns:
// ABORT packets, DATA packets of call directions that span several packets
// (seq > 1, or seq 1 without LAST_PACKET), and DATA packets resent (the
// same sender, connection, call and seq seen before).
func frameSets(t *testing.T, tsv string) (aborts, multi, resent map[uint64]bool) {
	tab, err := tsharktest.ReadTSV(tsv)
	if err != nil {
		t.Fatal(err)
	}
	get := tab.Get
	aborts, multi, resent = map[uint64]bool{}, map[uint64]bool{}, map[uint64]bool{}
	seen := map[string]bool{}
	for n := uint64(1); n <= uint64(len(tab.Rows)); n++ {
		row := tab.Rows[n]
		switch get(row, "rx.type") {
		case "4":
			aborts[n] = true
		case "1":
			k := get(row, "ip.src") + " " + get(row, "udp.srcport") + " " + get(row, "rx.cid") + " " +
				get(row, "rx.callnumber") + " " + get(row, "rx.seq")
			if seen[k] {
				resent[n] = true
			}
			seen[k] = true
			seq, _ := strconv.Atoi(get(row, "rx.seq"))
			if seq > 1 || get(row, "rx.flags.last_packet") == "0" {
				multi[n] = true
			}
		}
	}
	return aborts, multi, resent
}

// afsKnown lists the accepted differences between rdx and tshark 4.0.17 on
// afs.* fields, each with the reason.
func afsKnown(aborts, multi, resent map[uint64]bool) []tsharktest.Known {
	inSet := func(s map[uint64]bool) func(uint64, string, string) bool {
		return func(n uint64, _, _ string) bool { return s[n] }
	}
	tsharkSilent := func(_ uint64, rdx, ts string) bool { return ts == "" && rdx != "" }
	k := []tsharktest.Known{
		// tshark makes no AFS item for an ABORT; rdx ends the call there with
		// the service, operation, request frame and error code.
		{Field: "*", Reason: "AFS call ended by an ABORT (tshark shows no AFS item)", Match: inSet(aborts)},
		// tshark decodes each DATA packet alone (afs.defragment is off):
		// the first packet's arguments, garbage or nothing for the others
		// (afsio-fetch frame 41 reads FetchData's file content as a status;
		// pts-ops frame 103 is Malformed). rdx decodes the reassembled call
		// on its last packet.
		{Field: "*", Reason: "call spans several packets (tshark does not reassemble)", Match: inSet(multi)},
		// tshark decodes every copy of a DATA packet; rdx takes a call's
		// data once, from its first copy, and notes the resend (a client
		// resends its request after a BUSY, for example).
		{Field: "*", Reason: "resent DATA packet (rdx decodes the call from its first copy)", Match: inSet(resent)},
		// volint.xg: ListOneVolume(IN afs_int32 partID, afs_uint32 volid);
		// tshark shows partID as afs.vol.count (rdx: afs.vol.partition).
		{Field: "afs.vol.count", Reason: "tshark reads ListOneVolume's partID as a count", Match: func(_ uint64, rdx, ts string) bool { return rdx == "" && ts != "" }},
		// bozo_key is char[8], i.e. eight XDR words; tshark reads 8 raw
		// octets and misaligns the keyInfo after it (bos listkeys printed
		// cksum 2900380607 for bos-queries frame 71).
		{Field: "afs.bos.key", Reason: "tshark reads bozo_key's 8 XDR chars as 8 octets"},
		{Field: "afs.bos.keymodtime", Reason: "misaligned by tshark's bozo_key"},
		{Field: "afs.bos.keychecksum", Reason: "misaligned by tshark's bozo_key"},
		{Field: "afs.bos.keyspare2", Reason: "misaligned by tshark's bozo_key"},
		// BOZO_AddKey(an, key): an is the key version number.
		{Field: "afs.bos.number", Reason: "AddKey's first argument is a kvno (afs.bos.kvno in rdx)", Match: func(_ uint64, rdx, ts string) bool { return rdx == "" }},
		// The fileserver calls back afsio on afsio's own port (51281):
		// tshark, which picks the service by port, calls that BUTC (>= 7025).
		{Field: "afs.butc", Reason: "fileserver callback on the client's port: rdx says afs.cb"},
		{Field: "afs.butc.opcode", Reason: "fileserver callback on the client's port: rdx says afs.cb.opcode"},
	}
	// Arguments and results tshark does not decode at all (NewEntry's id, ListEntry's
	// entry, IsAMemberOf's flag, ListEntries' entries, BOS AddKey's kvno,
	// GetAddrsU...): rdx shows them.
	// Likewise VOL CreateVolume, SetInfo, and the XListPartitions, ListVolumes
	// and ListOneVolume results, and VL CreateEntryN's entry.
	for _, f := range []string{"afs.prot.id", "afs.prot.flag", "afs.prot.name", "afs.prot.count",
		"afs.bos.kvno", "afs.vldb.numservers", "afs.vldb.serverip", "afs.vldb.serveruuid",
		"afs.vol.id", "afs.vol.name", "afs.vol.count", "afs.vldb.rwvol", "afs.vldb.rovol", "afs.vldb.bkvol",
		"afs.vldb.partition", "afs.vldb.server"} {
		k = append(k, tsharktest.Known{Field: f, Reason: "arguments or results tshark does not decode", Match: tsharkSilent})
	}
	// tshark sets no service flag on the calls it shows as "Encrypted ...
	// Server"; rdx keeps it (the service is known from the ID and port).
	for _, f := range []string{"afs.vldb", "afs.prot", "afs.vol"} {
		k = append(k, tsharktest.Known{Field: f, Reason: "encrypted call (tshark drops the service flag)", Match: tsharkSilent})
	}
	return k
}

// noAFS are the captures in pcaps/rx with Rx debug packets only (rxdebug
// talks to the Rx layer, not to an AFS service).
var noAFS = map[string]bool{"rxdebug-stats.pcap": true, "rxdebug-version.pcap": true}

func TestAFSAgainstTshark(t *testing.T) {
	caps, _ := filepath.Glob("../../pcaps/rx/*.pcap")
	if len(caps) == 0 {
		t.Fatal("no captures in pcaps/rx (they are committed)")
	}
	total, equal := 0, 0
	for _, c := range caps {
		t.Run(filepath.Base(c), func(t *testing.T) {
			opts := tsharktest.DecodeAs(t, "udp.port==7000-7010,rx")
			tsv := c + ".tshark-fields.tsv"
			if noAFS[filepath.Base(c)] {
				// Nothing to compare (tshark has no afs value), so check
				// instead that rdx decodes no AFS either.
				got, err := tsharktest.Decode(c, opts)
				if err != nil || len(got) == 0 {
					t.Fatalf("%d frames decoded: %v", len(got), err)
				}
				for num, fields := range got {
					for name := range fields {
						if strings.HasPrefix(name, "afs") {
							t.Errorf("frame %d: rdx decodes %s in an rxdebug capture", num, name)
						}
					}
				}
				return
			}
			aborts, multi, resent := frameSets(t, tsv)
			res := tsharktest.Compare(t, c, tsv, []string{"afs"}, afsKnown(aborts, multi, resent), opts)
			total += res.Compared
			equal += res.Equal
			for k, n := range res.Known {
				if !strings.HasPrefix(k, "*") || testing.Verbose() {
					t.Logf("accepted: %d x %s", n, k)
				}
			}
		})
	}
	t.Logf("afs fields: %d values compared, %d equal, %d explained differences", total, equal, total-equal)
}

// TestAFSMatchAgainstTshark2 compares the request/reply links with
// tshark's two-pass decode (tshark -2, stored as *.tshark2-afs-match.tsv:
// afs.repframe is only known after the reply is seen): the request carries
// afs.repframe, the reply afs.reqframe and afs.time, the time since the
// request. afs.time never sits on a request.
func TestAFSMatchAgainstTshark2(t *testing.T) {
	tsvs, _ := filepath.Glob("../../pcaps/rx/*.pcap.tshark2-afs-match.tsv")
	if len(tsvs) < 9 {
		t.Fatalf("%d two-pass tshark decodes in pcaps/rx, want 9 (they are committed)", len(tsvs))
	}
	for _, tsv := range tsvs {
		c := strings.TrimSuffix(tsv, ".tshark2-afs-match.tsv")
		t.Run(filepath.Base(c), func(t *testing.T) {
			opts := tsharktest.DecodeAs(t, "udp.port==7000-7010,rx")
			aborts, multi, resent := frameSets(t, c+".tshark-fields.tsv")
			res := tsharktest.Compare(t, tsharktest.Capture(t, c), tsv, []string{"afs.repframe", "afs.reqframe", "afs.time"}, afsMatchKnown(aborts, multi, resent), opts)
			for k, n := range res.Known {
				t.Logf("accepted: %d x %s", n, k)
			}
			for _, f := range []string{"afs.repframe", "afs.reqframe", "afs.time"} {
				if !res.Fields[f] {
					t.Errorf("no %s compared", f)
				}
			}
		})
	}
}

func afsMatchKnown(aborts, multi, resent map[uint64]bool) []tsharktest.Known {
	return []tsharktest.Known{
		// tshark links every copy of a resent request packet; rdx the
		// first (frameSets).
		{Field: "afs.repframe", Reason: "resent DATA packet (rdx decodes the call from its first copy)", Match: func(n uint64, rdx, _ string) bool { return resent[n] && rdx == "" }},
		// tshark makes no AFS item for an ABORT, so neither the abort nor
		// its request is linked; rdx ends the call there and links both.
		{Field: "*", Reason: "reply is an ABORT (tshark shows no AFS item)", Match: func(n uint64, _, _ string) bool { return aborts[n] }},
		{Field: "afs.repframe", Reason: "request answered by an ABORT (tshark shows no AFS item)", Match: func(_ uint64, rdx, ts string) bool {
			n, err := strconv.ParseUint(rdx, 10, 64)
			return err == nil && ts == "" && aborts[n]
		}},
		// tshark links every DATA packet of a multi-packet reply to the
		// request; rdx links the reassembled reply, on its last packet.
		{Field: "*", Reason: "packet of a multi-packet call before its last (rdx links the reassembled call)", Match: func(n uint64, rdx, ts string) bool {
			return multi[n] && rdx == "" && ts != ""
		}},
	}
}

// TestStoreStatusMaskAgainstTshark compares afs.fs.status.mask and its bits
// (Wireshark's afs.fs.status.mask.*) on tcpdump's afs.pcap, the capture
// with StoreStatus masks (MakeDir, StoreData), with tshark's decode stored
// beside it; no difference is accepted.
func TestStoreStatusMaskAgainstTshark(t *testing.T) {
	c := tsharktest.Capture(t, "../../pcaps/public/the-tcpdump-group+tcpdump__afs.pcap")
	res := tsharktest.Compare(t, c, c+".tshark-afs-mask.tsv", []string{"afs.fs.status.mask"}, nil, dissect.Options{})
	for _, f := range []string{"afs.fs.status.mask", "afs.fs.status.mask.setmodtime", "afs.fs.status.mask.setowner",
		"afs.fs.status.mask.setgroup", "afs.fs.status.mask.setmode", "afs.fs.status.mask.setsegsize", "afs.fs.status.mask.fsync"} {
		if !res.Fields[f] {
			t.Errorf("no %s compared", f)
		}
	}
	t.Logf("%d values compared, %d equal", res.Compared, res.Equal)
}

// tsvCol returns a reader of one stored tshark decode's columns by name.
func tsvCol(t *testing.T, path string) (*tsharktest.Table, func(row []string, name string) string) {
	t.Helper()
	tab, err := tsharktest.ReadTSV(path)
	if err != nil {
		t.Fatal(err)
	}
	return tab, tab.Get
}

// TestCallbackNotButcTsharkWrong: in afsio-fetch the fileserver (port 7000)
// calls back afsio on afsio's own port 51281; tshark picks the AFS service by
// port alone and calls these frames BUTC (port >= 7025). Their opcodes are
// RXAFSCB procedures (afscbint.xg: InitCallBackState3 = 213,
// TellMeAboutYourself = 65538), while butc.xg (package TC_) numbers its
// procedures 0-12, so no butc could send them. rdx says afs.cb with the
// callback operation's name.
func TestCallbackNotButcTsharkWrong(t *testing.T) {
	c := tsharktest.Capture(t, "../../pcaps/rx/afsio-fetch.pcap")
	tab, get := tsvCol(t, c+".tshark-fields.tsv")
	opts := tsharktest.DecodeAs(t, "udp.port==7000-7010,rx")
	got, err := tsharktest.Decode(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for num, row := range tab.Rows {
		if get(row, "afs.butc") != "1" {
			continue
		}
		n++
		op := get(row, "afs.butc.opcode")
		if op != "213" && op != "65538" {
			t.Errorf("frame %d: tshark's BUTC opcode %s is not a callback procedure", num, op)
		}
		if get(row, "rx.serviceid") != "1" {
			t.Errorf("frame %d: service %s", num, get(row, "rx.serviceid"))
		}
		r := got[num]
		if len(r["afs.butc"]) != 0 || len(r["afs.cb"]) != 1 || len(r["afs.cb.opcode"]) != 1 || r["afs.cb.opcode"][0] != op {
			t.Errorf("frame %d: rdx afs.butc %v afs.cb %v afs.cb.opcode %v, want the callback service, opcode %s",
				num, r["afs.butc"], r["afs.cb"], r["afs.cb.opcode"], op)
		}
	}
	if n != 4 {
		t.Errorf("tshark labels %d frames BUTC, want the 4 callback frames 17, 18, 20, 21", n)
	}
}

// TestNoAFSOnOtherRxServices: lossy_rxrpc.pcap is Linux AF_RXRPC talking to
// a test service (Rx service ID 1234, UDP 7100) that is no AFS service.
// tshark, told to decode the port as Rx, hands every DATA packet to its AFS
// dissector and shows "Encrypted Unknown(7100) Request" with the first data
// word as afs.service. The AFS servers register fixed Rx service IDs (1
// fileserver/cache manager/bosserver/butc, 4 volserver, 50/51 ubik, 52
// vlserver, 73 ptserver, 731-733 kaserver, 22314 buserver: the rx_NewService
// calls of OpenAFS), and 7100 is none of their ports, so rdx decodes Rx only.
func TestNoAFSOnOtherRxServices(t *testing.T) {
	c := tsharktest.Capture(t, "../../pcaps/kernel/lossy_rxrpc.pcap")
	tab, get := tsvCol(t, c+".tshark-fields.tsv")
	opts := tsharktest.DecodeAs(t, "udp.port==7100,rx")
	got, err := tsharktest.Decode(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	tsharkAFS := 0
	for num, row := range tab.Rows {
		if get(row, "afs.service") != "" {
			tsharkAFS++
			if get(row, "rx.serviceid") != "1234" {
				t.Errorf("frame %d: service %s", num, get(row, "rx.serviceid"))
			}
		}
		if len(got[num]["rx.serviceid"]) == 0 && get(row, "rx.serviceid") != "" {
			t.Errorf("frame %d: rdx did not decode Rx", num)
		}
		for name := range got[num] {
			if strings.HasPrefix(name, "afs") {
				t.Errorf("frame %d: rdx decodes %s on Rx service 1234", num, name)
			}
		}
	}
	if tsharkAFS < 300 {
		t.Errorf("tshark decodes AFS on %d frames; the stored decode showed 355", tsharkAFS)
	}
	t.Logf("tshark decodes AFS on %d DATA frames of Rx service 1234; rdx on none", tsharkAFS)
}
