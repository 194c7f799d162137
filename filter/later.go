package filter

// Later reports whether the filter names a field whose value comes from a
// later frame (dissect.Field.Later): only then does -Y need a first pass
// over the whole input.
func (f *Filter) Later() bool { return later(f.root) }

func later(n node) bool {
	switch n := n.(type) {
	case and:
		return later(n.a) || later(n.b)
	case or:
		return later(n.a) || later(n.b)
	case not:
		return later(n.a)
	case present:
		return n.f.Later
	case cmp:
		return n.f.Later
	}
	return true // a node this walk does not know: assume the worst, read twice
}
