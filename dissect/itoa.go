package dissect

// AppendUint appends v in decimal, exactly as strconv.AppendUint(dst, v,
// 10) does, for the numbers every summary line prints: small numbers in one
// append, larger ones two digits at a time, without strconv's general path.
func AppendUint(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	if v < 100 {
		return append(dst, digits2[2*v], digits2[2*v+1])
	}
	var b [20]byte
	i := len(b)
	for v >= 100 {
		q := v / 100
		d := (v - q*100) * 2
		b[i-2], b[i-1] = digits2[d], digits2[d+1]
		i -= 2
		v = q
	}
	if v >= 10 {
		b[i-2], b[i-1] = digits2[2*v], digits2[2*v+1]
		i -= 2
	} else {
		i--
		b[i] = byte('0' + v)
	}
	return append(dst, b[i:]...)
}

const digits2 = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"
