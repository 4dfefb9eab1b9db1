package loopbench

import (
	"errors"
	"net"
)

// writeTransport is what a StreamWriter writes through: a socket's
// Transport, or a subprocess's standard input pipe.
type writeTransport interface {
	Write([]byte) error
	WriteEOF()
	Close()
	IsClosing() bool
}

// StreamWriter is asyncio's StreamWriter: writes through a transport, and
// Drain to wait while its buffer is over the high-water mark. Its methods
// are for the loop's goroutine.
type StreamWriter struct {
	t      writeTransport
	flow   *flow
	reader *StreamReader // the connection's other side, for Drain's errors
}

// Write writes data (copied, or written at once); use Drain to wait for
// the buffer to go down.
func (w *StreamWriter) Write(data []byte) error { return w.t.Write(data) }

// WriteEOF closes the write side once the buffered data is written.
func (w *StreamWriter) WriteEOF() { w.t.WriteEOF() }

// Drain waits until the transport's write buffer is back under its
// low-water mark (at once when it is not over the high one). It returns
// the read side's error if there is one, and ErrConnectionLost once the
// connection is gone; a connection lost while Drain waits ends the wait
// with the error that broke it, or nil when it closed cleanly, as in
// asyncio.
func (w *StreamWriter) Drain(t *Task) error {
	if w.reader != nil && w.reader.err != nil {
		return w.reader.err
	}
	if w.t.IsClosing() && !w.flow.lost {
		// Let ConnectionLost run first, as asyncio's drain yields.
		if err := Sleep(t, 0); err != nil {
			return err
		}
	}
	return w.flow.drain(t)
}

// CanWriteEOF reports whether WriteEOF can end the write side while the
// read side stays open, asyncio's can_write_eof: true for a socket and for
// a child's stdin. With TLS too, unlike asyncio's SSL transport: there
// WriteEOF sends close_notify and reading goes on.
func (w *StreamWriter) CanWriteEOF() bool {
	if p, ok := w.t.(*PipeTransport); ok {
		return p.CanWriteEOF()
	}
	return true
}

// Close closes the transport once the buffered data is written.
func (w *StreamWriter) Close() { w.t.Close() }

// IsClosing reports whether the transport is closing or closed.
func (w *StreamWriter) IsClosing() bool { return w.t.IsClosing() }

// WaitClosed waits until the connection is closed: nil after a clean
// close, else what broke it.
func (w *StreamWriter) WaitClosed(t *Task) error {
	_, err := t.Await(w.flow.closed)
	return err
}

// Transport returns the socket's transport (nil for a subprocess pipe).
func (w *StreamWriter) Transport() *Transport {
	tr, _ := w.t.(*Transport)
	return tr
}

// PeerAddr returns the remote address of a socket (nil for a pipe).
func (w *StreamWriter) PeerAddr() net.Addr {
	if tr := w.Transport(); tr != nil {
		return tr.PeerAddr()
	}
	return nil
}

// streamProtocol is asyncio's StreamReaderProtocol: it feeds a
// StreamReader from its transport and gives the StreamWriter its flow.
type streamProtocol struct {
	reader    *StreamReader
	writer    *StreamWriter
	flow      *flow
	onConnect func(p *streamProtocol)
}

func newStreamProtocol(l *Loop, limit int) *streamProtocol {
	return &streamProtocol{reader: NewStreamReader(l, limit), flow: newFlow(l)}
}

func (p *streamProtocol) ConnectionMade(t *Transport) {
	p.reader.feeder = t
	p.writer = &StreamWriter{t: t, flow: p.flow, reader: p.reader}
	if p.onConnect != nil {
		p.onConnect(p)
	}
}

func (p *streamProtocol) DataReceived(data []byte) { p.reader.FeedData(data) }

// EOFReceived ends the read side and keeps the write side open.
func (p *streamProtocol) EOFReceived() bool {
	p.reader.FeedEOF()
	return true
}

func (p *streamProtocol) ConnectionLost(err error) {
	if err == nil {
		p.reader.FeedEOF()
	} else {
		p.reader.SetException(err)
	}
	p.flow.connectionLost(err)
}

func (p *streamProtocol) PauseWriting()  { p.flow.pause() }
func (p *streamProtocol) ResumeWriting() { p.flow.resume() }

// WithStreamLimit sets the buffer limit of the StreamReaders that
// StartServer and OpenConnection make, asyncio's limit= (without it,
// DefaultStreamLimit): ReadUntil and ReadLine fail past it, and reading
// from the socket pauses while more than twice as much is buffered. It
// must be over 0, and is an option of these two calls only.
func WithStreamLimit(n int) NetOption {
	return func(o *netOptions) { o.streamLimit, o.limitSet = n, true }
}

// streamOptions returns opts marked as a stream call's, and the stream
// limit they set (0: the default).
func streamOptions(opts []NetOption) ([]NetOption, int) {
	var o netOptions
	for _, opt := range opts {
		opt(&o)
	}
	return append(opts[:len(opts):len(opts)], func(o *netOptions) { o.stream = true }), o.streamLimit
}

// OpenConnection connects to address (as CreateConnection: a host name is
// looked up and its addresses tried in order) and returns the
// connection's reader and writer, asyncio's open_connection. t is the
// task that waits. opts are CreateConnection's (WithTLS: after the
// handshake) and WithStreamLimit.
func OpenConnection(t *Task, network, address string, opts ...NetOption) (*StreamReader, *StreamWriter, error) {
	l := t.fut.loop
	var proto *streamProtocol
	opts, limit := streamOptions(opts)
	f := l.CreateConnection(network, address, func() BaseProtocol {
		proto = newStreamProtocol(l, limit)
		return proto
	}, opts...)
	v, err := t.Await(f)
	if err != nil {
		return nil, nil, err
	}
	if proto.writer == nil { // ConnectionMade runs first; keep to the transport if not
		proto.ConnectionMade(v.(*Transport))
	}
	return proto.reader, proto.writer, nil
}

// StartServer listens on address (as CreateServer) and runs client in a
// task of its own for each connection, with the connection's reader and
// writer, asyncio's start_server. When client returns the connection stays
// as client left it; if client fails (panics), the error goes to the
// loop's exception handler and the connection is closed. opts are
// CreateServer's (WithTLS: client runs after the handshake) and
// WithStreamLimit.
func StartServer(l *Loop, network, address string, client func(t *Task, r *StreamReader, w *StreamWriter), opts ...NetOption) (*Server, error) {
	opts, limit := streamOptions(opts)
	return l.CreateServer(network, address, func() BaseProtocol {
		p := newStreamProtocol(l, limit)
		p.onConnect = func(p *streamProtocol) {
			task := l.CreateTask(func(t *Task) (any, error) {
				client(t, p.reader, p.writer)
				return nil, nil
			})
			task.AddDoneCallback(func(f *Future) {
				if _, err := f.Result(); err != nil && !errors.Is(err, ErrCancelled) {
					l.c.report(ExceptionContext{Message: "stream server client task", Err: err})
					p.writer.Close()
				}
			})
		}
		return p
	}, opts...)
}
