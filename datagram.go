package loopbench

import (
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// DatagramProtocol receives a datagram endpoint's traffic: asyncio's
// DatagramProtocol. The transport calls its methods on the loop's
// goroutine.
type DatagramProtocol interface {
	// ConnectionMade is called once the endpoint is set up.
	ConnectionMade(t *DatagramTransport)
	// DatagramReceived is called with each datagram and its sender. data
	// is the loop's read buffer: valid only during the call.
	DatagramReceived(data []byte, addr net.Addr)
	// ErrorReceived is called when a send or a receive fails, such as
	// ECONNREFUSED after a datagram to a closed port; the endpoint stays.
	ErrorReceived(err error)
	// ConnectionLost is called once, when the endpoint is closed.
	ConnectionLost(err error)
}

// DatagramProtocolBase implements every DatagramProtocol method as a
// no-op. Embed it and override what you need.
type DatagramProtocolBase struct{}

// ConnectionMade does nothing.
func (DatagramProtocolBase) ConnectionMade(*DatagramTransport) {}

// DatagramReceived does nothing.
func (DatagramProtocolBase) DatagramReceived([]byte, net.Addr) {}

// ErrorReceived does nothing.
func (DatagramProtocolBase) ErrorReceived(error) {}

// ConnectionLost does nothing.
func (DatagramProtocolBase) ConnectionLost(error) {}

// PauseWriting does nothing.
func (DatagramProtocolBase) PauseWriting() {}

// ResumeWriting does nothing.
func (DatagramProtocolBase) ResumeWriting() {}

// maxDatagram is the read buffer of a datagram endpoint: the largest UDP
// payload.
const maxDatagram = 65535

// ErrNotConnected is returned by SendTo with no address on an endpoint
// that has no remote address, and ErrAddressGiven with an address other
// than the remote one of an endpoint that has.
var (
	ErrNotConnected  = errors.New("loopbench: SendTo without an address on an endpoint with no remote address")
	ErrAddressGiven  = errors.New("loopbench: SendTo an address other than the endpoint's remote address")
	errDatagramEmpty = errors.New("loopbench: CreateDatagramEndpoint needs a local or a remote address")
)

// DatagramTransport is a UDP endpoint driven by the loop: asyncio's
// datagram transport. Its methods are for the loop's goroutine.
type DatagramTransport struct {
	loop          *Loop
	fd            int
	proto         DatagramProtocol
	pauser        WritePauser // proto, if it takes flow control
	remote        *sock.Addr  // set when connected
	local, peer   net.Addr
	wb            writeBuffer  // the datagrams the socket did not take yet
	lastTo        *net.UDPAddr // the last SendTo address and its conversion:
	lastSock      sock.Addr    // an echo answers one peer many times
	closing, lost bool
	readFn        func()
}

// WritePauser is the flow control a DatagramProtocol may take, as
// asyncio's does: PauseWriting is called when the endpoint's buffer of
// unsent datagrams goes over its high-water mark, ResumeWriting when it
// is back at the low one (see SetWriteBufferLimits).
type WritePauser interface {
	PauseWriting()
	ResumeWriting()
}

// CreateDatagramEndpoint creates a UDP endpoint ("udp", "udp4" or "udp6")
// bound to localAddr and, if remoteAddr is given, connected to it (then
// SendTo takes no address and only that peer's datagrams arrive); either
// may be empty, not both. Host names are looked up off the loop. The
// future's result is the *DatagramTransport; ConnectionMade runs first.
func (l *Loop) CreateDatagramEndpoint(network, localAddr, remoteAddr string, factory func() DatagramProtocol) *Future {
	f := l.CreateFuture()
	fail := func(err error) {
		if !f.Done() {
			f.SetException(fmt.Errorf("loopbench: CreateDatagramEndpoint(%s, %q, %q): %w", network, localAddr, remoteAddr, err))
		}
	}
	if localAddr == "" && remoteAddr == "" {
		fail(errDatagramEmpty)
		return f
	}
	var local, remote *sock.Addr
	var resolves []*Future
	pending := 0
	finish := func() {
		if pending > 0 || f.Done() {
			return
		}
		t, err := l.newDatagramTransport(local, remote, factory())
		if err != nil {
			fail(err)
			return
		}
		f.SetResult(t)
	}
	for _, a := range []struct {
		addr string
		dst  **sock.Addr
	}{{localAddr, &local}, {remoteAddr, &remote}} {
		if a.addr == "" {
			continue
		}
		pending++
		dst := a.dst
		resolve := l.resolveDatagram(network, a.addr)
		resolves = append(resolves, resolve)
		resolve.AddDoneCallback(func(r *Future) {
			pending--
			v, err := r.Result()
			if err != nil {
				fail(err)
				return
			}
			sa := v.(sock.Addr)
			*dst = &sa
			finish()
		})
	}
	f.onCancel = cancelFunc(func(msg string) bool {
		for _, r := range resolves {
			r.Cancel(msg)
		}
		return f.cancel(msg)
	})
	return f
}

// resolveDatagram resolves a literal or, off the loop, a named address;
// the result is a sock.Addr.
func (l *Loop) resolveDatagram(network, address string) *Future {
	f := l.CreateFuture()
	if isLiteral(network, address) {
		a, err := sock.Resolve(network, address)
		completeFuture(f, a, err)
		return f
	}
	host, port, _ := net.SplitHostPort(address)
	lookup := l.GetAddrInfo(host, port)
	lookup.AddDoneCallback(func(r *Future) {
		v, err := r.Result()
		switch {
		case f.Done():
			return
		case err != nil:
			f.SetException(err)
			return
		}
		for _, ap := range v.([]netip.AddrPort) {
			if a, err := sock.Resolve(network, ap.String()); err == nil {
				f.SetResult(a)
				return
			}
		}
		f.SetException(fmt.Errorf("%w %s for network %s", ErrNoAddress, host, network))
	})
	f.onCancel = cancelFunc(func(msg string) bool {
		lookup.Cancel(msg)
		return f.cancel(msg)
	})
	return f
}

func (l *Loop) newDatagramTransport(local, remote *sock.Addr, proto DatagramProtocol) (*DatagramTransport, error) {
	if l.c.closed.Load() {
		return nil, closedError("CreateDatagramEndpoint")
	}
	domain := 0
	for _, a := range []*sock.Addr{local, remote} {
		if a != nil {
			domain = a.Domain()
		}
	}
	fd, err := sock.DgramSocket(domain)
	if err != nil {
		return nil, err
	}
	if local != nil {
		if err := sock.Bind(fd, *local); err != nil {
			sock.Close(fd)
			return nil, err
		}
	}
	if remote != nil {
		if err := sock.ConnectDgram(fd, *remote); err != nil {
			sock.Close(fd)
			return nil, err
		}
	}
	return l.wrapDatagram(fd, remote, proto), nil
}

// wrapDatagram makes a transport of the datagram socket fd, connected to
// remote if that is not nil, and schedules ConnectionMade and reading.
func (l *Loop) wrapDatagram(fd int, remote *sock.Addr, proto DatagramProtocol) *DatagramTransport {
	t := &DatagramTransport{loop: l, fd: fd, proto: proto, remote: remote, local: sock.UDPLocalAddr(fd), peer: sock.UDPPeerAddr(fd)}
	t.pauser, _ = proto.(WritePauser)
	t.readFn = t.readReady
	t.wb.setup(l, fd, t, true)
	l.c.datagrams().add(t)
	l.CallSoon(func() { proto.ConnectionMade(t) })
	l.CallSoon(func() {
		if !t.closing {
			if err := l.AddReader(fd, t.readFn); err != nil {
				t.forceClose(err)
			}
		}
	})
	return t
}

// LocalAddr returns the endpoint's local address.
func (t *DatagramTransport) LocalAddr() net.Addr { return t.local }

// PeerAddr returns the remote address of a connected endpoint, else nil.
func (t *DatagramTransport) PeerAddr() net.Addr { return t.peer }

// IsClosing reports whether the endpoint is closing or closed.
func (t *DatagramTransport) IsClosing() bool { return t.closing }

func (t *DatagramTransport) readReady() {
	if t.closing {
		return
	}
	buf := t.loop.c.readBuffer()[:maxDatagram]
	n, addr, err := sock.RecvFrom(t.fd, buf)
	switch {
	case sock.IsAgain(err):
	case err != nil:
		t.proto.ErrorReceived(err)
	default:
		t.proto.DatagramReceived(buf[:n], addr)
	}
}

// SendTo sends data as one datagram to addr (a *net.UDPAddr), or to the
// remote address when the endpoint has one and addr is nil. It tries the
// socket at once and keeps a copy to send when the socket is writable if
// it is full; a protocol that implements WritePauser is paused while more
// than the high-water mark waits. A failed send goes to ErrorReceived, as
// in asyncio.
func (t *DatagramTransport) SendTo(data []byte, addr net.Addr) error {
	if t.closing || t.loop.IsClosed() {
		return ErrTransportClosed
	}
	var to *sock.Addr
	switch {
	case addr == nil && t.remote == nil:
		return ErrNotConnected
	case addr != nil:
		a, err := t.sockAddr(addr)
		if err != nil {
			return err
		}
		if t.remote != nil && a.String() != t.remote.String() {
			return ErrAddressGiven
		}
		if t.remote == nil {
			to = &a
		}
	}
	return t.wb.write(data, to)
}

// sockAddr converts addr, reusing the last conversion for the same peer.
func (t *DatagramTransport) sockAddr(addr net.Addr) (sock.Addr, error) {
	if u, ok := addr.(*net.UDPAddr); ok && t.lastTo != nil && u.Port == t.lastTo.Port && u.IP.Equal(t.lastTo.IP) && u.Zone == t.lastTo.Zone {
		return t.lastSock, nil
	}
	a, err := sock.AddrFrom(addr)
	if u, ok := addr.(*net.UDPAddr); ok && err == nil {
		t.lastTo, t.lastSock = u, a
	}
	return a, err
}

// BufferSize returns the bytes of the datagrams waiting to be sent.
func (t *DatagramTransport) BufferSize() int { return t.wb.size() }

// SetWriteBufferLimits sets the high- and low-water marks of the buffer of
// unsent datagrams, as Transport's: high 0 means 64 KiB, low 0 means
// high/4. A protocol that implements WritePauser follows them.
func (t *DatagramTransport) SetWriteBufferLimits(high, low int) error {
	return t.wb.setLimits(high, low)
}

// The endpoint is its write buffer's owner.

func (t *DatagramTransport) send(b []byte, to *sock.Addr) (int, error) {
	switch err := sock.SendTo(t.fd, b, to); {
	case err == nil:
		return len(b), nil
	case sock.IsAgain(err):
		return 0, nil
	default:
		return 0, err
	}
}

// writeFailed passes a failed send to ErrorReceived, as asyncio does; the
// endpoint stays.
func (t *DatagramTransport) writeFailed(err error) error {
	t.proto.ErrorReceived(err)
	return nil
}

func (t *DatagramTransport) drained() {
	if t.closing {
		t.scheduleLost(nil)
	}
}

func (t *DatagramTransport) pauseWriting() {
	if t.pauser != nil {
		t.pauser.PauseWriting()
	}
}

func (t *DatagramTransport) resumeWriting() {
	if t.pauser != nil {
		t.pauser.ResumeWriting()
	}
}

// Close stops receiving, sends what waits, then closes the socket and
// calls ConnectionLost(nil).
func (t *DatagramTransport) Close() {
	if t.closing || t.loop.IsClosed() {
		return
	}
	t.closing = true
	t.loop.RemoveReader(t.fd)
	if !t.wb.writing {
		t.scheduleLost(nil)
	}
}

// Abort closes the socket at once, dropping what waits to be sent.
func (t *DatagramTransport) Abort() { t.forceClose(nil) }

func (t *DatagramTransport) forceClose(err error) {
	if t.lost || t.loop.IsClosed() {
		return
	}
	t.closing = true
	t.loop.RemoveReader(t.fd)
	t.wb.discard()
	t.scheduleLost(err)
}

func (t *DatagramTransport) scheduleLost(err error) {
	if t.lost {
		return
	}
	t.lost = true
	t.loop.CallSoon(func() {
		defer func() {
			sock.Close(t.fd)
			t.loop.c.datagrams().remove(t)
		}()
		t.proto.ConnectionLost(err)
	})
}

// datagrams is the loop's part that holds its open datagram endpoints.
func (c *core) datagrams() *openSet[*DatagramTransport] {
	return c.parts[partDatagrams].(*openSet[*DatagramTransport])
}

// closeSocket closes the endpoint's socket, at the loop's Close.
func (t *DatagramTransport) closeSocket() { sock.Close(t.fd) }
