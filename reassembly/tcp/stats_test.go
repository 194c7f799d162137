package tcp

import (
	"reflect"
	"testing"
)

// Add sums every counter: a field added to Stats and forgotten in Add
// fails here.
func TestStatsAdd(t *testing.T) {
	var a, b Stats
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		switch va.Field(i).Kind() {
		case reflect.Uint64:
			va.Field(i).SetUint(uint64(i + 1))
			vb.Field(i).SetUint(uint64(100 * (i + 1)))
		case reflect.Int:
			va.Field(i).SetInt(int64(i + 1))
			vb.Field(i).SetInt(int64(100 * (i + 1)))
		default:
			t.Fatalf("field %s: kind %s, teach the test", va.Type().Field(i).Name, va.Field(i).Kind())
		}
	}
	a.Add(b)
	for i := range va.NumField() {
		var got int64
		if f := va.Field(i); f.Kind() == reflect.Int {
			got = f.Int()
		} else {
			got = int64(f.Uint())
		}
		if want := int64(101 * (i + 1)); got != want {
			t.Errorf("%s = %d after Add, want %d", va.Type().Field(i).Name, got, want)
		}
	}
}
