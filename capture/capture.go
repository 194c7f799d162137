// Package capture reads and writes packet captures: pcap (micro- and
// nanosecond, either byte order), pcapng (several interfaces, each with its own
// link type), gzip-compressed files of either, and standard input.
package capture

import (
	"bytes"
	"fmt"
	"io"
)

// Link types rdx knows (LINKTYPE_* values from the pcap registry).
const (
	LinkNull       = 0   // BSD loopback, host-order address family
	LinkEthernet   = 1   // Ethernet II, 802.1Q
	LinkRaw        = 101 // raw IPv4 or IPv6
	LinkLoop       = 108 // OpenBSD loopback, network-order address family
	LinkLinuxSLL   = 113 // Linux cooked v1
	LinkERF        = 197 // Endace ERF (ibdump on IB ports)
	LinkIPv4       = 228
	LinkIPv6       = 229
	LinkInfiniBand = 247
	LinkLinuxSLL2  = 276
	// Some writers put the platform's DLT_RAW value in a pcap header.
	LinkRawDLT12 = 12
	LinkRawDLT14 = 14
)

// MaxRecord is the largest record rdx accepts; larger ones are an input error
// (a corrupt length must not make the reader allocate gigabytes).
const MaxRecord = 256 << 10

// Packet is one captured frame. Data is valid only until the next call to
// Next on the source it came from.
type Packet struct {
	Data     []byte
	TimeNS   int64 // Unix time in nanoseconds
	CapLen   int   // bytes captured (len(Data))
	WireLen  int   // bytes on the wire
	LinkType uint16
	Iface    int // pcapng interface index (0 for pcap)
}

// Source yields packets in capture order.
type Source interface {
	// Next fills p with the next packet. It returns io.EOF at a clean end and an
	// *Error for anything else.
	Next(p *Packet) error
	Close() error
}

// Error is an input error that names the file, the frame (1-based, 0 if
// before the first frame) and what is wrong.
type Error struct {
	File   string
	Frame  uint64
	Offset int64 // byte offset in the (decompressed) file
	Msg    string
}

func (e *Error) Error() string {
	if e.Frame > 0 {
		return fmt.Sprintf("%s: frame %d (offset %d): %s", e.File, e.Frame, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ReadAll reads src to its end and returns every packet, each with its own
// copy of the data (Next's data is valid only until the following call).
// It returns the packets read before an error other than io.EOF with it.
func ReadAll(src Source) ([]Packet, error) {
	var out []Packet
	var p Packet
	for {
		err := src.Next(&p)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		p.Data = bytes.Clone(p.Data)
		out = append(out, p)
	}
}
