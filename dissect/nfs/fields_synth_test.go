package nfs_test

import (
	"os"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// fieldsPcap holds synthesized NFSv4.1/4.2 and NFSv3 exchanges for the
// fields Wireshark fills and rdx must fill the same way: ACCESS (denied and
// unsupported rights, the RFC 8276 xattr bits), nfs.main_opcode ranking,
// READDIR arguments and entries, SEQUENCE status flags, OPEN result flags,
// the mode bits and READ/WRITE data lengths. tshark 4.0.17's decode is
// stored beside it: `NFSWRITE=1 go test -run WriteFieldsSynth` rewrites the
// capture, then `tshark -2 -r nfs4_fields_synth.pcap -T fields -E header=y
// -E occurrence=a -E aggregator=';' $(head -1 TSV | tr '\t' '\n' | sed
// 's/^/-e /')` the table.
const fieldsPcap = "../../pcaps/kernel/nfs4_fields_synth.pcap"

func fieldsExchanges() []exchange {
	sess := fixed([]byte{0x5f, 0x1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2})
	other := fixed([]byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3})
	fhA := []byte{1, 0, 1, 1, 0, 0, 0, 0, 0x77, 0x3f, 0x62, 0x98, 2, 0, 0, 0, 0, 0, 0, 0}
	var ex []exchange
	add := func(call, reply []byte) { ex = append(ex, exchange{2049, call, reply}) }
	xid := 0x7000
	// c4 is a COMPOUND call (minor version 2) whose first operation is
	// SEQUENCE; r4 the reply to the last call, status st, n operations.
	c4 := func(n int, ops ...any) []byte {
		xid++
		h := append(callHdr(xid, 100003, 4, 1), "", 2, n, 53, sess, 7, 0, 0, 0)
		return xdrMsg(append(h, ops...)...)
	}
	r4 := func(st, n, flags int, ops ...any) []byte {
		h := append(replyHdr(xid), st, "", n, 53, 0, sess, 7, 0, 0, 0, flags)
		return xdrMsg(append(h, ops...)...)
	}
	// ACCESS: READ LOOKUP MODIFY EXTEND DELETE EXECUTE asked, DELETE not
	// supported, EXECUTE supported but denied (0x3d / 0x2d / 0x0d).
	add(c4(3, 22, fhA, 3, 0x3d), r4(0, 3, 0, 22, 0, 3, 0, 0x2d, 0x0d))
	// ACCESS of READ and the RFC 8276 xattr rights: all supported, READ
	// and XATTR_READ granted; SEQUENCE status flags set.
	add(c4(3, 22, fhA, 3, 0x1c1), r4(0, 3, 0x241, 22, 0, 3, 0, 0x1c1, 0x41))
	// PUTROOTFH GETFH GETATTR: GETATTR is the main operation.
	add(c4(4, 24, 10, 9, 1, 0x00100000),
		r4(0, 4, 0, 24, 0, 10, 0, fhA, 9, 0, 1, 0x00100000, xdrMsg(uint64(0x42))))
	// PUTFH NVERIFY GETFH: NVERIFY is.
	add(c4(4, 22, fhA, 17, 1, 0x00100000, xdrMsg(uint64(0x42)), 10),
		r4(10027, 3, 0, 22, 0, 17, 10027))
	// PUTFH GETATTR of the mode: setuid and sticky set.
	add(c4(3, 22, fhA, 9, 2, 0, 0x2), r4(0, 3, 0, 22, 0, 9, 0, 2, 0, 0x2, xdrMsg(0o5751)))
	// PUTFH READDIR with cookie verifier, dircount and maxcount; the reply
	// has three entries with their fileid and mode.
	add(c4(3, 22, fhA, 26, uint64(0), uint64(0x1122334455667788), 8192, 32768, 2, 0x00100000, 0x2),
		r4(0, 3, 0, 22, 0, 26, 0, uint64(0x1122334455667788),
			1, uint64(3), "alpha", 2, 0x00100000, 0x2, xdrMsg(uint64(101), 0o644),
			1, uint64(4), "beta", 2, 0x00100000, 0x2, xdrMsg(uint64(102), 0o755),
			1, uint64(5), "gamma.txt", 2, 0x00100000, 0x2, xdrMsg(uint64(103), 0o1777),
			0, 1))
	// PUTFH OPEN (CLAIM_NULL, no create); the reply's result flags are
	// CONFIRM, LOCKTYPE_POSIX and MAY_NOTIFY_LOCK.
	add(c4(3, 22, fhA, 18, 0, 2, 0, uint64(0x5f01), []byte("open-id:1"), 0, 0, "file"),
		r4(0, 3, 0, 22, 0, 18, 0, 1, other, 1, uint64(10), uint64(11), 0x26, 0, 0))
	// PUTFH READ; PUTFH WRITE: the data lengths.
	add(c4(3, 22, fhA, 25, 1, other, uint64(0), 4096), r4(0, 3, 0, 22, 0, 25, 0, 1, []byte("hello world")))
	add(c4(3, 22, fhA, 38, 1, other, uint64(0), 2, []byte("abcdefg")),
		r4(0, 3, 0, 22, 0, 38, 0, 7, 2, fixed([]byte{1, 2, 3, 4, 5, 6, 7, 8})))
	// NFSv3 ACCESS: the same rights as the first NFSv4 one.
	xid++
	add(xdrMsg(append(callHdr(xid, 100003, 3, 4), fhA, 0x3d)...),
		xdrMsg(append(replyHdr(xid), 0, 0, 0x0d)...))
	// NFSv3 READ and WRITE: Wireshark shows no data length there.
	xid++
	add(xdrMsg(append(callHdr(xid, 100003, 3, 6), fhA, uint64(0), 4096)...),
		xdrMsg(append(replyHdr(xid), 0, 0, 11, 1, []byte("hello world"))...))
	xid++
	add(xdrMsg(append(callHdr(xid, 100003, 3, 7), fhA, uint64(0), 7, 2, []byte("abcdefg"))...),
		xdrMsg(append(replyHdr(xid), 0, 0, 0, 7, 2, fixed([]byte{1, 2, 3, 4, 5, 6, 7, 8}))...))
	return ex
}

// TestNFS4AccessDenied: the rights asked about but not supported are
// shown nowhere, those supported but denied are shown as 0 under
// nfs.access_*, the supported ones under nfs.access_supp_*; the call shows
// only the rights asked about.
func TestNFS4AccessDenied(t *testing.T) {
	st := rpcState()
	ex := fieldsExchanges()[0]
	got, _ := decode(t, st, ex.call)
	expect(t, got, map[string]string{"nfs.access_check": "0x3d", "nfs.access_read": "1", "nfs.access_lookup": "",
		"nfs.access_delete": "1", "nfs.access_execute": "1", "nfs.main_opcode": "3"})
	got, _ = decode(t, st, ex.call, ex.reply)
	expect(t, got, map[string]string{"nfs.access_supported": "0x2d", "nfs.access_rights": "0x0d",
		"nfs.access_supp_read": "1", "nfs.access_supp_delete": "", "nfs.access_supp_execute": "1",
		"nfs.access_read": "1", "nfs.access_delete": "", "nfs.access_execute": "0", "nfs.access_lookup": ""})
}

func TestWriteFieldsSynthPcap(t *testing.T) {
	if os.Getenv("NFSWRITE") == "" {
		t.Skip("set NFSWRITE=1 to rewrite " + fieldsPcap)
	}
	w, fh := synthWriter(t, fieldsPcap)
	defer fh.Close()
	cli, srv, ts := synthCli, synthSrv, synthTime
	for _, e := range fieldsExchanges() {
		for i, m := range [][]byte{e.call, e.reply} {
			if m == nil {
				continue
			}
			d := udpFrame(cli, srv, 800, e.port, m)
			if i == 1 {
				d = udpFrame(srv, cli, e.port, 800, m)
			}
			ts += 1e6
			if err := w.WritePacket(&capture.Packet{TimeNS: ts, CapLen: len(d), WireLen: len(d), LinkType: 1, Data: d}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fieldsKnown lists the accepted differences with tshark 4.0.17.
var fieldsKnown = []tsharktest.Known{
	// RFC 8276 §8.4.1 makes XATTR_LIST 0x100: the rights mask is 9 bits.
	// Wireshark keeps its 8-bit field and prints it modulo 256 in
	// fields (its tree shows 0x1c1); rdx keeps the whole value.
	{Field: "nfs.access_check", Reason: "tshark prints the 9-bit RFC 8276 rights modulo 256",
		Match: func(_ uint64, rdx, ts string) bool { return rdx == "0x1c1" && ts == "0xc1" }},
	{Field: "nfs.access_supported", Reason: "tshark prints the 9-bit RFC 8276 rights modulo 256",
		Match: func(_ uint64, rdx, ts string) bool { return rdx == "0x1c1" && ts == "0xc1" }},
	// tshark leaves out a bitmap4 word that is zero; the bitmap decoder is
	// the fattr4 work of issue 12 item 6, not this comparison's.
	{Field: "nfs.attr_mask", Reason: "tshark omits a zero bitmap4 word",
		Match: func(_ uint64, rdx, ts string) bool { return rdx == "0x00000000;"+ts }},
	{Field: "nfs.attr_count", Reason: "tshark omits a zero bitmap4 word",
		Match: func(_ uint64, rdx, ts string) bool { return rdx == "0;"+ts }},
}

// TestFieldsSynthAgainstTshark compares every column of the stored table.
func TestFieldsSynthAgainstTshark(t *testing.T) {
	tab, err := tsharktest.ReadTSV(fieldsPcap + ".tshark-fields.tsv")
	if err != nil {
		t.Fatal(err)
	}
	res := tsharktest.Compare(t, fieldsPcap, fieldsPcap+".tshark-fields.tsv", tab.Header[1:], fieldsKnown, dissect.Options{})
	t.Logf("%d values compared, %d equal, %d fields", res.Compared, res.Equal, len(res.Fields))
	if res.Compared < 300 {
		t.Errorf("only %d values compared", res.Compared)
	}
}
