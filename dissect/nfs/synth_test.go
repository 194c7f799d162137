package nfs_test

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/rdx-project/rdx/capture"
)

// synthPcap holds the synthesized exchanges below as UDP datagrams (no
// NFSv4, NLM, rpcbind v4 or RPCSEC_GSS capture exists), with tshark 4.0.17's
// decode beside it: `NFSWRITE=1 go test -run WriteSynth` rewrites both.
const synthPcap = "../../pcaps/kernel/nfs_rpc_synth.pcap"

type exchange struct {
	port        int // server port
	call, reply []byte
}

func synthExchanges() []exchange {
	sess := fixed([]byte{0x5f, 0x1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2})
	other := fixed([]byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3})
	fhA := []byte{1, 0, 1, 1, 0, 0, 0, 0, 0x77, 0x3f, 0x62, 0x98, 2, 0, 0, 0, 0, 0, 0, 0}
	var ex []exchange
	add := func(port int, call, reply []byte) { ex = append(ex, exchange{port, call, reply}) }
	// NFSv4.1 COMPOUND: SEQUENCE PUTFH READ GETATTR; reply all OK.
	add(2049, xdrMsg(append(callHdr(0x1001, 100003, 4, 1), "", 1, 4,
		53, sess, 9, 3, 17, 1,
		22, fhA,
		25, 1, other, uint64(4096), 8192,
		9, 2, 0x0010011a, 0x00b0a23a)...),
		xdrMsg(append(replyHdr(0x1001), 0, "", 4,
			53, 0, sess, 9, 3, 17, 17, 0,
			22, 0,
			25, 0, 1, []byte("hello"),
			9, 0, 1, 0x0000001a, []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 9})...))
	// NFSv4.0 COMPOUND: PUTFH GETATTR of the attributes Linux asks for
	// after OPEN, and a few booleans: every value type of fattr4 a client
	// sees daily (u32, u64, bool, fsid4, utf8 strings, specdata4, nfstime4).
	add(2049, xdrMsg(append(callHdr(0x1004, 100003, 4, 1), "getattr", 0, 2,
		22, fhA,
		9, 2, 0x0010017e, 0x00b0a23a)...),
		xdrMsg(append(replyHdr(0x1004), 0, "getattr", 2,
			22, 0,
			9, 0, 2, 0x0010017e, 0x00b0a23a, xdrMsg(
				1, 0, uint64(0x17a2b3c4d5e6f708), uint64(5), 1, 1, // type, fh_expire_type, change, size, link/symlink support
				uint64(0x11), uint64(0x22), uint64(0x7f01), // fsid, fileid
				0644, 1, "root", "wheel", // mode, numlinks, owner, owner_group
				0, 0, uint64(4096), // rawdev, space_used
				uint64(1795239213), 111, uint64(1795239214), 222, uint64(1795239215), 333, // access, metadata, modify
				uint64(0x7f01)))...)) // mounted_on_fileid
	// NFSv4.0 COMPOUND: PUTROOTFH LOOKUP GETFH; LOOKUP fails.
	add(2049, xdrMsg(append(callHdr(0x1002, 100003, 4, 1), "lookup", 0, 3, 24, 15, "export", 10)...),
		xdrMsg(append(replyHdr(0x1002), 2, "lookup", 2, 24, 0, 15, 2)...))
	// NFSv4.1 COMPOUND: SEQUENCE PUTFH WRITE COMMIT.
	add(2049, xdrMsg(append(callHdr(0x1003, 100003, 4, 1), "", 1, 4,
		53, sess, 10, 3, 17, 0,
		22, fhA,
		38, 1, other, uint64(0), 2, []byte("abcdef"),
		5, uint64(0), 0)...),
		xdrMsg(append(replyHdr(0x1003), 0, "", 4,
			53, 0, sess, 10, 3, 17, 17, 0,
			22, 0,
			38, 0, 6, 2, fixed([]byte{1, 2, 3, 4, 5, 6, 7, 8}),
			5, 0, fixed([]byte{1, 2, 3, 4, 5, 6, 7, 8}))...))
	// CB_COMPOUND: CB_SEQUENCE CB_RECALL.
	add(2049, xdrMsg(append(callHdr(0x2001, 0x40000000, 1, 1), "", 1, 1, 2,
		11, sess, 1, 0, 0, 0, 0,
		4, 1, other, 0, fhA)...),
		xdrMsg(append(replyHdr(0x2001), 0, "", 2, 11, 0, sess, 1, 0, 0, 0, 4, 0)...))
	// NLM v4 LOCK and UNLOCK.
	add(2049, xdrMsg(append(callHdr(0x3001, 100021, 4, 2), []byte{0xc0, 0x0c}, 1, 1,
		"client1", fhA, []byte("owner@x"), 42, uint64(100), uint64(50), 0, 3)...),
		xdrMsg(append(replyHdr(0x3001), []byte{0xc0, 0x0c}, 0)...))
	add(2049, xdrMsg(append(callHdr(0x3002, 100021, 4, 4), []byte{0xc0, 0x0d},
		"client1", fhA, []byte("owner@x"), 42, uint64(100), uint64(50))...),
		xdrMsg(append(replyHdr(0x3002), []byte{0xc0, 0x0d}, 0)...))
	// MOUNT v3 EXPORT and DUMP.
	add(2049, xdrMsg(callHdr(0x4001, 100005, 3, 5)...),
		xdrMsg(append(replyHdr(0x4001), 1, "/srv", 1, "10.0.0.0/8", 0, 0)...))
	add(2049, xdrMsg(callHdr(0x4002, 100005, 3, 2)...),
		xdrMsg(append(replyHdr(0x4002), 1, "client1", "/srv", 0)...))
	// portmap v2 DUMP, rpcbind v4 GETADDR.
	add(111, xdrMsg(callHdr(0x5001, 100000, 2, 4)...),
		xdrMsg(append(replyHdr(0x5001), 1, 100000, 2, 6, 111, 1, 100003, 3, 17, 2049, 0)...))
	add(111, xdrMsg(append(callHdr(0x5002, 100000, 4, 3), 100003, 3, "tcp", "", "superuser")...),
		xdrMsg(append(replyHdr(0x5002), "10.0.0.1.8.1")...))
	// NFSv3 GETATTR with RPCSEC_GSS integrity.
	cred := xdrMsg(1, 0, 5, 2, []byte{0xaa, 0xbb, 0xcc, 0xdd})
	body := xdrMsg(5, fhA)
	g := xdrMsg(0x6001, 0, 2, 100003, 3, 1, 6, cred, 6, []byte{1, 2, 3, 4}, len(body))
	g = append(g, body...)
	g = append(g, xdrMsg([]byte{9, 9, 9, 9})...)
	add(2049, g, nil)
	return ex
}

func udpFrame(src, dst [4]byte, sport, dport int, payload []byte) []byte {
	b := []byte{0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 8, 0}
	ip := []byte{0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0}
	binary.BigEndian.PutUint16(ip[2:], uint16(20+8+len(payload)))
	ip = append(append(ip, src[:]...), dst[:]...)
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	b = append(b, ip...)
	b = binary.BigEndian.AppendUint16(b, uint16(sport))
	b = binary.BigEndian.AppendUint16(b, uint16(dport))
	b = binary.BigEndian.AppendUint16(b, uint16(8+len(payload)))
	b = append(b, 0, 0)
	return append(b, payload...)
}

// The synthesized captures' client, server and first timestamp.
var (
	synthCli, synthSrv = [4]byte{10, 0, 0, 2}, [4]byte{10, 0, 0, 1}
	synthTime          = int64(1795239213) * 1e9
)

// synthWriter creates path as an Ethernet pcap for a synthesized capture;
// the caller closes the file.
func synthWriter(t *testing.T, path string) (*capture.PcapWriter, *os.File) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := capture.NewPcapWriter(fh, 1, 65535, false)
	if err != nil {
		fh.Close()
		t.Fatal(err)
	}
	return w, fh
}

func TestWriteSynthPcap(t *testing.T) {
	if os.Getenv("NFSWRITE") == "" {
		t.Skip("set NFSWRITE=1 to rewrite " + synthPcap)
	}
	w, fh := synthWriter(t, synthPcap)
	defer fh.Close()
	cli, srv, ts := synthCli, synthSrv, synthTime
	for _, e := range synthExchanges() {
		for i, m := range [][]byte{e.call, e.reply} {
			if m == nil {
				continue
			}
			var d []byte
			if i == 0 {
				d = udpFrame(cli, srv, 800, e.port, m)
			} else {
				d = udpFrame(srv, cli, e.port, 800, m)
			}
			ts += 1e6
			if err := w.WritePacket(&capture.Packet{TimeNS: ts, CapLen: len(d), WireLen: len(d), LinkType: 1, Data: d}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
