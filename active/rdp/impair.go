package rdp

import (
	"net/netip"

	"github.com/rdx-project/rdx/active/impair"
)

// Impaired sends through the shared fault shim (active/impair), one unit per
// RDP segment, so --impair means the same on every rdx stack.
type Impaired struct {
	Transport
	shim *impair.Shim
}

// Impair returns tr behind shim.
func Impair(tr Transport, shim *impair.Shim) *Impaired {
	return &Impaired{Transport: tr, shim: shim}
}

func (t *Impaired) WriteTo(seg []byte, to netip.AddrPort) error {
	return t.shim.Send(seg, func(p []byte) error { return t.Transport.WriteTo(p, to) })
}

func (t *Impaired) Close() error {
	t.shim.Flush()
	return t.Transport.Close()
}
