package export

import (
	"fmt"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
)

// The everyday columns of frames, in this order; -e fields follow.
// Names are Wireshark's fields' where one exists (frame.number is
// frame_number), else its columns' (src, dst, protocol, info).
var frameColumns = []column{
	{"capture", dictString()},
	{"frame_number", parquet.Encoded(parquet.Uint(64), delta)},
	{"frame_time", parquet.Encoded(timestampNS(), delta)},
	{"src", parquet.Optional(dictString())},
	{"dst", parquet.Optional(dictString())},
	{"src_port", parquet.Optional(parquet.Encoded(parquet.Uint(16), dict))},
	{"dst_port", parquet.Optional(parquet.Encoded(parquet.Uint(16), dict))},
	{"protocol", dictString()},
	{"frame_protocols", dictString()},
	{"frame_len", parquet.Encoded(parquet.Uint(32), dict)},
	{"frame_cap_len", parquet.Encoded(parquet.Uint(32), dict)},
	{"info", parquet.Encoded(parquet.String(), &parquet.DeltaByteArray)},
}

// The -e fields that are everyday columns already.
var everydayFields = map[string]bool{"frame.number": true, "frame.time_epoch": true, "frame.protocols": true,
	"frame.len": true, "frame.cap_len": true}

type extraCol struct {
	f        *dissect.Field
	repeated bool // false: a boolean "present"
	vals     []*dissect.Node
}

type frameTable struct {
	table
	extra []extraCol
	col   map[*dissect.Field]int // index in extra
	eng   *dissect.Engine
	chain []byte
	addr  []byte
}

func newFrameTable(fields []string) (*frameTable, error) {
	cols := append([]column(nil), frameColumns...)
	names := map[string]string{}
	for _, c := range cols {
		names[c.name] = c.name
	}
	ft := &frameTable{col: map[*dissect.Field]int{}}
	for _, name := range fields {
		f := dissect.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("-e %s: no such field (see `rdx fields`)", name)
		}
		if everydayFields[name] {
			continue
		}
		if _, dup := ft.col[f]; dup {
			continue
		}
		c := ColumnName(name)
		if other, dup := names[c]; dup {
			return nil, fmt.Errorf("-e %s: its column %s is also %s's", name, c, other)
		}
		names[c] = name
		n, rep := fieldNode(f)
		ft.col[f] = len(ft.extra)
		ft.extra = append(ft.extra, extraCol{f: f, repeated: rep})
		cols = append(cols, column{c, n})
	}
	ft.name = "frames"
	ft.schema = newSchema("frames", cols)
	return ft, nil
}

func (ft *frameTable) add(f *dissect.Frame, t *dissect.Tree, capture, info []byte) {
	ft.putLevel(0, parquet.ByteArrayValue(capture), 0, 0)
	ft.putLevel(1, parquet.Int64Value(int64(f.Num)), 0, 0)
	ft.putLevel(2, parquet.Int64Value(f.TimeNS), 0, 0)
	n := &f.Net
	if n.HasIP {
		ft.addr = n.Src.AppendTo(ft.addr[:0])
		ft.bytes(3, ft.addr, 0, 1)
		ft.addr = n.Dst.AppendTo(ft.addr[:0])
		ft.bytes(4, ft.addr, 0, 1)
	} else {
		ft.putLevel(3, parquet.NullValue(), 0, 0)
		ft.putLevel(4, parquet.NullValue(), 0, 0)
	}
	if n.HasIP && n.HasL4 {
		ft.putLevel(5, parquet.Int32Value(int32(n.SrcPort)), 0, 1)
		ft.putLevel(6, parquet.Int32Value(int32(n.DstPort)), 0, 1)
	} else {
		ft.putLevel(5, parquet.NullValue(), 0, 0)
		ft.putLevel(6, parquet.NullValue(), 0, 0)
	}
	ft.str(7, f.Proto, 0)
	ft.chain = ft.eng.ProtoChain(ft.chain[:0], f)
	ft.bytes(8, ft.chain, 0, 0)
	ft.putLevel(9, parquet.Int32Value(int32(f.WireLen)), 0, 0)
	ft.putLevel(10, parquet.Int32Value(int32(f.CapLen)), 0, 0)
	ft.bytes(11, info, 0, 0)
	if len(ft.extra) > 0 {
		ft.addExtra(t, len(frameColumns))
	}
	ft.end()
}

// addExtra adds the -e columns: every occurrence in the tree, typed.
func (ft *frameTable) addExtra(t *dissect.Tree, first int) {
	for i := range ft.extra {
		ft.extra[i].vals = ft.extra[i].vals[:0]
	}
	if t != nil {
		for k := range t.Nodes {
			nd := &t.Nodes[k]
			if nd.F == nil {
				continue
			}
			if i, ok := ft.col[nd.F]; ok {
				ft.extra[i].vals = append(ft.extra[i].vals, nd)
			}
		}
	}
	for i := range ft.extra {
		x := &ft.extra[i]
		col := first + i
		if !x.repeated {
			ft.putLevel(col, parquet.BooleanValue(len(x.vals) > 0), 0, 0)
			continue
		}
		if len(x.vals) == 0 {
			ft.putLevel(col, parquet.NullValue(), 0, 0)
			continue
		}
		for j, nd := range x.vals {
			rep := 0
			if j > 0 {
				rep = 1
			}
			ft.table.value(nd, rep, col)
		}
	}
}
