package export

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
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
	{"info", parquet.Encoded(parquet.String(), &deltaByteArray{})},
}

// infoColumn is the frames table's last everyday column.
const infoColumn = 11

// Info is DELTA_BYTE_ARRAY (each value stored as the length of the prefix
// it shares with the one before, and the rest) when the first batch of a
// part shares at least infoSharedPct of its octets so, else
// DELTA_LENGTH_BYTE_ARRAY (lengths, then the values): prefixes pay only
// where consecutive rows are alike. Frames table of 200k generated RoCE
// frames (requests, replies and ACKs interleaved, 9% shared): 991 kB with
// prefixes, 966 kB without, and 2% fewer instructions for the whole
// export (5% with parquet-go's prefix search, see deltaByteArray); 200k
// generated Rx frames (a call's packets in a row, 89% shared) 284 kB
// with, 612 kB without; below 30% every capture in pcaps/ was smaller
// without, at 52% (kernel/nfs3_rdma_roce.pcap) 2% larger.
const infoSharedPct = 50

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
	col   []int32 // by field ID: 1 + its index in extra, 0 none (a map lookup a node cost 160 instructions a frame of 4 -e fields)
	eng   *dissect.Engine
	memo  dissect.ChainMemo
	addr  []byte
	rows  *typedRows[frameRow] // without -e columns
	// with rows: the addresses' texts
	addrs *[addrSlots]addrText
	batch uint64 // the batch being built (1 the first): addrs of others are stale
	// the addresses of the last row that looked them up, and their texts
	// (of batch pair): a row of the same two, either way round, takes
	// them without addrText's hash (RoCE swaps src and dst every frame)
	pairSrc, pairDst netip.Addr
	pairS, pairD     string
	pair             uint64
	// the texts of memo's chains in the arena of a batch
	chains [dissect.ChainMemoSlots]struct {
		s     string
		batch uint64
	}
	// schema with Info DELTA_LENGTH_BYTE_ARRAY (infoSharedPct)
	noPrefix *parquet.Schema
}

// infoSchema is the schema of a part whose first batch is being written:
// schema or noPrefix by the share of Info the batch's rows have in common
// with the row before.
func (ft *frameTable) infoSchema() *parquet.Schema {
	var shared, total int
	prev := ""
	for i := range ft.n {
		var s string
		if ft.rows != nil {
			s = ft.rows.rows[i].Info
		} else {
			b := ft.cols[infoColumn][i].ByteArray()
			s = unsafe.String(unsafe.SliceData(b), len(b))
		}
		shared += sharedPrefix(unsafe.Slice(unsafe.StringData(prev), len(prev)), unsafe.Slice(unsafe.StringData(s), len(s)))
		total += len(s)
		prev = s
	}
	if total == 0 || shared*100 >= total*infoSharedPct {
		return ft.schema
	}
	return ft.noPrefix
}

// addrSlots addresses keep their text for a batch, each in the slot its
// hash picks: the hosts of a busy capture are formatted once a batch
// instead of every row (RoCE alternates src and dst every frame; the 64
// flows of a generated Rx capture took 200 instructions a frame in
// netip's formatting with a cache of the last 4). An address whose slot
// another holds takes it over (the other is formatted again when seen).
const (
	addrBits  = 8
	addrSlots = 1 << addrBits
)

func newFrameTable(fields []string) (*frameTable, error) {
	cols := append([]column(nil), frameColumns...)
	names := map[string]string{}
	for _, c := range cols {
		names[c.name] = c.name
	}
	ft := &frameTable{}
	for _, name := range fields {
		f := dissect.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("-e %s: no such field (see `rdx fields`)", name)
		}
		if everydayFields[name] {
			continue
		}
		if f.ID() < len(ft.col) && ft.col[f.ID()] != 0 {
			continue
		}
		c := ColumnName(name)
		if other, dup := names[c]; dup {
			return nil, fmt.Errorf("-e %s: its column %s is also %s's", name, c, other)
		}
		names[c] = name
		n, rep := fieldNode(f)
		for len(ft.col) <= f.ID() {
			ft.col = append(ft.col, 0)
		}
		ft.col[f.ID()] = int32(len(ft.extra) + 1)
		ft.extra = append(ft.extra, extraCol{f: f, repeated: rep})
		cols = append(cols, column{c, n})
	}
	ft.name = "frames"
	ft.schema = newSchema("frames", cols)
	cols[infoColumn].node = parquet.Encoded(parquet.String(), &parquet.DeltaLengthByteArray)
	ft.noPrefix = newSchema("frames", cols)
	ft.schemaFor = ft.infoSchema
	if len(ft.extra) == 0 {
		ft.rows = newTypedRows[frameRow](ft.schema)
		ft.fast = ft.rows
		ft.addrs = new([addrSlots]addrText)
	}
	return ft, nil
}

func (ft *frameTable) add(f *dissect.Frame, t *dissect.Tree, capture []byte) {
	if ft.rows != nil {
		ft.addFast(f)
		return
	}
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
	chain, _, _ := ft.eng.ProtoChainMemo(f, &ft.memo)
	ft.bytes(8, chain, 0, 0)
	ft.putLevel(9, parquet.Int32Value(int32(f.WireLen)), 0, 0)
	ft.putLevel(10, parquet.Int32Value(int32(f.CapLen)), 0, 0)
	// Info is rendered into the batch's arena, not copied there
	start := len(ft.arena)
	ft.arena = render.Info(ft.arena, f)
	ft.putLevel(infoColumn, parquet.ByteArrayValue(ft.arena[start:len(ft.arena):len(ft.arena)]), 0, 0)
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
			if nd.F == nil || nd.F.ID() >= len(ft.col) {
				continue
			}
			if i := ft.col[nd.F.ID()]; i != 0 {
				ft.extra[i-1].vals = append(ft.extra[i-1].vals, nd)
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

// frameRow is a row of the everyday columns (typedBatch): its tags give
// frameColumns' types (checked by newTypedRows).
type frameRow struct {
	Capture        string `parquet:"capture"`
	FrameNumber    uint64 `parquet:"frame_number"`
	FrameTime      int64  `parquet:"frame_time,timestamp(nanosecond:local)"`
	Src            string `parquet:"src,optional"` // "": null (no IP)
	Dst            string `parquet:"dst,optional"`
	SrcPort        uint16 `parquet:"src_port,optional"` // 0: null (no TCP/UDP, or port 0)
	DstPort        uint16 `parquet:"dst_port,optional"`
	Protocol       string `parquet:"protocol"`
	FrameProtocols string `parquet:"frame_protocols"`
	FrameLen       uint32 `parquet:"frame_len"`
	FrameCapLen    uint32 `parquet:"frame_cap_len"`
	Info           string `parquet:"info"`
}

// addrText is an address and its text in the arena of the batch it was
// made in: the batch's rows of the address reuse it.
type addrText struct {
	a     netip.Addr
	s     string
	batch uint64
}

// slot is a's slot in addrs.
func (ft *frameTable) slot(a netip.Addr) *addrText {
	b := a.As16()
	h := (binary.LittleEndian.Uint64(b[:8]) ^ binary.LittleEndian.Uint64(b[8:])) * 0x9e3779b97f4a7c15
	return &ft.addrs[h>>(64-addrBits)]
}

func (ft *frameTable) addrText(a netip.Addr) string {
	c := ft.slot(a)
	if c.batch == ft.batch && c.a == a {
		return c.s
	}
	ft.addr = a.AppendTo(ft.addr[:0])
	c.a, c.s, c.batch = a, ft.rows.text(ft.addr), ft.batch
	return c.s
}

func (ft *frameTable) addFast(f *dissect.Frame) {
	ff := ft.rows
	if ft.n == 0 {
		ff.arena = ff.arena[:0]
		ft.batch++ // the former batch's texts were in the arena
	}
	r := &ff.rows[ft.n]
	r.FrameNumber, r.FrameTime = f.Num, f.TimeNS
	// each field stored once (a string store checks the write barrier)
	src, dst, sport, dport := "", "", uint16(0), uint16(0) // null
	n := &f.Net
	if n.HasIP {
		switch {
		case ft.pair == ft.batch && n.Src == ft.pairSrc && n.Dst == ft.pairDst:
			src, dst = ft.pairS, ft.pairD
		case ft.pair == ft.batch && n.Src == ft.pairDst && n.Dst == ft.pairSrc:
			src, dst = ft.pairD, ft.pairS
		default:
			src, dst = ft.addrText(n.Src), ft.addrText(n.Dst)
			ft.pairSrc, ft.pairDst, ft.pairS, ft.pairD, ft.pair = n.Src, n.Dst, src, dst, ft.batch
		}
		if n.HasL4 {
			sport, dport = n.SrcPort, n.DstPort
		}
	}
	r.Src, r.Dst, r.SrcPort, r.DstPort = src, dst, sport, dport
	r.Protocol = f.Proto
	// a chain the memo had is its string again (if in this batch's arena)
	chain, i, made := ft.eng.ProtoChainMemo(f, &ft.memo)
	c := &ft.chains[i]
	if made || c.batch != ft.batch {
		c.s, c.batch = ff.text(chain), ft.batch
	}
	r.FrameProtocols = c.s
	r.FrameLen, r.FrameCapLen = uint32(f.WireLen), uint32(f.CapLen)
	// rendered into the arena, not copied there
	start := len(ff.arena)
	ff.arena = render.Info(ff.arena, f)
	info := ""
	if len(ff.arena) > start {
		info = unsafe.String(&ff.arena[start], len(ff.arena)-start)
	}
	r.Info = info
	ft.end()
}
