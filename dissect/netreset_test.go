package dissect

import (
	"net/netip"
	"reflect"
	"testing"
)

// TestNetReset fills every field of Net and checks reset empties it: for a
// TCP segment all of it, for any other frame everything but the TCP fields
// (which only a TCP segment sets). A field added to Net and not to reset's
// list fails here.
func TestNetReset(t *testing.T) {
	tcpFrom := reflect.TypeOf(Net{}).NumField()
	for i := range reflect.TypeOf(Net{}).NumField() {
		if reflect.TypeOf(Net{}).Field(i).Name == "RelSeq" {
			tcpFrom = i
		}
	}
	if tcpFrom == reflect.TypeOf(Net{}).NumField() {
		t.Fatal("Net has no RelSeq: update reset and this test")
	}
	for _, proto := range []uint8{IPProtoTCP, IPProtoUDP} {
		var n Net
		v := reflect.ValueOf(&n).Elem()
		for i := range v.NumField() {
			if proto != IPProtoTCP && i >= tcpFrom {
				break // never set outside TCP
			}
			fill(t, v.Field(i))
		}
		n.IPProto = proto
		n.reset()
		if n != (Net{}) {
			t.Errorf("IP protocol %d: reset left %+v", proto, n)
		}
	}
}

// fill sets v to a value other than its zero value.
func fill(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(netip.Addr{}) {
			v.Set(reflect.ValueOf(netip.MustParseAddr("198.51.100.7")))
			return
		}
		for i := range v.NumField() {
			fill(t, v.Field(i))
		}
	default:
		t.Fatalf("fill: unhandled kind %v of %v", v.Kind(), v.Type())
	}
}
