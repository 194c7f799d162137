package tsharktest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
)

// recorder is a testing.TB that keeps the failures instead of failing: the
// test below checks that Compare and Capture fail when they must.
type recorder struct {
	testing.TB
	errs []string
}

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatal(a ...any) { r.errs = append(r.errs, fmt.Sprint(a...)); panic(fatal{}) }
func (r *recorder) Fatalf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
	panic(fatal{})
}

// run calls fn with a fresh recorder and returns what it recorded.
func run(fn func(tb testing.TB)) []string {
	r := &recorder{}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(fatal); !ok {
					panic(v)
				}
			}
		}()
		fn(r)
	}()
	return r.errs
}

const mpaV1 = "../../pcaps/iwarp/iwarp_rping_mpav1.pcap"

func TestCompareNeedsAComparedValue(t *testing.T) {
	var res Result
	errs := run(func(tb testing.TB) {
		res = Compare(tb, mpaV1, mpaV1+".tshark-fields.tsv", []string{"iwarp_"}, nil, dissect.Options{})
	})
	if len(errs) != 0 || res.Compared == 0 || res.Equal != res.Compared {
		t.Fatalf("the real comparison: %d compared, %d equal, failures %q", res.Compared, res.Equal, errs)
	}
	// A prefix no column has: nothing compared, which must not pass.
	errs = run(func(tb testing.TB) {
		res = Compare(tb, mpaV1, mpaV1+".tshark-fields.tsv", []string{"nosuchproto."}, nil, dissect.Options{})
	})
	if res.Compared != 0 || len(errs) != 1 || !strings.Contains(errs[0], "no value of [nosuchproto.] compared") {
		t.Errorf("nothing compared: %d compared, failures %q", res.Compared, errs)
	}
}

func TestCaptureFailsWhenMissing(t *testing.T) {
	if errs := run(func(tb testing.TB) { Capture(tb, mpaV1) }); len(errs) != 0 {
		t.Errorf("a present capture: %q", errs)
	}
	var got string
	errs := run(func(tb testing.TB) { got = Capture(tb, "../../pcaps/iwarp/no-such.pcap") })
	if got != "" || len(errs) != 1 || !strings.Contains(errs[0], "capture missing") || !strings.Contains(errs[0], "no-such.pcap") {
		t.Errorf("a missing capture: returned %q, failures %q", got, errs)
	}
}
