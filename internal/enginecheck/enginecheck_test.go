package enginecheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// recorder is a testing.TB that keeps the first failure instead of failing.
type recorder struct {
	testing.TB
	msg string
}

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, a ...any) {
	r.msg = fmt.Sprintf(format, a...)
	panic(fatal{})
}

func check(fn func(tb testing.TB)) (msg string) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(fatal); !ok {
				panic(v)
			}
		}
		msg = r.msg
	}()
	fn(r)
	return
}

var (
	pTest = dissect.RegisterProto("enginechecktest", "enginecheck test", "")
	fTest = dissect.Register(&dissect.Field{Abbrev: "enginechecktest.x", Name: "X", Type: dissect.TUint8})
)

// pdu adds its protocol node (unless bare) and one field at off.
type pdu struct {
	bare bool
	off  int
}

func (pdu) Proto() *dissect.ProtoInfo { return pTest }
func (pdu) Summary(dst []byte) []byte { return append(dst, "X"...) }
func (p pdu) Tree(t *dissect.Tree, f *dissect.Frame) {
	if !p.bare {
		t.Proto(pTest, 0, 1, "")
	}
	t.Uint(fTest, p.off, 1, 1)
}

// Each invariant fails on a frame that breaks it, and only then.
func TestChecksFail(t *testing.T) {
	data := []byte{1, 2, 3, 4}
	frame := func(p ...dissect.PDU) *dissect.Frame {
		return &dissect.Frame{Num: 1, Data: data, PDUs: p}
	}
	if msg := check(func(tb testing.TB) { PDUs(tb, frame(pdu{}, pdu{off: 3})) }); msg != "" {
		t.Errorf("a good frame fails: %s", msg)
	}
	for _, c := range []struct {
		name, want string
		fn         func(tb testing.TB)
	}{
		{"offset past the frame", "lies outside the 4-octet frame", func(tb testing.TB) { PDUs(tb, frame(pdu{off: 4})) }},
		{"PDU without its protocol node", "does not start its tree with its protocol node", func(tb testing.TB) { PDUs(tb, frame(pdu{bare: true})) }},
		{"internal-error finding", "internal error in a dissector", func(tb testing.TB) {
			f := frame(pdu{})
			f.Findings = []dissect.Finding{{Sev: dissect.Error, Proto: "enginechecktest", PDU: -1, Msg: "internal error in a dissector on frame 1 (please report it): boom"}}
			Frame(tb, f, data)
		}},
		{"internal-error tree line", "[internal error while building", func(tb testing.TB) {
			var tr dissect.Tree
			tr.Text(-1, 0, "[internal error while building the tree of frame 1 (please report it): boom]")
			Tree(tb, frame(), &tr)
		}},
		{"tree without a PDU", "the summary has 2 PDUs, the tree shows the first 1", func(tb testing.TB) {
			f := frame(pdu{}, pdu{})
			var tr dissect.Tree
			f.PDUs[0].Tree(&tr, f)
			treeHasPDUs(tb, f, &tr)
		}},
	} {
		if msg := check(c.fn); !strings.Contains(msg, c.want) {
			t.Errorf("%s: failure %q, want one saying %q", c.name, msg, c.want)
		}
	}
}
