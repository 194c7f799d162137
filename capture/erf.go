package capture

// ERF interfaces. An ERF record says which capture port of which card it
// came from: the flags' two low bits (ERF "Capture interface") and the
// source ID of a Host ID or Flow ID extension header (types 14 and 16,
// octet 1). tshark gives each (source, port) its own interface, numbered in
// the order the records first name them, and shows that number as
// frame.interface_id; so does the reader, for pcap files of ERF records.
// The host ID of a Host ID header is not part of the key: the captures seen
// come from one host each.

// erfIfaces numbers the (source ID, port) pairs of an ERF capture: 256
// source IDs × 4 ports, a fixed table that cannot grow with the input.
type erfIfaces struct {
	id [256 * 4]int16 // 1 + interface number, 0 when not seen yet
	n  int16
}

// ERF extension header types that carry a source ID.
const (
	erfExtHostID = 14
	erfExtFlowID = 16
)

// iface gives the interface number of a pcap record: its ERF interface in
// a file of ERF records, else 0.
func (r *Reader) iface(data []byte) int {
	if r.linkType != linkTypeERF {
		return 0
	}
	if r.erfIDs == nil {
		r.erfIDs = new(erfIfaces)
	}
	return r.erfIDs.of(data)
}

// of numbers the interface of an ERF record (0 for a record too short to
// say, as tshark's reader does for a header it cannot read).
func (t *erfIfaces) of(rec []byte) int {
	if len(rec) < 16 {
		return 0
	}
	port, src := int(rec[9]&3), 0
	for hl, ext := 16, rec[8]&0x80 != 0; ext && hl+8 <= len(rec); hl += 8 {
		h := rec[hl : hl+8]
		if typ := h[0] & 0x7f; typ == erfExtHostID || typ == erfExtFlowID {
			src = int(h[1])
		}
		ext = h[0]&0x80 != 0
	}
	k := src*4 + port
	if t.id[k] == 0 {
		t.n++
		t.id[k] = t.n
	}
	return int(t.id[k] - 1)
}
