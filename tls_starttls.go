package loopbench

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// TLSConnectionState returns what the TLS handshake negotiated: version,
// cipher suite, ALPN protocol, server name, the peer's certificates. ok
// is false on a plain-text transport and until the handshake completes.
func (t *Transport) TLSConnectionState() (state tls.ConnectionState, ok bool) {
	h, ok := t.tls.(*tlsLayer)
	if !ok || !h.handshook {
		return tls.ConnectionState{}, false
	}
	return h.conn.ConnectionState(), true
}

// StartTLS upgrades the plain-text transport t to TLS with config
// (asyncio's loop.start_tls): the handshake runs over t's socket, after
// whatever t still has to write, and protocol becomes t's protocol. t
// takes the server's side if a Server accepted it, else the client's,
// with the server name from WithServerName, else the config, else the
// host t was dialled with. The future's result is t, once the handshake
// is done; protocol's ConnectionMade is not called (as asyncio's), and
// the old protocol hears nothing more. If the handshake fails, t is
// closed: the future fails and protocol's ConnectionLost gets the error.
// Reading a paused t resumes for the handshake and pauses again after it.
func (l *Loop) StartTLS(t *Transport, protocol BaseProtocol, config *tls.Config, opts ...NetOption) *Future {
	f := l.CreateFuture()
	fail := func(err error) {
		if !f.Done() {
			f.SetException(fmt.Errorf("loopbench: StartTLS: %w", err))
		}
	}
	server := t.server != nil
	o, err := applyNetOptions(append([]NetOption{WithTLS(config)}, opts...), server, true)
	switch {
	case err != nil:
	case t.loop != l:
		err = errors.New("the transport belongs to another loop")
	case t.tls != nil:
		err = errors.New("the transport is TLS already")
	case t.closing || t.eofPending || t.eofWritten:
		err = ErrTransportClosed
	default:
		err = t.setProtocol(protocol)
	}
	if err != nil {
		fail(err)
		return f
	}
	if !server {
		o = o.forClient(t.host)
	}
	t.tls = newTLSLayer(t, o, server, false, func(err error) {
		switch {
		case f.Done():
			t.Abort() // cancelled during the handshake
		case err != nil:
			fail(err)
		default:
			f.SetResult(t)
		}
	})
	t.addReader()
	return f
}

// StartTLS upgrades the writer's connection to TLS with config, asyncio's
// StreamWriter.start_tls: it drains what is buffered, then runs
// Loop.StartTLS (the server's side on a connection StartServer accepted,
// else the client's) and returns when the handshake is done. The reader
// and the writer go on over TLS; what the reader held stays.
func (w *StreamWriter) StartTLS(t *Task, config *tls.Config, opts ...NetOption) error {
	tr := w.Transport()
	if tr == nil {
		return errors.New("loopbench: StartTLS on a subprocess pipe")
	}
	if err := w.Drain(t); err != nil {
		return err
	}
	_, err := t.Await(t.Loop().StartTLS(tr, tr.Protocol(), config, opts...))
	return err
}
