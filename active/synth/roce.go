package synth

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
)

// The RoCEv2 scenario: NFSv3 WRITEs over RPC-over-RDMA v1 on one RC queue
// pair. Each call is an RDMA_MSG whose read list names the file data; the
// server ACKs the Send, pulls the chunk with an RDMA READ (the client's
// READ Responses, PMTU 1024), replies with an RDMA_MSG and the client ACKs
// the reply. ICRCs are computed over the masked IPv4/UDP/BTH as RoCEv2
// specifies; UDP checksums are 0, as RoCE NICs send them. With --loss the
// capture is taken at the server: a lost READ Response is missing, the ones
// after it arrive and are discarded, and the server re-issues the READ for
// the rest (IBA 9.7.5.1.3), whose responses are not lost again.
func roceNFSScenario() *Scenario {
	return &Scenario{
		Name:      "roce-nfs",
		Desc:      "RoCEv2 RC: NFSv3 WRITE over RPC-over-RDMA with a read chunk (RDMA_MSG, RDMA READ, reply, ACKs)",
		Available: true,
		Options: []Option{
			{"--messages N", "NFS WRITE calls (default 2)"},
			{"--size N", "octets written by each call, rounded up to 4 (default 4096: four READ Responses)"},
			{"--loss P --seed S", "lose each READ Response with probability P before the capture point (the server): it discards the responses after a lost one and re-issues the READ for the rest, from the missing PSN"},
		},
		Variants: []Variant{
			{Name: "icrc", Alias: "crc", Desc: "the first READ Response Middle's ICRC is wrong",
				Findings: []string{"frame 5: error infiniband: bad ICRC: computed 0x0bb73e39, on the wire 0x0bb73e38 (octets in wire order)"}},
			{Name: "lost-response", Desc: "the first READ Response Middle is missing from the capture",
				Findings: []string{"frame 5: warning infiniband: PSN gap on QP 0x000022: expected 2049, got 2050 (1 missing)"}},
		},
		build: buildRoCE,
	}
}

// RC opcodes (IBA table 38): dissect/ib has the table but no names for them.
const (
	opSendOnly       = 0x04
	opReadRequest    = 0x0c
	opReadRespFirst  = 0x0d
	opReadRespMiddle = 0x0e
	opReadRespLast   = 0x0f
	opReadRespOnly   = 0x10
	opAck            = 0x11
)

const (
	clientQP  = 0x000011
	serverQP  = 0x000022
	pmtu      = 1024
	roceSport = 49152 // RoCEv2 source ports are a flow hash; this is fixed
	nfsProg   = 100003
	nfsWrite  = 7
	chunkKey  = 0x77000
	chunkVA   = 0x7f0000001000
)

func buildRoCE(o Options) []capture.Packet {
	nmsg := or(o.Messages, 2)
	size := (or(o.Size, 4096) + 3) &^ 3
	var frames [][]byte
	var id [2]uint16
	// pkt frames one IB packet: BTH, extension headers, payload, ICRC.
	pkt := func(client bool, bth ib.BTHFields, ext, payload []byte) []byte {
		bth.PKey = 0xffff
		bth.PadCnt = uint8((4 - len(payload)%4) % 4)
		b := bth.Encode(nil)
		b = append(b, ext...)
		b = append(b, payload...)
		b = append(b, make([]byte, bth.PadCnt)...)
		udp := make([]byte, 8, 8+len(b)+4)
		binary.BigEndian.PutUint16(udp[0:], roceSport)
		binary.BigEndian.PutUint16(udp[2:], 4791)
		binary.BigEndian.PutUint16(udp[4:], uint16(8+len(b)+4))
		me := side(client)
		id[me]++
		fr := ipFrame(client, 17, id[me], append(append(udp, b...), 0, 0, 0, 0))
		crc, _ := ib.ICRCRoCEv2(fr[14:34], fr[34:42], fr[42:len(fr)-4])
		binary.LittleEndian.PutUint32(fr[len(fr)-4:], crc)
		return fr
	}
	aeth := func(msn uint32) []byte {
		return (&ib.AETHFields{Syndrome: 0x1f, MSN: msn}).Encode(nil) // ACK, credit field 31: no limit
	}
	u32 := binary.BigEndian.AppendUint32

	var rng *rand.Rand
	if o.Loss > 0 {
		rng = rand.New(rand.NewPCG(uint64(o.Seed), 0x10ce))
	}
	cpsn, spsn := uint32(0x100), uint32(0x800) // next request PSN of client and server
	var cmsn, smsn uint32                      // messages each side completed as responder
	for i := range nmsg {
		xid := uint32(0x5a000001 + i)
		// The call: RPC header, AUTH_NONE, WRITE3args with the data's
		// length inline and the data itself in the read chunk at the
		// position right after that length.
		call := u32(nil, xid)
		for _, w := range []uint32{0, 2, nfsProg, 3, nfsWrite, 0, 0, 0, 0} {
			call = u32(call, w)
		}
		fh := pattern(32, 200)
		call = u32(call, uint32(len(fh)))
		call = append(call, fh...)
		call = binary.BigEndian.AppendUint64(call, uint64(i*size)) // offset
		call = u32(call, uint32(size))                             // count
		call = u32(call, 2)                                        // FILE_SYNC
		call = u32(call, uint32(size))                             // data length; the data is the chunk
		va := uint64(chunkVA + i*0x100000)
		h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 32, Proc: rpcrdma.MSG,
			Reads: []rpcrdma.ReadSegment{{Position: uint32(len(call)), Segment: rpcrdma.Segment{Handle: chunkKey + uint32(i), Length: uint32(size), Offset: va}}}}
		frames = append(frames, pkt(true, ib.BTHFields{Opcode: opSendOnly, DestQP: serverQP, AckReq: true, PSN: cpsn}, nil, append(h.Encode(nil), call...)))
		smsn++
		frames = append(frames, pkt(false, ib.BTHFields{Opcode: opAck, DestQP: clientQP, PSN: cpsn}, aeth(smsn), nil))
		cpsn++

		// The server reads the chunk; the client answers in PMTU pieces
		// with the request's PSNs.
		reth := (&ib.RETHFields{VA: va, RKey: chunkKey + uint32(i), DMALen: uint32(size)}).Encode(nil)
		frames = append(frames, pkt(false, ib.BTHFields{Opcode: opReadRequest, DestQP: clientQP, PSN: spsn}, reth, nil))
		data := pattern(size, i)
		n := (size + pmtu - 1) / pmtu
		cmsn++
		lost := -1
		for k := 0; rng != nil && k < n; k++ {
			if rng.Float64() < o.Loss {
				lost = k
				break
			}
		}
		// responses answers a READ of parts from..n-1 (its own First..Last
		// or Only), leaving out the part skip.
		responses := func(from, skip int) {
			m := n - from
			for j := range m {
				k := from + j
				if k == skip {
					continue
				}
				part := data[k*pmtu : min(size, (k+1)*pmtu)]
				var op uint8
				var ext []byte
				switch {
				case m == 1:
					op, ext = opReadRespOnly, aeth(cmsn)
				case j == 0:
					op, ext = opReadRespFirst, aeth(cmsn)
				case j == m-1:
					op, ext = opReadRespLast, aeth(cmsn)
				default:
					op = opReadRespMiddle
				}
				f := pkt(true, ib.BTHFields{Opcode: op, DestQP: serverQP, PSN: spsn + uint32(k)}, ext, part)
				if i == 0 && k == 1 && n > 2 && from == 0 {
					switch o.Corrupt {
					case "icrc":
						f[len(f)-1] ^= 0x01
					case "lost-response":
						continue
					}
				}
				frames = append(frames, f)
			}
		}
		responses(0, lost)
		if lost >= 0 {
			off := lost * pmtu
			reth := (&ib.RETHFields{VA: va + uint64(off), RKey: chunkKey + uint32(i), DMALen: uint32(size - off)}).Encode(nil)
			frames = append(frames, pkt(false, ib.BTHFields{Opcode: opReadRequest, DestQP: clientQP, PSN: spsn + uint32(lost)}, reth, nil))
			responses(lost, -1)
		}
		spsn += uint32(n)

		// The reply: RDMA_MSG, RPC accepted/SUCCESS, WRITE3resok (no
		// attributes in the wcc_data), count, FILE_SYNC, verifier.
		rep := u32(nil, xid)
		for _, w := range []uint32{1, 0, 0, 0, 0, 0, 0, 0, uint32(size), 2} {
			rep = u32(rep, w)
		}
		rep = append(rep, "rdxverf1"...)
		rh := rpcrdma.Header{XID: xid, Vers: 1, Credit: 32, Proc: rpcrdma.MSG}
		frames = append(frames, pkt(false, ib.BTHFields{Opcode: opSendOnly, DestQP: clientQP, AckReq: true, PSN: spsn}, nil, append(rh.Encode(nil), rep...)))
		cmsn++
		frames = append(frames, pkt(true, ib.BTHFields{Opcode: opAck, DestQP: serverQP, PSN: spsn}, aeth(cmsn), nil))
		spsn++
	}
	return packets(frames)
}
