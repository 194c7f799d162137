package ib

import (
	"net/netip"
	"reflect"
	"testing"
)

// start resets the message buffer it reuses field by field (cheaper than a
// composite literal): a Message left full of junk must come back as the
// literal made it, its slices emptied but kept. A field added to Message
// and forgotten in start fails here.
func TestStartResetsEveryField(t *testing.T) {
	a := New()
	p := &Packet{Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2"), DestQP: 0x11, PSN: 5}
	o := a.start(p, KindSend)
	m := &o.msg
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		switch fv.Kind() {
		case reflect.Int, reflect.Int64:
			fv.SetInt(7)
		case reflect.Uint8, reflect.Uint32, reflect.Uint64:
			fv.SetUint(7)
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 2, 4))
		case reflect.Struct: // netip.Addr
			fv.Set(reflect.ValueOf(netip.MustParseAddr("198.51.100.9")))
		default:
			t.Fatalf("field %s: kind %v not handled by this test", v.Type().Field(i).Name, fv.Kind())
		}
	}
	data, frames, sizes := m.Data, m.Frames, m.Sizes
	a.put(o)
	o2 := a.start(p, KindRead)
	if o2 != o {
		t.Fatal("start did not reuse the buffer")
	}
	want := Message{Kind: KindRead, Src: p.Src, Dst: p.Dst, QP: p.DestQP, FirstPSN: p.PSN, LastPSN: p.PSN,
		Data: data[:0], Frames: frames[:0], Sizes: sizes[:0]}
	if !reflect.DeepEqual(o2.msg, want) {
		t.Fatalf("reset Message\n%+v\nwant\n%+v", o2.msg, want)
	}
}
