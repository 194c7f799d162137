package rds

import (
	"reflect"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// newMsg resets a pooled Message field by field (cheaper than a composite
// literal): a Message left full of junk by an earlier frame must come back
// as the literal made it, its slices emptied but kept for reuse. A field
// added to Message and forgotten in newMsg fails here.
func TestNewMsgResetsEveryField(t *testing.T) {
	d := New(nil)
	var f dissect.Frame
	f.Reset()
	m := d.newMsg(&f)
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		fv := v.Field(i)
		fv = reflect.NewAt(fv.Type(), fv.Addr().UnsafePointer()).Elem()
		switch fv.Kind() {
		case reflect.Int, reflect.Int64:
			fv.SetInt(7)
		case reflect.Uint8, reflect.Uint32, reflect.Uint64:
			fv.SetUint(7)
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 2, 4))
		case reflect.Array:
			for j := range fv.Len() {
				fv.Index(j).SetUint(7)
			}
		case reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
		default:
			t.Fatalf("field %s: kind %v not handled by this test", v.Type().Field(i).Name, fv.Kind())
		}
	}
	fr, cg := m.frames, m.cong
	f.Reset()
	q := d.newMsg(&f)
	if q != m {
		t.Fatal("the pool did not reuse the Message")
	}
	want := Message{d: d, frames: fr[:0], cong: cg[:0], off: -1, csum: dissect.StatusUnverified}
	if !reflect.DeepEqual(*q, want) || cap(q.frames) != 4 || cap(q.cong) != 4 {
		t.Fatalf("reset Message\n%+v\nwant\n%+v", *q, want)
	}
}
