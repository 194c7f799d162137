package ib

import (
	"reflect"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// newPacket resets a pooled Packet field by field (cheaper than a composite
// literal): every field must be reset, so a Packet left full of junk by an
// earlier frame comes back exactly as the literal would make it. A field
// added to Packet and forgotten in newPacket fails here.
func TestNewPacketResetsEveryField(t *testing.T) {
	d := newState()
	var f dissect.Frame
	f.Reset()
	p := d.newPacket(&f, 0)
	// junk in every field, as a previous frame might leave it
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		fv = reflect.NewAt(fv.Type(), fv.Addr().UnsafePointer()).Elem()
		switch fv.Kind() {
		case reflect.Int, reflect.Int16:
			fv.SetInt(7)
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			fv.SetUint(7)
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 1, 1))
		case reflect.Array:
			for j := range fv.Len() {
				fv.Index(j).SetInt(7)
			}
		case reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
		default:
			t.Fatalf("field %s: kind %v not handled by this test", v.Type().Field(i).Name, fv.Kind())
		}
	}
	f.Reset() // next frame: the pool hands out the same Packet
	q := d.newPacket(&f, 42)
	if q != p {
		t.Fatal("the pool did not reuse the Packet")
	}
	want := Packet{d: d, off: 42, lrh: -1, grh: -1, bth: -1, icrcOff: -1, vcrcOff: -1,
		icrcStatus: dissect.StatusUnverified, vcrcStatus: dissect.StatusUnverified}
	if !reflect.DeepEqual(*q, want) {
		t.Fatalf("reset Packet\n%+v\nwant\n%+v", *q, want)
	}
}
