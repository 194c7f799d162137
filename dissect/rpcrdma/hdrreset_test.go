package rpcrdma

import (
	"reflect"
	"testing"
)

// Hdr.reset (field by field, cheaper than the composite literal it
// replaced) leaves a junk-filled Hdr as Hdr{d, data, hdr, off} made it: the
// header's lists kept for reuse, everything else zero. A field added to
// Hdr and forgotten in reset fails here.
func TestHdrResetsEveryField(t *testing.T) {
	var h Hdr
	v := reflect.ValueOf(&h).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		fv = reflect.NewAt(fv.Type(), fv.Addr().UnsafePointer()).Elem()
		switch fv.Kind() {
		case reflect.Int:
			fv.SetInt(7)
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 2, 4))
		case reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
		case reflect.Struct: // the parsed Header: kept as it is
			fv.FieldByName("XID").SetUint(7)
		default:
			t.Fatalf("field %s: kind %v not handled by this test", v.Type().Field(i).Name, fv.Kind())
		}
	}
	d, data := new(State), []byte{1, 2, 3}
	kept := h.hdr
	h.reset(d, data, 9)
	want := Hdr{d: d, data: data, hdr: kept, off: 9}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("reset Hdr\n%+v\nwant\n%+v", h, want)
	}
}
