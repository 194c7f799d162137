package rpcrdma_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// rebuiltCaptures are the real NFS-over-RDMA captures with read chunks
// (RoCE and iWARP, clean and lossy) and reply chunks.
var rebuiltCaptures = []string{
	"../../pcaps/kernel/nfs3_rdma_roce.pcap",
	"../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap",
	"../../pcaps/kernel/lossy_nfs3_rdma_roce_dup.pcap",
	"../../pcaps/kernel/lossy_nfs3_rdma_iwarp.pcap",
	"../../pcaps/kernel/nfs42_acl_rdma_roce.pcap",
	"../../pcaps/kernel/nfs42_acl_rdma_iwarp.pcap",
	"../../pcaps/iwarp/nfs3_rdma_iwarp.pcap",
}

// TestRebuiltOnCaptures: every RPC message rebuilt from chunks in the real
// captures is octet for octet the one the three-copy rebuild made (the
// digests in testdata/rebuilt.txt were written by the code before read
// chunk data was placed once). RDX_UPDATE=1 rewrites the file.
func TestRebuiltOnCaptures(t *testing.T) {
	var out strings.Builder
	for _, c := range rebuiltCaptures {
		path := tsharktest.Capture(t, c)
		eng := dissect.NewEngine(dissect.Options{})
		n := 0
		err := testpkt.Each(path, func(p dissect.Packet) error {
			f := eng.Decode(p)
			for _, m := range rpcrdma.Rebuilt(f) {
				sum := sha256.Sum256(m)
				fmt.Fprintf(&out, "%s %d %d %s\n", c[strings.LastIndexByte(c, '/')+1:], p.Num, len(m), hex.EncodeToString(sum[:8]))
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("%s: no message rebuilt from chunks", c)
		}
	}
	const golden = "testdata/rebuilt.txt"
	if os.Getenv("RDX_UPDATE") == "1" {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("rebuilt messages differ from %s:\n%s", golden, testpkt.DiffLines(got, string(want)))
	}
}

// chunkCall builds an RPC call of which the octets at the chunks' places
// travel by read chunks: full is the message the responder must rebuild
// (each chunk followed by its XDR pad), inline what the call carries, and
// reads the read list (a chunk of two segments, then single-segment
// chunks, one at the very end).
func chunkCall(xid uint32, handle uint32) (full, inline []byte, reads []rpcrdma.ReadSegment) {
	words := func(b []byte, n int) []byte {
		for i := 0; i < n; i++ {
			b = binary.BigEndian.AppendUint32(b, xid^uint32(i*0x01010101))
		}
		return b
	}
	full = call(xid, 0)
	inline = append(inline, full...)
	lens := [][]uint32{{1001, 2050}, {3}, {4096}, {777}}
	va := uint64(0x10000)
	for k, chunk := range lens {
		pos := uint32(len(full))
		n := 0
		for j, l := range chunk {
			data := make([]byte, l)
			for i := range data {
				data[i] = byte(int(xid) + k*31 + j*7 + i*13)
			}
			full = append(full, data...)
			n += int(l)
			reads = append(reads, rpcrdma.ReadSegment{Position: pos,
				Segment: rpcrdma.Segment{Handle: handle + uint32(len(reads)), Length: l, Offset: va}})
			va += 0x10000
		}
		for ; n%4 != 0; n++ {
			full = append(full, 0)
		}
		if k < len(lens)-1 { // inline octets between the chunks; none after the last
			m := len(full)
			full = words(full, 3+k)
			inline = append(inline, full[m:]...)
		}
	}
	return full, inline, reads
}

// TestReadChunksPlacedOnce: calls whose RPC message has many read chunks
// (segments of odd lengths, a chunk of two segments, one at the end),
// each segment fetched by its own RDMA READ (multi-packet responses),
// the last segment first and the first in two READs, second half first.
// The rebuilt message is the one the requester built, and every chunk
// octet was copied exactly once (the InfiniBand layer stores none of it:
// reassembly/ib's TestPlaceReadsStoresNothing).
func TestReadChunksPlacedOnce(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	num := uint64(0)
	decode := func(fr []byte) *dissect.Frame {
		num++
		return eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num) * 1000, LinkType: dissect.LinkTypeEthernet, Data: withICRC(fr)})
	}
	aeth := []byte{0x1f, 0, 0, 1}
	cpsn, spsn := uint32(100), uint32(0xFFFFF0) // the server's PSNs wrap
	for c := uint32(0); c < 40; c++ {
		xid := 0x1000 + c
		full, inline, reads := chunkCall(xid, 0x500+c*16)
		h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG, Reads: reads}
		f := decode(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: cpsn}, nil, append(h.Encode(nil), inline...)))
		cpsn++
		if len(rpcrdma.Rebuilt(f)) != 0 {
			t.Fatal("call rebuilt before its chunks were read")
		}
		before := rpcrdma.Copied(eng)
		// one READ per piece: [segment, from, to)
		type piece struct{ seg, lo, hi int }
		var pieces []piece
		for i := len(reads) - 1; i >= 1; i-- {
			pieces = append(pieces, piece{i, 0, int(reads[i].Length)})
		}
		half := int(reads[0].Length) / 2
		pieces = append(pieces, piece{0, half, int(reads[0].Length)}, piece{0, 0, half})
		var got [][]byte
		total := 0
		for _, pc := range pieces {
			r := reads[pc.seg]
			n := pc.hi - pc.lo
			total += n
			reth := (&ib.RETHFields{VA: r.Offset + uint64(pc.lo), RKey: r.Handle, DMALen: uint32(n)}).Encode(nil)
			decode(roce(2, ib.BTHFields{Opcode: 0x0C, PKey: 0xFFFF, DestQP: 0x22, PSN: spsn}, reth, nil))
			data := full[int(r.Position):] // the segment's octets in the full message
			if pc.seg == 1 {
				data = full[int(r.Position)+int(reads[0].Length):]
			}
			data = data[pc.lo:pc.hi]
			for k := 0; k*1024 < n; k++ {
				op, ext := uint8(0x0E), []byte(nil)
				switch {
				case n <= 1024:
					op, ext = 0x10, aeth
				case k == 0:
					op, ext = 0x0D, aeth
				case (k+1)*1024 >= n:
					op, ext = 0x0F, aeth
				}
				f := decode(roce(1, ib.BTHFields{Opcode: op, PKey: 0xFFFF, DestQP: 0x11, PSN: (spsn + uint32(k)) & 0xFFFFFF}, ext, data[k*1024:min(n, (k+1)*1024)]))
				got = append(got, rpcrdma.Rebuilt(f)...)
			}
			spsn = (spsn + uint32((n+1023)/1024)) & 0xFFFFFF
		}
		if len(got) != 1 {
			t.Fatalf("call %d: %d messages rebuilt, want 1", c, len(got))
		}
		if !bytes.Equal(got[0], full) {
			t.Fatalf("call %d: rebuilt message differs (%d octets, want %d)", c, len(got[0]), len(full))
		}
		if n := rpcrdma.Copied(eng) - before; n != int64(total) {
			t.Fatalf("call %d: %d chunk octets copied, want %d (each once)", c, n, total)
		}
	}
}

// BenchmarkReadChunk decodes the RoCE benchmark's WRITE exchange (a call
// with a 4096-octet read chunk, the READ request, four responses, the
// reply): bytes/op is the frames' octets, allocs/op must be 0.
func BenchmarkReadChunk(b *testing.B) {
	var set [][]byte
	aeth := []byte{0x1f, 0, 0, 1}
	body := writeCall(7, 4096)
	h := rpcrdma.Header{XID: 7, Vers: 1, Credit: 16, Proc: rpcrdma.MSG,
		Reads: []rpcrdma.ReadSegment{{Position: uint32(len(body)), Segment: rpcrdma.Segment{Handle: 0x77, Length: 4096, Offset: 0x1000}}}}
	reth := (&ib.RETHFields{VA: 0x1000, RKey: 0x77, DMALen: 4096}).Encode(nil)
	set = append(set, roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11}, nil, append(h.Encode(nil), body...)),
		roce(2, ib.BTHFields{Opcode: 0x0C, PKey: 0xFFFF, DestQP: 0x22}, reth, nil))
	for k, op := range []uint8{0x0D, 0x0E, 0x0E, 0x0F} {
		var ext []byte
		if op != 0x0E {
			ext = aeth
		}
		set = append(set, roce(1, ib.BTHFields{Opcode: op, PKey: 0xFFFF, DestQP: 0x11, PSN: uint32(k)}, ext, make([]byte, 1024)))
	}
	set = append(set, roce(2, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x22, PSN: 4}, nil,
		append((&rpcrdma.Header{XID: 7, Vers: 1, Credit: 16, Proc: rpcrdma.MSG}).Encode(nil), reply(7)...)))
	size := 0
	for _, fr := range set {
		withICRC(fr)
		size += len(fr)
	}
	eng := dissect.NewEngine(dissect.Options{})
	num := uint64(0)
	run := func() {
		eng.Rewind() // the exchange repeats its PSNs
		for _, fr := range set {
			num++
			eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num), LinkType: dissect.LinkTypeEthernet, Data: fr})
		}
	}
	run()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}

// TestSameHandleTwoClients: two clients offer read chunks under the same
// handle (an R_Key means something only on its own adapter), their calls
// and READs interleaved: each call is rebuilt with its own client's data.
// Keyed by the handle alone, the second call replaced the first, and the
// first client's READ data went into the second client's message.
func TestSameHandleTwoClients(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	num := uint64(0)
	// client c (1 or 5) and the server 192.0.2.2; toServer says which way
	decode := func(c byte, toServer bool, bth ib.BTHFields, ext, payload []byte) *dissect.Frame {
		var fr []byte
		if toServer {
			fr = roce(1, bth, ext, payload)
			fr[14+15] = c // source 192.0.2.c
		} else {
			fr = roce(2, bth, ext, payload)
			fr[14+19] = c // destination 192.0.2.c
		}
		num++
		return eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num) * 1000, LinkType: dissect.LinkTypeEthernet, Data: withICRC(fr)})
	}
	body := writeCall(9, 2048)
	h := rpcrdma.Header{XID: 9, Vers: 1, Credit: 16, Proc: rpcrdma.MSG,
		Reads: []rpcrdma.ReadSegment{{Position: uint32(len(body)), Segment: rpcrdma.Segment{Handle: 0x77, Length: 2048, Offset: 0x1000}}}}
	reth := (&ib.RETHFields{VA: 0x1000, RKey: 0x77, DMALen: 2048}).Encode(nil)
	aeth := []byte{0x1f, 0, 0, 1}
	data := map[byte][]byte{1: bytes.Repeat([]byte{0xA1}, 2048), 5: bytes.Repeat([]byte{0xB5}, 2048)}
	for _, c := range []byte{1, 5} {
		decode(c, true, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 10}, nil, append(h.Encode(nil), body...))
	}
	for _, c := range []byte{1, 5} {
		decode(c, false, ib.BTHFields{Opcode: 0x0C, PKey: 0xFFFF, DestQP: 0x22, PSN: 50}, reth, nil)
	}
	got := map[byte][]byte{}
	for k, op := range []uint8{0x0D, 0x0F} {
		for _, c := range []byte{1, 5} {
			f := decode(c, true, ib.BTHFields{Opcode: op, PKey: 0xFFFF, DestQP: 0x11, PSN: 50 + uint32(k)}, aeth, data[c][k*1024:(k+1)*1024])
			for _, m := range rpcrdma.Rebuilt(f) {
				got[c] = m
			}
		}
	}
	for _, c := range []byte{1, 5} {
		want := append(append([]byte(nil), body...), data[c]...)
		if !bytes.Equal(got[c], want) {
			t.Errorf("client 192.0.2.%d: rebuilt %d octets, want its own %d (data %x...)", c, len(got[c]), len(want), got[c][min(len(got[c]), len(body)):min(len(got[c]), len(body)+4)])
		}
	}
}
