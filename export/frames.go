package export

import (
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
)

// The everyday columns of frames, in this order; -e fields follow.
// Names are Wireshark's fields' where one exists (frame.number is
// frame_number), else its columns' (src, dst, protocol, info).
var frameColumns = []column{
	{"capture", dictString()},
	{"frame_number", parquet.Encoded(parquet.Uint(64), delta)},
	{"frame_time", parquet.Encoded(parquet.Timestamp(parquet.Nanosecond), delta)},
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
	r := ft.row()
	r = append(r,
		parquet.ByteArrayValue(capture).Level(0, 0, 0),
		parquet.Int64Value(int64(f.Num)).Level(0, 0, 1),
		parquet.Int64Value(f.TimeNS).Level(0, 0, 2))
	n := &f.Net
	if n.HasIP {
		ft.addr = n.Src.AppendTo(ft.addr[:0])
		r = append(r, ft.bytes(ft.addr, 0, 1, 3))
		ft.addr = n.Dst.AppendTo(ft.addr[:0])
		r = append(r, ft.bytes(ft.addr, 0, 1, 4))
	} else {
		r = append(r, parquet.NullValue().Level(0, 0, 3), parquet.NullValue().Level(0, 0, 4))
	}
	if n.HasIP && n.HasL4 {
		r = append(r, parquet.Int32Value(int32(n.SrcPort)).Level(0, 1, 5),
			parquet.Int32Value(int32(n.DstPort)).Level(0, 1, 6))
	} else {
		r = append(r, parquet.NullValue().Level(0, 0, 5), parquet.NullValue().Level(0, 0, 6))
	}
	r = append(r, ft.str(f.Proto, 0, 7))
	ft.chain = ft.eng.ProtoChain(ft.chain[:0], f)
	r = append(r, ft.bytes(ft.chain, 0, 0, 8),
		parquet.Int32Value(int32(f.WireLen)).Level(0, 0, 9),
		parquet.Int32Value(int32(f.CapLen)).Level(0, 0, 10),
		ft.bytes(info, 0, 0, 11))
	if len(ft.extra) > 0 {
		r = ft.addExtra(r, t, len(frameColumns))
	}
	ft.put(r)
}

// addExtra appends the -e columns: every occurrence in the tree, typed.
func (ft *frameTable) addExtra(r parquet.Row, t *dissect.Tree, first int) parquet.Row {
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
			r = append(r, parquet.BooleanValue(len(x.vals) > 0).Level(0, 0, col))
			continue
		}
		if len(x.vals) == 0 {
			r = append(r, parquet.NullValue().Level(0, 0, col))
			continue
		}
		for j, nd := range x.vals {
			rep := 0
			if j > 0 {
				rep = 1
			}
			r = append(r, ft.value(nd, rep, col))
		}
	}
	return r
}

// value is a node's value in its field's column type (fieldNode).
func (ft *frameTable) value(nd *dissect.Node, rep, col int) parquet.Value {
	var v parquet.Value
	switch nd.F.Type {
	case dissect.TBool:
		v = parquet.BooleanValue(nd.Value() != 0)
	case dissect.TUint8, dissect.TUint16, dissect.TUint24, dissect.TUint32:
		v = parquet.Int32Value(int32(uint32(fieldUint(nd))))
	case dissect.TUint64, dissect.TFrameNum:
		v = parquet.Int64Value(int64(fieldUint(nd)))
	case dissect.TInt16:
		v = parquet.Int32Value(int32(int16(nd.U)))
	case dissect.TInt32:
		v = parquet.Int32Value(int32(nd.U))
	case dissect.TInt64, dissect.TRelTime, dissect.TAbsTime:
		v = parquet.Int64Value(int64(nd.U))
	case dissect.TFloat:
		v = parquet.DoubleValue(math.Float64frombits(nd.U))
	case dissect.TBytes:
		return ft.bytes(nd.B, rep, 1, col)
	default: // strings and addresses, as -T fields shows them
		ft.addr = dissect.AppendField(ft.addr[:0], nd)
		return ft.bytes(ft.addr, rep, 1, col)
	}
	return v.Level(rep, 1, col)
}

// fieldUint is an unsigned field's value as -T fields shows it (a bit
// field's bits shifted down).
func fieldUint(nd *dissect.Node) uint64 { return nd.Value() }
