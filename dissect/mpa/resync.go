package mpa

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// resync looks for FPDU alignment in a direction whose Request/Reply was not
// seen (or was lost in a gap): a chain of FPDU lengths that closes on good
// CRCs (or, with CRCs off, on sane DDP headers), and with markers on, a
// marker phase whose back-pointers agree with that chain. False when more
// bytes are needed.
func (d *State) resync(f *dissect.Frame, h *half, k tcp.FlowKey, dir tcp.Dir) bool {
	b := h.buf.Bytes()
	seq := h.buf.Seq()
	if len(b) < 8 {
		return false
	}
	off, base, markers, crcGood, ok := d.findSync(b, seq, h)
	if !ok {
		if len(b) > maxResyncBuf {
			h.buf.Consume(len(b) - maxResyncBuf/2)
		}
		return false
	}
	if off > 0 && f.Num != 0 {
		f.AddFinding(-1, dissect.Note, dissect.GroupSequence, nil, "iwarp_mpa",
			"MPA alignment found after "+strconv.Itoa(off)+" octets (capture started mid-stream or after a gap)")
	}
	h.buf.Consume(off)
	h.mode, h.started = modeFPDU, true
	h.markers = markers
	// The legacy marker rule (LayoutLegacy) counts FPDUs from the stream
	// start: it cannot be detected after a resync.
	h.legacy, h.legacyKnown = false, true
	if markers {
		h.base, h.haveBase = base, true
	}
	if !h.crcKnown && crcGood {
		h.crc, h.crcKnown = true, true
	}
	// Pass 2 restarts the direction at its first alignment: a later resync
	// (after a gap) must not move that.
	if _, seen := d.learned[halfKey{k, dir}]; !d.pass2 && !seen {
		d.learned[halfKey{k, dir}] = sync{seq: seq + uint32(off), markers: markers, base: base, crc: h.crc, crcKnown: h.crcKnown}
	}
	return true
}

// chain walks FPDUs from off; it returns how many complete ones it found,
// how many had a good CRC, whether all markers agreed, and whether the walk
// ended exactly at the end of b or in a plausible partial FPDU.
func (d *State) chain(b []byte, seq uint32, off int, markers bool, base uint32, max int) (n, good int, marksOK, closes bool) {
	d.checkedMarks = 0
	marksOK = true
	for n < max {
		rel := seq + uint32(off) - base
		lead := 0
		if markers && rel%MarkerInterval == 0 {
			lead = MarkerLen
			if off+4 <= len(b) && binary.BigEndian.Uint32(b[off:]) != 0 {
				return n, good, false, false
			}
		}
		if off == len(b) {
			return n, good, marksOK, true
		}
		if off+lead+2 > len(b) {
			return n, good, marksOK, true
		}
		ulen := int(binary.BigEndian.Uint16(b[off+lead:]))
		ln := LogicalLen(ulen)
		w := ln
		var ms []int32
		if markers {
			w, ms = Layout(rel, ln, d.marks[:0])
		}
		if off+w > len(b) {
			return n, good, marksOK, ulen >= 14
		}
		if ulen < 14 && ulen != 0 {
			return n, good, marksOK, false
		}
		for _, m := range ms {
			if m == 0 {
				continue
			}
			if int(binary.BigEndian.Uint16(b[off+int(m)+2:]))&^3 != int(m)-lead {
				marksOK = false
			}
			d.checkedMarks++
		}
		fp := b[off : off+w]
		if binary.LittleEndian.Uint32(fp[w-4:]) == CRC(fp[:w-4]) {
			good++
		}
		n++
		off += w
	}
	return n, good, marksOK, true
}

// ddpSane is a cheap look at a ULPDU's first octets: DDP version 1,
// RDMAP version 1, reserved bits zero.
func ddpSane(b []byte) bool {
	return len(b) >= 2 && b[0]&0x3f == 1 && b[1]>>4 == 4
}

func (d *State) findSync(b []byte, seq uint32, h *half) (off int, base uint32, markers, crcGood, ok bool) {
	crcOff := h.crcKnown && !h.crc
	accept := func(o int, mk bool, bs uint32) bool {
		n, good, mok, closes := d.chain(b, seq, o, mk, bs, 4)
		if !mok || !closes || n == 0 {
			return false
		}
		// A guessed marker phase must be confirmed by a back-pointer.
		if mk && !h.haveBase && d.checkedMarks == 0 {
			return false
		}
		if !crcOff {
			if good == n && (n >= 2 || n == 1 && o+8 < len(b)) {
				crcGood = true
				return true
			}
			if h.crcKnown {
				return false
			}
		}
		// CRCs off (or not in use): need several FPDUs with sane DDP headers.
		if n < 2 {
			return false
		}
		p := o
		for i := 0; i < n; i++ {
			rel := seq + uint32(p) - bs
			lead := 0
			if mk && rel%MarkerInterval == 0 {
				lead = MarkerLen
			}
			if !ddpSane(b[p+lead+2:]) {
				return false
			}
			ln := LogicalLen(int(binary.BigEndian.Uint16(b[p+lead:])))
			w := ln
			if mk {
				w, _ = Layout(rel, ln, d.marks[:0])
			}
			p += w
		}
		return true
	}
	if h.markers {
		// Markers give candidate starts directly; with the base unknown, try
		// every 4-aligned phase within the first 512 octets.
		bases := []uint32{h.base}
		if !h.haveBase {
			bases = bases[:0]
			for ph := 0; ph < MarkerInterval && ph+4 <= len(b); ph++ {
				if binary.BigEndian.Uint16(b[ph:]) == 0 {
					bases = append(bases, seq+uint32(ph))
				}
			}
		}
		for _, bs := range bases {
			first := int((bs - seq) % MarkerInterval)
			for m := first; m+4 <= len(b) && m < first+4*MarkerInterval; m += MarkerInterval {
				ptr := int(binary.BigEndian.Uint16(b[m+2:])) &^ 3
				cand := m - ptr
				if ptr == 0 {
					cand = m
				}
				if cand >= 0 && accept(cand, true, bs) {
					return d.earliest(b, seq, cand, bs, crcGood), bs, true, crcGood, true
				}
			}
		}
		return 0, 0, false, false, false
	}
	lim := min(len(b)-8, 64<<10)
	for o := 0; o <= lim; o++ {
		if accept(o, false, 0) {
			return o, 0, false, crcGood, true
		}
	}
	return 0, 0, false, false, false
}

// earliest returns the first offset before cand from which a chain of whole
// FPDUs (markers placed from base, every marker pointing back at its FPDU,
// CRCs good when crc, else sane DDP headers) ends exactly at cand: the
// FPDUs that came before the first marker the resync anchored on, so a
// mid-stream decode finds the same FPDUs as a full one.
func (d *State) earliest(b []byte, seq uint32, cand int, base uint32, crc bool) int {
	first := int((base - seq) % 4)
	for o := first; o < cand; o += 4 {
		p := o
		for p < cand {
			rel := seq + uint32(p) - base
			lead := 0
			if rel%MarkerInterval == 0 {
				lead = MarkerLen
			}
			if p+lead+2 > cand {
				break
			}
			ulen := int(binary.BigEndian.Uint16(b[p+lead:]))
			var w int
			w, d.lmark = Layout(rel, LogicalLen(ulen), d.lmark[:0])
			if p+w > cand {
				break
			}
			fp := b[p : p+w]
			if len(d.lmark) > 0 {
				if ok, _ := markersOK(fp, d.lmark, lead, false); !ok {
					break
				}
			}
			if crc {
				if binary.LittleEndian.Uint32(fp[w-CRCLen:]) != CRC(fp[:w-CRCLen]) {
					break
				}
			} else if ulen < 14 || !ddpSane(fp[lead+2:]) {
				break
			}
			p += w
		}
		if p == cand {
			return o
		}
	}
	return cand
}
