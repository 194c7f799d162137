package render

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/rdx-project/rdx/dissect"
)

// JSON appends one frame in tshark's `-T json` shape:
// {"_index": ..., "_source": {"layers": {"<proto>": {"<field>": "value",
// "<field>_tree": {...}}}}}. Values are strings, as tshark prints them. A key
// that repeats in one object (the four rx layers of a jumbogram, several
// ack bytes) becomes an array, as `tshark --no-duplicate-keys` makes it.
//
// With -x (JSONRaw: data is the frame's bytes) every protocol and field
// whose bytes lie in the frame is preceded by "<name>_raw" as tshark -x
// adds it: [hex, offset, length, bitmask, ftype], the hex the bit field's
// value for a field with a bitmask (tshark: "%X"), else the bytes.
func JSON(dst []byte, t *dissect.Tree, timeNS int64, indent bool) []byte {
	return JSONRaw(dst, t, timeNS, indent, nil)
}

// JSONRaw is JSON with tshark -x's "_raw" members when data is not nil.
func JSONRaw(dst []byte, t *dissect.Tree, timeNS int64, indent bool, data []byte) []byte {
	layers := object(t.Nodes, 0, len(t.Nodes), 0, data)
	doc := ordered{
		{"_index", "packets-" + time.Unix(0, timeNS).UTC().Format("2006-01-02")},
		{"_type", "doc"},
		{"_score", nil},
		{"_source", ordered{{"layers", layers}}},
	}
	b, err := appendJSON(nil, doc)
	if err == nil && indent {
		var ind bytes.Buffer
		if err = json.Indent(&ind, b, "  ", "  "); err == nil {
			b = ind.Bytes()
		}
	}
	if err != nil {
		return append(dst, `{"error":`+strconv.Quote(err.Error())+`}`...)
	}
	if indent {
		dst = append(dst, "  "...)
	}
	return append(dst, b...)
}

// appendJSON appends v compact, as json.Marshal would. It walks ordered
// objects and arrays itself: through MarshalJSON, encoding/json checked and
// copied every nested object again at each level above it, and -T json
// cost 180 µs a frame (-V: 10).
func appendJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case ordered:
		b = append(b, '{')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			k, err := json.Marshal(e.K)
			if err != nil {
				return nil, err
			}
			b = append(append(b, k...), ':')
			if b, err = appendJSON(b, e.V); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case rawArr:
		return appendJSON(b, []any(v))
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	leaf, err := json.Marshal(v)
	return append(b, leaf...), err
}

type kv struct {
	K string
	V any
}

// ordered is a JSON object that keeps its keys in insertion order.
type ordered []kv

func (o ordered) MarshalJSON() ([]byte, error) { return appendJSON(nil, o) }

// add puts a value under key, turning a repeated key into an array.
func (o *ordered) add(key string, v any) {
	for i := range *o {
		if (*o)[i].K == key {
			if arr, ok := (*o)[i].V.([]any); ok {
				(*o)[i].V = append(arr, v)
			} else {
				(*o)[i].V = []any{(*o)[i].V, v}
			}
			return
		}
	}
	*o = append(*o, kv{key, v})
}

// object builds the JSON object for nodes[lo:hi] at depth d.
func object(nodes []dissect.Node, lo, hi, d int, data []byte) ordered {
	o := ordered{}
	for i := lo; i < hi; {
		n := &nodes[i]
		j := i + 1
		for j < hi && int(nodes[j].Depth) > d {
			j++
		}
		hasKids := j > i+1
		switch {
		case n.IsExpert():
			sev, g, field, msg := n.ExpertParts()
			e := ordered{{"_ws.expert.message", msg}, {"_ws.expert.severity", sev.String()}, {"_ws.expert.group", g.String()}}
			if field != "" {
				e = append(e, kv{"_ws.expert.field", field})
			}
			o.add("_ws.expert", e)
		case n.F == nil:
			if hasKids {
				o.add(n.Label, object(nodes, i+1, j, d+1, data))
			} else {
				o.add(n.Label, "")
			}
		case n.F.Type == dissect.TProtocol:
			if r := rawOf(n, data); r != nil {
				o.add(n.F.Abbrev+"_raw", r)
			}
			o.add(n.F.Abbrev, object(nodes, i+1, j, d+1, data))
		default:
			if r := rawOf(n, data); r != nil {
				o.add(n.F.Abbrev+"_raw", r)
			}
			o.add(n.F.Abbrev, string(fieldValue(nil, n)))
			if hasKids {
				o.add(n.F.Abbrev+"_tree", object(nodes, i+1, j, d+1, data))
			}
		}
		i = j
	}
	return o
}

func fieldValue(dst []byte, n *dissect.Node) []byte {
	if n.F.Type == dissect.TNone {
		if n.Label != "" {
			return append(dst, n.Label...)
		}
		return dst
	}
	return dissect.AppendField(dst, n)
}

// ftenum is Wireshark 4.0's ftenum number of each Type (what tshark -x
// prints last in a "_raw" array).
var ftenum = [...]int{dissect.TNone: 0, dissect.TProtocol: 1, dissect.TBool: 2, dissect.TUint8: 4, dissect.TUint16: 5,
	dissect.TUint24: 6, dissect.TUint32: 7, dissect.TUint64: 11, dissect.TInt32: 15, dissect.TInt64: 19,
	dissect.TString: 26, dissect.TBytes: 30, dissect.TIPv4: 32, dissect.TIPv6: 33, dissect.TEther: 29,
	dissect.TAbsTime: 24, dissect.TRelTime: 25, dissect.TFrameNum: 35, dissect.TFloat: 23, dissect.TInt16: 13}

// rawArr is a "_raw" array: a value of its own, so that a repeated key
// (ip.addr_raw) makes an array of them rather than extending the first.
type rawArr []any

// rawOf is a node's "_raw" array, nil when data is nil or the node has no
// bytes in the frame (generated fields, reassembled data: tshark's raw
// there is of another data source, which rdx does not keep).
func rawOf(n *dissect.Node, data []byte) rawArr {
	if data == nil || n.Off < 0 || n.Len <= 0 || int(n.Off)+int(n.Len) > len(data) {
		return nil
	}
	var hexv string
	if n.F.Mask != 0 && n.F.Type != dissect.TProtocol {
		hexv = strings.ToUpper(strconv.FormatUint(n.Value(), 16))
	} else {
		hexv = hex.EncodeToString(data[n.Off : n.Off+n.Len])
	}
	ft := 0
	if int(n.F.Type) < len(ftenum) {
		ft = ftenum[n.F.Type]
	}
	return rawArr{hexv, json.Number(strconv.Itoa(int(n.Off))), json.Number(strconv.Itoa(int(n.Len))),
		json.Number(strconv.FormatUint(n.F.Mask, 10)), json.Number(strconv.Itoa(ft))}
}
