package dissect

import (
	"net/netip"
	"strconv"

	"github.com/gopacket/gopacket/layers"
)

// The tshark TCP fields that need every earlier segment of the connection
// but nothing on the summary path: which segment an ACK acknowledges and
// after how long (tcp.analysis.acks_frame, ack_rtt), and the per-connection
// timestamps (tcp.time_relative, tcp.time_delta). They are worked out when the tree is
// built, which is every frame of the pass that builds trees, in order (as
// udp.stream), so reading a capture without a tree costs nothing.

// maxTCPTreeConns bounds the connections tracked here; when it is reached
// the table is emptied (a note says so) and the connections seen again
// start over, as from the middle of a capture.
const maxTCPTreeConns = 1 << 16

// maxUnacked bounds the unacknowledged segments kept per direction, as
// tshark's TCP_MAX_UNACKED_SEGMENTS: past it new segments are not tracked.
// maxUnackedTotal bounds them over all connections (32 MiB at 32 octets
// each): past it too, with one note.
const (
	maxUnacked      = 10000
	maxUnackedTotal = 1 << 20
)

type unacked struct {
	frame     uint64
	seq, next uint32 // raw sequence numbers; next counts SYN and FIN
	ts        int64
}

type ackDir struct {
	segs []unacked // oldest first
}

type tcpTreeConn struct {
	ends        [2]netip.AddrPort // ends[0] sent the first frame seen
	dir         [2]ackDir
	first, prev int64
}

// tcpAcked is what tcpTreeAnalysis found for a frame.
type tcpAcked struct {
	acksFrame  uint64
	ackRTT     int64
	rel, delta int64
}

func (e *Engine) tcpTreeAnalysis(t *Tree, f *Frame, seglen int) tcpAcked {
	n := &f.Net
	c := &e.tcp
	tab := &e.tcpTree
	if tab.has && tab.lastSeq == f.seq { // the same frame's tree again (a sparse and a whole one)
		return tab.last
	}
	r := tab.analyze(t, f, n, c, seglen)
	tab.last, tab.lastSeq, tab.has = r, f.seq, true
	return r
}

func (tab *tcpTreeTable) analyze(t *Tree, f *Frame, n *Net, c *layers.TCP, seglen int) tcpAcked {
	if tab.conns == nil {
		tab.conns = make(map[uint32]*tcpTreeConn)
	}
	src := netip.AddrPortFrom(n.Src, n.SrcPort)
	conn := tab.conns[n.TCPStream]
	if conn == nil {
		if len(tab.conns) >= maxTCPTreeConns {
			tab.reset()
			t.Finding(&Finding{Sev: Note, Group: GroupSequence, Proto: "tcp", PDU: -1,
				Msg: "TCP acknowledgment table full (" + strconv.Itoa(maxTCPTreeConns) +
					" connections): emptied, connections seen again start over"})
		}
		conn = &tcpTreeConn{ends: [2]netip.AddrPort{src, netip.AddrPortFrom(n.Dst, n.DstPort)}, first: f.TimeNS, prev: f.TimeNS}
		tab.conns[n.TCPStream] = conn
	}
	var r tcpAcked
	r.rel, r.delta = f.TimeNS-conn.first, f.TimeNS-conn.prev
	conn.prev = f.TimeNS
	fi := 0
	if src != conn.ends[0] {
		fi = 1
	}
	fwd, rev := &conn.dir[fi], &conn.dir[1-fi]

	// The ACK: drop the peer's segments it covers, noting the one it
	// acknowledges exactly.
	if c.ACK {
		ack := c.Ack
		keep := rev.segs[:0]
		held := len(rev.segs)
		for _, s := range rev.segs {
			switch {
			case ack == s.next:
				if r.acksFrame == 0 { // a retransmission ends where its original did: the original is acknowledged, as tshark says
					r.acksFrame, r.ackRTT = s.frame, f.TimeNS-s.ts
				}
				continue
			case seqGT(ack, s.seq) && !seqGT(ack, s.next):
				s.seq = ack // partly acknowledged
			case seqGT(ack, s.next):
				continue // old
			}
			keep = append(keep, s)
		}
		rev.segs = keep
		tab.total -= held - len(keep)
	}

	// The segment waits for its ACK.
	next := c.Seq + uint32(seglen)
	if c.SYN || c.FIN {
		next++
	}
	if (seglen > 0 || c.SYN || c.FIN) && len(fwd.segs) < maxUnacked {
		if tab.total < maxUnackedTotal {
			fwd.segs = append(fwd.segs, unacked{frame: f.Num, seq: c.Seq, next: next, ts: f.TimeNS})
			tab.total++
		} else if !tab.full {
			tab.full = true
			t.Finding(&Finding{Sev: Note, Group: GroupSequence, Proto: "tcp", PDU: -1,
				Msg: "TCP acknowledgment table full (" + strconv.Itoa(maxUnackedTotal) +
					" unacknowledged segments): later segments get no tcp.analysis.acks_frame"})
		}
	}
	return r
}

// tcpTreeTable is the state of tcpTreeAnalysis, by tcp.stream.
type tcpTreeTable struct {
	// the last frame's result (Frame.seq), for a second tree of it
	last    tcpAcked
	lastSeq uint64
	has     bool
	conns   map[uint32]*tcpTreeConn
	total   int  // unacknowledged segments held, all connections
	full    bool // maxUnackedTotal was reached (said once)
}

func (t *tcpTreeTable) reset() {
	clear(t.conns)
	t.total, t.full, t.has = 0, false, false
}
