package ib

import (
	"math/bits"
	"net/netip"
	"reflect"
	"testing"

	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// asmPacket fills the reused ibasm.Packet field by field (cheaper than a
// composite literal): whatever an earlier packet left in it, the result must
// be exactly what the literal makes. A field added to ibasm.Packet and
// forgotten in asmPacket fails here.
func TestAsmPacketResetsEveryField(t *testing.T) {
	src, dst := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for _, tc := range []struct {
		name string
		op   uint8
		ext  []byte // the opcode's extended headers, in wire order
	}{
		{"SEND Only", 0x04, nil},
		{"RDMA WRITE Only with Immediate", 0x0B, append(make([]byte, RETHLen), 0, 0, 0, 9)},
		{"SEND Only with Invalidate", 0x17, []byte{0, 0, 0, 5}},
		{"Acknowledge", 0x11, []byte{0x1F, 0, 0, 1}},
	} {
		bf := BTHFields{Opcode: tc.op, DestQP: 0x11, PSN: 77}
		data := bf.Encode(nil)
		data = append(data, tc.ext...)
		data = append(data, 1, 2, 3, 4)
		p := &Packet{data: data, bth: 0}
		pos := BTHLen
		for m := uint16(Ops[tc.op].Ext); m != 0; m &= m - 1 {
			i := bits.TrailingZeros16(m)
			p.ext[i], p.exts = int16(pos), p.exts|Ext(1)<<i
			pos += extLens[i]
		}
		if pos != BTHLen+len(tc.ext) {
			t.Fatalf("%s: test headers %d octets, opcode wants %d", tc.name, len(tc.ext), pos-BTHLen)
		}
		p.payOff, p.payLen = pos, 4
		h := BTH(data[:BTHLen])

		want := ibasm.Packet{Src: src, Dst: dst, Opcode: tc.op, DestQP: 0x11, PSN: 77, Payload: p.Payload(), Frame: 9, TimeNS: 5}
		if b := p.Header(ExtRETH); b != nil {
			want.HasRETH, want.VA, want.RKey, want.DMALen = true, RETH(b).VA(), RETH(b).RKey(), RETH(b).DMALen()
		}
		if b := p.Header(ExtImmDt); b != nil {
			want.HasImm, want.Imm = true, ImmDt(b).Value()
		}
		if b := p.Header(ExtIETH); b != nil {
			want.HasInv, want.InvRKey = true, IETH(b).RKey()
		}
		if b := p.Header(ExtAETH); b != nil {
			want.HasAETH, want.Syndrome = true, AETH(b).Syndrome()
		}

		var q ibasm.Packet
		v := reflect.ValueOf(&q).Elem()
		for i := range v.NumField() { // junk in every field, as an earlier packet may leave it
			fv := v.Field(i)
			switch fv.Kind() {
			case reflect.Uint8, reflect.Uint32, reflect.Uint64:
				fv.SetUint(7)
			case reflect.Int64:
				fv.SetInt(7)
			case reflect.Bool:
				fv.SetBool(true)
			case reflect.Slice:
				fv.Set(reflect.MakeSlice(fv.Type(), 1, 1))
			case reflect.Struct:
				fv.Set(reflect.ValueOf(netip.MustParseAddr("::7")))
			default:
				t.Fatalf("field %s: kind %v not handled by this test", v.Type().Field(i).Name, fv.Kind())
			}
		}
		p.asmPacket(&q, (*[BTHLen]byte)(h), &addrPair{src: src, dst: dst}, 9, 5)
		if !reflect.DeepEqual(q, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, q, want)
		}
	}
}
