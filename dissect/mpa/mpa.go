package mpa

import (
	"encoding/binary"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// Config keys read from dissect.Options.Config: they say what a capture
// without its Request/Reply negotiated ("1"/"0"; unset: markers off, CRC
// checked and believed when it verifies).
const (
	ConfigMarkers = "mpa.markers"
	ConfigCRC     = "mpa.crc"
)

// maxResyncBuf bounds the bytes held while looking for FPDU alignment.
const maxResyncBuf = 256 << 10

func init() {
	onOff := []string{"1", "0", "true", "false", "on", "off"}
	dissect.RegisterPref(dissect.Pref{Name: ConfigMarkers, Values: onOff,
		Desc: "MPA connections whose Request/Reply is not in the capture use markers"})
	dissect.RegisterPref(dissect.Pref{Name: ConfigCRC, Values: onOff,
		Desc: "MPA connections whose Request/Reply is not in the capture carry a CRC"})
	dissect.RegisterDissector(&dissect.Registration{
		Name:         "mpa",
		HeuristicTCP: Heuristic,
		New:          func(e *dissect.Engine) dissect.Dissector { return New(e) },
	})
}

// Heuristic accepts a stream starting with a Request/Reply key, or with a
// whole FPDU whose CRC verifies (a mid-stream capture of CRC traffic).
func Heuristic(b []byte) bool {
	if len(b) >= KeyLen && IsKey(b) {
		return true
	}
	if len(b) < 8 {
		return false
	}
	n := LogicalLen(int(binary.BigEndian.Uint16(b)))
	if n > len(b) || n < 20 {
		return false
	}
	return binary.LittleEndian.Uint32(b[n-4:]) == CRC(b[:n-4])
}

// ULPDU is what MPA hands the layer above: one DDP segment.
type ULPDU struct {
	Key  tcp.FlowKey
	Dir  tcp.Dir
	Data []byte // markers removed; valid for the current frame
	Off  int    // offset of Data in the frame, -1 when not contiguous there
	Seq  uint32 // TCP sequence number of the FPDU's first octet
	FPDU *FPDU
}

// Upper receives ULPDUs in place of the ULP table (tests).
type Upper interface {
	ULPDU(f *dissect.Frame, u *ULPDU)
}

// ULP is the table of the protocols MPA carries, tried in order on every
// ULPDU: DDP (RFC 5044 defines MPA for DDP alone) registers its heuristic.
var ULP = dissect.NewDissectorTable[*ULPDU]("iwarp_mpa.ulpdu", "iWARP MPA upper layer (DDP segments)", 0)

type mode uint8

const (
	modeNew     mode = iota // nothing seen yet
	modeStartup             // expecting a Request or Reply
	modeFPDU                // full operation
	modeResync              // looking for FPDU alignment
	modeOff                 // not MPA (rejected, or gave up)
)

type half struct {
	mode     mode
	markers  bool
	crc      bool // CRCs negotiated (or configured)
	crcKnown bool // crc comes from the handshake or the config
	haveBase bool
	base     uint32 // marker base: sequence number of the first full-operation octet
	buf      tcp.Buffer
	skip     uint64 // octets to drop before the next FPDU (after a gap inside one)
	started  bool
	rev      uint8
	flags    uint8
	seen     bool // a Request/Reply came this way
	isReq    bool

	// Marker rule: RFC 5044 §4.3 unless the stream shows the legacy one
	// (LayoutLegacy); decided at the first FPDU where the two differ and
	// the markers validate under one of them. nfpdu counts the FPDUs since
	// base while undecided (the legacy base lags 4 octets per FPDU).
	legacy, legacyKnown bool
	nfpdu               uint32

	key tcp.FlowKey
	dir tcp.Dir
	lru budget.Elem[half] // among the directions holding buffer memory (fpduBuffers), charged h.buf.Cap()
}

type conn struct {
	h [2]half
}

type halfKey struct {
	k tcp.FlowKey
	d tcp.Dir
}

// State is one engine's MPA dissector.
type State struct {
	e        *dissect.Engine
	conns    map[tcp.FlowKey]*conn
	upper    Upper // set by tests in place of the ULP table
	upperSet bool
	ulp      ULPDU // the hand-off context
	hasUpper bool  // a layer above took the ULPDUs: FPDU summaries leave them to it

	cfgMarkers, cfgCRC       bool
	cfgMarkersSet, cfgCRCSet bool

	// learned in pass 1: where a mid-stream direction found alignment.
	learned map[halfKey]sync
	bufs    fpduBuffers // buffers charged to the budget
	pass2   bool

	pool  dissect.Pool[FPDU]
	marks []int32
	lmark []int32
	spans []tcp.FrameSpan

	checkedMarks int

	// OnFPDU, when set (tests), sees every complete FPDU.
	OnFPDU func(p *FPDU)
}

type sync struct {
	seq      uint32
	legacy   bool
	markers  bool
	base     uint32
	crc      bool
	crcKnown bool
}

// New creates the dissector for engine e (nil e: for tests and fuzzing).
func New(e *dissect.Engine) *State {
	d := &State{e: e, conns: map[tcp.FlowKey]*conn{}, learned: map[halfKey]sync{}}
	if e != nil {
		d.bufs.init(e.Budget())
		if v, ok := e.Opts.Config[ConfigMarkers]; ok {
			d.cfgMarkers, d.cfgMarkersSet = v == "1" || v == "true" || v == "on", true
		}
		if v, ok := e.Opts.Config[ConfigCRC]; ok {
			d.cfgCRC, d.cfgCRCSet = v == "1" || v == "true" || v == "on", true
		}
	}
	return d
}

// SetConfig sets the decode-as preferences directly (tests).
func (d *State) SetConfig(markers, markersSet, crc, crcSet bool) {
	d.cfgMarkers, d.cfgMarkersSet, d.cfgCRC, d.cfgCRCSet = markers, markersSet, crc, crcSet
}

// Rewind implements dissect.Rewinder: pass 2 starts over but keeps where
// mid-stream directions found their alignment.
func (d *State) Rewind() {
	clear(d.conns) // keep the map: a rewind must not allocate
	d.bufs.reset()
	d.pass2 = true
	d.pool.Reset()
}

// Dissect is not used: MPA needs the stream.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {}

// up hands a ULPDU to the layer above, kept in d.ulp so the call does not
// allocate.
func (d *State) up(f *dissect.Frame, u ULPDU) {
	d.ulp = u
	if d.upperSet {
		if d.hasUpper = d.upper != nil; d.hasUpper {
			d.upper.ULPDU(f, &d.ulp)
		}
		return
	}
	d.hasUpper = ULP.Call(f, 0, &d.ulp)
}

// SetUpper replaces the upper layer (tests).
func (d *State) SetUpper(u Upper) { d.upper, d.upperSet = u, true }

func (d *State) newPDU(f *dissect.Frame) *FPDU {
	p, _ := d.pool.Get(f)
	*p = FPDU{d: d, crcStatus: StatusUnverified, markerStatus: StatusUnverified}
	return p
}

func (d *State) conn(k tcp.FlowKey) *conn {
	c := d.conns[k]
	if c == nil {
		c = &conn{}
		c.h[0].key, c.h[1].key, c.h[1].dir = k, k, 1
		d.conns[k] = c
	}
	return c
}

// StreamData implements dissect.StreamDissector.
func (d *State) StreamData(f *dissect.Frame, ch *tcp.Chunk) {
	c := d.conn(ch.Key)
	h := &c.h[ch.Dir]
	if h.mode == modeOff {
		return
	}
	if h.mode == modeNew {
		d.start(h, halfKey{ch.Key, ch.Dir}, ch)
	}
	if !h.buf.Append(ch) {
		h.buf.Reset()
		h.buf.Append(ch)
	}
	d.run(f, c, ch.Key, ch.Dir)
	if h.buf.Len() > 0 && len(ch.Bytes) > 0 && (h.mode == modeFPDU || h.mode == modeStartup) {
		f.HoldTCPSegment() // the tail of this segment waits for the rest of its FPDU
	}
	d.bufs.held(h)
}

// start decides how a direction begins: a startup frame, alignment learned
// in pass 1, or a search for alignment.
func (d *State) start(h *half, hk halfKey, ch *tcp.Chunk) {
	if IsKey(ch.Bytes) || len(ch.Bytes) < 8 && ch.Offset == 0 {
		h.mode = modeStartup
		return
	}
	if s, ok := d.learned[hk]; ok {
		h.mode = modeFPDU
		h.skip = uint64(s.seq - ch.Seq)
		h.markers, h.base, h.haveBase, h.crc, h.crcKnown = s.markers, s.base, s.markers, s.crc, s.crcKnown
		h.legacy, h.legacyKnown = s.legacy, true
		h.started = true
		return
	}
	h.mode = modeResync
	h.markers = d.cfgMarkersSet && d.cfgMarkers
	h.crc, h.crcKnown = d.cfgCRC, d.cfgCRCSet
}

func (d *State) run(f *dissect.Frame, c *conn, k tcp.FlowKey, dir tcp.Dir) {
	h := &c.h[dir]
	for {
		switch h.mode {
		case modeStartup:
			if !d.startup(f, c, k, dir) {
				return
			}
		case modeFPDU:
			if !d.fpdu(f, h, k, dir) {
				return
			}
		case modeResync:
			if !d.resync(f, h, k, dir) {
				return
			}
		default:
			h.buf.Reset()
			return
		}
	}
}

// frameOff returns the offset in the current frame of n stream octets at
// buffer index i, or -1 when they did not all come in this frame.
func (d *State) frameOff(f *dissect.Frame, h *half, i, n int) int {
	if f.Num == 0 || !f.Net.HasL4 { // the flush, or a frame built without an engine
		return -1
	}
	d.spans = h.buf.Frames(d.spans[:0], i, n)
	if len(d.spans) != 1 || d.spans[0].Frame != f.Num || d.spans[0].Len != n {
		return -1
	}
	return f.TCPPayloadOffset(h.buf.Seq()+uint32(i), n)
}

// bytesFor returns n buffered octets at i that stay valid for the frame:
// the frame's own bytes when they lie there, else a copy.
func (d *State) bytesFor(f *dissect.Frame, h *half, i, n int) ([]byte, int) {
	if off := d.frameOff(f, h, i, n); off >= 0 && off+n <= len(f.Data) {
		return f.Data[off : off+n : off+n], off
	}
	return f.Keep(h.buf.Bytes()[i : i+n]), -1
}

// startup parses a Request or Reply; false when more bytes are needed.
func (d *State) startup(f *dissect.Frame, c *conn, k tcp.FlowKey, dir tcp.Dir) bool {
	h := &c.h[dir]
	b := h.buf.Bytes()
	if len(b) < StartupLen {
		if len(b) >= 8 && !IsKey(b) {
			h.mode = modeResync
			return true
		}
		return false
	}
	if !IsKey(b[:KeyLen]) {
		h.mode = modeResync
		h.markers = d.cfgMarkersSet && d.cfgMarkers
		h.crc, h.crcKnown = d.cfgCRC, d.cfgCRCSet
		return true
	}
	s := StartupFrame(b)
	pd := s.PDLen()
	if len(b) < StartupLen+pd {
		return false
	}
	p := d.newPDU(f)
	p.kind = kindStartup
	p.wire, p.off = d.bytesFor(f, h, 0, StartupLen+pd)
	p.seq = h.buf.Seq()
	p.idx = f.AddPDU(p)
	d.validateStartup(f, p, c, dir)
	h.seen, h.isReq, h.flags, h.rev = true, s.IsReq(), s.Flags(), s.Rev()
	h.buf.Consume(StartupLen + pd)
	h.base, h.haveBase, h.started = h.buf.Seq(), true, true
	h.mode = modeFPDU
	o := &c.h[dir^1]
	// Markers: what the peer's frame asked for; CRC: either side.
	if o.seen {
		d.negotiate(f, p, c, dir)
	} else {
		h.markers = d.cfgMarkersSet && d.cfgMarkers
		h.crc = s.Flags()&FlagC != 0 || d.cfgCRCSet && d.cfgCRC
		h.crcKnown = s.Flags()&FlagC != 0 || d.cfgCRCSet
	}
	if !h.isReq && s.Flags()&FlagR != 0 && s.Rev() >= 1 {
		// Rejected: the responder closes; nothing after is MPA.
		h.mode, o.mode = modeOff, modeOff
	}
	return true
}

func (d *State) negotiate(f *dissect.Frame, p *FPDU, c *conn, dir tcp.Dir) {
	a, b := &c.h[dir], &c.h[dir^1]
	crc := a.flags&FlagC != 0 || b.flags&FlagC != 0
	for _, x := range []*half{a, b} {
		x.crc, x.crcKnown = crc, true
	}
	a.markers = b.flags&FlagM != 0
	b.markers = a.flags&FlagM != 0
	if a.isReq == b.isReq {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupProtocol, nil, "iwarp_mpa",
			"both sides sent an MPA "+map[bool]string{true: "Request", false: "Reply"}[a.isReq]+" (active/active startup)")
	}
	if !a.isReq && a.rev > b.rev && b.isReq {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupProtocol, fRev, "iwarp_mpa",
			"Reply revision "+strconv.Itoa(int(a.rev))+" is above the Request's "+strconv.Itoa(int(b.rev)))
	}
}

func (d *State) validateStartup(f *dissect.Frame, p *FPDU, c *conn, dir tcp.Dir) {
	s := StartupFrame(p.wire)
	add := func(sev dissect.Severity, g dissect.Group, fl *dissect.Field, msg string) {
		f.AddFinding(p.idx, sev, g, fl, "iwarp_mpa", msg)
	}
	rev, fl := s.Rev(), s.Flags()
	if rev > 2 {
		add(dissect.Error, dissect.GroupMalformed, fRev, "unknown MPA revision "+strconv.Itoa(int(rev))+" (0 draft, 1 RFC 5044, 2 RFC 6581)")
	}
	if fl&FlagR != 0 {
		switch {
		case rev == 0:
			add(dissect.Warn, dissect.GroupProtocol, fFlagR, "reject bit set in a revision-0 frame (draft-00 has no R bit)")
		case s.IsReq():
			add(dissect.Error, dissect.GroupProtocol, fFlagR, "reject bit set in a Request")
		default:
			add(dissect.Note, dissect.GroupProtocol, fFlagR, "connection rejected by the responder")
		}
	}
	res := fl & 0x0f
	if rev < 2 {
		res = fl & 0x1f
	}
	if rev == 0 {
		res = fl & 0x3f
	}
	if res != 0 {
		add(dissect.Note, dissect.GroupProtocol, fRes, "reserved flag bits not zero: 0x"+strconv.FormatUint(uint64(res), 16))
	}
	if rev >= 1 && s.PDLen() > MaxPrivate {
		add(dissect.Error, dissect.GroupMalformed, fPDLen, "private data length "+strconv.Itoa(s.PDLen())+" exceeds 512 (RFC 5044 §7.1.4: receiver must close)")
	}
	if fl&FlagEnhanced != 0 && rev >= 2 && s.PDLen() < 4 {
		add(dissect.Error, dissect.GroupMalformed, fPDLen, "enhanced flag set but private data shorter than the 4-octet IRD/ORD word")
	}
	if fl&FlagEnhanced != 0 && rev < 2 {
		add(dissect.Note, dissect.GroupProtocol, fEnh, "enhanced flag (RFC 6581) in a revision-"+strconv.Itoa(int(rev))+" frame")
	}
}

// fpdu decodes the next FPDU; false when more bytes are needed.
func (d *State) fpdu(f *dissect.Frame, h *half, k tcp.FlowKey, dir tcp.Dir) bool {
	if h.skip > 0 {
		n := min(h.skip, uint64(h.buf.Len()))
		h.buf.Consume(int(n))
		h.skip -= n
		if h.skip > 0 {
			return false
		}
	}
	b := h.buf.Bytes()
	seq := h.buf.Seq()
	if !h.started {
		h.started = true
		if h.markers && !h.haveBase {
			h.base, h.haveBase = seq, true
		}
	}
	rel := seq - h.base
	lead := 0
	if h.markers && rel%MarkerInterval == 0 {
		lead = MarkerLen
	}
	if len(b) < lead+2 {
		return false
	}
	ulen := int(binary.BigEndian.Uint16(b[lead:]))
	n := LogicalLen(ulen)
	d.marks = d.marks[:0]
	w := n
	announce := false
	if h.markers {
		w, d.marks = layout(rel, n, d.marks, h.legacy)
		if len(b) < w {
			return false
		}
		if !h.legacyKnown && h.nfpdu > 0 {
			var ok bool
			if ok, lead, ulen, w = d.detectLegacy(h, b, rel, lead, w); ok {
				announce = true
			}
		}
	}
	if len(b) < w {
		return false
	}
	p := d.newPDU(f)
	p.kind = kindFPDU
	p.legacy = h.legacy
	p.seq, p.lead, p.ulen, p.key, p.dir = seq, lead, ulen, k, dir
	p.wire, p.off = d.bytesFor(f, h, 0, w)
	if p.off < 0 {
		d.spans = h.buf.Frames(d.spans[:0], 0, w)
		for _, s := range d.spans {
			if len(p.frames) < len(p.framesArr) {
				p.framesArr[len(p.frames)] = s.Frame
				p.frames = p.framesArr[:len(p.frames)+1]
			}
		}
	}
	if len(d.marks) > 0 {
		p.marks = append([]int32(nil), d.marks...) // rare enough (markers on) to allocate
	}
	p.crcOn, p.crcKnown = h.crc, h.crcKnown
	p.idx = f.AddPDU(p)
	h.buf.Consume(w)
	if announce {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, fMarkerLegacy, "iwarp_mpa",
			"markers follow a pre-RFC sender rule: every 512 octets not counting the CRC fields, FPDUPTR little-endian "+
				"(RFC 5044 §4.3/draft-00 §7.1: every 512 octets of sequence space, FPDUPTR big-endian); decoded with that rule")
	}
	if h.markers {
		if h.legacy {
			h.base += CRCLen
		} else if !h.legacyKnown {
			h.nfpdu++
		}
	}
	d.check(f, p)
	if d.OnFPDU != nil {
		d.OnFPDU(p)
	}
	if p.ulen <= len(p.ulpdu) {
		d.up(f, ULPDU{Key: k, Dir: dir, Data: p.ulpdu, Off: p.ulpduOff, Seq: seq, FPDU: p})
	}
	return true
}

// check strips markers, verifies markers, pad and CRC of p.
func (d *State) check(f *dissect.Frame, p *FPDU) {
	w := p.wire
	logical := w[p.lead:]
	if len(p.marks) > 1 || len(p.marks) == 1 && p.lead == 0 {
		// the FPDU without its markers, built in the frame's arena (a
		// leading marker, at offset 0, added nothing)
		logical = f.Alloc(len(w))
		prev := 0
		for _, m := range p.marks {
			logical = append(logical, w[prev:m]...)
			prev = int(m) + MarkerLen
		}
		logical = append(logical, w[prev:]...)
		p.ulpduOff = -1
	} else if p.off >= 0 {
		p.ulpduOff = p.off + p.lead + 2
	} else {
		p.ulpduOff = -1
	}
	n := LogicalLen(p.ulen)
	if len(logical) >= n {
		p.ulpdu = logical[2 : 2+p.ulen]
		p.pad = logical[2+p.ulen : n-CRCLen]
	}
	for _, b := range p.pad {
		if b != 0 {
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupProtocol, fPad, "iwarp_mpa", "pad octets not zero")
			break
		}
	}
	if p.ulen > MaxULPDU {
		f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fULPLen, "iwarp_mpa",
			"ULPDU length "+strconv.Itoa(p.ulen)+" exceeds the 64768-octet maximum (RFC 5044 §6.1)")
	}
	// Markers: every one must point back at this FPDU's ULPDU_Length.
	if len(p.marks) > 0 {
		p.markerStatus = StatusGood
		for _, m := range p.marks {
			ptr := markerPtr(w[m:], p.legacy)
			want := int(m) - p.lead
			if m == 0 {
				want = 0
			}
			if ptr&^3 != want {
				if p.markerStatus == StatusGood {
					f.AddFinding(p.idx, dissect.Error, dissect.GroupProtocol, fMarkerPtr, "iwarp_mpa",
						"marker at FPDU offset "+strconv.Itoa(int(m))+" (seq "+strconv.FormatUint(uint64(p.seq+uint32(m)), 10)+
							") has FPDUPTR "+strconv.Itoa(ptr)+", expected "+strconv.Itoa(want))
				}
				p.markerStatus = StatusBad
			}
			if binary.BigEndian.Uint16(w[m:]) != 0 {
				f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, fMarkerRes, "iwarp_mpa", "marker reserved field not zero")
			}
		}
		f.Checked(CheckMarker, p.idx, p.markerStatus == StatusGood)
	}
	p.crcWire = binary.LittleEndian.Uint32(w[len(w)-CRCLen:])
	p.crcCalc = CRC(w[:len(w)-CRCLen])
	switch {
	case p.crcCalc == p.crcWire:
		p.crcStatus = StatusGood
	case p.crcOn:
		p.crcStatus = StatusBad
	}
	if p.crcOn || p.crcStatus == StatusGood && !p.crcKnown {
		f.Checked(CheckCRC, p.idx, p.crcStatus == StatusGood)
	}
	if p.crcStatus == StatusBad {
		var wire [4]byte
		copy(wire[:], w[len(w)-CRCLen:])
		f.AddFinding(p.idx, dissect.Error, dissect.GroupChecksum, fCRCCheck, "iwarp_mpa",
			"bad MPA CRC: computed 0x"+hex32(p.crcCalc)+" (on the wire as "+hexBytes(p.crcCalcWire())+
				"), FPDU carries "+hexBytes(wire[:]))
	}
}

func hex32(v uint32) string { return string(dissect.AppendHexDigits(nil, uint64(v), 8)) }

func hexBytes(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 3*len(b))
	for i, c := range b {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// StreamGap implements dissect.StreamDissector: an FPDU whose length was
// seen before the gap is skipped to its end; otherwise alignment is searched
// for again (markers, when on, make that exact).
func (d *State) StreamGap(f *dissect.Frame, g *tcp.Gap) {
	c := d.conns[g.Key]
	if c == nil {
		return
	}
	h := &c.h[g.Dir]
	if h.mode != modeFPDU {
		h.buf.Reset()
		if h.mode == modeStartup || h.mode == modeNew {
			h.mode = modeResync
			h.markers = d.cfgMarkersSet && d.cfgMarkers
			h.crc, h.crcKnown = d.cfgCRC, d.cfgCRCSet
		}
		return
	}
	b := h.buf.Bytes()
	seq := h.buf.Seq()
	held := uint64(len(b))
	if h.skip > 0 {
		if h.skip >= held+g.Size {
			h.skip -= held + g.Size
			h.buf.Reset()
			return
		}
	}
	lead := 0
	if h.markers && (seq-h.base)%MarkerInterval == 0 {
		lead = MarkerLen
	}
	if h.skip == 0 && len(b) >= lead+2 {
		n := LogicalLen(int(binary.BigEndian.Uint16(b[lead:])))
		w := n
		if h.markers {
			w, _ = layout(seq-h.base, n, d.marks[:0], h.legacy)
			if h.legacy {
				h.base += CRCLen
			} else if !h.legacyKnown {
				h.nfpdu++
			}
		}
		if uint64(w) >= held+g.Size {
			h.skip = uint64(w) - held - g.Size
			h.buf.Reset()
			if f.Num != 0 {
				f.AddFinding(-1, dissect.Warn, dissect.GroupSequence, nil, "iwarp_mpa",
					"FPDU at seq "+strconv.FormatUint(uint64(seq), 10)+" lost in a capture gap")
			}
			return
		}
	}
	h.buf.Reset()
	h.skip = 0
	h.mode = modeResync
}

// StreamClose implements dissect.StreamDissector.
func (d *State) StreamClose(f *dissect.Frame, key tcp.FlowKey, reason tcp.CloseReason) {
	c := d.conns[key]
	if c == nil {
		return
	}
	for dir := range c.h {
		h := &c.h[dir]
		if h.mode == modeFPDU && h.buf.Len() > 0 && f.Num != 0 {
			f.AddFinding(-1, dissect.Warn, dissect.GroupMalformed, fULPLen, "iwarp_mpa",
				strconv.Itoa(h.buf.Len())+" octets of an incomplete FPDU at the end of the stream")
		}
		d.bufs.release(h)
	}
	delete(d.conns, key)
}

// layout places an FPDU's markers by the RFC rule or the legacy one.
func layout(rel uint32, n int, dst []int32, legacy bool) (int, []int32) {
	if legacy {
		return LayoutLegacy(rel, n, dst)
	}
	return Layout(rel, n, dst)
}

// detectLegacy compares, for the FPDU at the head of b, the RFC 5044 marker
// layout (rel, lead, w already computed) with the legacy one. When they
// differ and only the legacy markers validate, with an interior marker to
// prove it, the direction switches to the legacy rule for good; when the RFC
// markers validate with an interior marker, to the RFC rule. It returns
// whether it switched to legacy and the FPDU's lead, ULPDU length and wire
// length under the rule in force.
func (d *State) detectLegacy(h *half, b []byte, rel uint32, lead, w int) (bool, int, int, int) {
	ulen := int(binary.BigEndian.Uint16(b[lead:]))
	lrel := rel - h.nfpdu*CRCLen
	llead := 0
	if lrel%MarkerInterval == 0 {
		llead = MarkerLen
	}
	lulen := int(binary.BigEndian.Uint16(b[llead:]))
	var lw int
	lw, d.lmark = LayoutLegacy(lrel, LogicalLen(lulen), d.lmark[:0])
	same := lw == w && len(d.lmark) == len(d.marks)
	for i := 0; same && i < len(d.marks); i++ {
		same = d.marks[i] == d.lmark[i]
	}
	if same {
		return false, lead, ulen, w
	}
	okR, decR := markersOK(b[:w], d.marks, lead, false)
	if okR && decR {
		h.legacyKnown = true
		return false, lead, ulen, w
	}
	if okR || lw > len(b) {
		return false, lead, ulen, w
	}
	if okL, decL := markersOK(b[:lw], d.lmark, llead, true); !okL || !decL {
		return false, lead, ulen, w
	}
	h.legacy, h.legacyKnown = true, true
	h.base += h.nfpdu * CRCLen
	d.marks = append(d.marks[:0], d.lmark...)
	return true, llead, lulen, lw
}
