package flows

import (
	"encoding/binary"
	"strings"
	"testing"
)

// FuzzIOStat feeds an io,stat column arbitrary frames and values (times
// anywhere, huge relative times for LOAD, every function and kind): it
// never panics, stays within MaxIOIntervals rows (plus the "later" row),
// and the frames split over two columns and merged (-j) give the table of
// one column fed them all (floats excepted from SUM/AVG/LOAD: their sums
// depend on the order of addition).
func FuzzIOStat(f *testing.F) {
	f.Add(uint8(6), uint8(3), int64(1e9), []byte("\x03\x00\x00\x00\x00\x95\x02\xf9\x00\x01\x00\x00\x00\x00\x00\x03\xd0\x90\x04\x00\x03\x8d\x7e\xa4\xc6\x80\x00"))
	f.Add(uint8(3), uint8(1), int64(1e8), []byte("\xff\xff\xff\xff\xff\xff\xff\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x01"))
	// MIN of 1, NaN, 2, 0.5: a NaN must not hide the 0.5 from the merged half
	f.Add(uint8(3), uint8(2), int64(1e9), []byte("\x00\x3f\xf0\x00\x00\x00\x00\x00\x00\x00\x7f\xf8\x00\x00\x00\x00\x00\x01\x00\x40\x00\x00\x00\x00\x00\x00\x00\x00\x3f\xe0\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, fn, kind uint8, iv int64, data []byte) {
		s := IOStat{Interval: max(iv, 0) % 10e9, Fn: IOFn(fn % 7), Kind: IOKind(kind % 4)}
		if s.Fn == IOFrames {
			s.Fn = IOCount
		}
		if s.Fn == IOLoad {
			s.Kind = IOTime
			if LoadTooFine(s.Interval) {
				s.Interval = 1000
			}
		}
		whole, a, b := s, s, s
		all := IOStat{Interval: s.Interval}
		for i := 0; len(data) >= 9; i++ {
			rel := int64(data[0]) << 30 // up to 274 s: past MaxIOIntervals for short intervals
			v := binary.BigEndian.Uint64(data[1:9])
			data = data[9:]
			all.Add(rel, 1)
			for _, c := range []*IOStat{&whole, [2]*IOStat{&a, &b}[i%2]} {
				c.Add(rel, 0)
				c.AddField(rel, v)
			}
		}
		a.Merge(&b)
		t1 := all.TableWith([]IOColumn{{Legend: "x", S: &whole}})
		t2 := all.TableWith([]IOColumn{{Legend: "x", S: &a}})
		if len(t1.Rows) > MaxIOIntervals+1 {
			t.Fatalf("%d rows", len(t1.Rows))
		}
		if s.Kind == IOFloat && s.Fn != IOMin && s.Fn != IOMax && s.Fn != IOCount {
			return
		}
		for i := range t1.Rows {
			if strings.Join(t1.Rows[i], " ") != strings.Join(t2.Rows[i], " ") {
				t.Fatalf("row %d: whole %q, merged %q", i, t1.Rows[i], t2.Rows[i])
			}
		}
	})
}
