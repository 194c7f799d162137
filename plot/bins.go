package plot

import (
	"strconv"
	"time"
)

func itoa(n int) string { return strconv.Itoa(n) }

// MaxBins bounds the time bins of one series when the interval is given
// (-i): a capture longer than MaxBins intervals widens the interval (as
// with no -i, see autoBins) and the title says so, instead of holding one
// counter per interval of a capture that spans a year. A picture a few
// thousand pixels wide shows no more; io's 132 rows of them are 10 MB.
const MaxBins = 10_000

// autoBins is about how many bins a picture without -i gets: the interval
// starts at 1 µs and widens (x2, x5, x2, ...: 1, 2, 10, 20, 100 µs ...)
// whenever the capture outgrows it, so the cost stays linear and the
// memory fixed however long the capture is.
const autoBins = 200

// bins counts values per time bin in several rows (a row per line drawn),
// all with the same interval.
type bins struct {
	iv      int64 // bin width, ns
	limit   int   // bins a row may have before the interval widens
	widened bool  // a given interval was widened (MaxBins)
	given   int64 // the interval asked for (0: automatic)
	rows    [][]float64
	n       int // bins in use (the latest bin's index + 1)
}

func newBins(iv time.Duration) *bins {
	if iv > 0 {
		return &bins{iv: int64(iv), given: int64(iv), limit: MaxBins}
	}
	return &bins{iv: 1000, limit: autoBins}
}

// row adds an empty row and returns its index.
func (b *bins) row() int {
	b.rows = append(b.rows, make([]float64, b.n, max(b.n, 16)))
	return len(b.rows) - 1
}

// add adds v to row r's bin for time rel (ns since the first frame).
func (b *bins) add(r int, rel int64, v float64) {
	i := b.index(rel)
	b.rows[r][i] += v
}

// index is the bin of time rel, widening the interval and growing every
// row as needed.
func (b *bins) index(rel int64) int {
	for rel/b.iv >= int64(b.limit) {
		b.widen()
	}
	i := int(rel / b.iv)
	if i >= b.n {
		b.n = i + 1
		for r := range b.rows {
			for len(b.rows[r]) < b.n {
				b.rows[r] = append(b.rows[r], 0)
			}
		}
	}
	return i
}

// widen multiplies the interval by 2 or 5 (keeping 1-2-10 steps) and adds
// up the bins that now share one.
func (b *bins) widen() {
	k := int64(2)
	if m := mantissa(b.iv); m == 2 {
		k = 5
	}
	if b.given > 0 {
		b.widened = true
	}
	b.iv *= k
	for r, row := range b.rows {
		out := make([]float64, (len(row)+int(k)-1)/int(k))
		for i, v := range row {
			out[i/int(k)] += v
		}
		b.rows[r] = out
	}
	b.n = (b.n + int(k) - 1) / int(k)
}

// mantissa is the leading digit of a power-of-ten multiple (1 for 1000).
func mantissa(v int64) int64 {
	for v >= 10 && v%10 == 0 {
		v /= 10
	}
	return v
}

// times are the bins' start times in seconds.
func (b *bins) times() []float64 {
	x := make([]float64, b.n)
	for i := range x {
		x[i] = float64(int64(i)*b.iv) / 1e9
	}
	return x
}

// rate is row r per second.
func (b *bins) rate(r int) []float64 {
	out := make([]float64, b.n)
	s := float64(b.iv) / 1e9
	for i, v := range b.rows[r] {
		out[i] = v / s
	}
	return out
}

// note words the interval for a title: "100 ms bins", with a note when -i
// was widened.
func (b *bins) note() string {
	s := seconds(b.iv) + " intervals"
	if b.widened {
		s += " (-i " + seconds(b.given) + " widened: more than " + itoa(MaxBins) + " intervals)"
	}
	return s
}
