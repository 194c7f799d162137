package dissect

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdx-project/rdx/capture"
)

// TestDecodeLayersMatchesParser checks the engine's own layer walk against
// gopacket's DecodingLayerParser set up as the engine had it (the same nine
// layers, a sparse container, unsupported layers ignored): the same layers
// decoded and the same truncation flag for every frame of every capture in
// pcaps/, for every prefix of its first octets and for frames with octets
// changed at random.
func TestDecodeLayersMatchesParser(t *testing.T) {
	e := NewEngine(Options{})
	// The parser decodes into another engine's layers: the same types.
	pe := NewEngine(Options{})
	udp := &pe.udp
	var parsers [maxLinkType]*gopacket.DecodingLayerParser
	for lt, first := range e.first {
		if first == gopacket.LayerTypeZero {
			continue
		}
		p := gopacket.NewDecodingLayerParser(first)
		p.SetDecodingLayerContainer(gopacket.DecodingLayerSparse(nil))
		for _, l := range []gopacket.DecodingLayer{&pe.eth, &pe.dot1q, &pe.sll, &pe.sll2, &pe.loop, &pe.ip4, &pe.ip6, &pe.udp, &pe.tcp} {
			p.AddDecodingLayer(l)
		}
		p.IgnoreUnsupported = true
		parsers[lt] = p
	}
	var want []gopacket.LayerType
	frames := 0
	check := func(name string, lt uint16, data []byte) {
		t.Helper()
		if lt >= maxLinkType || parsers[lt] == nil {
			return
		}
		frames++
		p := parsers[lt]
		_ = p.DecodeLayers(data, &want)
		e.decodeLayers(e.first[lt], data)
		if !slices.Equal(e.types, want) || bool(e.trunc) != p.Truncated {
			t.Fatalf("%s (link type %d, %d octets %x): layers %v truncated %v, the parser %v truncated %v",
				name, lt, len(data), data, e.types, e.trunc, want, p.Truncated)
		}
		if n := len(want); n > 0 && want[n-1] == layers.LayerTypeUDP && !slices.Equal(e.udp.Payload, udp.Payload) {
			t.Fatalf("%s: UDP payload differs", name)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	eachPcapFrame(t, func(path string, i int, pkt *capture.Packet) {
		check(path, pkt.LinkType, pkt.Data)
		if i < 20 {
			for n := 0; n < min(len(pkt.Data), 80); n++ {
				check(path+" prefix", pkt.LinkType, pkt.Data[:n])
			}
			b := slices.Clone(pkt.Data)
			for k := 0; k < 20 && len(b) > 0; k++ {
				b[rnd.IntN(min(len(b), 64))] = byte(rnd.Uint32())
				check(path+" mutated", pkt.LinkType, b)
			}
		}
	})
	if frames < 1000 {
		t.Fatalf("only %d frames compared", frames)
	}
}

// eachPcapFrame calls fn with the first 2000 frames (i counts from 0) of
// every capture under pcaps/ that opens; it fails t when there is none.
func eachPcapFrame(t *testing.T, fn func(path string, i int, pkt *capture.Packet)) {
	t.Helper()
	var files []string
	filepath.WalkDir("../pcaps", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.Contains(path, ".pcap") || strings.Contains(path, ".cap")) {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no captures under ../pcaps")
	}
	for _, path := range files {
		r, err := capture.Open(path)
		if err != nil {
			continue // a capture that is meant not to open
		}
		var pkt capture.Packet
		for i := 0; i < 2000; i++ {
			if err := r.Next(&pkt); err != nil {
				if err != io.EOF {
					t.Logf("%s: %v", path, err)
				}
				break
			}
			fn(path, i, &pkt)
		}
		r.Close()
	}
}
