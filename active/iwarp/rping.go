package iwarp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The rping protocol of rdma-core's librdmacm/examples/rping.c, as it
// shows on the wire (facts from its source and from siw captures in
// pcaps/iwarp/iwarp_rping*.pcap):
//
//   - each Send is a 16-octet buffer advertisement: TO (the buffer's
//     address) as a big-endian u64, STag (rkey) and length as big-endian
//     u32; a message of another length is "bogus data" and ends the test;
//   - per ping the client fills its source buffer with "rdma-ping-N: "
//     followed by the letters 'A'..'z' rotating from a start letter that
//     advances each ping, last octet NUL; advertises it (Send); the server
//     RDMA-Reads it and answers with a Send ("go ahead"); the client
//     advertises its sink buffer (Send); the server RDMA-Writes the ping
//     text (its length up to and including the NUL) into it and answers
//     with a Send; the client compares (-V) and prints (-v);
//   - the client disconnects after COUNT pings (0: forever); the server
//     ends on the disconnect.
const (
	RpingPort    = 7174 // rping -p default
	RpingSize    = 64   // rping -S default
	RpingMinSize = 26   // sizeof(stringify(INT_MAX)) + sizeof("rdma-ping-%d: ")
	RpingMaxSize = 65535
	rpingInfoLen = 16
)

// RpingOptions are rping's flags.
type RpingOptions struct {
	Count    int // -C: pings (client; 0 forever)
	Size     int // -S: buffer size
	Verbose  bool
	Validate bool
	Out      io.Writer // -v lines
}

// RpingFill writes ping number ping's data into buf as rping's client does.
func RpingFill(buf []byte, ping int) {
	s := "rdma-ping-" + strconv.Itoa(ping) + ": "
	cc := copy(buf, s)
	c := byte(65 + ping%58)
	for i := cc; i < len(buf); i++ {
		buf[i] = c
		if c++; c > 122 {
			c = 65
		}
	}
	buf[len(buf)-1] = 0
}

func rpingInfo(mr *MR, size int) []byte {
	b := binary.BigEndian.AppendUint64(nil, mr.TO)
	b = binary.BigEndian.AppendUint32(b, mr.STag)
	return binary.BigEndian.AppendUint32(b, uint32(size))
}

func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// recvInfo waits for a 16-octet advertisement.
func recvInfo(ctx context.Context, c *Conn) (to uint64, stag uint32, n int, err error) {
	m, err := c.Recv(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	if len(m.Data) != rpingInfoLen {
		return 0, 0, 0, fmt.Errorf("rping: received bogus data, size %d", len(m.Data))
	}
	return binary.BigEndian.Uint64(m.Data), binary.BigEndian.Uint32(m.Data[8:]), int(binary.BigEndian.Uint32(m.Data[12:])), nil
}

// ErrMismatch is a -V failure: the data written back is not what was sent.
var ErrMismatch = errors.New("rping: data mismatch")

// RpingClient runs rping's client loop on c and returns the pings done.
func RpingClient(ctx context.Context, c *Conn, o RpingOptions) (int, error) {
	start := c.Register(make([]byte, o.Size), RemoteRead)
	sink := c.Register(make([]byte, o.Size), RemoteWrite)
	for ping := 0; o.Count == 0 || ping < o.Count; ping++ {
		RpingFill(start.Buf, ping)
		if err := c.Send(rpingInfo(start, o.Size), false); err != nil {
			return ping, err
		}
		if _, err := c.Recv(ctx); err != nil {
			return ping, fmt.Errorf("rping: waiting for the server's go-ahead after its RDMA Read: %w", err)
		}
		if err := c.Send(rpingInfo(sink, o.Size), false); err != nil {
			return ping, err
		}
		m, err := c.Recv(ctx)
		if err != nil {
			return ping, fmt.Errorf("rping: waiting for the server's go-ahead after its RDMA Write: %w", err)
		}
		if len(m.Data) != rpingInfoLen {
			return ping, fmt.Errorf("rping: received bogus data, size %d", len(m.Data))
		}
		if o.Validate && !bytes.Equal(start.Buf, sink.Buf) {
			return ping, fmt.Errorf("%w (ping %d)", ErrMismatch, ping)
		}
		if o.Verbose && o.Out != nil {
			fmt.Fprintf(o.Out, "ping data: %s\n", cstr(sink.Buf))
		}
	}
	return o.Count, nil
}

// RpingServer answers rping's client on c until it disconnects and returns
// the pings served.
func RpingServer(ctx context.Context, c *Conn, o RpingOptions) (int, error) {
	buf := c.Register(make([]byte, o.Size), 0)
	goAhead := make([]byte, rpingInfoLen) // rping's server sends its never-filled send buffer
	for ping := 0; ; ping++ {
		to, stag, n, err := recvInfo(ctx, c)
		if errors.Is(err, io.EOF) {
			return ping, nil
		}
		if err != nil {
			return ping, err
		}
		if n > len(buf.Buf) {
			return ping, fmt.Errorf("rping: the client's %d-octet buffer exceeds this side's -S %d", n, len(buf.Buf))
		}
		if err := c.Read(ctx, buf, 0, n, stag, to); err != nil {
			return ping, fmt.Errorf("rping: RDMA Read of the client's ping: %w", err)
		}
		if o.Verbose && o.Out != nil {
			fmt.Fprintf(o.Out, "server ping data: %s\n", cstr(buf.Buf))
		}
		if err := c.Send(goAhead, false); err != nil {
			return ping, err
		}
		to, stag, _, err = recvInfo(ctx, c)
		if err != nil {
			return ping, err
		}
		if err := c.Write(stag, to, buf.Buf[:len(cstr(buf.Buf))+1]); err != nil {
			return ping, err
		}
		if err := c.Send(goAhead, false); err != nil {
			return ping, err
		}
	}
}
