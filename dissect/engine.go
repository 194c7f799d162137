package dissect

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// Dissector decodes one protocol for one Engine. It may keep state across
// frames (conversations, reassembly); the engine creates one per registration.
type Dissector interface {
	// Dissect decodes data, which starts at offset off in f.Data (off < 0 when
	// data does not lie in the frame, e.g. after reassembly).
	Dissect(f *Frame, data []byte, off int)
}

// Rewinder is implemented by dissectors with cross-frame state that support a
// second pass: Rewind forgets per-pass state and keeps what was learned (e.g.
// which frame answered a request), so the second pass can show it everywhere.
type Rewinder interface{ Rewind() }

// PortRange is an inclusive range of ports.
type PortRange struct{ Lo, Hi uint16 }

// Registration tells the engine when to call a protocol's dissector: its
// keys and heuristics in the engine-level hand-off tables (wtap_encap,
// ethertype, ip.proto, udp.port, tcp.port; see handoff.go). Tables above the
// transport take registrations through AddHandler and AddHeuristic.
type Registration struct {
	Name       string // decode-as name, e.g. "rx"
	UDPPorts   []PortRange
	TCPPorts   []PortRange
	EtherTypes []uint16
	IPProtos   []uint8
	LinkTypes  []uint16
	// HeuristicUDP and HeuristicTCP, when set, are tried on payloads no port
	// claims; they must verify strongly (false positives mislabel traffic).
	HeuristicUDP func(data []byte) bool
	HeuristicTCP func(data []byte) bool
	New          func(e *Engine) Dissector
}

var (
	regsMu sync.Mutex
	regs   []*Registration
)

// RegisterDissector adds a protocol to every engine created afterwards.
func RegisterDissector(r *Registration) {
	regsMu.Lock()
	defer regsMu.Unlock()
	for _, o := range regs {
		if o.Name == r.Name {
			panic("dissect: dissector registered twice: " + r.Name)
		}
	}
	regs = append(regs, r)
}

// DissectorNames lists the names decode-as accepts.
func DissectorNames() []string {
	regsMu.Lock()
	defer regsMu.Unlock()
	var out []string
	for _, r := range regs {
		out = append(out, r.Name)
	}
	sort.Strings(out)
	return out
}

// ipv4 and ipv6 stop the layer parser at an IP header inside IP (protocols 4
// and 41): the engine keeps one decoded header per IP version, and an inner
// one would overwrite the outer header's fields and offsets. The tunnelled
// packet is left undissected, with a note.
type ipv4 struct{ layers.IPv4 }
type ipv6 struct{ layers.IPv6 }

func (l *ipv4) NextLayerType() gopacket.LayerType {
	if isIPinIP(l.Protocol) {
		return gopacket.LayerTypePayload
	}
	return l.IPv4.NextLayerType()
}

func (l *ipv6) NextLayerType() gopacket.LayerType {
	if isIPinIP(l.NextHeader) {
		return gopacket.LayerTypePayload
	}
	return l.IPv6.NextLayerType()
}

func isIPinIP(p layers.IPProtocol) bool {
	return p == layers.IPProtocolIPv4 || p == layers.IPProtocolIPv6
}

// ipoibLen is the LINKTYPE_IPOIB pseudo-header.
const ipoibLen = 44

// maxLinkType bounds the link types rdx dispatches on (LINKTYPE_* values in
// use are below 300).
const maxLinkType = 512

// Options configure an Engine.
type Options struct {
	DecodeAs []DecodeAs
	// Config holds protocol preferences by name ("mpa.markers" = "1", ...), for
	// dissectors to read in their New.
	Config map[string]string
	// Checksums verifies the IPv4 header, UDP and TCP checksums (rdx
	// check; tshark's ip/udp/tcp.check_checksum preferences), recording
	// the ip/udp/tcp.checksum checks and a finding on a bad one.
	Checksums bool
	// Conversations turns on per-conversation counters (-z conv,...).
	Conversations bool
	// ZStats names the -z tables the read prints, for the engine's own
	// whole-capture tables (zstats.go: expert, io,phs, io,stat,
	// endpoints); the rest need nothing from it.
	ZStats []string
	// ZFilter compiles the FILTER of a -z table (conv,TYPE,FILTER,
	// io,stat,INTERVAL,FILTER...); nil: such tables are refused.
	ZFilter func(string) (Matcher, error)
	// MaxMem is the memory budget in octets that all reassembly and
	// tracking state shares (--max-mem); 0 means budget.DefaultLimit.
	MaxMem int64
	// Source names the input (a file name) in findings about the capture
	// records themselves, e.g. an impossible length.
	Source string
	// Strict re-raises a dissector panic as an *InternalError instead of
	// turning it into a finding, so tests and fuzzers fail on the bug with
	// its stack. Users never want it: NewEngine also turns it on when the
	// environment has RDX_STRICT=1, which the test scripts and every test
	// package's TestMain set.
	Strict bool
	// NoProtoStats says nothing will read the dissectors' own -z tables
	// (StatsProvider: infiniband,flows, rpc,srt, rx,srt) after the run, so
	// they skip their per-frame counting (rdx read without -z: a RoCE
	// frame's flow counters were about 4% of its decode). Off by default:
	// any other user of an engine may ask for a table afterwards.
	NoProtoStats bool
}

// StrictEnv is the environment variable that turns on Options.Strict for
// every engine, so tests that run whole commands fail on a dissector panic.
const StrictEnv = "RDX_STRICT"

// InternalError is what a strict engine panics with when a dissector or a
// tree builder panicked: the frame, the original value and its stack.
type InternalError struct {
	Frame uint64
	Where string // "dissector", "tree" or "flush"
	Value any
	Stack []byte // where the original panic was raised
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("rdx strict mode: panic in %s on frame %d: %v\n\noriginal panic:\n%s", e.Where, e.Frame, e.Value, e.Stack)
}

// Unwrap gives the original panic value when it was an error.
func (e *InternalError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Engine drives frames through the layers. It is not safe for concurrent use;
// run one Engine per worker.
type Engine struct {
	Opts Options

	frame Frame

	eth   layers.Ethernet
	dot1q layers.Dot1Q
	sll   layers.LinuxSLL
	sll2  layers.LinuxSLL2
	loop  layers.Loopback
	ip4   ipv4
	ip6   ipv6
	udp   layers.UDP
	tcp   layers.TCP
	// first is the layer each link type starts with (LayerTypeZero: none
	// decodeLayers knows); trunc is set when a layer was cut short.
	first [maxLinkType]gopacket.LayerType
	trunc truncFeedback
	// The link, IP and transport layers decoded in the current frame, in
	// order (dispatch, the base tree); empty when no parser ran.
	types []gopacket.LayerType

	regs []*Registration
	inst []Dissector
	// The hand-off tables (handoff.go), by declaration order; the engine
	// dispatches on the engine-level ones itself. Keys are array indexes,
	// not map keys: this is per packet.
	tabs                           []engTable
	tLink, tEther, tIP, tUDP, tTCP *engTable

	firstTime, prevTime int64
	seenFirst           bool

	defrag      defragger
	linkOff     int // octets of a link header rdx parses itself (IPoIB)
	convs       flows.Conversations
	tcpTab      tcpTable                 // per-direction TCP state: relative numbers, analysis
	tcpStats    [len(tcpAnalyses)]uint64 // frames per analysis flag
	hostNames   [2]hostName              // ip.host strings of the last two addresses (base.go)
	tcpFlagText *[0x1000][2]string       // tcp.flags label and tcp.flags.str, by value (base.go)
	tcpTree     tcpTreeTable             // acks_frame, bytes in flight, stream times: with the tree only (tcptree.go)
	udpStreams  struct {                 // udp.stream numbers, built with the tree only (base.go)
		idx     map[udpConv]uint32
		next    uint32
		last    udpConv // the conversation of the last lookup, and its index
		lastIdx uint32
		has     bool
	}
	asm        *tcp.Assembler
	lend       bool // packets stay valid until Reclaim (LendPackets)
	streamHeur bool // a stream dissector has a TCP heuristic
	inFrame    bool
	guarded    bool // in Guard: its recovery covers DecodeRef
	// plain: no conversations, checksums or link-type dissector for
	// Ethernet, so decode may take an Ethernet/IPv4/UDP frame's fast path
	plain      bool
	given      StreamNumbers // the frame's Packet.Streams
	lazy       bool          // fastUDP4 decoded the frame; the gopacket layers are not (ensureLayers)
	flushFrame Frame
	frames     uint64 // frames handed out, flush calls included (Frame.seq)
	budget     *budget.Budget
	quoted     Pool[quotedHdr]  // headers of packets quoted in ICMP errors (quoted.go)
	ext6       [maxIP6Ext]uint8 // the IPv6 extension headers ip6ExtDispatch walked
	n6ext      int
	hbhLen     int // octets of IPv6 hop-by-hop options after the fixed header
	// ckIP, ckL4: the frame's IPv4 header and UDP/TCP checksum status + 1
	// when Options.Checksums verified them, else 0 (the tree shows it)
	ckIP, ckL4 uint8
	// What engines merged into this one counted (merge.go).
	mergedStream  tcp.Stats
	mergeFindings []Finding
	tly           *tally // -z expert, io,phs, io,stat (zstats.go); nil unless asked
	convEth       bool   // count Ethernet conversations (-z conv,eth, endpoints,eth)
}

// NewEngine creates an engine with every registered dissector.
func NewEngine(opts Options) *Engine {
	if os.Getenv(StrictEnv) == "1" {
		opts.Strict = true
	}
	e := &Engine{Opts: opts, budget: budget.New(opts.MaxMem)}
	for _, z := range opts.ZStats {
		if strings.HasPrefix(z, "endpoints,") { // made from the conversations
			e.Opts.Conversations = true
		}
		if strings.HasPrefix(z, "conv,eth") || strings.HasPrefix(z, "endpoints,eth") {
			e.convEth = true // Ethernet conversations only when asked (rdx export's flows leave them out)
		}
	}
	regsMu.Lock()
	e.regs = append(e.regs, regs...)
	regsMu.Unlock()
	e.inst = make([]Dissector, len(e.regs))
	for i := range e.regs {
		e.inst[i] = e.regs[i].New(e)
	}
	e.buildTables()
	e.tly = newTally(e, opts.ZStats).addParamCounters(e, opts.ZStats) // after the dissectors: they keep some
	if e.tly != nil && len(e.tly.convs) > 0 {
		e.convs.Logging = true // the filtered tables count a frame's units after its tree (CountFiltered)
	}
	e.first[LinkTypeEthernet] = layers.LayerTypeEthernet
	e.first[LinkTypeLinuxSLL] = layers.LayerTypeLinuxSLL
	e.first[LinkTypeLinuxSLL2] = layers.LayerTypeLinuxSLL2
	e.first[LinkTypeNull] = layers.LayerTypeLoopback
	e.first[LinkTypeLoop] = layers.LayerTypeLoopback
	e.first[LinkTypeIPv4] = layers.LayerTypeIPv4
	e.first[LinkTypeIPv6] = layers.LayerTypeIPv6
	e.types = make([]gopacket.LayerType, 0, 8)
	e.frame.eng = e
	e.flushFrame.eng = e // hand-offs during the end-of-input flush reach the tables too
	e.defrag.acct = e.budget.Register("ip", &e.defrag)
	e.plain = !e.Opts.Checksums && !e.Opts.Conversations && !e.convs.Logging && !e.convEth && e.tLink.dense[LinkTypeEthernet] == 0
	return e
}

// Budget is the memory allowance every table of this engine registers with
// (reassembly/budget): dissectors register in New and charge what they hold.
func (e *Engine) Budget() *budget.Budget { return e.budget }

// Instance returns the engine's dissector registered under name (nil if
// none), for tests and tools that inspect a protocol's state (RDP
// connections). Protocols never reach each other through it: they hand data
// on through the tables (handoff.go).
func (e *Engine) Instance(name string) Dissector { return e.instanceOf(name) }

// Rewind prepares a second pass over the same input.
func (e *Engine) Rewind() {
	for _, d := range e.inst {
		if r, ok := d.(Rewinder); ok {
			r.Rewind()
		}
	}
	e.seenFirst = false
	e.dropAssembler() // a fresh reassembler: the second pass sees every segment again
	e.defrag.reset()
	e.convs.Reset() // the second pass counts again
	if e.tly != nil {
		e.tly.reset()
	}
	e.tcpTab.reset()
	e.tcpStats = [len(tcpAnalyses)]uint64{}
	clear(e.udpStreams.idx)
	e.udpStreams.next, e.udpStreams.has = 0, false
	e.tcpTree.reset()
}

// Times returns the first frame's time and the previous frame's time, in ns.
func (e *Engine) Times() (first, prev int64) { return e.firstTime, e.prevTime }

// Decode dissects one frame. The returned Frame, and everything in it, is
// reused by the next call.
func (e *Engine) Decode(pkt Packet) *Frame { return e.DecodeRef(&pkt) }

// Guard runs loop, which decodes frames with DecodeRef, under one deferred
// panic recovery for all of them instead of one per frame (a defer and a
// recover cost a Rx frame about 50 instructions). A dissector panic ends
// its frame as Decode's would, with an error finding naming the frame (or
// the strict re-panic), and Guard returns that frame: the caller hands it
// on like any decoded frame, then calls Guard again to resume the loop with
// the next packet. Guard returns nil when loop returns. A panic outside a
// frame's decoding (in what the loop does with a frame) is not recovered.
func (e *Engine) Guard(loop func()) (cut *Frame) {
	if e.guarded { // an enclosing Guard recovers
		loop()
		return nil
	}
	e.guarded = true
	defer func() {
		e.guarded = false
		if !e.inFrame { // loop returned, or the panic is not a frame's
			return
		}
		cut = &e.frame
		e.recovered(cut, recover())
	}()
	loop()
	return nil
}

// DecodeRef is Decode of *pkt, which it only reads during the call. Inside
// Guard it leaves a dissector panic to Guard's one recovery for the whole
// loop; elsewhere it recovers itself, as Decode.
//
// The everyday frame (Ethernet, IPv4, UDP, see fastUDP4) goes straight from
// its header to the UDP port table; anything else, and any run that counts
// conversations or verifies checksums, takes layers.
func (e *Engine) DecodeRef(pkt *Packet) *Frame {
	if !e.guarded {
		return e.decodeRecover(pkt)
	}
	f := &e.frame
	// The frame is emptied before anything of pkt is read: what resetFields
	// and resetBlocks may call then keeps no value of it live (spilled).
	f.resetFields() // f.reset, inlined
	if f.arena.used {
		f.arena.resetBlocks()
	}
	e.frames++
	f.seq = e.frames
	e.budget.Tick(e.frames)
	if e.seenFirst {
		e.prevTime = f.TimeNS // the last frame's
	}
	f.Num, f.TimeNS, f.CapLen, f.WireLen, f.LinkType, f.Iface, f.Data, f.Pass = pkt.Num, pkt.TimeNS, pkt.CapLen, pkt.WireLen, pkt.LinkType, pkt.Iface, pkt.Data, pkt.Pass
	f.recTimeNS, f.recWireLen = 0, 0 // Record: the frame's own
	if f.CapLen == 0 && f.WireLen == 0 || f.LinkType == LinkTypeERF {
		recordLens(f)
	}
	if !e.seenFirst {
		e.firstTime, e.prevTime, e.seenFirst = f.TimeNS, f.TimeNS, true
	}
	e.lazy, e.linkOff = false, 0 // as netHeaders sets it: the fast path does not call it
	e.n6ext, e.hbhLen = 0, 0
	e.ckIP, e.ckL4 = 0, 0
	e.given = pkt.Streams
	e.inFrame = true // from here a panic is the frame's (recovered)
	fast := false
	if e.plain && f.LinkType == LinkTypeEthernet && f.CapLen <= f.WireLen {
		var payload []byte
		if payload, fast = e.fastUDP4(f, f.Data); fast { // dispatch's UDP case, for what fastUDP4 takes (no fragment)
			e.lazy = true // the gopacket layers only when the tree asks (ensureLayers)
			t := e.tUDP
			if i := pickPort(t.dense, f.Net.SrcPort, f.Net.DstPort); i >= 0 {
				t.ents[i].d.Dissect(f, payload, 42)
			} else {
				e.heuristics(t, f, payload, 42)
			}
		}
	}
	if !fast {
		e.types = e.types[:0]
		e.layers(f, f.LinkType, f.Data)
	}
	if e.budget.Over() || e.tly != nil { // endFrame, inlined
		e.endFrameSlow()
	} else {
		e.inFrame = false
	}
	return f
}

// recordLens is DecodeRef's part for the rare record: lengths 0 (the
// data's), or ERF, whose own header gives the time and lengths (the
// record's are kept for Record).
func recordLens(f *Frame) {
	if f.CapLen == 0 && f.WireLen == 0 {
		f.CapLen, f.WireLen = len(f.Data), len(f.Data)
	}
	if f.LinkType == LinkTypeERF && f.CapLen <= f.WireLen {
		f.recTimeNS, f.recWireLen = f.TimeNS, f.WireLen
		if t, c, w, ok := erfRecord(f.Data); ok {
			f.TimeNS, f.CapLen, f.WireLen = t, c, w
		}
	}
}

// decodeRecover is DecodeRef outside Guard, under a deferred recovery for
// its one frame.
func (e *Engine) decodeRecover(pkt *Packet) (f *Frame) {
	f = &e.frame
	e.guarded = true
	defer e.recoverFrame(f)
	return e.DecodeRef(pkt)
}

// layers decodes the frame's layers, from the link on.
func (e *Engine) layers(f *Frame, linkType uint16, data []byte) {
	if f.CapLen > f.WireLen {
		e.lengthFinding(f)
	}
	if e.convs.Logging {
		e.convs.StartFrame()
	}
	if e.convEth && e.Opts.Conversations && linkType == LinkTypeEthernet && len(data) >= 14 {
		e.convs.Between(flows.Eth, flows.MACEndpoint(data[6:12]), flows.MACEndpoint(data[0:6]), 0, f.WireLen, f.TimeNS, f.Num)
	}
	if i := e.tLink.dense[linkType]; i != 0 {
		e.linkOff = 0 // netHeaders sets it for the others; EtherPayload may here
		e.tLink.ents[i-1].d.Dissect(f, data, 0)
		return
	}
	if !e.netHeaders(f, linkType, data) {
		return
	}
	if e.Opts.Checksums {
		e.verifyChecksums(f, data)
	}
	if e.Opts.Conversations {
		e.countConv(f)
	}
	e.dispatch(f, data)
}

// netHeaders decodes the link, IP and transport headers of a frame whose
// link type no dissector takes into f.Net (Decode and NumberStreams). It
// reports whether it got that far: false for an unusable link header,
// which has its finding.
func (e *Engine) netHeaders(f *Frame, linkType uint16, data []byte) bool {
	e.linkOff = 0
	if linkType == LinkTypeEthernet && len(data) > 23 {
		fast := false
		switch data[23] { // IPv4's protocol, if it is IPv4: each fast path checks
		case IPProtoUDP:
			_, fast = e.fastUDP4(f, data)
		case IPProtoTCP:
			fast = e.fastTCP4(f, data)
		}
		if fast {
			e.lazy = true // the gopacket layers only when the tree asks (ensureLayers)
			return true
		}
	}
	lt := linkType
	switch lt {
	case LinkTypeRaw, LinkTypeRawDLT12, LinkTypeRawDLT14: // raw IP: the version nibble says which
		lt = LinkTypeIPv4
		if len(data) > 0 && data[0]>>4 == 6 {
			lt = LinkTypeIPv6
		}
	case LinkTypeIPoIB: // IP over InfiniBand (RFC 4391): 20-octet destination and source addresses, EtherType, 2 reserved
		if len(data) < ipoibLen {
			f.AddFinding(-1, Error, GroupMalformed, nil, "ipoib", "truncated IPoIB header: "+strconv.Itoa(len(data))+" of 44 octets")
			f.Proto = "ipoib"
			return false
		}
		e.linkOff = ipoibLen
		f.Net.EtherType = uint16(data[40])<<8 | uint16(data[41])
		switch f.Net.EtherType {
		case EtherTypeIPv4:
			lt = LinkTypeIPv4
		case EtherTypeIPv6:
			lt = LinkTypeIPv6
		default:
			f.Proto = "ipoib"
			if i := e.tEther.dense[f.Net.EtherType]; i != 0 { // ARP over IPoIB (RFC 4391)
				e.tEther.ents[i-1].d.Dissect(f, data[ipoibLen:], ipoibLen)
			}
			return false
		}
	}
	var first gopacket.LayerType
	if lt < maxLinkType {
		first = e.first[lt]
	}
	if first == gopacket.LayerTypeZero {
		f.AddFinding(-1, Note, GroupUndecoded, nil, "frame", "link type "+strconv.Itoa(int(linkType))+" is not supported")
		f.Proto = "frame"
		return false
	}
	e.decodeLayers(first, data[e.linkOff:]) // errors show as missing layers, noted below
	e.fillNet(f, bool(e.trunc))
	return true
}

// EtherPayload decodes data, which a protocol's header ended with EtherType
// typ (IP over InfiniBand's 4-octet header in an InfiniBand SEND, RFC 4391
// 6), as the engine decodes an Ethernet frame's payload: IPv4 and IPv6
// with their transports into f.Net (the columns, conversations and the
// tables above UDP and TCP), anything else through the ethertype table. off
// is data's offset in f.Data. It works once per frame, in a frame whose
// link type a dissector took (no IP decoded yet), and reports whether it
// decoded data.
func (f *Frame) EtherPayload(typ uint16, data []byte, off int) bool {
	e := f.eng
	if e == nil || f != &e.frame || f.etherAt != 0 || f.Net.HasIP || len(e.types) > 0 || f.inError ||
		off < 0 || off+len(data) > len(f.Data) {
		return false
	}
	f.etherAt = len(f.PDUs) + 1
	f.Net.EtherType = typ
	first, ok := ipLayer(typ)
	if !ok {
		i := e.tEther.dense[typ]
		if i == 0 {
			return false
		}
		e.tEther.ents[i-1].d.Dissect(f, data, off)
		return true
	}
	e.innerLayers(f, first, data, off)
	if e.Opts.Checksums {
		e.verifyChecksums(f, f.Data)
	}
	if e.Opts.Conversations {
		e.countConv(f)
	}
	e.dispatch(f, f.Data)
	return true
}

// ipLayer is the gopacket layer an EtherType payload starts with, when it
// is IPv4 or IPv6 (EtherPayload, linkEther).
func ipLayer(typ uint16) (gopacket.LayerType, bool) {
	switch typ {
	case EtherTypeIPv4:
		return layers.LayerTypeIPv4, true
	case EtherTypeIPv6:
		return layers.LayerTypeIPv6, true
	}
	return 0, false
}

// innerLayers decodes the IP and transport headers of an EtherType payload
// at frame offset off into f.Net (EtherPayload, linkEther).
func (e *Engine) innerLayers(f *Frame, first gopacket.LayerType, data []byte, off int) {
	e.linkOff = off // fillNet and the tree count offsets from here
	e.decodeLayers(first, data)
	e.fillNet(f, bool(e.trunc))
}

// EtherLocator is implemented by a link-type dissector whose frames may
// carry an EtherType payload it hands the engine (Frame.EtherPayload: IP
// over InfiniBand). EtherPayloadAt finds that payload, n octets at offset
// off of data, from the bytes alone, as Dissect would, so that the -j
// reader (NumberStreams) numbers the conversations in it.
type EtherLocator interface {
	EtherPayloadAt(linkType uint16, data []byte) (typ uint16, off, n int, ok bool)
}

// linkEther decodes into f.Net the IP and transport headers a link-type
// dissector d would hand on (EtherLocator), and reports whether there were
// any.
func (e *Engine) linkEther(f *Frame, d Dissector, linkType uint16, data []byte) bool {
	loc, ok := d.(EtherLocator)
	if !ok {
		return false
	}
	typ, off, n, ok := loc.EtherPayloadAt(linkType, data)
	if !ok || off < 0 || n < 0 || off+n > len(data) {
		return false
	}
	first, ok := ipLayer(typ)
	if !ok {
		return false
	}
	f.Net.EtherType = typ
	e.innerLayers(f, first, data[off:off+n], off)
	return true
}

// fastUDP4 fills f.Net for the everyday frame, Ethernet, IPv4 without
// options, not a fragment, UDP, all of it captured, straight from the bytes:
// the gopacket layers cost a Rx frame some 600 instructions its summary does
// not need. Anything else (and any length gopacket would reject, trim or
// call truncated) returns false and takes decodeLayers; what this accepts,
// decodeLayers decodes into the same Net, layer list and UDP payload, which
// it returns (TestFastUDP4).
func (e *Engine) fastUDP4(f *Frame, data []byte) (payload []byte, ok bool) {
	// EtherType 0x0800 and IPv4 with a 20-octet header in one load and
	// compare, not three of an octet each
	if len(data) < 14+20+8 || binary.BigEndian.Uint32(data[12:])&0xffffff00 != 0x08004500 || data[23] != IPProtoUDP {
		return nil, false
	}
	ip := data[14:]
	ipLen := int(ip[2])<<8 | int(ip[3])
	if ipLen < 20+8 || ipLen > len(ip) || binary.BigEndian.Uint16(ip[6:])&0x3fff != 0 { // MF or an offset: a fragment
		return nil, false
	}
	u := ip[20:ipLen]
	udpLen := int(u[4])<<8 | int(u[5])
	if udpLen < 8 || udpLen > len(u) {
		return nil, false
	}
	n := &f.Net
	n.EtherType = EtherTypeIPv4
	n.HasIP, n.L3Off, n.IPProto = true, 14, IPProtoUDP
	n.Src = netip.AddrFrom4([4]byte(ip[12:16]))
	n.Dst = netip.AddrFrom4([4]byte(ip[16:20]))
	n.ECN = ip[1] & 3
	n.HasL4, n.L4Off = true, 34
	n.SrcPort, n.DstPort = uint16(u[0])<<8|uint16(u[1]), uint16(u[2])<<8|uint16(u[3])
	n.PayloadOff, n.PayloadLen = 42, udpLen-8
	f.Proto = "udp"
	e.setTypes(layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP)
	return u[8:udpLen], true
}

// setTypes makes a, b, c the frame's layer list (fastUDP4, fastTCP4): in
// place, as the list's capacity is never below 3 (NewEngine).
func (e *Engine) setTypes(a, b, c gopacket.LayerType) {
	e.types = e.types[:3]
	t := e.types
	t[0], t[1], t[2] = a, b, c
}

// fastTCP4 is fastUDP4 for TCP: Ethernet, IPv4 without options, not a
// fragment, TCP, all of it captured, no SYN flag. gopacket's IPv4 and TCP
// decode cost an RDS/TCP frame about 580 instructions; this fills f.Net
// straight from the bytes, and of e.ip4 and e.tcp what the TCP analysis and
// reassembly read (every field but the options: a SYN, whose window scale
// option the analysis reads, takes decodeLayers). Anything else, and any
// length gopacket would reject, trim or call truncated, returns false;
// what this accepts, decodeLayers and fillNet decode alike (TestFastTCP4).
func (e *Engine) fastTCP4(f *Frame, data []byte) bool {
	if len(data) < 14+20+20 || binary.BigEndian.Uint32(data[12:])&0xffffff00 != 0x08004500 { // as fastUDP4
		return false
	}
	ip := data[14:]
	ipLen := int(ip[2])<<8 | int(ip[3])
	if ipLen < 20+20 || ipLen > len(ip) || ip[9] != IPProtoTCP || binary.BigEndian.Uint16(ip[6:])&0x3fff != 0 { // MF or an offset: a fragment
		return false
	}
	th := ip[20:ipLen]
	hl := int(th[12]>>4) * 4
	if hl < 20 || hl > len(th) || th[13]&0x02 != 0 {
		return false
	}
	// What tcpRelative, tcpAnalyze, tcpSegLen and tcpStream read.
	i4 := &e.ip4
	i4.Contents, i4.Payload, i4.Options, i4.Padding = ip[:20], th, i4.Options[:0], nil
	i4.Version, i4.IHL, i4.TOS, i4.Length, i4.Id = 4, 5, ip[1], uint16(ipLen), uint16(ip[4])<<8|uint16(ip[5])
	i4.Flags, i4.FragOffset, i4.TTL, i4.Protocol = layers.IPv4Flag(ip[6]>>5), 0, ip[8], layers.IPProtocolTCP
	i4.Checksum, i4.SrcIP, i4.DstIP = uint16(ip[10])<<8|uint16(ip[11]), ip[12:16], ip[16:20]
	t := &e.tcp
	t.Contents, t.Payload, t.Options, t.Padding, t.Multipath = th[:hl], th[hl:], t.Options[:0], t.Padding[:0], false
	t.SrcPort, t.DstPort = layers.TCPPort(uint16(th[0])<<8|uint16(th[1])), layers.TCPPort(uint16(th[2])<<8|uint16(th[3]))
	t.Seq, t.Ack = binary.BigEndian.Uint32(th[4:]), binary.BigEndian.Uint32(th[8:])
	t.DataOffset = th[12] >> 4
	fl := th[13]
	t.FIN, t.SYN, t.RST, t.PSH = fl&0x01 != 0, false, fl&0x04 != 0, fl&0x08 != 0
	t.ACK, t.URG, t.ECE, t.CWR, t.NS = fl&0x10 != 0, fl&0x20 != 0, fl&0x40 != 0, fl&0x80 != 0, th[12]&1 != 0
	t.Window, t.Checksum, t.Urgent = uint16(th[14])<<8|uint16(th[15]), uint16(th[16])<<8|uint16(th[17]), uint16(th[18])<<8|uint16(th[19])

	n := &f.Net
	n.EtherType = EtherTypeIPv4
	n.HasIP, n.L3Off, n.IPProto = true, 14, IPProtoTCP
	n.Src = netip.AddrFrom4([4]byte(ip[12:16]))
	n.Dst = netip.AddrFrom4([4]byte(ip[16:20]))
	n.ECN = ip[1] & 3
	n.HasL4, n.L4Off = true, 34
	n.SrcPort, n.DstPort = uint16(t.SrcPort), uint16(t.DstPort)
	n.PayloadOff, n.PayloadLen = 34+hl, len(th)-hl
	// Field by field: a TCPHeader literal is built in a temporary and copied.
	n.TCP.Seq, n.TCP.Ack, n.TCP.Window, n.TCP.Flags, n.TCP.HdrLen = t.Seq, t.Ack, t.Window, uint16(th[12]&1)<<8|uint16(fl), hl
	f.Proto = "tcp"
	e.setTypes(layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeTCP)
	e.tcpRelative(f)
	return true
}

// ensureLayers makes sure the gopacket layers of the current frame are decoded:
// fastUDP4 and fastTCP4 leave them for the tree and whoever else reads
// e.eth, e.udp, e.ip4's and e.tcp's options.
func (e *Engine) ensureLayers() {
	if e.lazy {
		e.lazy = false
		e.decodeLayers(layers.LayerTypeEthernet, e.frame.Data)
	}
}

// truncFeedback is the gopacket.DecodeFeedback of decodeLayers: a layer
// calls SetTruncated when the data ends before its header or length says.
type truncFeedback bool

func (t *truncFeedback) SetTruncated() { *t = true }

// decodeLayers decodes the link, IP and transport headers from typ on into
// the engine's layers, listing each decoded one in e.types. It does what
// gopacket's DecodingLayerParser (IgnoreUnsupported) does with these nine
// layers, without its per-layer interface calls and container lookups,
// which cost a fifth of a Rx frame's decode: a layer that fails ends the
// walk (the layers before it stay), as does an empty payload or a next
// layer the engine does not decode; a decoder panic ends it too.
func (e *Engine) decodeLayers(typ gopacket.LayerType, data []byte) {
	e.trunc = false
	e.types = e.types[:0]
	defer func() { _ = recover() }() // as the parser's panicToError: what was decoded stays
	df := &e.trunc
	for {
		var err error
		var next gopacket.LayerType
		var payload []byte
		switch typ {
		case layers.LayerTypeEthernet:
			err = e.eth.DecodeFromBytes(data, df)
			next, payload = e.eth.NextLayerType(), e.eth.Payload
		case layers.LayerTypeIPv4:
			err = e.ip4.DecodeFromBytes(data, df)
			next, payload = e.ip4.NextLayerType(), e.ip4.Payload
		case layers.LayerTypeUDP:
			// No UDP or TCP port leads to a layer listed here (gopacket
			// maps ports to DNS, VXLAN, ...): the walk ends after them.
			err = e.udp.DecodeFromBytes(data, df)
			payload = e.udp.Payload
		case layers.LayerTypeTCP:
			err = e.tcp.DecodeFromBytes(data, df)
			payload = e.tcp.Payload
		case layers.LayerTypeIPv6:
			err = e.ip6.DecodeFromBytes(data, df)
			next, payload = e.ip6.NextLayerType(), e.ip6.LayerPayload()
		case layers.LayerTypeDot1Q:
			err = e.dot1q.DecodeFromBytes(data, df)
			next, payload = e.dot1q.NextLayerType(), e.dot1q.Payload
		case layers.LayerTypeLinuxSLL:
			err = e.sll.DecodeFromBytes(data, df)
			next, payload = e.sll.NextLayerType(), e.sll.Payload
		case layers.LayerTypeLinuxSLL2:
			err = e.sll2.DecodeFromBytes(data, df)
			next, payload = e.sll2.NextLayerType(), e.sll2.Payload
		case layers.LayerTypeLoopback:
			err = e.loop.DecodeFromBytes(data, df)
			next, payload = e.loop.NextLayerType(), e.loop.Payload
		default:
			return
		}
		if err != nil {
			return
		}
		e.types = append(e.types, typ)
		if len(payload) == 0 {
			return
		}
		typ, data = next, payload
	}
}

func (e *Engine) fillNet(f *Frame, truncated bool) {
	n := &f.Net
	n.Truncated = truncated
	off := e.linkOff
	for _, t := range e.types {
		switch t {
		case layers.LayerTypeEthernet:
			n.EtherType = uint16(e.eth.EthernetType)
			f.Proto = "eth"
			off += len(e.eth.Contents)
		case layers.LayerTypeDot1Q:
			n.VLAN = e.dot1q.VLANIdentifier
			n.EtherType = uint16(e.dot1q.Type)
			off += len(e.dot1q.Contents)
		case layers.LayerTypeLinuxSLL:
			n.EtherType = uint16(e.sll.EthernetType)
			f.Proto = "sll"
			off += len(e.sll.Contents)
		case layers.LayerTypeLinuxSLL2:
			n.EtherType = uint16(e.sll2.ProtocolType)
			f.Proto = "sll"
			off += len(e.sll2.Contents)
		case layers.LayerTypeLoopback:
			f.Proto = "null"
			off += len(e.loop.Contents)
		case layers.LayerTypeIPv4:
			n.HasIP, n.L3Off, n.IPProto = true, off, uint8(e.ip4.Protocol)
			n.Src = addr4(e.ip4.SrcIP)
			n.Dst = addr4(e.ip4.DstIP)
			n.Fragment = e.ip4.Flags&layers.IPv4MoreFragments != 0 || e.ip4.FragOffset != 0
			n.ECN = e.ip4.TOS & 3
			f.Proto = "ip"
			off += len(e.ip4.Contents)
		case layers.LayerTypeIPv6:
			n.HasIP, n.L3Off, n.IPProto = true, off, uint8(e.ip6.NextHeader)
			if h := e.ip6.HopByHop; h != nil { // gopacket keeps hop-by-hop options in the IPv6 layer
				n.IPProto = uint8(h.NextHeader)
				e.ext6[0], e.n6ext, e.hbhLen = 0, 1, h.ActualLength
			}
			n.Src = addr16(e.ip6.SrcIP)
			n.Dst = addr16(e.ip6.DstIP)
			n.ECN = e.ip6.TrafficClass & 3
			f.Proto = "ipv6"
			off += len(e.ip6.Contents) + e.hbhLen
		case layers.LayerTypeUDP:
			n.HasL4, n.L4Off = true, off
			n.SrcPort, n.DstPort = uint16(e.udp.SrcPort), uint16(e.udp.DstPort)
			n.PayloadOff, n.PayloadLen = off+8, len(e.udp.Payload)
			f.Proto = "udp"
		case layers.LayerTypeTCP:
			n.HasL4, n.L4Off = true, off
			n.SrcPort, n.DstPort = uint16(e.tcp.SrcPort), uint16(e.tcp.DstPort)
			n.PayloadOff, n.PayloadLen = off+len(e.tcp.Contents), len(e.tcp.Payload)
			c := e.tcp.Contents // at least 20 octets once decoded
			n.TCP = TCPHeader{Seq: e.tcp.Seq, Ack: e.tcp.Ack, Window: e.tcp.Window,
				Flags: uint16(c[12]&1)<<8 | uint16(c[13]), HdrLen: len(c)}
			f.Proto = "tcp"
			e.tcpRelative(f)
		}
	}
}

func addr4(b []byte) netip.Addr {
	if len(b) != 4 {
		return netip.Addr{}
	}
	return netip.AddrFrom4([4]byte(b))
}

func addr16(b []byte) netip.Addr {
	if len(b) != 16 {
		return netip.Addr{}
	}
	return netip.AddrFrom16([16]byte(b))
}

func (e *Engine) dispatch(f *Frame, data []byte) {
	n := &f.Net
	switch {
	case n.Fragment && n.IPProto != IPProtoTCP && len(e.types) > 0 && e.types[len(e.types)-1] == layers.LayerTypeIPv4:
		e.fragment(f)
	case n.HasL4 && n.IPProto == IPProtoUDP:
		e.ports(e.tUDP, f, data[n.PayloadOff:n.PayloadOff+n.PayloadLen], n.PayloadOff)
	case n.HasL4 && n.IPProto == IPProtoTCP:
		if n.Fragment {
			return
		}
		if e.wantsStream(n.SrcPort, n.DstPort) {
			e.tcpStream(f)
			return
		}
		e.ports(e.tTCP, f, e.tcp.Payload, n.PayloadOff)
	case n.HasIP && !n.HasL4 && isIPinIP(layers.IPProtocol(n.IPProto)) && e.tIP.dense[n.IPProto] == 0:
		f.AddFinding(-1, Note, GroupUndecoded, nil, "ip", "IP in IP (protocol "+strconv.Itoa(int(n.IPProto))+
			"): the tunnelled packet is not dissected")
	case n.HasIP && !n.HasL4 && isIP6Ext(n.IPProto) && len(e.types) > 0 && e.types[len(e.types)-1] == layers.LayerTypeIPv6:
		e.ip6ExtDispatch(f)
	case n.HasIP && e.tIP.dense[n.IPProto] != 0:
		if n.Fragment {
			f.AddFinding(-1, Note, GroupUndecoded, nil, "ip", "IP fragment: payload not dissected")
			return
		}
		var payload []byte
		off := 0
		if len(e.types) > 0 {
			switch e.types[len(e.types)-1] {
			case layers.LayerTypeIPv4:
				payload, off = e.ip4.Payload, n.L3Off+len(e.ip4.Contents)
			case layers.LayerTypeIPv6:
				payload, off = e.ip6.Payload, n.L3Off+len(e.ip6.Contents)+e.hbhLen
			}
		}
		n.PayloadOff, n.PayloadLen = off, len(payload)
		e.tIP.ents[e.tIP.dense[n.IPProto]-1].d.Dissect(f, payload, off)
	case !n.HasIP && n.EtherType != 0:
		if i := e.tEther.dense[n.EtherType]; i != 0 {
			var payload []byte
			off := 0
			if len(e.types) > 0 {
				switch e.types[len(e.types)-1] {
				case layers.LayerTypeEthernet:
					payload, off = e.eth.Payload, len(e.eth.Contents)
				case layers.LayerTypeDot1Q:
					payload = e.dot1q.Payload
					off = len(data) - len(payload)
				case layers.LayerTypeLinuxSLL:
					payload, off = e.sll.Payload, len(e.sll.Contents)
				case layers.LayerTypeLinuxSLL2:
					payload, off = e.sll2.Payload, len(e.sll2.Contents)
				}
			}
			e.tEther.ents[i-1].d.Dissect(f, payload, off)
		}
	}
}

// maxIP6Ext bounds the IPv6 extension headers walked before the upper layer.
const maxIP6Ext = 8

// isIP6Ext tells the IPv6 extension headers rdx walks: hop-by-hop options
// (MLD's router alert), routing and destination options (RFC 8200 4).
func isIP6Ext(p uint8) bool { return p == 0 || p == 43 || p == 60 }

// ip6ExtDispatch walks the IPv6 extension headers the layer parser stops at
// and hands the payload after them to the ip.proto table (ICMPv6 after
// hop-by-hop options, as every MLD report has).
func (e *Engine) ip6ExtDispatch(f *Frame) {
	n := &f.Net
	b, off, p := e.ip6.Payload, n.L3Off+len(e.ip6.Contents)+e.hbhLen, n.IPProto
	for ; isIP6Ext(p); e.n6ext++ {
		if e.n6ext == maxIP6Ext || len(b) < 8 || (int(b[1])+1)*8 > len(b) {
			f.AddFinding(-1, Note, GroupUndecoded, nil, "ipv6", "IPv6 extension headers: payload not dissected")
			return
		}
		e.ext6[e.n6ext] = p
		l := (int(b[1]) + 1) * 8
		p, b, off = b[0], b[l:], off+l
	}
	if i := e.tIP.dense[p]; i != 0 && p != IPProtoTCP && p != IPProtoUDP {
		n.IPProto, n.PayloadOff, n.PayloadLen = p, off, len(b)
		e.tIP.ents[i-1].d.Dissect(f, b, off)
	}
}

// ports hands a UDP or TCP payload to the protocol of its port pair (see
// pickPort), else to the first heuristic that accepts it, and reports
// whether one took it.
func (e *Engine) ports(t *engTable, f *Frame, payload []byte, off int) bool {
	if i := pickPort(t.dense, f.Net.SrcPort, f.Net.DstPort); i >= 0 {
		t.ents[i].d.Dissect(f, payload, off)
		return true
	}
	return e.heuristics(t, f, payload, off)
}

// heuristics hands a payload no port claimed to the first heuristic of t
// that accepts it, and reports whether one did.
func (e *Engine) heuristics(t *engTable, f *Frame, payload []byte, off int) bool {
	for i := range t.heurs {
		if h := &t.heurs[i]; h.verify(payload) {
			h.d.Dissect(f, payload, off)
			return true
		}
	}
	return false
}

// lengthFinding reports a record that claims more octets captured than
// were on the wire (pcap incl_len > orig_len, pcapng captured > original
// length): the record header is wrong, whichever length is. The bytes are
// still dissected, as tshark does ("Frame length is less than captured
// length").
func (e *Engine) lengthFinding(f *Frame) {
	b := make([]byte, 0, 128)
	if e.Opts.Source != "" {
		b = append(b, e.Opts.Source...)
		b = append(b, ": "...)
	}
	b = append(b, "frame "...)
	b = strconv.AppendUint(b, f.Num, 10)
	b = append(b, ": captured length "...)
	b = strconv.AppendInt(b, int64(f.CapLen), 10)
	b = append(b, " exceeds the original length "...)
	b = strconv.AppendInt(b, int64(f.WireLen), 10)
	b = append(b, " in the record header"...)
	f.AddFinding(-1, Error, GroupMalformed, FFrameLen, "frame", string(b))
}

// pickPort chooses the dissector for a port pair: the lower port first, as
// tshark does, since servers usually have the lower one.
func pickPort(tab []uint8, a, b uint16) int {
	if a > b {
		a, b = b, a
	}
	if i := tab[a]; i != 0 {
		return int(i) - 1
	}
	if i := tab[b]; i != 0 {
		return int(i) - 1
	}
	return -1
}

// recoverFrame is decodeRecover's deferred call. A
// frame that decode ended (inFrame clear) has nothing to recover: recover
// is called only when a panic cut the frame short.
func (e *Engine) recoverFrame(f *Frame) {
	e.guarded = false
	if e.inFrame {
		e.recovered(f, recover())
	}
}

// recovered ends frame f, which a panic with value r (nil: none) cut
// short. A dissector that panics is a bug, but the input must still never
// crash rdx: the panic becomes an error finding naming the frame, and
// decoding goes on with the next one (unless strict).
func (e *Engine) recovered(f *Frame, r any) {
	if r != nil {
		e.strictPanic("dissector", f.Num, r)
		f.AddFinding(-1, Error, GroupMalformed, nil, "rdx",
			fmt.Sprintf("internal error in a dissector on frame %d (please report it): %v", f.Num, r))
	}
	e.endFrame()
}

// endFrame closes the decoding of e.frame, the frame Decode and
// NumberStreams decode into.
func (e *Engine) endFrame() {
	if e.budget.Over() || e.tly != nil {
		e.endFrameSlow()
	} else {
		e.inFrame = false
	}
}

// endFrameSlow is endFrame over the budget or with -z tables.
func (e *Engine) endFrameSlow() {
	f := &e.frame
	// Still in the frame: what dropped state tells its consumers (a stream
	// gap, a close) is reported on this frame.
	if e.budget.Over() {
		e.enforceBudget(f)
	}
	e.inFrame = false // a strict re-panic leaves through strictPanic, which clears it
	if e.tly != nil {
		e.tly.count(e, f) // not a dissector's: a panic here is not the frame's (recoverFrame)
	}
}

// maxBudgetFindings is how many drops one frame names; the rest are counted.
const maxBudgetFindings = 3

// enforceBudget drops the oldest reassembly and tracking state once all
// tables together hold more than the budget (the caller checks Over), with
// a finding per drop on the frame that pushed them over.
func (e *Engine) enforceBudget(f *Frame) {
	defer func() { // a drop calls into dissectors (gaps, closes): the same rule as endFrame
		if r := recover(); r != nil {
			e.strictPanic("budget", f.Num, r)
			f.AddFinding(-1, Error, GroupMalformed, nil, "rdx",
				fmt.Sprintf("internal error while dropping state for the memory budget on frame %d (please report it): %v", f.Num, r))
		}
	}()
	drops := e.budget.Enforce()
	for i, d := range drops {
		if i == maxBudgetFindings {
			f.AddFinding(-1, Warn, GroupReassembly, nil, "rdx", "memory budget reached (--max-mem): "+
				strconv.Itoa(len(drops)-i)+" more entries dropped")
			break
		}
		f.AddFinding(-1, Warn, GroupReassembly, nil, d.Table, d.Message(e.budget.Limit()))
	}
}

// strictPanic re-raises a recovered panic in strict mode. Called from the
// deferred function, debug.Stack still shows where the panic was raised.
func (e *Engine) strictPanic(where string, frame uint64, r any) {
	if e.Opts.Strict {
		e.inFrame = false // the frame ends here; endFrame does not get to clear it
		panic(&InternalError{Frame: frame, Where: where, Value: r, Stack: debug.Stack()})
	}
}

// BuildTree fills t with the whole tree of the engine's current frame: the
// frame, link, IP and transport layers, then every PDU.
func (e *Engine) BuildTree(t *Tree, f *Frame) {
	defer func() { // one deferred call a frame: the recovery, then the cut's node
		if r := recover(); r != nil { // see endFrame: a bug must not crash the read
			e.strictPanic("tree", f.Num, r)
			t.SetBase(0, false)
			t.Text(-1, 0, fmt.Sprintf("[internal error while building the tree of frame %d (please report it): %v]", f.Num, r))
		}
		t.finish() // last: after a recovered panic's node
	}()
	t.Reset()
	protocols := ""
	if t.Wants(FFrameProtos) { // a string per frame: only when kept
		var chain [128]byte
		protocols = string(e.ProtoChain(chain[:0], f))
	}
	e.BaseTree(t, f, protocols)
	pdus := f.PDUs
	if f.etherAt > 0 { // the PDUs that handed on the IP layers come first (EtherPayload)
		k := min(f.etherAt-1, len(pdus))
		for _, p := range pdus[:k] {
			t.SetBase(0, false)
			p.Tree(t, f)
		}
		t.SetBase(0, false)
		e.layersTree(t, f, e.linkOff)
		pdus = pdus[k:]
	}
	for _, p := range pdus {
		t.SetBase(0, false)
		p.Tree(t, f)
	}
	t.SetBase(0, false)
}

// FrameTimeNS is the time Decode gives a frame of a capture record made at
// recTime: an ERF record's own header time, else recTime (the -j reader
// gives the workers the first and previous frames' times with it).
func FrameTimeNS(linkType uint16, data []byte, capLen, wireLen int, recTime int64) int64 {
	if linkType == LinkTypeERF && capLen <= wireLen {
		if t, _, _, ok := erfRecord(data); ok {
			return t
		}
	}
	return recTime
}

// erfRecord reads an ERF record header as tshark does: the time (64-bit
// fixed point, seconds in the high half), and the packet's lengths on the
// wire (wlen) and captured (the record after its header and extension
// headers, at most wlen). ok is false for a header that does not fit.
func erfRecord(data []byte) (timeNS int64, capLen, wireLen int, ok bool) {
	const hdr = 16
	if len(data) < hdr {
		return 0, 0, 0, false
	}
	ts := binary.LittleEndian.Uint64(data)
	frac := (ts&0xffffffff*1_000_000_000 + 1<<31) >> 32 // rounded to the nearest nanosecond
	timeNS = int64(ts>>32)*1_000_000_000 + int64(frac)
	hl := hdr
	for ext := data[8]&0x80 != 0; ext && hl+8 <= len(data); hl += 8 {
		ext = data[hl]&0x80 != 0
	}
	wireLen = int(binary.BigEndian.Uint16(data[14:]))
	return timeNS, min(len(data)-hl, wireLen), wireLen, true
}
