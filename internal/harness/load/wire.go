package load

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/sock"
	"golang.org/x/sys/unix"
)

// rawWire is a plain socket on the loop: a request is one non-blocking
// write (a writer callback finishes it only when the socket is full),
// the answer comes through a reader callback.
type rawWire struct {
	c                 *conn
	fd                int
	rest              []byte // what a full socket has not taken yet
	readFn, writeFn   func()
	stamped, watching bool
	datagram          bool // a UDP socket: a read is one whole datagram
}

// newRawWire takes nc's socket onto the loop: a duplicate of its
// descriptor, non-blocking; nc is closed.
func newRawWire(c *conn, nc net.Conn) (*rawWire, error) {
	defer nc.Close()
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("dial: %T has no file descriptor", nc)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	if cerr := raw.Control(func(s uintptr) { fd, err = unix.Dup(int(s)) }); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, os.NewSyscallError("dup", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	_, datagram := nc.(*net.UDPConn)
	rw := &rawWire{c: c, fd: fd, stamped: enableRecvTimestamps(fd), datagram: datagram}
	rw.readFn, rw.writeFn = rw.readable, rw.writable
	if err := c.w.l.AddReader(fd, rw.readFn); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return rw, nil
}

func (rw *rawWire) send(msg []byte) error {
	n, err := rw.write(msg)
	if err != nil {
		return err
	}
	if n < len(msg) {
		rw.rest = msg[n:]
		rw.watching = true
		return rw.c.w.l.AddWriter(rw.fd, rw.writeFn)
	}
	return nil
}

// writable writes what a full socket left.
func (rw *rawWire) writable() {
	n, err := rw.write(rw.rest)
	if err != nil {
		rw.c.lost(rw, err)
		return
	}
	if rw.rest = rw.rest[n:]; len(rw.rest) == 0 {
		rw.watching = false
		rw.c.w.l.RemoveWriter(rw.fd)
	}
}

// write writes what the socket takes now; a full socket is no error.
// The socket is non-blocking (newRawWire made it so), so the write is a
// raw system call, without the scheduler's hand-off (sock.Write).
func (rw *rawWire) write(b []byte) (int, error) {
	rw.c.w.counts.writes++
	n, err := sock.Write(rw.fd, b)
	switch {
	case err == unix.EAGAIN:
		return 0, nil
	case err != nil:
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: err}
	}
	return n, nil
}

func (rw *rawWire) readable() {
	buf := rw.c.w.buf
	rw.c.w.counts.reads++
	var n int
	var arrived int64
	var err error
	if rw.stamped {
		n, arrived, err = rw.c.w.stamps.read(rw.fd, buf)
	} else {
		n, err = sock.Read(rw.fd, buf)
	}
	switch {
	case err == unix.EAGAIN:
	case err != nil:
		rw.c.lost(rw, &net.OpError{Op: "read", Net: "tcp", Err: err})
	case rw.datagram:
		rw.c.datagram(buf[:n], arrived)
	case n == 0:
		rw.c.lost(rw, io.EOF)
	default:
		rw.c.received(buf[:n], arrived)
	}
}

func (rw *rawWire) close() {
	l := rw.c.w.l
	l.RemoveReader(rw.fd)
	if rw.watching {
		l.RemoveWriter(rw.fd)
	}
	unix.Close(rw.fd)
}

// tlsWire is a TLS connection through the loop's TLS transport.
type tlsWire struct {
	loopbench.ProtocolBase
	c  *conn
	tr *loopbench.Transport
}

// openTLS opens c over TLS on the loop (CreateConnection with WithTLS):
// the handshake is made before the connection counts as opened.
func openTLS(c *conn) {
	cfg := c.w.run.cfg
	tw := &tlsWire{c: c}
	f := c.w.l.CreateConnection("tcp", cfg.Addr, func() loopbench.BaseProtocol { return tw },
		loopbench.WithTLS(cfg.TLS), loopbench.WithHandshakeTimeout(cfg.Timeout), loopbench.WithShutdownTimeout(cfg.Timeout))
	f.AddDoneCallback(func(f *loopbench.Future) {
		v, err := f.Result()
		if err == nil {
			tw.tr = v.(*loopbench.Transport)
			c.wire = tw
		}
		c.opened(err)
	})
}

func (tw *tlsWire) send(msg []byte) error { return tw.tr.Write(msg) }

func (tw *tlsWire) close() { tw.tr.Abort() }

// DataReceived takes the decrypted answer.
func (tw *tlsWire) DataReceived(data []byte) { tw.c.received(data, 0) }

// EOFReceived closes the connection: the server closed its side.
func (tw *tlsWire) EOFReceived() bool {
	tw.c.lost(tw, io.EOF)
	return false
}

// ConnectionLost ends the connection; a close without error after the
// server's is an end of stream.
func (tw *tlsWire) ConnectionLost(err error) {
	if err == nil || errors.Is(err, net.ErrClosed) {
		err = io.EOF
	}
	tw.c.lost(tw, err)
}
