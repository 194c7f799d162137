package rx

import (
	"encoding/binary"
	"net/netip"
	"sort"

	wire "github.com/rdx-project/rdx/dissect/rx"
)

// answerDebug replies to a client-initiated DEBUG or VERSION packet the way
// OpenAFS's rxi_ReceiveDebugPacket and rxi_ReceiveVersionPacket do: the
// request's header with CLIENT_INITIATED cleared, and the body for the
// request's type (rx.h struct rx_debugStats, rx_debugConn, rx_debugPeer,
// rx_statistics). e.mu is held.
func (e *Endpoint) answerDebug(d []byte, to netip.AddrPort) {
	h := wire.Header(d)
	reply := append([]byte(nil), d[:wire.HeaderLen]...)
	reply[21] &^= wire.FlagClientInitiated
	if h.Type() == wire.TypeVersion {
		v := e.cfg.Version
		if v == "" {
			v = "rdx"
		}
		b := make([]byte, wire.VersionLen)
		copy(b[:wire.VersionLen-1], v)
		e.send(append(reply, b...), to)
		return
	}
	body := d[wire.HeaderLen:]
	if len(body) < 8 {
		return // rxdebug always sends type and index
	}
	typ, index := binary.BigEndian.Uint32(body), int(int32(binary.BigEndian.Uint32(body[4:])))
	switch typ {
	case wire.DebugGetStats:
		b := make([]byte, wire.DebugStatsLen)
		binary.BigEndian.PutUint32(b[8:], e.stats.CallsExecuted)
		b[14] = wire.DebugVersion
		binary.BigEndian.PutUint32(b[20:], 1) // idleThreads: one goroutine per call, always ready
		reply = append(reply, b...)
	case wire.DebugGetConn, wire.DebugGetAllConn:
		reply = append(reply, e.debugConn(index, typ == wire.DebugGetAllConn)...)
	case wire.DebugGetPeer:
		reply = append(reply, e.debugPeer(index)...)
	case wire.DebugRxStats:
		reply = append(reply, e.rxStats()...)
	default:
		reply = binary.BigEndian.AppendUint32(reply, wire.DebugBadType)
		reply = binary.BigEndian.AppendUint32(reply, wire.DebugBadType)
	}
	e.send(reply, to)
}

// sortedConns lists the connections in a stable order, so index N names the
// same one across the requests of one rxdebug run.
func (e *Endpoint) sortedConns() []*conn {
	cs := make([]*conn, 0, len(e.conns))
	for _, c := range e.conns {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i].key, cs[j].key
		if a.epoch != b.epoch {
			return a.epoch < b.epoch
		}
		if a.cid != b.cid {
			return a.cid < b.cid
		}
		return a.peer.Port() < b.peer.Port()
	})
	return cs
}

// Call states as rx.h numbers them, for rx_debugConn.callState.
const (
	stateNotInit   = 0
	stateActive    = 2
	stateDally     = 3
	connTypeClient = 0
	connTypeServer = 1
)

// debugConn is struct rx_debugConn for the index-th connection (all: any,
// else only those with an active call), or the end marker.
func (e *Endpoint) debugConn(index int, all bool) []byte {
	b := make([]byte, wire.DebugConnLen)
	for _, c := range e.sortedConns() {
		if !all && !c.busy() {
			continue
		}
		if index > 0 {
			index--
			continue
		}
		a := c.key.peer.Addr().As4()
		copy(b[0:4], a[:])
		binary.BigEndian.PutUint32(b[4:], c.key.cid)
		binary.BigEndian.PutUint32(b[8:], c.serial)
		for i := range 4 {
			binary.BigEndian.PutUint32(b[12+4*i:], c.callNum[i])
			st := byte(stateNotInit)
			if cl := c.calls[i]; cl != nil {
				st = stateDally
				if !cl.finished() {
					st = stateActive
				}
			}
			b[40+i] = st
		}
		binary.BigEndian.PutUint32(b[28:], c.err)
		binary.BigEndian.PutUint16(b[32:], c.key.peer.Port())
		if c.key.server {
			b[35] = connTypeServer
		}
		binary.BigEndian.PutUint32(b[132:], c.key.epoch)
		binary.BigEndian.PutUint32(b[136:], NatMTU)
		return b
	}
	binary.BigEndian.PutUint32(b[4:], wire.DebugEnd)
	return b
}

// debugPeer is struct rx_debugPeer for the index-th peer, or the end marker.
func (e *Endpoint) debugPeer(index int) []byte {
	b := make([]byte, wire.DebugPeerLen)
	ps := make([]*peer, 0, len(e.peers))
	for _, p := range e.peers {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].addr.Compare(ps[j].addr) < 0 })
	if index < 0 || index >= len(ps) {
		binary.BigEndian.PutUint32(b[0:], wire.DebugEnd)
		return b
	}
	p := ps[index]
	a := p.addr.Addr().As4()
	copy(b[0:4], a[:])
	binary.BigEndian.PutUint16(b[4:], p.addr.Port())
	binary.BigEndian.PutUint16(b[6:], NatMTU) // ifMTU
	// rtt and rtt_dev as OpenAFS keeps them: milliseconds scaled by 8 and 4
	binary.BigEndian.PutUint32(b[24:], uint32(p.rtt.Milliseconds()*8))
	binary.BigEndian.PutUint32(b[28:], uint32(p.rttVar.Milliseconds()*4))
	binary.BigEndian.PutUint32(b[40:], p.nSent)
	binary.BigEndian.PutUint32(b[44:], p.resent)
	binary.BigEndian.PutUint16(b[60:], NatMTU)
	binary.BigEndian.PutUint16(b[62:], uint16(min(p.maxMTU, 0xffff)))
	binary.BigEndian.PutUint16(b[64:], uint16(min(p.maxJumbo, 0xffff)))
	binary.BigEndian.PutUint16(b[66:], MaxJumbo)
	binary.BigEndian.PutUint16(b[68:], NatMTU) // MTU
	binary.BigEndian.PutUint16(b[70:], Window) // cwind
	binary.BigEndian.PutUint32(b[76:], uint32(p.bytesSent>>32))
	binary.BigEndian.PutUint32(b[80:], uint32(p.bytesSent))
	binary.BigEndian.PutUint32(b[84:], uint32(p.bytesRead>>32))
	binary.BigEndian.PutUint32(b[88:], uint32(p.bytesRead))
	return b
}

// rxStats is struct rx_statistics (OpenAFS 1.8 layout, 71 int32s) from the
// endpoint's counters.
func (e *Endpoint) rxStats() []byte {
	b := make([]byte, wire.DebugRxStatsLen)
	put := func(i int, v uint32) { binary.BigEndian.PutUint32(b[4*i:], v) }
	s := &e.stats
	put(5, s.BadPackets)       // bogusPacketOnRead
	for t := 1; t <= 13; t++ { // packetsRead/packetsSent[RX_N_PACKET_TYPES], by type-1
		put(11+t-1, s.PacketsRead[t])
		put(28+t-1, s.PacketsSent[t])
	}
	put(24, s.DataRead)
	put(25, s.PacketsRead[wire.TypeAck])
	put(26, s.DupRead)
	put(41, s.AcksSent)
	put(42, s.PingsSent)
	put(43, s.AbortsSent)
	put(44, s.BusySent)
	put(45, s.DataSent)
	put(46, s.DataResent)
	put(47, s.DataPushed)
	return b
}
