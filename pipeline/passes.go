package pipeline

import (
	"errors"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
)

// twoPasses decides whether a run reads the input twice. A second pass
// exists only to show on a frame what a later frame taught (a request's
// reply frame, a finding explained further on), so it is needed only
// when the output can show such a thing: a whole tree (-V, JSON), a -e
// field or -Y filter marked dissect.Field.Later, or a sink's tree. The
// summary, -q, -z, check, stats and flows read once. -2 (TwoPass) forces
// the second pass, --single-pass (SinglePass) forbids it; standard input
// and live captures can be read only once.
func twoPasses(cfg *Config, pr *printer, flt *filter.Filter, zflt []dissect.Matcher) (bool, error) {
	if cfg.TwoPass && cfg.SinglePass {
		return false, errors.New("-2 and --single-pass ask for opposite things")
	}
	if cfg.TwoPass && !cfg.Input.rereadable() {
		return false, errors.New("-2 needs a capture file: " + cfg.Input.onceName() + " can be read only once")
	}
	if cfg.SinglePass || !cfg.Input.rereadable() {
		return false, nil
	}
	if cfg.TwoPass || flt != nil && flt.Later() || cfg.printing() && pr.shows(later) {
		return true, nil
	}
	for _, s := range cfg.Sinks {
		if ts, ok := s.(TreeSink); ok && ts.NeedsTree() {
			return true, nil // a tree of its own: it may show anything
		}
	}
	for _, m := range zflt { // a -z FILTER on a field known only later
		if f, ok := m.(*filter.Filter); ok && f.Later() {
			return true, nil
		}
	}
	return false, nil
}

// shows says whether the printer shows a field that is: a whole tree
// shows every field, -T fields those it names.
func (pr *printer) shows(is func(*dissect.Field) bool) bool {
	if pr.p.Format != "fields" {
		return pr.needsTree()
	}
	for _, name := range pr.p.Fields {
		if f := dissect.Lookup(name); f != nil && is(f) {
			return true
		}
	}
	return false
}

func later(f *dissect.Field) bool  { return f.Later }
func global(f *dissect.Field) bool { return f.Global }

// printing says whether frames reach the printer (Run adds it so).
func (cfg *Config) printing() bool { return !cfg.Quiet && (cfg.Write == "" || cfg.PrintToo) }

// onceName names an input that cannot be reread, for errors.
func (in Input) onceName() string {
	if in.Iface != "" {
		return "interface " + in.Iface
	}
	return "standard input"
}
