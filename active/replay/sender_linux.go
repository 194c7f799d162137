//go:build linux

package replay

import (
	"errors"
	"fmt"
	"time"

	"github.com/gopacket/gopacket/afpacket"
	"golang.org/x/sys/unix"

	"github.com/rdx-project/rdx/capture"
)

// Interface sends frames through an AF_PACKET socket bound to one interface.
type Interface struct {
	tp *afpacket.TPacket
}

// OpenInterface opens iface for sending, with the same plain errors as a
// capture (no such interface, down, not permitted).
func OpenInterface(iface string) (*Interface, error) {
	if err := capture.CheckInterface(iface); err != nil {
		return nil, err
	}
	// Protocol 0: the socket receives nothing, so its (small) ring stays
	// empty; only the write side is used.
	tp, err := afpacket.NewTPacket(
		afpacket.OptInterface(iface),
		afpacket.OptProtocol(0),
		afpacket.OptFrameSize(4096),
		afpacket.OptBlockSize(4096),
		afpacket.OptNumBlocks(1),
	)
	if err != nil {
		return nil, capture.LiveError(iface, err)
	}
	return &Interface{tp: tp}, nil
}

// Send writes one frame. A full device queue (ENOBUFS) is waited out rather
// than counted as a loss; a frame over the MTU (EMSGSIZE) is ErrTooBig.
func (s *Interface) Send(frame []byte) error {
	for {
		err := s.tp.WritePacketData(frame)
		switch {
		case errors.Is(err, unix.ENOBUFS), errors.Is(err, unix.EAGAIN):
			time.Sleep(50 * time.Microsecond)
			continue
		case errors.Is(err, unix.EMSGSIZE):
			return fmt.Errorf("%d octets: %w", len(frame), ErrTooBig)
		}
		return err
	}
}

// Close releases the socket.
func (s *Interface) Close() error { s.tp.Close(); return nil }
