package loopbench

import (
	"errors"
	"fmt"
	"net"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// readBufferSize is the size of the loop's shared read buffer, asyncio's
// max_size for a socket read.
const readBufferSize = 256 << 10

// ErrTransportClosed is returned by Write on a transport that is closing.
var ErrTransportClosed = errors.New("loopbench: transport is closing")

// Transport is a connected stream socket driven by the loop: asyncio's
// selector socket transport, and with TLS (WithTLS, StartTLS) its
// SSL transport, the TLS layer between the socket and the protocol. Its
// methods are for the loop's goroutine.
type Transport struct {
	loop     *Loop
	fd       int
	proto    BaseProtocol
	plain    Protocol         // proto as a Protocol, if it is one
	buffered BufferedProtocol // proto as a BufferedProtocol, if it is one
	server   acceptor         // the server that accepted it, or nil
	host     string           // the host name dialled, StartTLS's default server name
	tls      secureLayer      // nil for plain text

	wb            writeBuffer
	readingPaused bool
	closing       bool  // Close or Abort was called, or the connection broke
	closeErr      error // what ConnectionLost gets once a Close completes
	eofPending    bool  // WriteEOF once the buffer drains
	eofWritten    bool
	lost          bool // ConnectionLost was scheduled
	lostErr       error
	readFn        func()
	peer, local   net.Addr
	madeFn        func()
	lostFn        func()
}

// An acceptor is the server that accepted a transport: it counts its
// connections until each is lost.
type acceptor interface{ detach(t *Transport) }

// A secureLayer is the TLS layer between a transport's socket and its
// protocol (tls_layer.go): it takes what the socket reads and what the
// protocol writes, and its state decides when the transport may close.
type secureLayer interface {
	received(data []byte)
	socketEOF()
	write(data []byte) error
	writeEOF()
	resumeReading()
	open() bool         // the handshake is done and the shutdown not begun
	readsOnClose() bool // Close waits for the peer's close_notify
	shutdownDone() bool
	close()
	stop(err error)
}

// newTransport wraps the connected non-blocking socket fd. Plain (secure
// nil), it schedules ConnectionMade and the start of reading for the
// next iteration. Else secure puts its TLS layer on the transport, which
// starts the handshake; ConnectionMade follows it.
func (l *Loop) newTransport(fd int, proto BaseProtocol, srv acceptor, secure func(*Transport) secureLayer) (*Transport, error) {
	t := &Transport{loop: l, fd: fd, server: srv}
	if err := t.setProtocol(proto); err != nil {
		return nil, err
	}
	t.wb.setup(l, fd, t, false)
	t.readFn = t.readReady
	t.madeFn = func() { t.proto.ConnectionMade(t) }
	t.lostFn = t.connectionLost
	t.peer, t.local = sock.PeerAddr(fd), sock.LocalAddr(fd)
	l.c.transports().add(t)
	if secure != nil {
		t.tls = secure(t)
	} else {
		l.CallSoon(t.madeFn)
	}
	l.CallSoon(t.startReading)
	return t, nil
}

// setProtocol makes proto the transport's protocol.
func (t *Transport) setProtocol(proto BaseProtocol) error {
	switch p := proto.(type) {
	case BufferedProtocol:
		t.proto, t.buffered, t.plain = p, p, nil
	case Protocol:
		t.proto, t.buffered, t.plain = p, nil, p
	default:
		return fmt.Errorf("loopbench: protocol %T implements neither Protocol nor BufferedProtocol", proto)
	}
	return nil
}

func (t *Transport) startReading() {
	if !t.closing && !t.readingPaused {
		t.addReader()
	}
}

func (t *Transport) addReader() {
	if err := t.loop.AddReader(t.fd, t.readFn); err != nil {
		t.fatal(err)
	}
}

// Fd returns the socket's descriptor.
func (t *Transport) Fd() int { return t.fd }

// Protocol returns the transport's protocol.
func (t *Transport) Protocol() BaseProtocol { return t.proto }

// PeerAddr returns the remote address.
func (t *Transport) PeerAddr() net.Addr { return t.peer }

// LocalAddr returns the local address.
func (t *Transport) LocalAddr() net.Addr { return t.local }

// IsClosing reports whether the transport is closing or closed.
func (t *Transport) IsClosing() bool { return t.closing }

// readReady is the reader callback: one read into the loop's buffer (or
// the protocol's), delivered to the protocol, or to the TLS layer, which
// decrypts it for the protocol. TLS reads on while it shuts down.
func (t *Transport) readReady() {
	if t.lost || t.closing && t.tls == nil {
		return
	}
	var buf []byte
	if t.buffered != nil && t.tls == nil {
		if buf = t.buffered.GetBuffer(readBufferSize); len(buf) == 0 {
			t.fatal(errors.New("loopbench: BufferedProtocol.GetBuffer returned an empty buffer"))
			return
		}
	} else {
		buf = t.loop.c.readBuffer()
	}
	n, err := sock.Read(t.fd, buf)
	switch {
	case sock.IsAgain(err):
		return
	case err != nil:
		t.fatal(err)
	case n == 0 && t.tls != nil:
		t.tls.socketEOF()
	case n == 0:
		t.eofReceived()
	case t.tls != nil:
		t.tls.received(buf[:n])
	case t.buffered != nil:
		t.buffered.BufferUpdated(n)
	default:
		t.plain.DataReceived(buf[:n])
	}
}

func (t *Transport) eofReceived() {
	t.loop.RemoveReader(t.fd)
	var keepOpen bool
	if t.buffered != nil {
		keepOpen = t.buffered.EOFReceived()
	} else {
		keepOpen = t.plain.EOFReceived()
	}
	if !keepOpen {
		t.Close()
	}
}

// Write sends data: it tries the socket at once and buffers what the
// socket does not take, writing it when the socket becomes writable. data
// may be reused when Write returns. The protocol is paused when the buffer
// goes over the high-water mark. With TLS, data is encrypted at once and
// the buffer holds ciphertext.
func (t *Transport) Write(data []byte) error {
	if t.closing || t.eofPending || t.eofWritten || t.loop.IsClosed() {
		return ErrTransportClosed
	}
	if len(data) == 0 {
		return nil
	}
	if t.tls != nil {
		return t.tls.write(data)
	}
	return t.wb.write(data, nil)
}

// WriteBufferSize returns how many bytes wait to be written (with TLS,
// encrypted).
func (t *Transport) WriteBufferSize() int { return t.wb.size() }

// SetWriteBufferLimits sets the high- and low-water marks of the write
// buffer (asyncio's set_write_buffer_limits): high 0 means 64 KiB, low 0
// means high/4. The protocol's PauseWriting and ResumeWriting follow them.
func (t *Transport) SetWriteBufferLimits(high, low int) error { return t.wb.setLimits(high, low) }

// PauseReading stops reading until ResumeReading.
func (t *Transport) PauseReading() {
	if t.closing || t.readingPaused {
		return
	}
	t.readingPaused = true
	if t.tls == nil || t.tls.open() {
		t.loop.RemoveReader(t.fd) // a TLS handshake reads regardless
	}
}

// ResumeReading starts reading again after PauseReading. With TLS, what
// was decrypted meanwhile is delivered first.
func (t *Transport) ResumeReading() {
	if t.closing || !t.readingPaused {
		return
	}
	t.readingPaused = false
	if t.tls != nil {
		t.tls.resumeReading()
		return
	}
	t.addReader()
}

// WriteEOF closes the write side once buffered data is written; the
// transport keeps reading. With TLS it sends close_notify (after the
// data), which TLS 1.3 peers read as the end of the stream.
func (t *Transport) WriteEOF() {
	if t.closing || t.eofPending || t.eofWritten {
		return
	}
	if t.tls != nil {
		t.tls.writeEOF()
		return
	}
	if t.wb.writing {
		t.eofPending = true
		return
	}
	t.shutdownWrite()
}

func (t *Transport) shutdownWrite() {
	t.eofWritten = true
	if err := sock.ShutdownWrite(t.fd); err != nil {
		t.fatal(err)
	}
}

// Close stops reading, writes what is buffered, then closes the socket and
// calls ConnectionLost(nil). With TLS, Close sends close_notify after the
// data and waits for the peer's (or the end of its stream) up to the
// shutdown timeout; closing during the handshake aborts it.
func (t *Transport) Close() {
	if t.closing || t.loop.IsClosed() {
		return // a closed loop has closed the socket
	}
	if t.tls != nil {
		t.tls.close()
		return
	}
	t.closeWith(nil)
}

// closeWith closes the transport once the buffer drains (and, with TLS,
// the peer is done), calling ConnectionLost(err).
func (t *Transport) closeWith(err error) {
	t.closing, t.closeErr = true, err
	if t.tls == nil || !t.tls.readsOnClose() {
		t.loop.RemoveReader(t.fd)
	}
	t.finishClose()
}

// finishClose schedules ConnectionLost once a closing transport has
// written its buffer and its TLS layer is done.
func (t *Transport) finishClose() {
	if t.closing && !t.wb.writing && (t.tls == nil || t.tls.shutdownDone()) {
		t.scheduleLost(t.closeErr)
	}
}

// Abort closes the socket at once, dropping buffered data, and calls
// ConnectionLost(nil).
func (t *Transport) Abort() { t.forceClose(nil) }

// fatal ends the transport on an I/O error: ConnectionLost gets err (as
// connectionError wraps it).
func (t *Transport) fatal(err error) { t.forceClose(connectionError(err)) }

func (t *Transport) forceClose(err error) {
	if t.lost || t.loop.IsClosed() {
		return
	}
	t.closing = true
	t.loop.RemoveReader(t.fd)
	t.wb.discard()
	t.scheduleLost(err)
}

// scheduleLost calls ConnectionLost on the next iteration, as asyncio does.
func (t *Transport) scheduleLost(err error) {
	if t.lost {
		return
	}
	t.lost, t.lostErr = true, err
	t.loop.RemoveReader(t.fd) // TLS reads on while it closes
	if t.tls != nil {
		t.tls.stop(err)
	}
	t.loop.CallSoon(t.lostFn)
}

func (t *Transport) connectionLost() {
	defer t.release()
	t.proto.ConnectionLost(t.lostErr)
}

// release closes the socket and forgets the transport.
func (t *Transport) release() {
	t.closeSocket()
	t.loop.c.transports().remove(t)
	if t.server != nil {
		t.server.detach(t)
	}
}

// closeSocket closes the socket and stops the TLS layer's handshake, if
// one runs; the loop's Close calls it for the transports left open.
func (t *Transport) closeSocket() {
	sock.Close(t.fd)
	if t.tls != nil {
		t.tls.stop(ErrClosed)
	}
}

// The transport is its write buffer's owner.

func (t *Transport) send(b []byte, _ *sock.Addr) (int, error) {
	n, err := sock.Write(t.fd, b)
	if sock.IsAgain(err) {
		return n, nil
	}
	return n, err
}

func (t *Transport) writeFailed(err error) error {
	err = connectionError(err)
	t.fatal(err)
	return err
}

func (t *Transport) drained() {
	switch {
	case t.closing:
		t.finishClose()
	case t.eofPending:
		t.eofPending = false
		t.shutdownWrite()
	}
}

func (t *Transport) pauseWriting()  { t.proto.PauseWriting() }
func (t *Transport) resumeWriting() { t.proto.ResumeWriting() }

// readBuffer returns the loop's shared read buffer: transports read one
// at a time, and DataReceived's slice is valid only during the call.
func (c *core) readBuffer() []byte {
	if c.rbuf == nil {
		c.rbuf = make([]byte, readBufferSize)
	}
	return c.rbuf
}

// transports is the loop's part that holds its open transports.
func (c *core) transports() *openSet[*Transport] {
	return c.parts[partTransports].(*openSet[*Transport])
}

// BaseProtocol is what every protocol implements: asyncio's BaseProtocol.
// The transport calls these methods on the loop's goroutine.
type BaseProtocol interface {
	// ConnectionMade is called once the connection is set up, on the
	// iteration after it was accepted or connected.
	ConnectionMade(t *Transport)
	// ConnectionLost is called once, when the connection is closed: err is
	// nil after Close or a clean end of stream, else what broke it.
	ConnectionLost(err error)
	// PauseWriting is called when the transport's write buffer goes over
	// its high-water mark, ResumeWriting when it drains to the low one.
	PauseWriting()
	ResumeWriting()
}

// Protocol receives data as the transport reads it: asyncio's Protocol.
type Protocol interface {
	BaseProtocol
	// DataReceived is called with the bytes read. The slice is the loop's
	// read buffer: it is valid only during the call.
	DataReceived(data []byte)
	// EOFReceived is called when the peer closed its side. Returning false
	// closes the transport; true keeps it open for writing (half-close).
	EOFReceived() bool
}

// BufferedProtocol reads into a buffer it owns, with no copy and no
// allocation per read: asyncio's BufferedProtocol.
type BufferedProtocol interface {
	BaseProtocol
	// GetBuffer returns the buffer the next read fills (at least one
	// byte); sizeHint is how much the transport would like to read.
	GetBuffer(sizeHint int) []byte
	// BufferUpdated is called after a read put n bytes into the buffer.
	BufferUpdated(n int)
	EOFReceived() bool
}

// ProtocolBase implements every protocol method as a no-op (EOFReceived
// returns false: close on end of stream). Embed it and override what you
// need.
type ProtocolBase struct{}

// ConnectionMade does nothing.
func (ProtocolBase) ConnectionMade(*Transport) {}

// ConnectionLost does nothing.
func (ProtocolBase) ConnectionLost(error) {}

// PauseWriting does nothing.
func (ProtocolBase) PauseWriting() {}

// ResumeWriting does nothing.
func (ProtocolBase) ResumeWriting() {}

// DataReceived does nothing.
func (ProtocolBase) DataReceived([]byte) {}

// EOFReceived returns false: the transport closes.
func (ProtocolBase) EOFReceived() bool { return false }
