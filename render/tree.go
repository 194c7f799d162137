package render

import (
	"slices"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Verbose appends the tree as `-V` shows it: one line per node, indented by
// depth, each field followed by its abbreviation and byte range, e.g.
// "    Sequence Number: 1  [rx.seq @54+4]".
func Verbose(dst []byte, t *dissect.Tree, st *Style) []byte {
	return VerboseOnly(dst, t, st, nil)
}

// VerboseOnly is Verbose with only the protocols in only (abbreviations,
// as tshark -O) expanded: every other top-level protocol shows its one
// line. A nil only expands all.
func VerboseOnly(dst []byte, t *dissect.Tree, st *Style, only []string) []byte {
	collapsed := false
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.F != nil && n.F.Hidden { // as tshark -V: for -e, -Y and json only
			continue
		}
		if only != nil {
			if n.Depth == 0 {
				collapsed = n.F == nil || !slices.Contains(only, n.F.Abbrev)
			} else if collapsed {
				continue
			}
		}
		for d := 0; d < int(n.Depth); d++ {
			dst = append(dst, "    "...)
		}
		generated := n.Off < 0 && n.Len == 0 && n.F != nil && n.F.Type != dissect.TProtocol
		if n.IsExpert() {
			seq := ""
			if st != nil {
				seq = st.treeLine(n.ExpertParts())
			}
			dst = append(dst, seq...)
			dst = dissect.AppendDisplay(dst, n)
			if seq != "" {
				dst = append(dst, st.Reset...)
			}
			if _, _, field, _ := n.ExpertParts(); field != "" {
				dst = append(dst, "  [_ws.expert: "...)
				dst = append(dst, field...)
				dst = append(dst, ']')
			}
			dst = append(dst, '\n')
			continue
		}
		if generated {
			dst = append(dst, '[')
		}
		dst = dissect.AppendDisplay(dst, n)
		if generated {
			dst = append(dst, ']')
		}
		if n.F != nil {
			dst = append(dst, "  ["...)
			dst = append(dst, n.F.Abbrev...)
			switch {
			case n.Off >= 0 && n.Len > 0:
				dst = append(dst, " @"...)
				dst = strconv.AppendInt(dst, int64(n.Off), 10)
				dst = append(dst, '+')
				dst = strconv.AppendInt(dst, int64(n.Len), 10)
			case n.Off < 0 && n.Len > 0:
				dst = append(dst, " reassembled"...)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '\n')
	}
	return dst
}

// Hex appends a hex dump as `tshark -x` prints it: offset, 16 bytes, ASCII.
func Hex(dst []byte, data []byte) []byte {
	const hx = "0123456789abcdef"
	for off := 0; off < len(data); off += 16 {
		end := off + 16
		if end > len(data) {
			end = len(data)
		}
		for s := 12; s >= 0; s -= 4 {
			dst = append(dst, hx[(off>>uint(s))&15])
		}
		dst = append(dst, "  "...)
		for i := off; i < off+16; i++ {
			if i < end {
				dst = append(dst, hx[data[i]>>4], hx[data[i]&15], ' ')
			} else {
				dst = append(dst, "   "...)
			}
			if i == off+7 {
				dst = append(dst, ' ')
			}
		}
		dst = append(dst, ' ')
		for i := off; i < end; i++ {
			c := data[i]
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			dst = append(dst, c)
		}
		dst = append(dst, '\n')
	}
	return dst
}
