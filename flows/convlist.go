package flows

import "sort"

// Conv is one conversation as typed values, for rdx export's flows table.
type Conv struct {
	Kind                  uint8
	A, B                  Endpoint  // A sorts before B (by address, then QP)
	Conn                  uint64    // Rx: epoch<<32 | CID; else 0
	Packets, Bytes        [2]uint64 // [0]: A to B
	FirstNS, LastNS       int64
	FirstFrame, LastFrame uint64
}

// KindName is a kind's -z name ("ip", "tcp", "ib", ...), "" if none.
func KindName(kind uint8) string {
	for _, k := range kinds {
		if k.kind == kind {
			return k.name
		}
	}
	return ""
}

// Each calls fn for every conversation of every kind, in the order they
// were met (first frame, then order within it); cv is reused.
func (c *Conversations) Each(fn func(cv *Conv)) {
	keys := make([]key, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.m[keys[i]], c.m[keys[j]]
		if a.frame0 != b.frame0 {
			return a.frame0 < b.frame0
		}
		if a.sub != b.sub {
			return a.sub < b.sub
		}
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		return keys[i].less(keys[j])
	})
	var cv Conv
	for _, k := range keys {
		s := c.m[k]
		cv = Conv{Kind: k.kind, A: k.a, B: k.b, Conn: k.conn, Packets: s.pkts, Bytes: s.bytes, FirstNS: s.first,
			LastNS: s.last, FirstFrame: s.frame0, LastFrame: s.frN}
		fn(&cv)
	}
}
