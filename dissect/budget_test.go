package dissect_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/budget"
)

// lruTable holds entries of fixed size, oldest first.
type lruTable struct {
	acct   *budget.Account
	stamps []uint64
}

func (l *lruTable) hold(n int64) {
	l.stamps = append(l.stamps, l.acct.Now())
	l.acct.Charge(n)
}
func (l *lruTable) Oldest() (uint64, bool) { return firstStamp(l.stamps) }
func (l *lruTable) DropOldest() string {
	s := l.stamps[0]
	l.stamps = l.stamps[1:]
	l.acct.Charge(-1000)
	return "entry of frame stamp " + strconv.FormatUint(s, 10)
}

func firstStamp(s []uint64) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	return s[0], true
}

// The engine enforces its budget after every frame and says on that frame
// what it dropped: the least recently active entry first.
func TestEngineEnforcesBudget(t *testing.T) {
	e := dissect.NewEngine(dissect.Options{MaxMem: 2500})
	if e.Budget().Limit() != 2500 {
		t.Fatalf("limit %d", e.Budget().Limit())
	}
	tab := &lruTable{}
	tab.acct = e.Budget().Register("test", tab)
	pkt := ipv4(253, 1, 0, false, []byte("x")) // a protocol nobody dissects
	for i := 1; i <= 3; i++ {
		f := e.Decode(dissect.Packet{Num: uint64(i), LinkType: dissect.LinkTypeIPv4, Data: pkt, Pass: 1})
		if len(f.Findings) != 0 {
			t.Fatalf("frame %d: findings %v before anything is held", i, f.Findings)
		}
		tab.hold(1000) // held by "frame i", after its decode
	}
	f := e.Decode(dissect.Packet{Num: 4, LinkType: dissect.LinkTypeIPv4, Data: pkt, Pass: 1})
	if e.Budget().Used() > 2500 {
		t.Fatalf("used %d after enforcement", e.Budget().Used())
	}
	if len(f.Findings) != 1 || f.Findings[0].Proto != "test" ||
		!strings.Contains(f.Findings[0].Msg, "dropped entry of frame stamp 1 (1000 octets)") || f.Findings[0].Sev != dissect.Warn {
		t.Fatalf("findings %+v, want one warning naming the stamp-1 entry", f.Findings)
	}
}

func TestEngineDefaultBudget(t *testing.T) {
	if got := dissect.NewEngine(dissect.Options{}).Budget().Limit(); got != budget.DefaultLimit {
		t.Fatalf("default limit %d, want %d", got, budget.DefaultLimit)
	}
}
