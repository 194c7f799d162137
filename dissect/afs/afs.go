// Package afs dissects the AFS RPC services carried by Rx: fileserver,
// cache-manager callbacks, ptserver, vlserver, kaserver, volserver,
// bosserver, upserver, rmtsys, backup and ubik. It plugs into dissect/rx as
// a service: Rx reassembles each direction of a call and hands it over as an
// rx.Call; this package names the service and operation, decodes the XDR
// arguments and results it knows, and names abort codes.
package afs

import (
	"strconv"
	"strings"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rx"
)

func init() {
	// The service comes from the service ID, port and opcode (serviceFor),
	// or from -d rx.service==ID,afs_vl and the like.
	dissect.AddHeuristic(rx.Services.Name(), "afs", func(_ dissect.Dissector, _ *dissect.Frame, c *rx.Call) bool {
		return dissectCall(c)
	})
	for _, s := range services {
		s.index()
		dissect.AddHandler(rx.Services.Name(), "afs_"+strings.ToLower(s.abbrev), nil, func(_ dissect.Dissector, _ *dissect.Frame, c *rx.Call) bool {
			return dissectService(c, s)
		})
	}
	dissect.AddHeuristic(rx.AbortCodes.Name(), "afs", func(_ dissect.Dissector, _ *dissect.Frame, a *rx.AbortCode) bool {
		a.Name = tableErrorName(a.Code)
		return a.Name != ""
	})
}

// CallName implements rx.Namer: "FS FetchStatus".
func (s *service) CallName(c *rx.Call) string {
	if name := s.name(c.Opcode); name != "" && c.HasOpcode {
		return s.abbrev + " " + name
	}
	return s.abbrev + " opcode " + strconv.FormatUint(uint64(c.Opcode), 10)
}

// ErrorName names an AFS abort code from the com_err tables (ubik, bos, ka,
// pt, vl, volser, rxkad, uae) and the volume errors, or "".
func ErrorName(code uint32) string { return tableErrorName(code) }

// op is one operation's decoders: req reads the arguments after the opcode,
// rep the results. nil means "not decoded": the data is shown opaque.
type op struct{ req, rep func(d *dec) }

// service is one AFS RPC service.
type service struct {
	abbrev string // summary prefix: "FS", "PR", "VL"
	label  string // afs.service display: "File Server" (+ " Request"/" Reply")
	flag   *dissect.Field
	opf    *dissect.Field
	names  map[uint32]string // nil: opcode names unknown for this service
	ops    map[uint32]op
	ubik   bool // its label names the database server it runs beside
	// win holds ops and names for the opcodes from lo on (index), which
	// are nearly all a service has: a call's lookups are then an array
	// index, not a map probe each
	lo  uint32
	win []opSlot
}

// opWindow is how many opcodes from a service's lowest the array holds:
// every service's main range fits (FS 130-220, VL 501-534, ...); the
// extension opcodes (65536 on) are looked up in the maps.
const opWindow = 128

type opSlot struct {
	o    op
	has  bool // o is in ops
	name string
}

// index fills win from the maps (at init, before any lookup).
func (s *service) index() {
	if len(s.names) == 0 && len(s.ops) == 0 {
		return
	}
	s.lo = ^uint32(0)
	for k := range s.names {
		s.lo = min(s.lo, k)
	}
	for k := range s.ops {
		s.lo = min(s.lo, k)
	}
	s.win = make([]opSlot, opWindow)
	for i := range s.win {
		k := s.lo + uint32(i)
		s.win[i].o, s.win[i].has = s.ops[k]
		s.win[i].name = s.names[k]
	}
}

// op is ops[opc] (with ok), from the window when it holds opc.
func (s *service) op(opc uint32) (op, bool) {
	if i := opc - s.lo; i < uint32(len(s.win)) {
		e := &s.win[i]
		return e.o, e.has
	}
	o, ok := s.ops[opc]
	return o, ok
}

// name is names[opc], from the window when it holds opc.
func (s *service) name(opc uint32) string {
	if i := opc - s.lo; i < uint32(len(s.win)) {
		return s.win[i].name
	}
	return s.names[opc]
}

var (
	svcFS     = &service{abbrev: "FS", label: "File Server", flag: fIsFS, opf: fFSOp, names: fsOpNames, ops: fsOps}
	svcCB     = &service{abbrev: "CB", label: "Callback", flag: fIsCB, opf: fCBOp, names: cbOpNames, ops: cbOps}
	svcPT     = &service{abbrev: "PR", label: "Protection Server", flag: fIsPT, opf: fPTOp, names: ptOpNames, ops: ptOps}
	svcVL     = &service{abbrev: "VL", label: "Volume Location Database Server", flag: fIsVL, opf: fVLOp, names: vlOpNames, ops: vlOps}
	svcKA     = &service{abbrev: "KA", label: "Kerberos Authentication Server", flag: fIsKA, opf: fKAOp, names: kaOpNames}
	svcVol    = &service{abbrev: "VOL", label: "Volume Server", flag: fIsVol, opf: fVolOp, names: volOpNames, ops: volOps}
	svcError  = &service{abbrev: "ERROR", label: "Error Server", flag: fIsError, opf: fErrorOp}
	svcBOS    = &service{abbrev: "BOS", label: "BOS Server", flag: fIsBOS, opf: fBOSOp, names: bosOpNames, ops: bosOps}
	svcUp     = &service{abbrev: "UP", label: "Update Server", flag: fIsUp, opf: fUpOp, names: upOpNames}
	svcRmtsys = &service{abbrev: "RMTSYS", label: "Rmtsys Server", flag: fIsRmtsys, opf: fRmtsysOp, names: rmtsysOpNames}
	svcBackup = &service{abbrev: "BUDB", label: "Backup Server", flag: fIsBackup, opf: fBackupOp, names: budbOpNames}
	svcButc   = &service{abbrev: "BUTC", label: "BUTC Server", flag: fIsButc, opf: fButcOp, names: butcOpNames}
	svcVote   = &service{abbrev: "VOTE", label: "UBIK", flag: fIsUbik, opf: fUbikOp, names: voteOpNames, ops: voteOps, ubik: true}
	svcDisk   = &service{abbrev: "DISK", label: "UBIK", flag: fIsUbik, opf: fUbikOp, names: diskOpNames, ops: diskOps, ubik: true}

	services = []*service{svcFS, svcCB, svcPT, svcVL, svcKA, svcVol, svcError, svcBOS, svcUp, svcRmtsys, svcBackup, svcButc, svcVote, svcDisk}
)

// Rx service IDs the OpenAFS servers register. 1 is shared by the
// fileserver, the cache manager's callback service, bosserver and butc.
const (
	sidOne    = 1
	sidVol    = 4 // upserver and rmtsys reuse 4 (from memory); told apart by port
	sidVote   = 50
	sidDisk   = 51
	sidVL     = 52
	sidPT     = 73
	sidKAAuth = 731
	sidKATGS  = 732
	sidKAMain = 733
	sidBUDB   = 22314
)

// byPort is the service at a well-known AFS server port.
func byPort(port uint16) *service {
	switch port {
	case 7000:
		return svcFS
	case 7001:
		return svcCB
	case 7002:
		return svcPT
	case 7003:
		return svcVL
	case 7004:
		return svcKA
	case 7005:
		return svcVol
	case 7006:
		return svcError
	case 7007:
		return svcBOS
	case 7008:
		return svcUp
	case 7009:
		return svcRmtsys
	case 7021:
		return svcBackup
	}
	if port >= 7025 && port <= 7032 { // butc listens at 7025 + its port offset
		return svcButc
	}
	return nil
}

func inCBRange(op uint32) bool { return op >= 204 && op <= 218 || op >= 65536 && op <= 65538 }
func inFSRange(op uint32) bool {
	return op >= 130 && op <= 164 || op == 220 || op >= 65536 && op <= 65542 || op >= 65551 && op <= 65562
}
func inBOSRange(op uint32) bool  { return op >= 80 && op <= 116 }
func inVoteRange(op uint32) bool { return op >= 10000 && op <= 10007 }
func inDiskRange(op uint32) bool { return op >= 20000 && op <= 20013 }

// serviceFor picks the service of a call: by Rx service ID first; with an
// unknown ID, by ubik's opcode ranges (no other service uses them), then by
// the server's well-known port. Opcode ranges overlap (ptserver 500-521,
// vlserver 501-534), so an opcode never decides on its own, except among
// the services that share ID 1. nil: not an AFS call.
func serviceFor(c *rx.Call) *service {
	switch c.ServiceID {
	case sidOne:
		return serviceOne(c)
	case sidVol:
		switch c.ServerPort {
		case 7008:
			return svcUp
		case 7009:
			return svcRmtsys
		}
		return svcVol
	case sidVote:
		return svcVote
	case sidDisk:
		return svcDisk
	case sidVL:
		return svcVL
	case sidPT:
		return svcPT
	case sidKAAuth, sidKATGS, sidKAMain:
		return svcKA
	case sidBUDB:
		return svcBackup
	}
	if c.HasOpcode {
		// Ubik shares the database servers' ports with its own service IDs;
		// with an unknown ID its opcodes are still unmistakable.
		if inVoteRange(c.Opcode) {
			return svcVote
		}
		if inDiskRange(c.Opcode) {
			return svcDisk
		}
	}
	return byPort(c.ServerPort)
}

// serviceOne tells apart the services that all use Rx service ID 1. The
// fileserver calls back each client on the client's own port (afsio,
// libafscp) or on 7001 (the cache manager), so a service-1 call to any port
// but 7000 whose opcode is a callback opcode is a callback; tshark, which
// goes by port only, shows these as Unknown(port) or BUTC.
func serviceOne(c *rx.Call) *service {
	switch c.ServerPort {
	case 7000:
		return svcFS
	case 7001:
		return svcCB
	case 7007:
		return svcBOS
	}
	if !c.HasOpcode {
		if s := byPort(c.ServerPort); s == svcButc {
			return s
		}
		return nil // a reply whose request rdx did not see, on no known port
	}
	switch op := c.Opcode; {
	case inCBRange(op):
		return svcCB
	case inFSRange(op):
		return svcFS
	case byPort(c.ServerPort) == svcButc:
		return svcButc
	case inBOSRange(op):
		return svcBOS
	}
	return nil
}

// PDU is one direction of one AFS call (or its abort) in a frame.
type PDU struct {
	// Call is a copy of what Rx handed over; its Data aliases Rx's buffers
	// and is valid until the next frame is decoded.
	Call      rx.Call
	svc       *service
	idx       int  // index in the frame's PDUs, for findings
	encrypted bool // opcode unknown on a secured connection: sealed payload
	d         dec
}

// Proto implements dissect.PDU.
func (p *PDU) Proto() *dissect.ProtoInfo { return PAFS }

// Service is the service's short name ("FS", "PR", "VL", "VOTE", ...).
func (p *PDU) Service() string { return p.svc.abbrev }

// OpName is the operation's name, "" when unknown.
func (p *PDU) OpName() string {
	if !p.Call.HasOpcode || p.encrypted {
		return ""
	}
	return p.svc.name(p.Call.Opcode)
}

// state is the per-engine pool of PDUs, kept in the engine's Frame
// (dissect.FrameState): it lives and goes with its engine; the pool is
// recycled when a new frame arrives. A pool holds the PDUs of one frame (at
// most one per Rx packet in it) and starts over on the next, so nothing
// here grows with the input or needs the memory budget; AFS keeps no
// per-call state of its own (Rx matches the calls).
type state struct {
	num  uint64
	pass int
	used int
	pool []*PDU
}

var frameState = dissect.NewFrameState[state]()

func stateFor(f *dissect.Frame) *state {
	st := frameState.Get(f)
	if f.Num != st.num || f.Pass != st.pass || st.used > 0 && !hasPDU(f, st.pool[st.used-1]) {
		st.num, st.pass, st.used = f.Num, f.Pass, 0
	}
	return st
}

func hasPDU(f *dissect.Frame, p *PDU) bool {
	for _, q := range f.PDUs {
		if q == dissect.PDU(p) {
			return true
		}
	}
	return false
}

func (st *state) next() *PDU {
	if st.used == len(st.pool) {
		st.pool = append(st.pool, new(PDU))
	}
	p := st.pool[st.used]
	st.used++
	return p
}

// dissectCall is the rx.ServiceFunc.
// dissectCall decodes a call of the service serviceFor finds.
func dissectCall(c *rx.Call) bool { return dissectService(c, serviceFor(c)) }

// dissectService decodes a call as one of svc; it declines when svc is nil.
func dissectService(c *rx.Call, svc *service) bool {
	if svc == nil {
		return false
	}
	c.Namer = svc
	if c.Frame == nil {
		return true
	}
	p := stateFor(c.Frame).next()
	p.Call = *c
	p.svc = svc
	p.encrypted = false
	p.d = dec{}
	p.idx = c.Frame.AddPDU(p)
	p.check()
	return true
}

// check decodes the call without a tree and records findings: unknown
// opcode, sealed payload, data shorter than the operation needs, rdx's own
// truncation, and the abort.
func (p *PDU) check() {
	c := &p.Call
	f := c.Frame
	var o op
	known := false // every opcode with a decoder has a name (TestOpsNamed): one lookup for both
	if c.HasOpcode {
		o, known = p.svc.op(c.Opcode)
	}
	if c.HasOpcode && p.svc.names != nil && !known && p.svc.name(c.Opcode) == "" {
		if c.SecIdx != 0 {
			p.encrypted = true
			if !c.Reply {
				f.AddFinding(p.idx, dissect.Note, dissect.GroupUndecoded, nil, "afs",
					"unknown "+p.svc.abbrev+" opcode "+strconv.FormatUint(uint64(c.Opcode), 10)+" on a security index "+
						strconv.Itoa(int(c.SecIdx))+" connection: the call data is presumably encrypted; not decoded")
			}
		} else if !c.Reply {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupProtocol, p.svc.opf, "afs",
				"unknown "+p.svc.abbrev+" opcode "+strconv.FormatUint(uint64(c.Opcode), 10))
		}
	}
	if fn, start := p.decoderOf(o, known); fn != nil {
		p.d.reset(c, nil, start)
		fn(&p.d)
		if p.d.isOver() {
			what := " arguments"
			if p.Call.Reply {
				what = " results"
			}
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, nil, "afs",
				p.OpName()+what+": array of "+strconv.FormatUint(uint64(p.d.over), 10)+" elements, more than the "+
					strconv.FormatUint(uint64(p.d.overMax), 10)+" its type allows")
		} else if p.d.r.Err() != nil {
			what := " arguments"
			if c.Reply {
				what = " results"
			}
			if c.Truncated {
				f.AddFinding(p.idx, dissect.Note, dissect.GroupUndecoded, nil, "afs",
					"rdx kept "+strconv.Itoa(len(c.Data))+" of "+strconv.Itoa(c.DataLen)+" call octets; "+p.OpName()+what+" decoded in part")
			} else {
				f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, nil, "afs",
					"truncated "+p.OpName()+what)
			}
		} else if c.Truncated {
			f.AddFinding(p.idx, dissect.Note, dissect.GroupUndecoded, nil, "afs",
				"rdx kept "+strconv.Itoa(len(c.Data))+" of "+strconv.Itoa(c.DataLen)+" call octets")
		}
	} else if c.Truncated && !c.Abort {
		f.AddFinding(p.idx, dissect.Note, dissect.GroupUndecoded, nil, "afs",
			"rdx kept "+strconv.Itoa(len(c.Data))+" of "+strconv.Itoa(c.DataLen)+" call octets")
	}
	if c.Abort {
		msg := "ABORT " + formatCode(c.AbortCode)
		if name := errorNameFor(p.svc, c.AbortCode); name != "" {
			msg += " (" + name + ")"
		}
		f.AddFinding(p.idx, dissect.Note, dissect.GroupResponse, fErrCode, "afs", msg)
	}
}

// decoder returns the function for this direction and the offset its data
// starts at (after the opcode in a request); nil when there is none.
func (p *PDU) decoder() (func(*dec), int) {
	o, ok := p.svc.op(p.Call.Opcode)
	return p.decoderOf(o, ok)
}

// decoderOf is decoder with the opcode's entry in the service's table
// looked up (ok: there is one).
func (p *PDU) decoderOf(o op, ok bool) (func(*dec), int) {
	c := &p.Call
	if c.Abort || !c.HasOpcode || p.encrypted || !ok {
		return nil, 0
	}
	if c.Reply {
		return o.rep, 0
	}
	return o.req, min(4, len(c.Data))
}

// formatCode spells an abort code as OpenAFS's afs_int32: Rx's own codes
// are negative.
func formatCode(code uint32) string { return string(appendCode(nil, code)) }

func appendCode(dst []byte, code uint32) []byte {
	return strconv.AppendInt(dst, int64(int32(code)), 10)
}

// errorNameFor names an abort code for a call of service s.
func errorNameFor(s *service, code uint32) string {
	if name := tableErrorName(code); name != "" {
		return name
	}
	if name := rx.CodeName(code); name != "" {
		return name
	}
	if s == svcFS || s == svcCB {
		return errnoName(code)
	}
	return ""
}

// Summary implements dissect.PDU: "FS FetchStatus request", "PR NameToID
// reply ABORT 267268 (PRNOENT) (request in frame 5, 0.000299s)". It appends
// only: no fmt, no allocation.
func (p *PDU) Summary(dst []byte) []byte {
	c := &p.Call
	dst = append(dst, p.svc.abbrev...)
	dst = append(dst, ' ')
	if c.HasOpcode {
		if p.encrypted {
			dst = append(dst, "encrypted "...)
		} else if name := p.svc.name(c.Opcode); name != "" {
			dst = append(dst, name...)
			dst = append(dst, ' ')
		} else {
			dst = append(dst, "opcode "...)
			dst = strconv.AppendUint(dst, uint64(c.Opcode), 10)
			dst = append(dst, ' ')
		}
	}
	if c.Reply {
		dst = append(dst, "reply"...)
	} else {
		dst = append(dst, "request"...)
	}
	if c.Abort {
		dst = append(dst, " ABORT "...)
		dst = appendCode(dst, c.AbortCode)
		if name := errorNameFor(p.svc, c.AbortCode); name != "" {
			dst = append(dst, " ("...)
			dst = append(dst, name...)
			dst = append(dst, ')')
		}
	}
	if c.Reply && c.ReqFrame != 0 {
		dst = append(dst, " (request in frame "...)
		dst = dissect.AppendUint(dst, c.ReqFrame)
		if c.HasRespTime {
			dst = append(dst, ", "...)
			dst = appendSeconds(dst, c.RespTime)
			dst = append(dst, 's')
		}
		dst = append(dst, ')')
	}
	if len(c.Frames) > 1 {
		// reassembled: say which frames the call's data came from
		dst = append(dst, " [reassembled from "...)
		dst = dissect.AppendFrameList(dst, c.Frames, c.NFrames, 8)
		dst = append(dst, ']')
	}
	return dst
}

// appendSeconds appends ns as seconds with microsecond precision, by the
// digit writers (no division by a variable per digit). The magnitude is
// taken as unsigned: the most negative ns has one too.
func appendSeconds(dst []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		dst = append(dst, '-')
		u = -u
	}
	dst = append(dissect.AppendUint(dst, u/1e9), '.')
	return dissect.AppendUintWidth(dst, u%1e9/1e3, 6, '0')
}

// serviceLabel is afs.service's display text, as tshark words it.
func (p *PDU) serviceLabel() string {
	c := &p.Call
	s := p.svc.label
	if p.svc.ubik {
		if db := byPort(c.ServerPort); db != nil && db != svcFS && db != svcCB {
			s = "UBIK - " + db.label
		}
	}
	if p.encrypted {
		s = "Encrypted " + s
	}
	if c.Reply {
		return s + " Reply"
	}
	return s + " Request"
}

// Tree implements dissect.PDU.
func (p *PDU) Tree(t *dissect.Tree, f *dissect.Frame) {
	c := &p.Call
	t.SetBase(c.DataOff, c.DataOff < 0)
	t.Proto(PAFS, 0, len(c.Data), "")
	t.Uint(p.svc.flag, 0, 0, 1)
	opLen := 0
	if c.HasOpcode && !c.Reply && len(c.Data) >= 4 {
		opLen = 4
	}
	svcLabel := ""
	if t.Labels() {
		svcLabel = p.serviceLabel()
	}
	t.UintLabel(fService, 0, opLen, uint64(c.Opcode), svcLabel)
	if c.Reply {
		if c.ReqFrame != 0 {
			t.Uint(fReqFrame, 0, 0, c.ReqFrame)
		}
		if c.HasRespTime {
			t.Int(fTime, 0, 0, c.RespTime)
		}
	} else if c.RepFrame != 0 {
		// As Wireshark: the request points at its reply; the time
		// between them belongs to the reply alone.
		t.Uint(fRepFrame, 0, 0, c.RepFrame)
	}
	if c.Abort {
		if c.HasOpcode && !p.encrypted {
			t.Uint(p.svc.opf, 0, 0, uint64(c.Opcode))
		}
		n := 0
		if len(c.Data) == 4 {
			n = 4
		}
		label := ""
		if t.Labels() {
			label = formatCode(c.AbortCode)
			if name := errorNameFor(p.svc, c.AbortCode); name != "" {
				label = name + " (" + label + ")"
			}
		}
		t.UintLabel(fErrCode, 0, n, uint64(c.AbortCode), label)
	} else {
		p.treeData(t)
	}
	if c.Truncated {
		note := "" // counted as in the whole tree, formatted only to be shown
		if t.Labels() {
			note = "[rdx kept " + strconv.Itoa(len(c.Data)) + " of " + strconv.Itoa(c.DataLen) + " octets of this call]"
		}
		t.Text(0, 0, note)
	}
	f.TreeFindings(t, p.idx)
}

func (p *PDU) treeData(t *dissect.Tree) {
	c := &p.Call
	start := 0
	if c.HasOpcode && !p.encrypted {
		if !c.Reply {
			start = min(4, len(c.Data))
		}
		t.Uint(p.svc.opf, 0, start, uint64(c.Opcode))
		t.Open()
		defer t.Close()
	}
	if p.encrypted {
		if len(c.Data) > 0 {
			t.Bytes(fEncData, 0, len(c.Data), c.Data)
		}
		return
	}
	fn, _ := p.decoder()
	p.d.reset(c, t, start)
	if fn != nil {
		fn(&p.d)
	}
	// What no decoder took: opaque, never guessed at.
	if p.d.r.Err() == nil && !p.d.partial && !p.d.isOver() && p.d.r.Remaining() > 0 {
		if fn == nil {
			t.Uint(fDataLen, p.d.r.Off, 0, uint64(p.d.r.Remaining()))
		}
		p.d.rest(fData)
	}
}
