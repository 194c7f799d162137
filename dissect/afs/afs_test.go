package afs

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rx"
)

// fixture decodes call data written as XDR words in hex, "zN" standing for
// N zero words (the captures' long zero-padded arrays).
func fixture(t testing.TB, s string) []byte {
	t.Helper()
	var out []byte
	for _, w := range strings.Fields(s) {
		if w[0] == 'z' {
			n, err := strconv.Atoi(w[1:])
			if err != nil {
				t.Fatalf("bad fixture token %q", w)
			}
			out = append(out, make([]byte, 4*n)...)
			continue
		}
		b, err := hex.DecodeString(w)
		if err != nil {
			t.Fatalf("bad fixture token %q: %v", w, err)
		}
		out = append(out, b...)
	}
	return out
}

// dissect runs one call through the service the way rx does and returns
// the PDU and its frame.
func dissectOne(t testing.TB, c rx.Call) (*PDU, *dissect.Frame) {
	t.Helper()
	f := &dissect.Frame{Num: 1}
	c.Frame = f
	if c.DataLen == 0 {
		c.DataLen = len(c.Data)
	}
	dissectCall(&c)
	if len(f.PDUs) != 1 {
		t.Fatalf("got %d PDUs, want 1", len(f.PDUs))
	}
	return f.PDUs[0].(*PDU), f
}

// fields builds the PDU's tree and returns abbrev -> values (joined by ';'
// as tshark -T fields does), plus the expert messages.
func fields(p *PDU, f *dissect.Frame) (map[string]string, []string) {
	var tr dissect.Tree
	p.Tree(&tr, f)
	got := map[string]string{}
	var experts []string
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		if n.IsExpert() {
			_, _, _, msg := n.ExpertParts()
			experts = append(experts, msg)
			continue
		}
		if n.F == nil {
			continue
		}
		v := string(dissect.AppendField(nil, n))
		if n.F.Type == dissect.TNone {
			v = "1" // present, as tshark -T fields shows an FT_NONE item
		}
		if old, ok := got[n.F.Abbrev]; ok {
			v = old + ";" + v
		}
		got[n.F.Abbrev] = v
	}
	return got, experts
}

type tcase struct {
	name    string
	call    rx.Call
	data    string
	summary string
	want    map[string]string
	experts []string
}

// Each fixture comes from a real capture: /work/shared/captures/rx/NAME.pcap
// frame N (call data after the Rx header), or tcpdump's afs.pcap.
var cases = []tcase{
	{
		name:    "pts-ops frame 7: PR NameToID request",
		call:    rx.Call{ServiceID: 73, ServerPort: 7002, ClientPort: 43888, Opcode: 504, HasOpcode: true},
		data:    "000001f8 00000001 00000073 00000079 00000073 00000074 00000065 0000006d 0000003a 00000061 00000064 0000006d 00000069 0000006e 00000069 00000073 00000074 00000072 00000061 00000074 0000006f 00000072 00000073 z43",
		summary: "PR NameToID request",
		want: map[string]string{"afs.prot": "1", "afs.service": "504", "afs.prot.opcode": "504",
			"afs.prot.count": "1", "afs.prot.name": "system:administrators"},
	},
	{
		name: "pts-ops frame 8: PR NameToID reply",
		call: rx.Call{ServiceID: 73, ServerPort: 7002, Reply: true, Opcode: 504, HasOpcode: true,
			ReqFrame: 7, RespTime: 98000, HasRespTime: true},
		data:    "00000001 ffffff34",
		summary: "PR NameToID reply (request in frame 7, 0.000098s)",
		want: map[string]string{"afs.prot.count": "1", "afs.prot.id": "4294967092", "afs.reqframe": "7",
			"afs.time": "0.000098000"},
	},
	{
		name: "pts-ops frame 14: PR NameToID reply, two ids",
		call: rx.Call{ServiceID: 73, ServerPort: 7002, Reply: true, Opcode: 504, HasOpcode: true},
		data: "00000002 00000001 ffffff32",
		want: map[string]string{"afs.prot.count": "2", "afs.prot.id": "1;4294967090"},
	},
	{
		name:    "pts-ops frame 1: PR NewEntry request (prname as an XDR string)",
		call:    rx.Call{ServiceID: 73, ServerPort: 7002, Opcode: 509, HasOpcode: true},
		data:    "000001fd 00000005 616c6963 65000000 00000000 00000000",
		summary: "PR NewEntry request",
		want:    map[string]string{"afs.prot.name": "alice", "afs.prot.flag": "0x00000000", "afs.prot.oldid": "0"},
	},
	{
		name: "pts-ops frame 100: PR ListOwned reply",
		call: rx.Call{ServiceID: 73, ServerPort: 7002, Reply: true, Opcode: 517, HasOpcode: true},
		data: "00000006 ffffff32 ffffff33 ffffff34 ffffff35 ffffff9a ffffff9b 00000000",
		want: map[string]string{"afs.prot.count": "6",
			"afs.prot.id": "4294967090;4294967091;4294967092;4294967093;4294967194;4294967195"},
	},
	{
		name: "pts-abort frame 20: PR ListEntry ABORT PRNOENT",
		call: rx.Call{ServiceID: 73, ServerPort: 7002, Reply: true, Opcode: 512, HasOpcode: true,
			Abort: true, AbortCode: 267268, ReqFrame: 19, RespTime: 18000, HasRespTime: true},
		summary: "PR ListEntry reply ABORT 267268 (PRNOENT) (request in frame 19, 0.000018s)",
		want:    map[string]string{"afs.errcode": "267268", "afs.prot.opcode": "512"},
		experts: []string{"ABORT 267268 (PRNOENT)"},
	},
	{
		name:    "afsio-fetch frame 9: FS FetchStatus request",
		call:    rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 132, HasOpcode: true},
		data:    "00000084 20000018 00000002 00000002",
		summary: "FS FetchStatus request",
		want: map[string]string{"afs.fs": "1", "afs.fs.opcode": "132", "afs.fs.fid.volume": "536870936",
			"afs.fs.fid.vnode": "2", "afs.fs.fid.uniq": "2"},
	},
	{
		name: "afsio-fetch frame 23: FS FetchStatus reply",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Reply: true, Opcode: 132, HasOpcode: true,
			ReqFrame: 9, RespTime: 1014000, HasRespTime: true},
		data:    "00000001 00000001 00000001 000927c0 00000001 00000000 00000000 0000003f 0000007f 000001a4 00000001 00000001 00000001 6b0120da 6b0120da z6 00000001 00003868 00000002 6b0125dc z5",
		summary: "FS FetchStatus reply (request in frame 9, 0.001014s)",
		// Values as tshark's tsv has them for this frame.
		want: map[string]string{
			"afs.fs.status.interfaceversion": "1", "afs.fs.status.filetype": "1", "afs.fs.status.linkcount": "1",
			"afs.fs.status.length": "600000", "afs.fs.status.dataversion": "1", "afs.fs.status.author": "0",
			"afs.fs.status.owner": "0", "afs.fs.status.calleraccess": "63", "afs.fs.status.anonymousaccess": "127",
			"afs.fs.status.mode": "420", "afs.fs.status.parentvnode": "1", "afs.fs.status.parentunique": "1",
			"afs.fs.status.segsize": "1", "afs.fs.status.clientmodtime": "Nov 21, 2026 04:40:58.000000000 UTC",
			"afs.fs.status.servermodtime": "Nov 21, 2026 04:40:58.000000000 UTC", "afs.fs.status.group": "0",
			"afs.fs.status.synccounter": "0", "afs.fs.status.dataversionhigh": "0", "afs.fs.status.spare2": "0",
			"afs.fs.callback.version": "1", "afs.fs.callback.expires": "14440.000000000", "afs.fs.callback.type": "2",
			"afs.fs.volsync.spare1": "Nov 21, 2026 05:02:20.000000000 UTC", "afs.fs.volsync.spare6": "0"},
	},
	{
		name:    "afsio-fetch frame 40: FS FetchData request",
		call:    rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 130, HasOpcode: true},
		data:    "00000082 20000018 00000002 00000002 00000000 00010000",
		summary: "FS FetchData request",
		want:    map[string]string{"afs.fs.fid.volume": "536870936", "afs.fs.offset": "0", "afs.fs.length": "65536"},
	},
	{
		name: "FetchData reply cut by rdx (afsio-fetch frame 101 shape): length, data, no status",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Reply: true, Opcode: 130, HasOpcode: true,
			Truncated: true, DataLen: 65660},
		data:    "00010000 72786c61 62206c69 6e652030",
		want:    map[string]string{"afs.fs.length": "65536", "afs.fs.data": "72786c6162206c696e652030"},
		experts: []string{"rdx kept 16 of 65660 call octets"},
	},
	{
		name:    "FetchData request cut short: malformed",
		call:    rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 130, HasOpcode: true},
		data:    "00000082 20000018 00000002",
		experts: []string{"truncated FetchData arguments"},
	},
	{
		name: "tcpdump afs.pcap frame 4: FS MakeDir request",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, ClientPort: 7001, SecIdx: 2, Opcode: 141, HasOpcode: true},
		data: "0000008d 200000ba 00000001 00000001 00000006 746d7064 69720000 0000000d 382b3930 cfd69f58 00000000 000001ed 00002800",
		// tshark: mask bits setmodtime, setgroup, setmode set.
		want: map[string]string{"afs.fs.fid.volume": "536871098", "afs.fs.name": "tmpdir", "afs.fs.status.mask": "0x0000000d",
			"afs.fs.status.mask.setmodtime": "1", "afs.fs.status.mask.setowner": "0", "afs.fs.status.mask.setgroup": "1",
			"afs.fs.status.mask.setmode": "1", "afs.fs.status.mask.setsegsize": "0", "afs.fs.status.mask.fsync": "0",
			"afs.fs.status.clientmodtime": "Nov 11, 1999 21:46:24.000000000 UTC", "afs.fs.status.mode": "493"},
	},
	{
		name: "tcpdump afs.pcap frame 8: FS MakeDir reply",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Reply: true, SecIdx: 2, Opcode: 141, HasOpcode: true},
		data: "200000ba 000002a5 0010bee8 00000001 00000002 00000002 00000800 00000001 00000001 00000001 0000007f 00000009 000001ed 000002a5 0010bee8 00000000 382b3930 382b392f z6 00000001 00000002 00000039 00002800 0000e139 00000001 000016f7 0000007f 00000009 000001ff 00000001 00000001 00000000 382b392f 382b392f 00001388 z5 00000001 0000389d 00000002 33405413 z5",
		want: map[string]string{"afs.fs.fid.vnode": "677", "afs.fs.fid.uniq": "1097448",
			"afs.fs.status.filetype": "2;2", "afs.fs.callback.type": "2"},
	},
	{
		name:    "tcpdump afs.pcap frame 5: CB CallBack on 7001",
		call:    rx.Call{ServiceID: 1, ServerPort: 7001, ClientPort: 7000, Opcode: 204, HasOpcode: true},
		data:    "000000cc 00000001 200000ba 00000001 00000001 00000000",
		summary: "CB CallBack request",
		want: map[string]string{"afs.cb": "1", "afs.cb.opcode": "204", "afs.cb.count": "1;0",
			"afs.cb.fid.volume": "536871098", "afs.cb.fid.vnode": "1", "afs.cb.fid.uniq": "1"},
	},
	{
		name:    "afsio-fetch frame 17: callback on the client's ephemeral port",
		call:    rx.Call{ServiceID: 1, ServerPort: 51281, ClientPort: 7000, Opcode: 65538, HasOpcode: true},
		data:    "00010002",
		summary: "CB TellMeAboutYourself request",
		want:    map[string]string{"afs.cb": "1", "afs.cb.opcode": "65538"},
	},
	{
		name: "afsio-fetch frame 18: CB TellMeAboutYourself reply",
		call: rx.Call{ServiceID: 1, ServerPort: 51281, ClientPort: 7000, Reply: true, Opcode: 65538, HasOpcode: true},
		data: "00000000 005e2464 000025e4 00001b01 ffffffb8 ffffff8c 00000001 00000000 00000001 0000007f ffffffaa 00000077 z96 00000001 00000001",
		want: map[string]string{"afs.cm.numint": "0", "afs.cm.uuid": "005e2464000025e400001b01ffffffb8ffffff8c0000000100000000000000010000007fffffffaa00000077",
			"afs.cm.numcap": "1", "afs.cm.capabilities": "0x00000001", "afs.cb.uuid": "", "afs.cb.count": ""},
	},
	{
		name:    "afsio-fetch frame 20: CB InitCallBackState3",
		call:    rx.Call{ServiceID: 1, ServerPort: 51281, Opcode: 213, HasOpcode: true},
		data:    "000000d5 008ba786 0000252d 00001b01 ffffff89 ffffff8a 00000001 00000000 00000001 0000007f ffffffaa 00000077",
		summary: "CB InitCallBackState3 request",
		want:    map[string]string{"afs.cb.uuid": "008ba786-252d-1b01-898a-0100017faa77"},
	},
	{
		name:    "afsio-fetch frame 12: PR call sealed by rxkad",
		call:    rx.Call{ServiceID: 73, ServerPort: 7002, SecIdx: 2, Opcode: 0xf4a4e6b5, HasOpcode: true},
		data:    "f4a4e6b5 283ae6b4 15d9fc42 7660e642",
		summary: "PR encrypted request",
		want:    map[string]string{"afs.service": "4104447669", "afs.encrypted": "f4a4e6b5283ae6b415d9fc427660e642"},
		experts: []string{"unknown PR opcode 4104447669 on a security index 2 connection: the call data is presumably encrypted; not decoded"},
	},
	{
		name:    "afsio-fetch frame 1: VL GetEntryByNameU request",
		call:    rx.Call{ServiceID: 52, ServerPort: 7003, Opcode: 527, HasOpcode: true},
		data:    "0000020f 00000009 35333638 37303933 36000000",
		summary: "VL GetEntryByNameU request",
		want:    map[string]string{"afs.vldb": "1", "afs.vldb.name": "536870936"},
	},
	{
		name: "afsio-fetch frame 2: VL GetEntryByNameU reply (uvldbentry)",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, Reply: true, Opcode: 527, HasOpcode: true},
		data: "00000072 0000006f 0000006f 00000074 0000002e 00000061 00000066 00000073 z57 00000001 7f010001 z168 00000004 z12 20000018 z3 00001000 z9",
		// tshark's values for this frame.
		want: map[string]string{"afs.vldb.name": "root.afs", "afs.vldb.numservers": "1",
			"afs.vldb.serveruuid": "7f010001" + strings.Repeat("0", 80), "afs.vldb.serveruniq": "0x00000000",
			"afs.vldb.partition": "/vicepa", "afs.vldb.serverflags": "0x00000004", "afs.vldb.rwvol": "536870936",
			"afs.vldb.rovol": "0", "afs.vldb.bkvol": "0", "afs.vldb.clonevol": "0", "afs.vldb.flags": "0x00001000",
			"afs.vldb.spare1": "0", "afs.vldb.spare9": "0"},
	},
	{
		name: "vos-dump-bulk frame 2: VL GetEntryByNameN reply (nvldbentry)",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, Reply: true, Opcode: 519, HasOpcode: true},
		data: "00000072 0000006f 0000006f 00000074 0000002e 00000061 00000066 00000073 z57 00000001 7f010001 z25 00000004 z12 20000018 z3 00001000 z9",
		want: map[string]string{"afs.vldb.name": "root.afs", "afs.vldb.numservers": "1", "afs.vldb.server": "127.1.0.1",
			"afs.vldb.partition": "/vicepa", "afs.vldb.rwvol": "536870936", "afs.vldb.rovol": "0", "afs.vldb.bkvol": "0"},
	},
	{
		name: "cell-bringup frame 19: VL RegisterAddrs (rxkad clear)",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, SecIdx: 2, Opcode: 532, HasOpcode: true},
		data: "00000214 008ba786 0000252d 00001b01 ffffff89 ffffff8a 00000001 00000000 00000001 0000007f ffffffaa 00000077 00000000 00000001 7f010001",
		want: map[string]string{"afs.vldb.serveruuid": "008ba7860000252d00001b01ffffff89ffffff8a0000000100000000000000010000007fffffffaa00000077",
			"afs.vldb.serverip": "127.1.0.1", "afs.vldb.spare1": "0"},
	},
	{
		name: "probe-busy-crafted frame 6: VL opcode 9999 ABORT RXGEN_OPCODE",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, Reply: true, Opcode: 9999, HasOpcode: true,
			Abort: true, AbortCode: 0xfffffe39},
		summary: "VL opcode 9999 reply ABORT -455 (RXGEN_OPCODE)",
		experts: []string{"ABORT -455 (RXGEN_OPCODE)"},
	},
	{
		name:    "probe-busy-crafted frame 5: unknown VL opcode",
		call:    rx.Call{ServiceID: 52, ServerPort: 7003, Opcode: 9999, HasOpcode: true},
		data:    "0000270f",
		summary: "VL opcode 9999 request",
		experts: []string{"unknown VL opcode 9999"},
	},
	{
		name:    "probe-busy-crafted frame 7: service 999 on 7003, no arguments",
		call:    rx.Call{ServiceID: 999, ServerPort: 7003, Opcode: 527, HasOpcode: true},
		data:    "0000020f",
		summary: "VL GetEntryByNameU request",
		experts: []string{"truncated GetEntryByNameU arguments"},
	},
	{
		name:    "bos-queries frame 4: BOS GetInstanceInfo request",
		call:    rx.Call{ServiceID: 1, ServerPort: 7007, Opcode: 85, HasOpcode: true},
		data:    "00000055 00000008 70747365 72766572",
		summary: "BOS GetInstanceInfo request",
		want:    map[string]string{"afs.bos": "1", "afs.bos.opcode": "85", "afs.bos.instance": "ptserver"},
	},
	{
		name: "bos-queries frame 5: BOS GetInstanceInfo reply",
		call: rx.Call{ServiceID: 1, ServerPort: 7007, Reply: true, Opcode: 85, HasOpcode: true},
		data: "00000006 73696d70 6c650000 00000001 00000001 6b01252a 00000001 z13",
		want: map[string]string{"afs.bos.type": "simple", "afs.bos.goal": "1", "afs.bos.procstarts": "1",
			"afs.bos.procstarttime": "Nov 21, 2026 04:59:22.000000000 UTC"},
	},
	{
		name: "bos-queries frame 40: BOS GetStatus reply",
		call: rx.Call{ServiceID: 1, ServerPort: 7007, Reply: true, Opcode: 83, HasOpcode: true},
		data: "00000001 00000013 66696c65 20736572 76657220 72756e6e 696e6700",
		want: map[string]string{"afs.bos.status": "1", "afs.bos.statusdesc": "file server running"},
	},
	{
		// tshark reads the key as 8 raw octets and misaligns the rest; bos
		// listkeys printed "key 1 has cksum 2900380607" for this reply.
		name: "bos-queries frame 71: BOS ListKeys reply",
		call: rx.Call{ServiceID: 1, ServerPort: 7007, Reply: true, Opcode: 90, HasOpcode: true},
		data: "00000001 fffffffd ffffff91 00000043 00000004 ffffffc1 ffffffd5 ffffffab ffffffe3 6b01252a 00000000 ace04bbf 00000000",
		want: map[string]string{"afs.bos.kvno": "1", "afs.bos.key": "fd914304c1d5abe3",
			"afs.bos.keymodtime": "Nov 21, 2026 04:59:22.000000000 UTC", "afs.bos.keychecksum": "2900380607",
			"afs.bos.keyspare2": "0"},
	},
	{
		name: "cell-bringup frame 12: BOS CreateBnode",
		call: rx.Call{ServiceID: 1, ServerPort: 7007, Opcode: 80, HasOpcode: true},
		data: "00000050 00000006 73696d70 6c650000 00000008 70747365 72766572 00000021 2f757372 2f6c6962 2f6f7065 6e616673 2f707473 65727665 72202d72 7862696e 64000000 z4 0000000e 5f5f4e4f 4e4f5449 46494552 5f5f0000",
		want: map[string]string{"afs.bos.type": "simple", "afs.bos.instance": "ptserver",
			"afs.bos.parm": "/usr/lib/openafs/ptserver -rxbind;;;;;__NONOTIFIER__"},
	},
	{
		// afsint.xg: GetVolumeStatus(..., OUT AFSFetchVolumeStatus,
		// string Name<AFSNAMEMAX>, string OfflineMsg<AFSOPAQUEMAX>, string
		// Motd<AFSOPAQUEMAX>): a 200-octet offline message is legal.
		name: "crafted: FS GetVolumeStatus reply with a 200-octet offline message",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Reply: true, Opcode: 149, HasOpcode: true},
		data: "20000057 00000000 00000001 00000001 00000001 00000000 00000000 00000000 00001388 00000010 00100000 00200000 00000007 766f6c2e 6e657700 000000c8 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 4f4f4f4f 00000000",
		want: map[string]string{"afs.fs.volstatus.vid": "536870999", "afs.fs.volname": "vol.new",
			"afs.fs.offlinemsg": "OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOO", "afs.fs.motd": "", "afs.data": ""},
	},
	{
		name:    "crafted: VOTE GetSyncSite request carries the site (IN, ubik_int.xg)",
		call:    rx.Call{ServiceID: 50, ServerPort: 7003, Opcode: 10003, HasOpcode: true},
		data:    "00002713 c0000201",
		summary: "VOTE GetSyncSite request",
		want:    map[string]string{"afs.ubik.site": "192.0.2.1", "afs.data": ""},
	},
	{
		name:    "crafted: DISK Write data beyond bulkdata<20000>: malformed",
		call:    rx.Call{ServiceID: 51, ServerPort: 7003, Opcode: 20003, HasOpcode: true},
		data:    "00004e23 00000001 00000002 00000000 00000000 00004e24 z5001",
		experts: []string{"truncated Write arguments"},
	},
	{
		// bosint.xg: Install(IN string path<BOZO_BSSIZE>, afs_int32 size,
		// afs_int32 flags, afs_int32 date) split: the file follows.
		name: "crafted: BOS Install request (path, size, flags, date, file)",
		call: rx.Call{ServiceID: 1, ServerPort: 7007, Opcode: 105, HasOpcode: true},
		data: "00000069 00000004 2f62696e 00000004 00000000 6b0120da 7f454c46",
		want: map[string]string{"afs.bos.path": "/bin", "afs.bos.size": "4", "afs.bos.date": "1795236058",
			"afs.bos.data": "7f454c46", "afs.data": ""},
	},
	{
		name: "crafted: FS SetLock request names the lock type",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 156, HasOpcode: true},
		data: "0000009c 20000018 00000002 00000002 00000001",
		want: map[string]string{"afs.fs.vicelocktype": "1", "afs.data": ""},
	},
	{
		name: "crafted: FS GetStatistics64 reply (ViceStatistics64<16>)",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Reply: true, Opcode: 65542, HasOpcode: true},
		data: "00000002 00000000 6b0120da 00000000 6b011000",
		want: map[string]string{"afs.fs.count": "2", "afs.fs.stat64": "1795236058;1795231744", "afs.data": ""},
	},
	{
		name:    "crafted: FS GetStatistics64 reply longer than STATS64_VERSION: malformed",
		call:    rx.Call{ServiceID: 1, ServerPort: 7000, Reply: true, Opcode: 65542, HasOpcode: true},
		data:    "00000011 z34",
		experts: []string{"GetStatistics64 results: array of 17 elements, more than the 16 its type allows"},
	},
	{
		// afsint.xg: BulkStatus(IN AFSCBFids *FidsArray...), AFSCBFids is
		// AFSFid<AFSCBMAX = 50>; the fileserver's stub rejects 51.
		name:    "crafted: FS BulkStatus request with 51 fids: malformed",
		call:    rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 155, HasOpcode: true},
		data:    "0000009b 00000033 z153",
		want:    map[string]string{"afs.fs.count": "51", "afs.fs.fid.volume": "", "afs.data": ""},
		experts: []string{"BulkStatus arguments: array of 51 elements, more than the 50 its type allows"},
	},
	{
		name: "crafted: FS BulkStatus request with 50 fids",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 155, HasOpcode: true},
		data: "0000009b 00000032 z150",
		want: map[string]string{"afs.fs.count": "50", "afs.data": ""},
	},
	{
		name:    "crafted: VL RegisterAddrs with 501 addresses: malformed (bulkaddrs<500>)",
		call:    rx.Call{ServiceID: 52, ServerPort: 7003, Opcode: 532, HasOpcode: true},
		data:    "00000214 z11 00000000 000001f5 z501",
		experts: []string{"RegisterAddrs arguments: array of 501 elements, more than the 500 its type allows"},
	},
	{
		name: "crafted: FS StoreACL (164) request",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 164, HasOpcode: true},
		data: "000000a4 20000018 00000001 00000001 00000004 31203000",
		want: map[string]string{"afs.fs.fid.volume": "536870936", "afs.fs.acl": "1 0", "afs.data": ""},
	},
	{
		name: "crafted: CB GetCellByNum reply (cellName, serverList)",
		call: rx.Call{ServiceID: 1, ServerPort: 7001, Reply: true, Opcode: 65537, HasOpcode: true},
		data: "00000007 6578616d 706c6500 00000002 c0000201 c0000202",
		want: map[string]string{"afs.cb.cellname": "example", "afs.cb.count": "2", "afs.cb.ipaddr": "192.0.2.1;192.0.2.2", "afs.data": ""},
	},
	{
		// common.xg AFSDBCacheEntry64: addr, cell, netFid, Length (hyper),
		// DataVersion, AFSDBLockDesc (8 words), callback, cbExpires,
		// refCount, opens, writers, mvstat, states.
		name: "crafted: CB GetCE64 reply (AFSDBCacheEntry64)",
		call: rx.Call{ServiceID: 1, ServerPort: 7001, Reply: true, Opcode: 65536, HasOpcode: true},
		data: "ffff8880 00000001 20000018 00000002 00000002 00000000 00010000 00000003 z8 7f010001 6b0120da 00000001 00000000 00000000 00000002 00000004",
		want: map[string]string{"afs.cb.ce.cell": "1", "afs.cb.fid.volume": "536870936", "afs.cb.ce.length": "65536",
			"afs.cb.ce.dataversion": "3", "afs.cb.ce.refcount": "1", "afs.cb.ce.mvstat": "2", "afs.cb.ce.states": "0x00000004", "afs.data": ""},
	},
	{
		name: "crafted: CB GetLock reply (AFSDBLock)",
		call: rx.Call{ServiceID: 1, ServerPort: 7001, Reply: true, Opcode: 207, HasOpcode: true},
		data: "00000061 00000066 00000073 00000078 00000063 z11 00000000 00000002 00000001 z5",
		want: map[string]string{"afs.cb.lock.name": "afsxc", "afs.cb.lock.excllocked": "0x00000002", "afs.cb.lock.readersreading": "1", "afs.data": ""},
	},
	{
		name: "crafted: PR ListSuperGroups reply",
		call: rx.Call{ServiceID: 73, ServerPort: 7002, Reply: true, Opcode: 530, HasOpcode: true},
		data: "00000001 ffffff32 00000000",
		want: map[string]string{"afs.prot.count": "1", "afs.prot.id": "4294967090", "afs.prot.over": "0", "afs.data": ""},
	},
	{
		name: "crafted: VL ListEntry reply (count, next index, vldbentry)",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, Reply: true, Opcode: 510, HasOpcode: true},
		data: "00000003 00000001 00000072 0000006f 0000006f 00000074 z61 00000000 00000001 7f010001 z7 z8 00000004 z7 20000018 z2 00000000 00001000",
		want: map[string]string{"afs.vldb.count": "3", "afs.vldb.nextindex": "1", "afs.vldb.name": "root",
			"afs.vldb.server": "127.1.0.1", "afs.vldb.rwvol": "536870936", "afs.vldb.flags": "0x00001000", "afs.data": ""},
	},
	{
		name: "crafted: VOTE DebugOld reply (ubik_debug_old, no interfaces)",
		call: rx.Call{ServiceID: 50, ServerPort: 7003, Reply: true, Opcode: 10001, HasOpcode: true},
		data: "6b0125d4 z27",
		want: map[string]string{"afs.ubik.now": "Nov 21, 2026 05:02:12.000000000 UTC", "afs.ubik.interface": "", "afs.data": ""},
	},
	{
		name: "crafted: DISK WriteV request",
		call: rx.Call{ServiceID: 51, ServerPort: 7003, Opcode: 20011, HasOpcode: true},
		data: "00004e2b 6b0125d4 00000003 00000001 00000000 00000040 00000004 00000004 deadbeef",
		want: map[string]string{"afs.ubik.file": "0", "afs.ubik.position": "64", "afs.ubik.length": "4", "afs.ubik.data": "deadbeef", "afs.data": ""},
	},
	{
		name:    "udebug frame 1: VOTE XDebug request on the ptserver port",
		call:    rx.Call{ServiceID: 50, ServerPort: 7002, Opcode: 10006, HasOpcode: true},
		data:    "00002716",
		summary: "VOTE XDebug request",
		want:    map[string]string{"afs.ubik": "1", "afs.ubik.opcode": "10006", "afs.service": "10006"},
	},
	{
		// Wireshark's afs.cb.callback.expires is FT_ABSOLUTE_TIME: the
		// word read as seconds since 1970 (the file server's relative
		// expiry stays afs.fs.callback.expires, a relative time).
		name:    "crafted: CB CallBack request (one file, one callback)",
		call:    rx.Call{ServiceID: 1, ServerPort: 7001, Opcode: 204, HasOpcode: true},
		data:    "000000cc 00000001 20000001 00000002 00000003 00000001 00000001 00003868 00000002",
		summary: "CB CallBack request",
		want: map[string]string{"afs.cb.fid.volume": "536870913", "afs.cb.callback.version": "1",
			"afs.cb.callback.expires": "Jan  1, 1970 04:00:40.000000000 UTC", "afs.cb.callback.type": "2"},
	},
	{
		// ubik_sdebug: ubik_sdebug_old, then altAddr[UBIK_MAX_INTERFACE_ADDR-1],
		// which Wireshark shows as afs.ubik.interface.
		name: "crafted: VOTE SDebug reply (another server and its addresses)",
		call: rx.Call{ServiceID: 50, ServerPort: 7002, Reply: true, Opcode: 10005, HasOpcode: true},
		data: "c0000201 6b0125d4 6b0125d4 00000001 6b01252a 00000007 00000001 00000001 00000001 c0000202 c0000203 z253",
		want: map[string]string{"afs.ubik.addr": "192.0.2.1", "afs.ubik.interface": "192.0.2.2;192.0.2.3",
			"afs.ubik.null_addresses": "1", "afs.ubik.altaddr": "", "afs.data": ""},
	},
	{
		name: "udebug frame 2: VOTE XDebug reply",
		call: rx.Call{ServiceID: 50, ServerPort: 7002, Reply: true, Opcode: 10006, HasOpcode: true},
		data: "6b0125d4 6b01252a ffffffff 00000000 00000000 ffffffff z7 00000001 7fffffff 00000001 00000000 00000000 6b01252a 00000007 00000000 000000b2 00000000 00000000 0000001f 00000000 00000000 6b01252a 7f010001 z256",
		// tshark's values for this frame.
		want: map[string]string{
			"afs.ubik.version.epoch":   "Jan  1, 1970 00:00:00.000000000 UTC;Jan  1, 1970 00:00:00.000000000 UTC;Nov 21, 2026 04:59:22.000000000 UTC",
			"afs.ubik.version.counter": "0;0;7", "afs.ubik.interface": "127.1.0.1", "afs.ubik.null_addresses": "1",
			"afs.ubik.now": "Nov 21, 2026 05:02:12.000000000 UTC", "afs.ubik.lastyeshost": "255.255.255.255",
			"afs.ubik.lastyesstate": "0x00000000", "afs.ubik.synchost": "0.0.0.0", "afs.ubik.amsyncsite": "0x00000001",
			"afs.ubik.syncsiteuntil": "Jan 19, 2038 03:14:07.000000000 UTC", "afs.ubik.nservers": "0x00000001",
			"afs.ubik.tidcounter": "0x000000b2", "afs.ubik.recoverystate": "0x0000001f",
			"afs.ubik.epochtime": "Nov 21, 2026 04:59:22.000000000 UTC", "afs.ubik.isclone": "0x00000000"},
	},
	{
		name: "vos-dump-bulk frame 7: VOL TransCreate",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Opcode: 108, HasOpcode: true},
		data: "0000006c 20000018 00000000 00000002",
		want: map[string]string{"afs.vol": "1", "afs.vol.id": "536870936", "afs.vol.partition": "0", "afs.vol.flags": "0x00000002"},
	},
	{
		// Real: labcap's vos-create-partinfo.pcap (pcaps/rx/pending, OpenAFS
		// 1.8.9) frame 69, `vos create ... fixed.id -id 536871000`; tshark
		// does not decode CreateVolume's arguments.
		name:    "vos-create-partinfo frame 69: VOL CreateVolume request",
		call:    rx.Call{ServiceID: 4, ServerPort: 7005, Opcode: 100, HasOpcode: true},
		data:    "00000064 00000000 00000008 66697865 642e6964 00000000 00000000 20000058",
		summary: "VOL CreateVolume request",
		want: map[string]string{"afs.vol.partition": "0", "afs.vol.name": "fixed.id", "afs.vol.type": "0",
			"afs.vol.parentid": "0", "afs.vol.id": "536871000", "afs.data": ""},
	},
	{
		// volint.xg: CreateVolume(partition, string name<VNAMESIZE>, type,
		// parent, INOUT *volid, OUT *trans). Crafted (no capture has one):
		// `vos create lab /vicepa vol.new -id 536870999` sends parent 0.
		name:    "crafted: VOL CreateVolume request (parent before volid)",
		call:    rx.Call{ServiceID: 4, ServerPort: 7005, Opcode: 100, HasOpcode: true},
		data:    "00000064 00000000 00000007 766f6c2e 6e657700 00000000 00000000 20000057",
		summary: "VOL CreateVolume request",
		want: map[string]string{"afs.vol.partition": "0", "afs.vol.name": "vol.new", "afs.vol.type": "0",
			"afs.vol.parentid": "0", "afs.vol.id": "536870999", "afs.data": ""},
	},
	{
		name: "crafted: VOL CreateVolume reply (volid, trans)",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Reply: true, Opcode: 100, HasOpcode: true},
		data: "20000057 00000005",
		want: map[string]string{"afs.vol.id": "536870999", "afs.vol.transid": "5", "afs.data": ""},
	},
	{
		// volint.xg: PartitionInfo64(IN string name<4096>, OUT struct
		// diskPartition64 *partition) = 65539, what `vos partinfo` calls.
		name:    "crafted: VOL PartitionInfo64 request",
		call:    rx.Call{ServiceID: 4, ServerPort: 7005, Opcode: 65539, HasOpcode: true},
		data:    "00010003 00000007 2f766963 65706100",
		summary: "VOL PartitionInfo64 request",
		want:    map[string]string{"afs.vol.opcode": "65539", "afs.vol.partname": "/vicepa", "afs.data": ""},
	},
	{
		name: "crafted: VOL PartitionInfo64 reply (diskPartition64)",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Reply: true, Opcode: 65539, HasOpcode: true},
		data: "0000002f 00000076 00000069 00000063 00000065 00000070 00000061 z249 00000073 00000064 00000061 z253 ffffffff 00000000 0a000000 00000000 05000000 00000000 00000000",
		want: map[string]string{"afs.vol.partname": "/vicepa", "afs.vol.devname": "sda", "afs.vol.totalusable": "167772160",
			"afs.vol.free": "83886080", "afs.vol.minfree": "0", "afs.data": ""},
	},
	{
		name: "crafted: VOL PartitionInfo reply (diskPartition, 32-bit sizes)",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Reply: true, Opcode: 119, HasOpcode: true},
		data: "0000002f 00000076 00000069 00000063 00000065 00000070 00000061 z25 00000073 00000064 00000061 z29 ffffffff 0a000000 05000000 00000000",
		want: map[string]string{"afs.vol.partname": "/vicepa", "afs.vol.devname": "sda", "afs.vol.totalusable": "167772160",
			"afs.vol.free": "83886080", "afs.data": ""},
	},
	{
		name:    "crafted: VOL DumpV2 request (fromTrans, fromDate, flags)",
		call:    rx.Call{ServiceID: 4, ServerPort: 7005, Opcode: 65538, HasOpcode: true},
		data:    "00010002 00000007 00000000 00000001",
		summary: "VOL DumpV2 request",
		want:    map[string]string{"afs.vol.transid": "7", "afs.vol.flags": "0x00000001", "afs.data": ""},
	},
	{
		name: "crafted: VOL GetStatus reply (volser_status)",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Reply: true, Opcode: 113, HasOpcode: true},
		data: "20000057 00000003 00000000 20000057 20000058 20000059 00000000 00001388 00000000 00000000 z6",
		want: map[string]string{"afs.vol.id": "536870999", "afs.vol.nextunique": "3", "afs.vol.backupid": "536871001",
			"afs.vol.maxquota": "5000", "afs.data": ""},
	},
	{
		name: "crafted: VOL Clone request",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Opcode: 105, HasOpcode: true},
		data: "00000069 00000007 00000000 00000002 0000000a 766f6c2e 6261636b 75700000 20000059",
		want: map[string]string{"afs.vol.transid": "7", "afs.vol.type": "2", "afs.vol.name": "vol.backup",
			"afs.vol.id": "536871001", "afs.data": ""},
	},
	{
		// volint.xg: XListOneVolume(partID, volid, OUT volXEntries), a
		// count of volintXInfo (80 words each).
		name: "crafted: VOL XListOneVolume reply (volintXInfo)",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Reply: true, Opcode: 125, HasOpcode: true},
		data: "00000001 00000072 0000006f 0000006f 00000074 z28 20000000 00000000 20000002 00000000 20000001 00000002 6b0120da 00000000 6b0120da 6b0120da 6b0120da 00000000 00000007 00000003 00001388 00000002 z32",
		want: map[string]string{"afs.vol.count": "1", "afs.vol.name": "root", "afs.vol.id": "536870912",
			"afs.vol.backupid": "536870914", "afs.vol.filecount": "3", "afs.vol.maxquota": "5000", "afs.vol.size": "2", "afs.data": ""},
	},
	{
		// vldbint.xg: UpdateEntryByName(volumename<65>, VldbUpdateEntry,
		// ReleaseType); VldbUpdateEntry is 120 words.
		name: "crafted: VL UpdateEntryByName request",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, Opcode: 524, HasOpcode: true},
		data: "0000020c 00000004 726f6f74 00000004 00000072 0000006f 0000006f 00000074 z61 00000000 00003000 20000001 00000000 00000000 00000001 z48 00000000",
		want: map[string]string{"afs.vldb.name": "root;root", "afs.vldb.updatemask": "0x00000004", "afs.vldb.flags": "0x00003000",
			"afs.vldb.rovol": "536870913", "afs.vldb.nmodifiedrepsites": "1", "afs.vldb.releasetype": "0x00000000", "afs.data": ""},
	},
	{
		name: "tcpdump afs.pcap frame 48: VOL ListOneVolume reply (volintInfo)",
		call: rx.Call{ServiceID: 4, ServerPort: 7005, Reply: true, SecIdx: 2, Opcode: 121, HasOpcode: true},
		data: "00000001 00000075 00000073 00000065 00000072 00000073 0000002e 0000006e 0000006e 00000065 00000075 0000006c 00000000 ffffffce 00000024 00000057 00000041 00000000 0000004f ffffff9a 00000028 ffffffc3 0000003f 0000004b 00000038 z4 00000045 00000074 00000017 0000000c 200000ba 00000000 200000bc 200000ba 00000000 00000002 37af1cd2 00000001 00000000 00000000 33405413 00000000 382b394b 00000000 00000995 00001d3c 001b7740 0006b578 00000000 ffffffff 0000674e 00000000 00000000",
		// tcpdump: name "users.nneul" volid 536871098.
		want: map[string]string{"afs.vol.count": "1", "afs.vol.name": "users.nneul", "afs.vol.id": "536871098",
			"afs.vol.backupid": "536871100", "afs.vol.filecount": "7484", "afs.vol.size": "439672"},
	},
	{
		name: "rxkad-localauth frame 1: VL ListAttributesN2 request (rxkad clear)",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, SecIdx: 2, Opcode: 534, HasOpcode: true},
		data: "00000216 z8",
		want: map[string]string{"afs.vldb.attrmask": "0x00000000", "afs.vldb.name": "", "afs.vldb.index": "0"},
	},
	{
		name: "nDPI rx.pcap frame 11: VL GetAddrsU reply",
		call: rx.Call{ServiceID: 52, ServerPort: 7003, Reply: true, Opcode: 533, HasOpcode: true},
		data: "006e3278 00004307 00001fc1 ffffffa3 00000025 00000001 00000001 00000000 0000007f ffffffaa 00000077 0000000f 00000001 00000001 c0a7cef1",
		want: map[string]string{"afs.vldb.serveruuid": "006e32780000430700001fc1ffffffa3000000250000000100000001000000000000007fffffffaa00000077",
			"afs.vldb.uniquifier": "15", "afs.vldb.nentries": "1", "afs.vldb.numservers": "1", "afs.vldb.serverip": "192.167.206.241"},
	},
	{
		name: "operation without a decoder: opaque data",
		call: rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 148, HasOpcode: true},
		data: "00000094 00000004 2f62696e",
		want: map[string]string{"afs.data_len": "8", "afs.data": "000000042f62696e"},
	},
}

func TestCalls(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.call
			c.Data = fixture(t, tc.data)
			p, f := dissectOne(t, c)
			if tc.summary != "" {
				if got := string(p.Summary(nil)); got != tc.summary {
					t.Errorf("summary %q, want %q", got, tc.summary)
				}
			}
			got, experts := fields(p, f)
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if strings.Join(experts, "|") != strings.Join(tc.experts, "|") {
				t.Errorf("findings %q, want %q", experts, tc.experts)
			}
			// The tree's first node is the afs protocol node.
			var tr dissect.Tree
			p.Tree(&tr, f)
			if len(tr.Nodes) == 0 || tr.Nodes[0].F != PAFS.Field {
				t.Errorf("tree does not start with the afs node")
			}
		})
	}
}

func TestServiceFor(t *testing.T) {
	tests := []struct {
		name string
		c    rx.Call
		want *service
	}{
		{"fileserver", rx.Call{ServiceID: 1, ServerPort: 7000, Opcode: 65538, HasOpcode: true}, svcFS},
		{"callback on 7001", rx.Call{ServiceID: 1, ServerPort: 7001, Opcode: 204, HasOpcode: true}, svcCB},
		// afsio-fetch frames 17/20: tshark says Unknown(51281) or BUTC.
		{"callback on the client's ephemeral port", rx.Call{ServiceID: 1, ServerPort: 51281, Opcode: 65538, HasOpcode: true}, svcCB},
		{"callback CallBack on ephemeral port", rx.Call{ServiceID: 1, ServerPort: 40000, Opcode: 204, HasOpcode: true}, svcCB},
		{"fileserver on another port", rx.Call{ServiceID: 1, ServerPort: 40000, Opcode: 132, HasOpcode: true}, svcFS},
		{"bosserver", rx.Call{ServiceID: 1, ServerPort: 7007, Opcode: 132, HasOpcode: true}, svcBOS},
		{"bosserver elsewhere", rx.Call{ServiceID: 1, ServerPort: 40000, Opcode: 83, HasOpcode: true}, svcBOS},
		{"butc", rx.Call{ServiceID: 1, ServerPort: 7025, Opcode: 100, HasOpcode: true}, svcButc},
		{"service 1 reply without request", rx.Call{ServiceID: 1, ServerPort: 40000, Reply: true}, nil},
		// ptserver 500-521 and vlserver 501-534 overlap: the ID decides.
		{"ptserver opcode 504", rx.Call{ServiceID: 73, ServerPort: 7003, Opcode: 504, HasOpcode: true}, svcPT},
		{"vlserver opcode 504", rx.Call{ServiceID: 52, ServerPort: 7002, Opcode: 504, HasOpcode: true}, svcVL},
		{"unknown id on the ptserver port", rx.Call{ServiceID: 999, ServerPort: 7002, Opcode: 504, HasOpcode: true}, svcPT},
		{"unknown id on the vlserver port", rx.Call{ServiceID: 999, ServerPort: 7003, Opcode: 504, HasOpcode: true}, svcVL},
		{"unknown id, no port, pt opcode", rx.Call{ServiceID: 999, ServerPort: 40000, Opcode: 504, HasOpcode: true}, nil},
		{"volserver", rx.Call{ServiceID: 4, ServerPort: 7005}, svcVol},
		{"upserver", rx.Call{ServiceID: 4, ServerPort: 7008}, svcUp},
		{"kaserver", rx.Call{ServiceID: 732, ServerPort: 9999}, svcKA},
		{"budb", rx.Call{ServiceID: 22314, ServerPort: 7021}, svcBackup},
		{"vote by id", rx.Call{ServiceID: 50, ServerPort: 7003, Opcode: 10006, HasOpcode: true}, svcVote},
		{"disk by id", rx.Call{ServiceID: 51, ServerPort: 7002, Opcode: 20004, HasOpcode: true}, svcDisk},
		{"vote by opcode on any port", rx.Call{ServiceID: 999, ServerPort: 7002, Opcode: 10000, HasOpcode: true}, svcVote},
		{"disk by opcode on any port", rx.Call{ServiceID: 998, ServerPort: 40000, Opcode: 20013, HasOpcode: true}, svcDisk},
		{"rx debug service 0", rx.Call{ServiceID: 0, ServerPort: 40000}, nil},
	}
	for _, tt := range tests {
		if got := serviceFor(&tt.c); got != tt.want {
			name := func(s *service) string {
				if s == nil {
					return "nil"
				}
				return s.abbrev
			}
			t.Errorf("%s: got %s, want %s", tt.name, name(got), name(tt.want))
		}
	}
}

func TestErrorNames(t *testing.T) {
	tests := []struct {
		code uint32
		want string
	}{
		{267268, "PRNOENT"}, {267264, "PREXIST"}, {267280, "PRNOMEM"},
		{39429, "BZDOM"}, {39425, "BZNOENT"},
		{5376, "UNOQUORUM"}, {5377, "UNOTSYNC"},
		{363520, "VL_IDEXIST"}, {363524, "VL_NOENT"}, {363547, "VL_NOMEM"},
		{180480, "KADATABASEINCONSISTENT"}, {180522, "KALOCKED"},
		{1492325120, "VOLSERTRELE_ERROR"}, {1492325135, "VOLSERNOVOL"}, {1492325137, "VOLSERFAILEDOP"},
		{19270400, "RXKADINCONSISTENCY"}, {19270409, "RXKADEXPIRED"},
		{49733377, "UAENOENT"}, {106, "VOFFLINE"}, {103, "VNOVOL"},
		{0xfffffe39, "RXGEN_OPCODE"}, {0xffffffff, "RX_CALL_DEAD"}, {0xfffffffe, "RX_INVALID_OPERATION"},
		{1, ""}, {2, ""}, {267281, ""}, {39435, ""},
	}
	for _, tt := range tests {
		got := tableErrorName(tt.code) // what afs hands rx.abort_code, else Rx's own
		if got == "" {
			got = rx.CodeName(tt.code)
		}
		if got != tt.want {
			t.Errorf("name of %d = %q, want %q", tt.code, got, tt.want)
		}
	}
	// errno names only where the service uses raw errno values.
	if got := errorNameFor(svcFS, 13); got != "EACCES" {
		t.Errorf("FS 13 = %q", got)
	}
	if got := errorNameFor(svcBOS, 1); got != "" {
		t.Errorf("BOS 1 = %q, want no name (ListSUsers past the end)", got)
	}
	// Every com_err table stays within its 256-code block.
	for _, tb := range errTables {
		if len(tb.names) > 256 || tb.base&0xff != 0 {
			t.Errorf("table at %d malformed", tb.base)
		}
	}
}

// A frame may carry several AFS PDUs (a jumbogram completing calls); a new
// frame recycles the pool.
func TestPoolAndFrames(t *testing.T) {
	f := &dissect.Frame{Num: 10}
	c := rx.Call{Frame: f, ServiceID: 73, ServerPort: 7002, Opcode: 510, HasOpcode: true, Data: fixture(t, "000001fe")}
	dissectCall(&c)
	c.Reply = true
	c.Data = fixture(t, "000007d1 ffffff32")
	dissectCall(&c)
	if len(f.PDUs) != 2 || f.PDUs[0] == f.PDUs[1] {
		t.Fatalf("want two distinct PDUs, got %d", len(f.PDUs))
	}
	first := f.PDUs[0]
	got0 := string(f.PDUs[0].Summary(nil))
	got1 := string(f.PDUs[1].Summary(nil))
	if got0 != "PR ListMax request" || got1 != "PR ListMax reply" {
		t.Errorf("summaries %q, %q", got0, got1)
	}
	// Next frame: the engine resets the PDU list; the pool is reused.
	f.Num, f.PDUs = 11, f.PDUs[:0]
	dissectCall(&c)
	if f.PDUs[0] != first {
		t.Errorf("pool not reused")
	}
}

func TestSteadyStateAllocs(t *testing.T) {
	f := &dissect.Frame{Num: 1}
	c := rx.Call{Frame: f, ServiceID: 1, ServerPort: 7000, Reply: true, Opcode: 132, HasOpcode: true,
		Data:     fixture(t, "00000001 00000001 00000001 000927c0 00000001 00000000 00000000 0000003f 0000007f 000001a4 00000001 00000001 00000001 6b0120da 6b0120da z6 00000001 00003868 00000002 6b0125dc z5"),
		ReqFrame: 9, RespTime: 1014000, HasRespTime: true}
	f.PDUs = make([]dissect.PDU, 0, 4)
	dissectCall(&c)
	buf := make([]byte, 0, 256)
	n := testing.AllocsPerRun(200, func() {
		f.Num++
		f.PDUs = f.PDUs[:0]
		dissectCall(&c)
		buf = f.PDUs[0].Summary(buf[:0])
	})
	if n != 0 {
		t.Errorf("dissectCall+Summary: %v allocations per call, want 0", n)
	}
}

func BenchmarkSummary(b *testing.B) {
	f := &dissect.Frame{Num: 1}
	c := rx.Call{Frame: f, ServiceID: 73, ServerPort: 7002, Reply: true, Opcode: 504, HasOpcode: true,
		Abort: true, AbortCode: 267268, ReqFrame: 5, RespTime: 299000, HasRespTime: true}
	dissectCall(&c)
	p := f.PDUs[0]
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = p.Summary(buf[:0])
	}
}

func BenchmarkDissectCall(b *testing.B) {
	f := &dissect.Frame{Num: 1}
	c := rx.Call{Frame: f, ServiceID: 1, ServerPort: 7000, Reply: true, Opcode: 132, HasOpcode: true,
		Data: fixture(b, "00000001 00000001 00000001 000927c0 00000001 00000000 00000000 0000003f 0000007f 000001a4 00000001 00000001 00000001 6b0120da 6b0120da z6 00000001 00003868 00000002 6b0125dc z5")}
	f.PDUs = make([]dissect.PDU, 0, 4)
	b.ReportAllocs()
	for b.Loop() {
		f.Num++
		f.PDUs = f.PDUs[:0]
		dissectCall(&c)
	}
}

// TestAppendSeconds: a response time as seconds with six decimals,
// truncated, signed; the most negative included.
func TestAppendSeconds(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{
		{0, "0.000000"},
		{999, "0.000000"},
		{119_000, "0.000119"},
		{1_234_567_890, "1.234567"},
		{12_000_001_000, "12.000001"},
		{-39_000, "-0.000039"},
		{-3_500_000_000, "-3.500000"},
		{math.MaxInt64, "9223372036.854775"},
		{math.MinInt64, "-9223372036.854775"},
	} {
		if got := string(appendSeconds([]byte("x"), c.ns)); got != "x"+c.want {
			t.Errorf("appendSeconds(%d) = %q, want %q", c.ns, got, "x"+c.want)
		}
	}
}
