package dissect

import (
	"bytes"
	"slices"
	"testing"

	"github.com/rdx-project/rdx/capture"
)

// FuzzProtoChainMemo: frames cut from data (each first octet its length)
// decoded in a row by one engine get from ProtoChainMemo what ProtoChain
// gives (the export compares them on every capture in pcaps/, with every
// protocol registered: TestDeltaByteArray).
func FuzzProtoChainMemo(f *testing.F) {
	for _, path := range []string{"../pcaps/kernel/rds_tcp.pcap", "../pcaps/ib/roce_rping.pcap", "../pcaps/crafted/base_fields.pcap"} {
		r, err := capture.Open(path)
		if err != nil {
			f.Fatal(err)
		}
		var seed []byte
		var pkt capture.Packet
		for i := 0; i < 12 && r.Next(&pkt) == nil; i++ {
			n := min(len(pkt.Data), 255)
			seed = append(append(seed, byte(n)), pkt.Data[:n]...)
		}
		r.Close()
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := NewEngine(Options{})
		var m ChainMemo
		for num := uint64(1); len(data) > 0; num++ {
			n := min(int(data[0]), len(data)-1)
			d := slices.Clone(data[1 : 1+n])
			data = data[1+n:]
			fr := e.Decode(Packet{Num: num, CapLen: len(d), WireLen: len(d), LinkType: LinkTypeEthernet, Data: d})
			want := e.ProtoChain(nil, fr)
			if got, _, _ := e.ProtoChainMemo(fr, &m); !bytes.Equal(got, want) {
				t.Fatalf("frame %d (%x): ProtoChainMemo %q, ProtoChain %q", num, d, got, want)
			}
		}
	})
}
