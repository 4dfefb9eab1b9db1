package loopbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/loopbench/loopbench/internal/sys/sock"
)

// lookupTimeout bounds a host-name lookup.
const lookupTimeout = 10 * time.Second

// ErrNoAddress is returned, wrapped, when a host name resolves to no
// address.
var ErrNoAddress = errors.New("loopbench: no address for the host")

// GetAddrInfo resolves host and port (a number or a service name such as
// "http") to addresses, asyncio's getaddrinfo: the lookup, which blocks,
// runs on the loop's executor, and the future's result is an
// []netip.AddrPort in the resolver's order. A literal IP resolves at once,
// without the executor. An unknown name fails the future with an error
// naming it, which wraps the resolver's *net.DNSError (errors.As finds it,
// with IsNotFound, IsTimeout and IsTemporary). Cancelling the future, or
// closing the loop, abandons the lookup.
func (l *Loop) GetAddrInfo(host, port string) *Future {
	p, err := lookupPort(port)
	if err != nil {
		f := l.CreateFuture()
		f.SetException(err)
		return f
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		f := l.CreateFuture()
		f.SetResult([]netip.AddrPort{netip.AddrPortFrom(ip.Unmap(), p)})
		return f
	}
	ctx, cancel := l.c.dialer.lookupContext()
	f := l.RunInExecutor(func() (any, error) { return resolveHost(ctx, host, p) })
	f.AddDoneCallback(func(*Future) { cancel(ErrCancelled) }) // ends a lookup still running
	return f
}

// resolveHost looks host up, blocking until ctx ends at most, and returns
// its addresses with port p.
func resolveHost(ctx context.Context, host string, p uint16) ([]netip.AddrPort, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if _, ok := errors.AsType[*net.DNSError](err); ok {
		return nil, fmt.Errorf("loopbench: %w", err) // it names the host itself
	}
	if err != nil {
		return nil, fmt.Errorf("loopbench: lookup %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%w %s", ErrNoAddress, host)
	}
	out := make([]netip.AddrPort, len(ips))
	for i, ip := range ips {
		out[i] = netip.AddrPortFrom(ip.Unmap(), p)
	}
	return out, nil
}

func lookupPort(port string) (uint16, error) {
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		return uint16(n), nil
	}
	n, err := net.LookupPort("tcp", port)
	if err != nil {
		return 0, fmt.Errorf("loopbench: port %q: %w", port, err)
	}
	return uint16(n), nil
}

// isLiteral reports whether address needs no lookup: a path for unix, or
// an IP literal and port.
func isLiteral(network, address string) bool {
	if network == "unix" {
		return true
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return true // let the literal path report the malformed address
	}
	_, err = netip.ParseAddr(host)
	return err == nil
}

// listenAddress returns address with its host name replaced by the name's
// first address, looked up now: servers listen when they are created.
func listenAddress(network, address string) (string, error) {
	if isLiteral(network, address) {
		return address, nil
	}
	host, port, _ := net.SplitHostPort(address)
	p, err := lookupPort(port)
	if err != nil {
		return "", err
	}
	addrs, err := resolveHost(context.Background(), host, p)
	if err != nil {
		return "", err
	}
	return addrs[0].String(), nil
}

// dial connects a non-blocking socket to address, looking a host name up
// first (GetAddrInfo) and trying its addresses in order: the first that
// connects wins; when all fail, the future fails with the first error. Its
// result is the connected fd, which the loop holds (its dialer) until the
// caller takes it with release or closes it with closeFd.
func (l *Loop) dial(network, address string) *Future {
	if isLiteral(network, address) {
		a, err := sock.Resolve(network, address)
		if err != nil {
			f := l.CreateFuture()
			f.SetException(err)
			return f
		}
		return l.connectAny([]sock.Addr{a}, []string{address})
	}
	f := l.CreateFuture()
	host, port, _ := net.SplitHostPort(address)
	lookup := l.GetAddrInfo(host, port)
	var conn *Future
	lookup.AddDoneCallback(func(lf *Future) {
		if !f.Done() {
			conn = l.connectResolved(f, lf, network, host)
		}
	})
	f.onCancel = cancelFunc(func(msg string) bool {
		lookup.Cancel(msg)
		if conn != nil {
			conn.Cancel(msg)
		}
		return f.cancel(msg)
	})
	return f
}

// connectResolved connects to the addresses of the finished lookup of
// host and completes dial's future f as the connect ends; it returns the
// connect's future, nil if there is nothing to connect to.
func (l *Loop) connectResolved(f, lookup *Future, network, host string) *Future {
	v, err := lookup.Result()
	if err != nil {
		f.SetException(err)
		return nil
	}
	var addrs []sock.Addr
	var names []string
	for _, ap := range v.([]netip.AddrPort) {
		if a, err := sock.Resolve(network, ap.String()); err == nil {
			addrs, names = append(addrs, a), append(names, ap.String())
		}
	}
	if len(addrs) == 0 {
		f.SetException(fmt.Errorf("%w %s for network %s", ErrNoAddress, host, network))
		return nil
	}
	conn := l.connectAny(addrs, names)
	conn.AddDoneCallback(func(c *Future) {
		v, err := c.Result()
		switch {
		case f.Done():
			if err == nil {
				l.c.dialer.closeFd(v.(int))
			}
		case err != nil:
			f.SetException(err)
		default:
			f.SetResult(v)
		}
	})
	return conn
}

// connectAny connects to the addresses in order; see dial.
func (l *Loop) connectAny(addrs []sock.Addr, names []string) *Future {
	f := l.CreateFuture()
	var firstErr error
	var cur *Future
	var try func(i int)
	try = func(i int) {
		if f.Done() {
			return
		}
		if i == len(addrs) {
			f.SetException(firstErr)
			return
		}
		fd, err := addrs[i].Socket()
		if err != nil {
			firstErr = cmp(firstErr, err)
			try(i + 1)
			return
		}
		l.c.dialer.hold(fd)
		cur = l.sockConnect(fd, addrs[i])
		cur.AddDoneCallback(func(c *Future) {
			_, err := c.Result()
			switch {
			case f.Done():
				l.c.dialer.closeFd(fd)
			case err != nil:
				l.c.dialer.closeFd(fd)
				if len(addrs) > 1 {
					err = fmt.Errorf("%s: %w", names[i], err)
				}
				firstErr = cmp(firstErr, err)
				try(i + 1)
			default:
				f.SetResult(fd)
			}
		})
	}
	try(0)
	f.onCancel = cancelFunc(func(msg string) bool {
		if cur != nil {
			cur.Cancel(msg)
		}
		return f.cancel(msg)
	})
	return f
}

// cmp keeps the first error.
func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
