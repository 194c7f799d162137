package oncrpc

import (
	"encoding/binary"
	"net/netip"
	"reflect"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/xdr"
)

// The call table's key is plain memory: no pointer (netip.Addr has one)
// and no padding, so the map hashes and compares it as one block.
func TestCallKeyPlainMemory(t *testing.T) {
	typ := reflect.TypeFor[callKey]()
	var sum uintptr
	for i := range typ.NumField() {
		f := typ.Field(i)
		sum += f.Type.Size()
		switch f.Type.Kind() {
		case reflect.Array, reflect.Uint32, reflect.Uint64:
			if f.Type.Kind() == reflect.Array && f.Type.Elem().Kind() != reflect.Uint8 {
				t.Errorf("field %s is %s, not plain octets", f.Name, f.Type)
			}
		default:
			t.Errorf("field %s is %s, not plain memory", f.Name, f.Type)
		}
	}
	if sum != typ.Size() {
		t.Errorf("callKey has %d octets of padding", typ.Size()-sum)
	}
}

// Either direction gives one key; an IPv4 pair and the same addresses
// mapped into IPv6 stay apart; a dropped call still names its addresses as
// the frame had them.
func TestCallKeyAddresses(t *testing.T) {
	key := func(src, dst string, xid uint32) callKey {
		f := testFrame(dissect.Frame{})
		f.Net.Src, f.Net.Dst = netip.MustParseAddr(src), netip.MustParseAddr(dst)
		return callKeyOf(f, &Msg{XID: xid})
	}
	if key("192.0.2.1", "192.0.2.2", 5) != key("192.0.2.2", "192.0.2.1", 5) {
		t.Error("the two directions of an IPv4 pair have different keys")
	}
	if key("192.0.2.1", "192.0.2.2", 5) == key("192.0.2.1", "192.0.2.2", 6) {
		t.Error("two XIDs share a key")
	}
	if key("192.0.2.1", "192.0.2.2", 5) == key("::ffff:192.0.2.1", "::ffff:192.0.2.2", 5) {
		t.Error("IPv4 and IPv4-mapped IPv6 share a key")
	}
	for _, c := range []struct{ src, dst, want string }{
		{"192.0.2.2", "192.0.2.1", "between 192.0.2.1 and 192.0.2.2"},
		{"2001:db8::2", "2001:db8::1", "between 2001:db8::1 and 2001:db8::2"},
		{"::ffff:192.0.2.1", "::ffff:192.0.2.2", "between ::ffff:192.0.2.1 and ::ffff:192.0.2.2"},
	} {
		got := describeCall(key(c.src, c.dst, 0x2a), &CallInfo{Prog: 100003})
		if want := "RPC call XID 0x2a (program 100003) " + c.want; got != want {
			t.Errorf("describeCall = %q, want %q", got, want)
		}
	}
}

// ProcName's flat table names every procedure programs lists, and nothing
// else.
func TestProcNameTable(t *testing.T) {
	n := 0
	for prog, pi := range programs {
		for vers, procs := range pi.procs {
			for proc := range uint32(40) {
				if got, want := ProcName(prog, vers, proc), procs[proc]; got != want {
					t.Errorf("ProcName(%d, %d, %d) = %q, want %q", prog, vers, proc, got, want)
				}
			}
			n++
		}
		if got := ProcName(prog, 99, 0); got != "" {
			t.Errorf("ProcName(%d, 99, 0) = %q for an unknown version", prog, got)
		}
	}
	if n == 0 || ProcName(100003, 3, 1) != "GETATTR" || ProcName(1, 1, 0) != "" {
		t.Errorf("NFSv3 proc 1 is %q; unknown program's is %q", ProcName(100003, 3, 1), ProcName(1, 1, 0))
	}
}

// parse reads the fixed header words without xdr.Reader: every prefix of a
// call and of a reply is an RPC message exactly when the fixed words are
// all there (24 octets of a call, 12 of a reply), short when the rest is
// cut, and the words read are the message's.
func TestParsePrefixes(t *testing.T) {
	for _, c := range []struct {
		b     []byte
		fixed int
	}{{callBytes(0x1234), 24}, {replyBytes(0x1234), 12}} {
		for n := range len(c.b) + 1 {
			m := &Msg{data: c.b[:n]}
			ok := m.parse()
			if ok != (n >= c.fixed) {
				t.Fatalf("%d of %d octets (type %d): parse %v", n, len(c.b), m.Type, ok)
			}
			if !ok {
				continue
			}
			if m.XID != 0x1234 || m.short != (n < len(c.b)) {
				t.Errorf("%d of %d octets: XID %#x short %v", n, len(c.b), m.XID, m.short)
			}
			if m.Type == Call && (m.Prog != 100005 || m.Vers != 3 || m.Proc != 1 || m.RPCVers != 2) {
				t.Errorf("%d octets: call prog %d vers %d proc %d", n, m.Prog, m.Vers, m.Proc)
			}
		}
	}
}

// An auth body longer than RFC 5531's 400 octets, or one whose padding is
// cut, leaves the message short, as xdr.Reader.Opaque would.
func TestReadAuthLimits(t *testing.T) {
	for _, c := range []struct {
		n, have int
		ok      bool
	}{{400, 400, true}, {401, 404, false}, {5, 8, true}, {5, 5, false}, {0, 0, true}} {
		b := binary.BigEndian.AppendUint32(nil, AuthSys)
		b = binary.BigEndian.AppendUint32(b, uint32(c.n))
		b = append(b, make([]byte, c.have)...)
		r := xdr.NewReader(b)
		var a auth
		if ok := readAuth(&r, &a); ok != c.ok || ok && (a.length != c.n || r.Off != len(b) || a.flavor != AuthSys) {
			t.Errorf("body %d of %d octets: ok %v length %d off %d", c.n, c.have, ok, a.length, r.Off)
		}
	}
}
