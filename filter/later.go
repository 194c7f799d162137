package filter

import "github.com/rdx-project/rdx/dissect"

// Later reports whether the filter names a field whose value comes from a
// later frame (dissect.Field.Later): only then does -Y need a first pass
// over the whole input.
func (f *Filter) Later() bool { return names(f.root, func(d *dissect.Field) bool { return d.Later }) }

// Global reports whether the filter names a field numbered over the whole
// capture (dissect.Field.Global): only then must -Y run on one worker.
func (f *Filter) Global() bool { return names(f.root, func(d *dissect.Field) bool { return d.Global }) }

// names reports whether the filter names a field that is.
func names(n node, is func(*dissect.Field) bool) bool {
	switch n := n.(type) {
	case *and:
		return names(n.a, is) || names(n.b, is)
	case *or:
		return names(n.a, is) || names(n.b, is)
	case *not:
		return names(n.a, is)
	case *present:
		return is(n.f)
	case *cmp:
		return is(n.f)
	}
	return true // a node this walk does not know: assume the worst
}
