package rx

import "testing"

// Two call types with the same name and count (one call on two server
// ports) are listed by key, not in the map's order.
func TestSRTTableOrder(t *testing.T) {
	for range 20 {
		d := newDissector()
		for _, port := range []uint16{7005, 7003, 7004} {
			tm, _ := d.srtTab.Add(srtKey{service: 1, port: port, opcode: 9, hasOp: true}, 10, uint64(port))
			tm.Name = "VL Same"
		}
		rows := d.srtTable().Rows
		if len(rows) != 3 || rows[0][2] != "7003" || rows[1][2] != "7004" || rows[2][2] != "7005" {
			t.Fatalf("rows %q", rows)
		}
	}
}
