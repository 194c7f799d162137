package dissect_test

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// handoffLog is the context of the test table: each handler appends its name.
type handoffLog struct{ got []string }

var testTable = dissect.NewDissectorTable[*handoffLog]("test.handoff", "a test table", 16)

// testWide is keyed wider than 16 bits: its keys are looked up in a map,
// behind a cache of the last key.
var testWide = dissect.NewDissectorTable[*handoffLog]("test.handoff.wide", "a test table of 24-bit keys", 24)

// testKeyed has heuristics for one key each (AddHeuristicFor) among others.
var testKeyed = dissect.NewDissectorTable[*handoffLog]("test.handoff.keyed", "a test table of keyed heuristics", 24)

func init() {
	logAs := func(name string, take bool) dissect.Handler[*handoffLog] {
		return func(_ dissect.Dissector, _ *dissect.Frame, l *handoffLog) bool {
			l.got = append(l.got, name)
			return take
		}
	}
	dissect.AddHandler(testTable.Name(), "t-exact", []dissect.KeyRange{{Lo: 5, Hi: 5}}, logAs("t-exact", true))
	dissect.AddHandler(testTable.Name(), "t-decline", []dissect.KeyRange{{Lo: 6, Hi: 6}}, logAs("t-decline", false))
	dissect.AddHandler(testTable.Name(), "t-cand", nil, logAs("t-cand", true))
	dissect.AddHeuristic(testTable.Name(), "t-h1", logAs("t-h1", false))
	dissect.AddHeuristic(testTable.Name(), "t-h2", logAs("t-h2", true))
	dissect.AddHandler(testWide.Name(), "w-exact", []dissect.KeyRange{{Lo: 0x10000, Hi: 0x10000}}, logAs("w-exact", true))
	dissect.AddHandler(testWide.Name(), "w-cand", nil, logAs("w-cand", true))
	dissect.AddHeuristic(testWide.Name(), "w-h", logAs("w-h", true))
	dissect.AddHeuristicFor(testKeyed.Name(), "k-9", 9, logAs("k-9", false))
	dissect.AddHeuristicFor(testKeyed.Name(), "k-10", 10, logAs("k-10", true))
	dissect.AddHeuristic(testKeyed.Name(), "k-any", logAs("k-any", true))
}

// A heuristic added for one key is tried on that key, in its place in the
// order, and on no other; rdx tables lists it with the others.
func TestKeyedHeuristic(t *testing.T) {
	e := dissect.NewEngine(dissect.Options{})
	var f dissect.Frame
	e.Bind(&f)
	for key, want := range map[uint64]string{9: "k-9 k-any", 10: "k-10", 8: "k-any", 1<<32 + 9: "k-any"} {
		var l handoffLog
		if !testKeyed.Call(&f, key, &l) || strings.Join(l.got, " ") != want {
			t.Errorf("key %#x: %q, want %q", key, l.got, want)
		}
	}
	for _, x := range dissect.Tables() {
		if x.Name == testKeyed.Name() && strings.Join(x.Heuristics, " ") != "k-9 k-10 k-any" {
			t.Errorf("listed heuristics %q", x.Heuristics)
		}
	}
}

// A wide table answers each key by its own entry whatever key came before
// (the last-key cache never answers for another key), decode-as rules
// included.
func TestDissectorTableWideKeys(t *testing.T) {
	da, err := dissect.ParseDecodeAs("test.handoff.wide==0x20000,w-cand")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts dissect.Options
		want map[uint64]string
	}{
		{dissect.Options{}, map[uint64]string{0x10000: "w-exact", 0x20000: "w-h", 0x30000: "w-h"}},
		{dissect.Options{DecodeAs: []dissect.DecodeAs{da}}, map[uint64]string{0x10000: "w-exact", 0x20000: "w-cand", 0x30000: "w-h"}},
	} {
		e := dissect.NewEngine(tc.opts)
		var f dissect.Frame
		e.Bind(&f)
		for _, key := range []uint64{0x10000, 0x10000, 0x20000, 0x10000, 0x30000, 0x30000, 0x20000, 0x20000, 0x10000} {
			var l handoffLog
			testWide.Call(&f, key, &l)
			if got := strings.Join(l.got, " "); got != tc.want[key] {
				t.Errorf("rules %d, key %#x: %q, want %q", len(tc.opts.DecodeAs), key, got, tc.want[key])
			}
		}
	}
}

// An exact key wins over the heuristics; a handler that declines passes on
// to them, in order; a decode-as rule adds a key and overrides a registered
// one; a frame outside any engine reaches nothing.
func TestDissectorTable(t *testing.T) {
	var das []dissect.DecodeAs
	for _, r := range []string{"test.handoff==7,t-cand", "test.handoff==0x5,t-cand"} {
		da, err := dissect.ParseDecodeAs(r)
		if err != nil {
			t.Fatal(err)
		}
		das = append(das, da)
	}
	for _, tc := range []struct {
		opts dissect.Options
		key  uint64
		want string
		took bool
	}{
		{dissect.Options{}, 5, "t-exact", true},
		{dissect.Options{}, 6, "t-decline t-h1 t-h2", true},
		{dissect.Options{}, 7, "t-h1 t-h2", true},
		{dissect.Options{DecodeAs: das}, 7, "t-cand", true},
		{dissect.Options{DecodeAs: das}, 5, "t-cand", true},
		{dissect.Options{DecodeAs: das}, 6, "t-decline t-h1 t-h2", true},
	} {
		e := dissect.NewEngine(tc.opts)
		var f dissect.Frame
		e.Bind(&f)
		if !testTable.Has(&f) {
			t.Fatal("Has: the test table is empty")
		}
		var l handoffLog
		took := testTable.Call(&f, tc.key, &l)
		if got := strings.Join(l.got, " "); got != tc.want || took != tc.took {
			t.Errorf("rules %d, key %d: %q (took %v), want %q", len(tc.opts.DecodeAs), tc.key, got, took, tc.want)
		}
	}
	var l handoffLog
	if testTable.Call(&dissect.Frame{}, 5, &l) || len(l.got) != 0 {
		t.Errorf("a frame of no engine reached %v", l.got)
	}
}

// The hand-off does not allocate: the context is the caller's.
func TestDissectorTableAllocs(t *testing.T) {
	f, l := boundFrame()
	if n := testing.AllocsPerRun(100, func() {
		l.got = l.got[:0]
		testTable.Call(f, 5, l)
	}); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// -d works on every keyed table, with the key width and candidates of that
// table; errors name the rule and say what is known.
func TestParseDecodeAsTables(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want dissect.DecodeAs
		err  string
	}{
		{rule: "udp.port==7000,test-udp9", want: dissect.DecodeAs{Table: "udp.port", Lo: 7000, Hi: 7000, Proto: "test-udp9"}},
		{rule: "tcp.port==4000-4010,test-tcp9", want: dissect.DecodeAs{Table: "tcp.port", Lo: 4000, Hi: 4010, Proto: "test-tcp9"}},
		{rule: "udp.port==7000:3,test-udp9", want: dissect.DecodeAs{Table: "udp.port", Lo: 7000, Hi: 7002, Proto: "test-udp9"}},
		{rule: "ip.proto==253,test-udp9", want: dissect.DecodeAs{Table: "ip.proto", Lo: 253, Hi: 253, Proto: "test-udp9"}},
		{rule: "ethertype==0x88b5,test-udp9", want: dissect.DecodeAs{Table: "ethertype", Lo: 0x88b5, Hi: 0x88b5, Proto: "test-udp9"}},
		{rule: "test.handoff==0x10,t-cand", want: dissect.DecodeAs{Table: "test.handoff", Lo: 16, Hi: 16, Proto: "t-cand"}},
		{rule: "ip.proto==256,test-udp9", err: `bad key "256" (8 bits`},
		{rule: "udp.port==70000,test-udp9", err: `bad port "70000"`},
		{rule: "udp.port==65535:2,test-udp9", err: "bad port count"},
		{rule: "udp.port==9-8,test-udp9", err: "empty port range"},
		{rule: "test.handoff==1,t-h1", err: `unknown protocol "t-h1" for test.handoff (known: t-cand, t-decline, t-exact)`},
		{rule: "test.handoff==1,test-udp9", err: `unknown protocol "test-udp9"`},
		{rule: "nosuch.table==1,t-cand", err: `unknown table "nosuch.table" (known: ethertype, `},
		{rule: "udp.port=7000,test-udp9", err: "want TABLE==KEY,PROTOCOL"},
		{rule: "udp.port==7000", err: "want TABLE==KEY,PROTOCOL"},
	} {
		d, err := dissect.ParseDecodeAs(tc.rule)
		switch {
		case tc.err == "" && (err != nil || d != tc.want):
			t.Errorf("%s: %+v, %v; want %+v", tc.rule, d, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "decode-as \""+tc.rule+"\"")):
			t.Errorf("%s: error %v, want one containing %q", tc.rule, err, tc.err)
		}
	}
}

// -d ip.proto==N,PROTO reaches PROTO with the IP payload.
func TestDecodeAsIPProto(t *testing.T) {
	da, err := dissect.ParseDecodeAs("ip.proto==253,test-udp9")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []dissect.Options{{}, {DecodeAs: []dissect.DecodeAs{da}}} {
		eng := dissect.NewEngine(opts)
		p := ipv4(253, 1, 0, false, []byte("payload"))
		eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: p})
		if got := len(udpSink.got); got != len(opts.DecodeAs) || got == 1 && string(udpSink.got[0]) != "payload" {
			t.Errorf("%d rules: %d payloads", len(opts.DecodeAs), got)
		}
	}
}

// Tables lists what the registrations put in each table, heuristics in the
// order they are tried.
func TestTablesListing(t *testing.T) {
	var ti *dissect.TableInfo
	for _, x := range dissect.Tables() {
		if x.Name == testTable.Name() {
			ti = &x
		}
	}
	if ti == nil {
		t.Fatal("test.handoff not listed")
	}
	if len(ti.Entries) != 2 || ti.Entries[0].Proto != "t-exact" || ti.KeyString(ti.Entries[0].Keys) != "5" ||
		strings.Join(ti.Heuristics, " ") != "t-h1 t-h2" || strings.Join(ti.DecodeAs, " ") != "t-cand t-decline t-exact" {
		t.Errorf("%+v", *ti)
	}
}

// flushCaller hands every chunk of its TCP stream to the test table and
// records, per chunk, its frame number and whether a handler took it.
type flushCaller struct{ calls []string }

func (c *flushCaller) Dissect(*dissect.Frame, []byte, int) {}
func (c *flushCaller) StreamData(f *dissect.Frame, ch *tcp.Chunk) {
	var l handoffLog
	took := testTable.Call(f, 5, &l)
	c.calls = append(c.calls, strconv.FormatUint(f.Num, 10)+":"+strconv.FormatBool(took))
}
func (c *flushCaller) StreamGap(*dissect.Frame, *tcp.Gap)                       {}
func (c *flushCaller) StreamClose(*dissect.Frame, tcp.FlowKey, tcp.CloseReason) {}

var flushTest *flushCaller

func init() {
	dissect.RegisterDissector(&dissect.Registration{Name: "test-flushcall", TCPPorts: []dissect.PortRange{{Lo: 13, Hi: 13}},
		New: func(*dissect.Engine) dissect.Dissector { flushTest = &flushCaller{}; return flushTest }})
}

// Data the end-of-input flush delivers (after a hole nobody filled) is
// handed on like any other: the flush frame belongs to the engine too.
func TestHandoffAtFlush(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	seg := func(seq uint32, flags byte, payload []byte) []byte {
		p := tcpSeg(seq, flags, payload)
		binary.BigEndian.PutUint16(p[22:], 13) // the TCP destination port, after the 20-octet IPv4 header
		return p
	}
	for i, s := range [][]byte{seg(100, 0x02, nil), seg(101, 0x18, []byte("AAAA")), seg(109, 0x18, []byte("CCCC"))} {
		eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: s})
	}
	eng.Finish()
	if got := strings.Join(flushTest.calls, " "); got != "2:true 0:true" {
		t.Errorf("hand-offs (frame:taken) %q, want 2:true 0:true", got)
	}
}

// Many rules for one table (more than a table has entries) are fine: a
// protocol keeps one entry however many rules name it.
func TestManyDecodeAsRules(t *testing.T) {
	var das []dissect.DecodeAs
	for p := 20000; p < 20600; p += 2 {
		da, err := dissect.ParseDecodeAs("udp.port==" + strconv.Itoa(p) + ",test-udp9")
		if err != nil {
			t.Fatal(err)
		}
		das = append(das, da)
	}
	eng := dissect.NewEngine(dissect.Options{DecodeAs: das})
	u := udpDatagram(1, 'x'-8)
	binary.BigEndian.PutUint16(u[2:], 20598) // the last rule's port
	p := ipv4(17, 1, 0, false, u)
	eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: p})
	if len(udpSink.got) != 1 || string(udpSink.got[0]) != "x" {
		t.Errorf("the last rule's port: %q", udpSink.got)
	}
}

// BenchmarkDissectorTableCall is the cost of one hand-off: an exact key
// (array lookup, one handler) and a miss that runs two heuristics.
func BenchmarkDissectorTableCall(b *testing.B) {
	f, l := boundFrame()
	for _, bc := range []struct {
		name string
		key  uint64
	}{{"exact", 5}, {"heuristics", 7}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				l.got = l.got[:0]
				testTable.Call(f, bc.key, l)
			}
		})
	}
}

// boundFrame is a frame of a fresh engine and a log with room, so a
// hand-off to the test table need not allocate.
func boundFrame() (*dissect.Frame, *handoffLog) {
	e := dissect.NewEngine(dissect.Options{})
	f := &dissect.Frame{}
	e.Bind(f)
	return f, &handoffLog{got: make([]string, 0, 4)}
}
