package dissect

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/rdx-project/rdx/capture"
)

// TestFastUDP4 checks that whatever frame fastUDP4 accepts, decodeLayers and
// fillNet decode into the same Net, layer list and UDP payload: for every
// Ethernet frame of the captures in pcaps/, every prefix of the first ones
// and frames with header octets changed at random.
func TestFastUDP4(t *testing.T) {
	e := NewEngine(Options{})
	f := &e.frame
	fast, frames := 0, 0
	check := func(name string, data []byte) {
		t.Helper()
		frames++
		f.reset()
		f.Data = data
		payload, ok := e.fastUDP4(f, data)
		if !ok {
			return
		}
		fast++
		got, gotTypes := f.Net, slices.Clone(e.types)
		f.reset()
		e.decodeLayers(layers.LayerTypeEthernet, data)
		e.fillNet(f, bool(e.trunc))
		if got != f.Net || !slices.Equal(gotTypes, e.types) || f.Proto != "udp" {
			t.Fatalf("%s (%x):\nfast %+v %v\nlayers %+v %v %s", name, data, got, gotTypes, f.Net, e.types, f.Proto)
		}
		p := data[got.PayloadOff : got.PayloadOff+got.PayloadLen]
		if len(p) != len(e.udp.Payload) || (len(p) > 0 && &p[0] != &e.udp.Payload[0]) ||
			len(payload) != len(p) || (len(p) > 0 && &payload[0] != &p[0]) {
			t.Fatalf("%s: UDP payload differs", name)
		}
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	eachPcapFrame(t, func(path string, i int, pkt *capture.Packet) {
		if pkt.LinkType != LinkTypeEthernet {
			return
		}
		check(path, pkt.Data)
		if i < 20 {
			for n := 0; n < min(len(pkt.Data), 80); n++ {
				check(path+" prefix", pkt.Data[:n])
			}
			for k := 0; k < 200 && len(pkt.Data) > 12; k++ {
				b := slices.Clone(pkt.Data)
				for m := 0; m < 1+k%3; m++ {
					b[12+rnd.IntN(min(len(b)-12, 30))] ^= byte(1 << rnd.IntN(8))
				}
				check(path+" mutated", b)
			}
		}
	})
	if fast < 1000 || fast == frames {
		t.Fatalf("fastUDP4 took %d of %d frames: the test compares too little", fast, frames)
	}
}
