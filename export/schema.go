package export

import (
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
)

// column is one leaf of a table: its name and Parquet node.
type column struct {
	name string
	node parquet.Node
}

// ordered is a group whose columns keep the order they were declared in
// (parquet.Group sorts them by name): SELECT * shows frame_number first.
type ordered struct {
	parquet.Group
	fields []parquet.Field
}

func (o ordered) Fields() []parquet.Field { return o.fields }

type namedField struct {
	parquet.Node
	name string
}

func (f namedField) Name() string                      { return f.name }
func (f namedField) Value(reflect.Value) reflect.Value { return reflect.Value{} }

func newSchema(name string, cols []column) *parquet.Schema {
	g := ordered{Group: parquet.Group{}}
	for _, c := range cols {
		g.Group[c.name] = c.node
		g.fields = append(g.fields, namedField{c.node, c.name})
	}
	return parquet.NewSchema(name, g)
}

// Encodings: sorted integers delta-code to a few bits, repeated text
// (addresses, protocol names) is dictionary-coded. A dictionary-coded
// text costs 150-170 instructions a value in parquet-go v0.32.0 (its
// map[string]int32: hash and compare), about 15% of an export of RoCE or
// Rx; we cannot bring our own dictionary (its Dictionary and ColumnBuffer
// have unexported methods, and it resets a dictionary column's encoding
// to its own). Remembering in its insert which index the last values'
// addresses had (our rows point at a few texts: capture, a protocol, a
// batch's address and chain texts) took 12% (RoCE) and 11% (Rx) off
// the instructions of exports of 200k frames, with the same files: a
// change to parquet-go, not made here. DELTA_BYTE_ARRAY instead
// (capture, src, dst, protocol, frame_protocols, check) was no cheaper:
// parquet-go's plain column buffer copies each value (60 instructions)
// before it is encoded, and 200k RoCE frames took 8.6% more
// instructions, for frames 3% and checks 4.5 times as large.
var (
	dict  = &parquet.RLEDictionary
	delta = &parquet.DeltaBinaryPacked
)

// timestampNS is a time in nanoseconds since the Unix epoch, UTC. It is
// marked not adjusted to UTC because DuckDB reads an adjusted one as
// TIMESTAMP WITH TIME ZONE, which holds microseconds: the nanoseconds
// RDMA traffic needs would be cut. DuckDB reads this as TIMESTAMP_NS.
func timestampNS() parquet.Node { return parquet.TimestampAdjusted(parquet.Nanosecond, false) }

func dictString() parquet.Node { return parquet.Encoded(parquet.String(), dict) }

// ColumnName is a field's column: Wireshark's name with every character
// an SQL identifier cannot hold unquoted ('.', '-') turned into '_'
// (rx.seq is rx_seq). Columns are flat, not nested groups: every engine
// filters and groups on a flat column without path syntax.
func ColumnName(abbrev string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' {
			return '_'
		}
		return r
	}, abbrev)
}

// fieldNode is the Parquet type of a registered field: unsigned integers
// stay unsigned, absolute times are timestamps in nanoseconds, relative
// times int64 nanoseconds, addresses strings as Wireshark shows them.
// Every occurrence is kept, so a field is a repeated column (a list);
// a field without a value (a protocol, a label) is a boolean: present.
func fieldNode(f *dissect.Field) (parquet.Node, bool) {
	if f.Type == dissect.TProtocol || f.Type == dissect.TNone {
		return parquet.Leaf(parquet.BooleanType), false
	}
	return parquet.Repeated(fieldLeaf(f)), true
}
