package oncrpc

import (
	"encoding/binary"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// StreamData implements dissect.StreamDissector: it strips record marking
// (RFC 5531 §11) and decodes each complete record as one message.
func (d *State) StreamData(f *dissect.Frame, c *tcp.Chunk) {
	k := streamKey{c.Key, c.Dir}
	st := d.streams[k]
	if st == nil {
		if len(d.streams) >= maxCalls {
			clear(d.streams)
			d.bufs.reset()
		}
		st = &stream{key: k}
		d.streams[k] = st
	}
	if st.bad {
		return
	}
	defer d.bufs.held(st)
	b := c.Bytes
	// The chunk is exactly this frame's payload: records lying whole in it
	// are shown at their frame offsets, without copying.
	inFrame := len(c.Frames) == 1 && c.Frames[0].Frame == f.Num && f.Num != 0 && len(b) == f.Net.PayloadLen
	pos := 0
	for pos < len(b) {
		if st.need == 0 && len(st.buf) == 0 && len(st.hdr) == 0 && inFrame && len(b)-pos >= 4 {
			hdr := binary.BigEndian.Uint32(b[pos:])
			n := int(hdr & 0x7FFFFFFF)
			if hdr&0x80000000 != 0 && pos+4+n <= len(b) {
				m := d.DissectMessage(f, b[pos+4:pos+4+n], f.Net.PayloadOff+pos+4, &Context{Transport: "tcp"})
				if m != nil {
					m.rm, m.fragHdr = true, hdr
				}
				pos += 4 + n
				continue
			}
		}
		if st.need == 0 {
			// (part of) a fragment header
			take := min(4-len(st.hdr), len(b)-pos)
			st.hdr = append(st.hdr, b[pos:pos+take]...)
			pos += take
			if len(st.hdr) < 4 {
				break
			}
			hdr := binary.BigEndian.Uint32(st.hdr)
			st.hdr = st.hdr[:0]
			st.lastHdr = hdr
			st.need = int(hdr & 0x7FFFFFFF)
			st.last = hdr&0x80000000 != 0
			if st.need+len(st.buf) > maxRecord {
				st.bad = true
				if f.Num != 0 {
					f.AddFinding(-1, dissect.Warn, dissect.GroupMalformed, fFragLen, "rpc",
						"RPC record longer than rdx keeps (4 MiB): rest of the stream not decoded")
				}
				return
			}
			st.addFrame(f.Num)
			if st.need == 0 && st.last {
				d.complete(f, st)
			}
			continue
		}
		take := min(st.need, len(b)-pos)
		growBuf(st, take)
		st.buf = append(st.buf, b[pos:pos+take]...)
		st.addFrame(f.Num)
		st.need -= take
		pos += take
		if st.need == 0 && st.last {
			d.complete(f, st)
		}
	}
}

func (st *stream) addFrame(n uint64) {
	if n != 0 && (len(st.frames) == 0 || st.frames[len(st.frames)-1] != n) && len(st.frames) < 4096 {
		st.frames = append(st.frames, n)
	}
}

func (d *State) complete(f *dissect.Frame, st *stream) {
	if f.Num != 0 {
		rec := f.Keep(st.buf)
		var frames []uint64
		if len(st.frames) > 1 {
			frames = st.frames
		}
		m := d.DissectMessage(f, rec, -1, &Context{Transport: "tcp", Frames: frames})
		if m != nil {
			m.rm, m.fragHdr = true, st.lastHdr
		}
	}
	st.buf = st.buf[:0]
	if cap(st.buf) > keepBuf {
		st.buf = nil // a big record's buffer is not kept for small ones
	}
	st.frames = st.frames[:0]
}

// StreamGap implements dissect.StreamDissector: a hole loses record sync.
func (d *State) StreamGap(f *dissect.Frame, g *tcp.Gap) {
	if st := d.streams[streamKey{g.Key, g.Dir}]; st != nil {
		st.bad = true
		d.bufs.release(st)
	}
}

// StreamClose implements dissect.StreamDissector.
func (d *State) StreamClose(f *dissect.Frame, key tcp.FlowKey, reason tcp.CloseReason) {
	for dir := range tcp.Dir(2) {
		if st := d.streams[streamKey{key, dir}]; st != nil {
			d.bufs.release(st)
			delete(d.streams, streamKey{key, dir})
		}
	}
}
