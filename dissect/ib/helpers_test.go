package ib_test

import (
	"errors"
	"io"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/ib"
)

// frame is one decoded frame of a capture: its data and what the engine saw.
type frame struct {
	num      uint64
	pkt      capture.Packet
	summary  string
	findings []dissect.Finding
	fields   map[string][]string // abbrev -> values (tree order)
}

// run decodes every frame of path and returns summaries, findings and field values.
func run(t testing.TB, path string, mutate func(num uint64, data []byte)) []frame {
	t.Helper()
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	eng := dissect.NewEngine(dissect.Options{})
	var out []frame
	var tree dissect.Tree
	var pkt capture.Packet
	for num := uint64(1); ; num++ {
		if err := r.Next(&pkt); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		data := append([]byte(nil), pkt.Data...)
		if mutate != nil {
			mutate(num, data)
		}
		fr := eng.Decode(dissect.Packet{Num: num, TimeNS: pkt.TimeNS, CapLen: pkt.CapLen, WireLen: pkt.WireLen, LinkType: pkt.LinkType, Iface: pkt.Iface, Data: data})
		var s []byte
		for _, p := range fr.PDUs {
			s = p.Summary(s)
		}
		o := frame{num: num, pkt: pkt, summary: string(s), findings: append([]dissect.Finding(nil), fr.Findings...),
			fields: map[string][]string{}}
		o.pkt.Data = data
		eng.BuildTree(&tree, fr)
		for i := range tree.Nodes {
			n := &tree.Nodes[i]
			if n.F == nil {
				continue
			}
			o.fields[n.F.Abbrev] = append(o.fields[n.F.Abbrev], string(dissect.AppendField(nil, n)))
		}
		out = append(out, o)
	}
	return out
}
