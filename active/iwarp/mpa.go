// Package iwarp is a userspace iWARP endpoint over a TCP connection: MPA
// (RFC 5044, revision 1, and RFC 6581, revision 2 with enhanced IRD/ORD and
// peer-to-peer RTR) negotiation, FPDU framing with CRC32c and markers, DDP
// (RFC 5041) tagged and untagged segments cut to the MULPDU, and RDMAP
// (RFC 5040) Send, RDMA Write, RDMA Read and Terminate. Every wire format
// comes from the dissectors (dissect/mpa, dissect/ddp): the stack only
// decides what to send and checks what it receives.
package iwarp

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rdx-project/rdx/dissect/mpa"
)

// RTR is a peer-to-peer ready-to-receive message type (RFC 6581 §5): the
// zero-length message the initiator sends first, so the responder may send.
type RTR uint8

const (
	RTRNone  RTR = 0
	RTRSend  RTR = 1 // zero-length Send (IRD control bit Z)
	RTRWrite RTR = 2 // zero-length RDMA Write (ORD control bit W)
	RTRRead  RTR = 4 // zero-length RDMA Read Request (ORD control bit R)
	RTRAny       = RTRSend | RTRWrite | RTRRead
)

func (r RTR) String() string {
	var s []string
	for _, x := range []struct {
		r RTR
		n string
	}{{RTRSend, "send"}, {RTRWrite, "write"}, {RTRRead, "read"}} {
		if r&x.r != 0 {
			s = append(s, x.n)
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "|")
}

// ParseRTR reads "none", "send", "write", "read", "any" or a "|"- or
// ","-separated list.
func ParseRTR(s string) (RTR, error) {
	var r RTR
	for _, p := range strings.FieldsFunc(s, func(c rune) bool { return c == '|' || c == ',' }) {
		switch p {
		case "none":
		case "send":
			r |= RTRSend
		case "write":
			r |= RTRWrite
		case "read":
			r |= RTRRead
		case "any":
			r |= RTRAny
		default:
			return 0, fmt.Errorf("RTR %q: want none, send, write, read or any", p)
		}
	}
	return r, nil
}

// control bits of the IRD/ORD word for a set of RTR types.
func (r RTR) bits() (ird, ord uint16) {
	if r&RTRSend != 0 {
		ird |= mpa.IRDZeroRTR
	}
	if r&RTRWrite != 0 {
		ord |= mpa.ORDWriteRTR
	}
	if r&RTRRead != 0 {
		ord |= mpa.ORDReadRTR
	}
	return
}

func rtrOf(ird, ord uint16) RTR {
	var r RTR
	if ird&mpa.IRDZeroRTR != 0 {
		r |= RTRSend
	}
	if ord&mpa.ORDWriteRTR != 0 {
		r |= RTRWrite
	}
	if ord&mpa.ORDReadRTR != 0 {
		r |= RTRRead
	}
	return r
}

// Config is one side's MPA and RDMAP setup.
type Config struct {
	Rev       uint8  // highest MPA revision spoken: 1 or 2 (0: 2)
	CRC       bool   // ask for CRCs (C bit); they are on when either side asks
	CRCStrict bool   // refuse a connection whose CRC outcome is not CRC (as siw's mpa_crc_strict)
	Markers   bool   // require markers in what this side receives (M bit)
	IRD, ORD  uint16 // revision 2: inbound and outbound RDMA Read depth (0: 1)
	// P2P, revision 2: the RTR types the initiator offers or the responder
	// accepts (RTRNone: no peer-to-peer mode).
	P2P     RTR
	Private []byte // private data after the IRD/ORD word (at most 512 octets in all)
	Reject  bool   // responder: refuse the connection, Private being the reason
	// MULPDU is the largest DDP segment sent (0: from the TCP MSS, RFC 5044
	// §8.1; at least 128).
	MULPDU int
	// MaxMessage bounds an incoming Send message (0: DefaultMaxMessage); a
	// longer one is terminated (DDP "message too long").
	MaxMessage int
	// Impair, when set, is the fault shim every FPDU is written through
	// (one unit = one FPDU).
	Impair Shim
	// Log, when set, receives one line per event (negotiation, Terminate).
	Log io.Writer
	// PartialTimeout bounds the wait for the rest of an FPDU whose first
	// octets arrived (0: DefaultPartialTimeout): a ULPDU_Length damaged on
	// the way (CRC on, markers off) would otherwise wait forever for
	// octets the peer never sends.
	PartialTimeout time.Duration
}

// DefaultPartialTimeout is Config.PartialTimeout's default.
const DefaultPartialTimeout = 10 * time.Second

// Shim is what the stack needs of active/impair's Shim.
type Shim interface {
	Send(unit []byte, send func([]byte) error) error
	Flush()
}

// DefaultMaxMessage bounds an incoming Send message.
const DefaultMaxMessage = 1 << 20

func (c Config) rev() uint8 {
	if c.Rev == 0 {
		return 2
	}
	return c.Rev
}

func depth(v uint16) uint16 {
	if v == 0 {
		return 1
	}
	return min(v, mpa.IRDORDMask)
}

// Params is what the two MPA frames settled.
type Params struct {
	Rev       uint8
	CRC       bool
	TxMarkers bool // markers in what this side sends (the peer's M bit)
	RxMarkers bool // markers in what it receives (its own M bit)
	Enhanced  bool // revision-2 IRD/ORD exchanged
	// The peer's IRD and ORD (Enhanced only); this side's ORD is cut to the
	// peer's IRD.
	PeerIRD, PeerORD uint16
	ORD              uint16
	RTR              RTR    // the RTR type in use (peer-to-peer mode), else RTRNone
	PeerPrivate      []byte // the peer's private data after the IRD/ORD word
}

func (p Params) String() string {
	s := fmt.Sprintf("MPA rev %d, CRC %s, markers sent %s received %s", p.Rev, onOff(p.CRC), onOff(p.TxMarkers), onOff(p.RxMarkers))
	if p.Enhanced {
		s += fmt.Sprintf(", peer IRD %d ORD %d, RTR %s", p.PeerIRD, p.PeerORD, p.RTR)
	}
	return s
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// RejectError is a connection the responder refused (R bit).
type RejectError struct{ Private []byte }

func (e *RejectError) Error() string {
	if len(e.Private) == 0 {
		return "MPA connection rejected by the responder"
	}
	return fmt.Sprintf("MPA connection rejected by the responder: %q", e.Private)
}

// ErrStartup wraps a malformed or unacceptable Request or Reply.
var ErrStartup = errors.New("MPA startup")

// readStartup reads one Request or Reply (rep) frame.
func readStartup(r io.Reader, rep bool) (mpa.StartupFrame, error) {
	h := make([]byte, mpa.StartupLen)
	if _, err := io.ReadFull(r, h); err != nil {
		return nil, fmt.Errorf("%w: reading the %s: %v", ErrStartup, frameName(rep), err)
	}
	s := mpa.StartupFrame(h)
	if rep && !s.IsRep() || !rep && !s.IsReq() {
		return nil, fmt.Errorf("%w: expected an MPA %s, got key %q", ErrStartup, frameName(rep), h[:mpa.KeyLen])
	}
	if s.PDLen() > mpa.MaxPrivate {
		return nil, fmt.Errorf("%w: private data length %d exceeds 512 (RFC 5044 §7.1.4)", ErrStartup, s.PDLen())
	}
	b := make([]byte, mpa.StartupLen+s.PDLen())
	copy(b, h)
	if _, err := io.ReadFull(r, b[mpa.StartupLen:]); err != nil {
		return nil, fmt.Errorf("%w: reading the %s's private data: %v", ErrStartup, frameName(rep), err)
	}
	return mpa.StartupFrame(b), nil
}

func frameName(rep bool) string {
	if rep {
		return "Reply"
	}
	return "Request"
}

// enhanced reports whether frame s carries the RFC 6581 IRD/ORD word.
func enhanced(s mpa.StartupFrame) bool {
	return s.Rev() >= 2 && s.Flags()&mpa.FlagEnhanced != 0 && s.PDLen() >= 4
}

// buildStartup encodes this side's frame.
func (c Config) buildStartup(rep bool, rev uint8, crc, enh, reject bool, ctrlIRD, ctrlORD uint16, ord uint16) ([]byte, error) {
	var flags uint8
	if c.Markers {
		flags |= mpa.FlagM
	}
	if crc {
		flags |= mpa.FlagC
	}
	if reject {
		flags |= mpa.FlagR
	}
	var pd []byte
	if enh {
		flags |= mpa.FlagEnhanced
		pd = mpa.EncodeIRDORD(pd, depth(c.IRD), ord, ctrlIRD, ctrlORD)
	}
	pd = append(pd, c.Private...)
	if len(pd) > mpa.MaxPrivate {
		return nil, fmt.Errorf("private data of %d octets exceeds 512 (RFC 5044 §7.1.4)", len(pd))
	}
	return mpa.EncodeStartup(nil, rep, flags, rev, pd), nil
}
