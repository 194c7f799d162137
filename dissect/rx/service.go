package rx

import "github.com/rdx-project/rdx/dissect"

// Call is what Rx hands to the service on top (AFS) when one direction of a
// call is complete, or when it ends in an ABORT.
type Call struct {
	Frame      *dissect.Frame
	Epoch, CID uint32
	CallNumber uint32
	ServiceID  uint16
	ServerPort uint16 // the server side's UDP port
	ClientPort uint16
	SecIdx     uint8
	Reply      bool   // server to client
	Opcode     uint32 // the request's opcode (also on replies, when the request was seen)
	HasOpcode  bool
	// Data is this direction's call data in sequence order (a request starts
	// with its opcode). It is valid until the next frame is decoded.
	Data    []byte
	DataOff int // offset of Data in the frame, -1 when reassembled
	DataLen int // bytes in this direction, counting any rdx did not keep
	// Frames lists the frames the data came from when it spans several.
	Frames    []uint64
	NFrames   int  // frames counted, possibly more than Frames holds
	Truncated bool // rdx kept only the first part of the data (see MaxCallData)
	Abort     bool
	AbortCode uint32
	// Request/reply matching: 0 when unknown.
	ReqFrame, RepFrame uint64
	RespTime           int64 // ns from the request's last frame to this reply's
	HasRespTime        bool
	// Namer is set by the service that took the call, to name it in
	// statistics ("FS FetchStatus"); nil: by service ID and opcode.
	Namer Namer
}

// Namer names calls of a service for statistics (-z rx,srt).
type Namer interface{ CallName(c *Call) string }

// Services is the table of the services on top of Rx (AFS), keyed by
// service ID: each completed call direction, and each abort, is handed to
// the service registered for its ID (dissect.AddHandler, or -d
// rx.service==ID,PROTO), else to the heuristics in order, which decide from
// the service ID, port and opcode. A service appends its PDUs to c.Frame.
var Services = dissect.NewDissectorTable[*Call]("rx.service", "Rx service ID (call data)", 16)

// AbortCode is the context of the rx.abort_code table: a service that knows
// Code sets Name (a static string) and takes it.
type AbortCode struct {
	Code uint32
	Name string
}

// AbortCodes is the table of the services' abort code names (AFS's com_err
// tables); Rx's own codes are named when no service names the code.
var AbortCodes = dissect.NewDissectorTable[*AbortCode]("rx.abort_code", "Rx abort code names", 0)

// errorName names an abort code: a service's name first, then Rx's own.
func (d *State) errorName(f *dissect.Frame, code uint32) string {
	d.abortQ = AbortCode{Code: code}
	if AbortCodes.Call(f, 0, &d.abortQ) {
		return d.abortQ.Name
	}
	return CodeName(code)
}

// CodeName names Rx's own error codes (OpenAFS rx.h, rxgen), or "".
func CodeName(code uint32) string {
	switch int32(code) {
	case -1:
		return "RX_CALL_DEAD"
	case -2:
		return "RX_INVALID_OPERATION"
	case -3:
		return "RX_CALL_TIMEOUT"
	case -4:
		return "RX_EOF"
	case -5:
		return "RX_PROTOCOL_ERROR"
	case -6:
		return "RX_USER_ABORT"
	case -7:
		return "RX_ADDRINUSE"
	case -8:
		return "RX_DEBUGI_BADTYPE"
	case -9:
		return "RX_CALL_IDLE"
	case -10:
		return "RX_CALL_BUSY"
	case -64:
		return "RX_RESTARTING"
	case -450:
		return "RXGEN_CC_MARSHAL"
	case -451:
		return "RXGEN_CC_UNMARSHAL"
	case -452:
		return "RXGEN_SS_MARSHAL"
	case -453:
		return "RXGEN_SS_UNMARSHAL"
	case -454:
		return "RXGEN_DECODE"
	case -455:
		return "RXGEN_OPCODE"
	case -456:
		return "RXGEN_SS_XDRFREE"
	case -457:
		return "RXGEN_CC_XDRFREE"
	}
	return ""
}
