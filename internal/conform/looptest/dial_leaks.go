package looptest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/sock"
	"golang.org/x/sys/unix"
)

// DialLeavesNothing closes a loop while it is still making connections
// and checks that no fd or goroutine is left. Pending at the Close:
// CreateConnection, plain and with TLS, OpenConnection and a task's
// SockConnect, each waiting for a connect that cannot complete; a
// CreateConnection cancelled just before; a CreateConnection and a
// datagram endpoint waiting for a host-name lookup that never answers
// (the lookups must be abandoned: their DNS queries cancelled, not timed
// out); servers never run. Before that, a lookup whose CreateConnection
// is cancelled must be abandoned too. It counts process-wide and replaces
// net.DefaultResolver meanwhile, so it must not run in parallel.
func DialLeavesNothing(t *testing.T, cfg loopbench.Config) {
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil { // the runtime's poller, for good
		ln.Close()
	}
	before := holding(t)
	tls := certs(t)
	func() {
		dns := stallDNS()
		defer dns.restore()
		stalled, closeStalled := stalledListener(t)
		defer closeStalled()
		l, err := loopbench.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		testCancelledLookup(t, l, dns)
		startDials(t, l, stalled, dns, tls)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		dns.wait(t, "after Close")
	}()
	before.leftNothing(t, "after Close")
}

// testCancelledLookup: cancelling a CreateConnection, or a
// CreateDatagramEndpoint, that waits for its lookup cancels the lookup's
// DNS queries.
func testCancelledLookup(t *testing.T, l *loopbench.Loop, dns *dnsStall) {
	for _, start := range []func() *loopbench.Future{
		func() *loopbench.Future {
			return l.CreateConnection("tcp", "cancelled.loopbench.test:80", func() loopbench.BaseProtocol { return loopbench.ProtocolBase{} })
		},
		func() *loopbench.Future {
			return l.CreateDatagramEndpoint("udp", "", "cancelled.loopbench.test:9", func() loopbench.DatagramProtocol { return loopbench.DatagramProtocolBase{} })
		},
	} {
		n := dns.queries()
		f := start()
		waitFor(t, l, func() bool { return dns.queries() > n || f.Done() })
		if dns.queries() == n {
			_, err := f.Result()
			t.Skipf("this system resolves names without DNS: %v", err)
		}
		f.Cancel("")
		waitFor(t, l, dns.idle)
		dns.wait(t, "after the connection was cancelled")
		if _, err := f.Result(); !errors.Is(err, loopbench.ErrCancelled) {
			t.Fatalf("cancelled while looking the name up: %v", err)
		}
	}
}

// startDials starts, on l, every kind of connection that Close must end
// (see DialLeavesNothing), and returns with them pending.
func startDials(t *testing.T, l *loopbench.Loop, stalled string, dns *dnsStall, certs *tlsFixture) {
	base := func() loopbench.BaseProtocol { return loopbench.ProtocolBase{} }
	waiting := []interface{ Done() bool }{
		l.CreateConnection("tcp", stalled, base),
		l.CreateConnection("tcp", stalled, base, loopbench.WithTLS(certs.clientConfig(0)), loopbench.WithServerName("localhost")),
		l.CreateTask(func(tk *loopbench.Task) (any, error) {
			_, _, err := loopbench.OpenConnection(tk, "tcp", stalled)
			return nil, err
		}),
		l.CreateTask(func(tk *loopbench.Task) (any, error) {
			fd, err := sock.Socket(syscall.AF_INET)
			if err != nil {
				return nil, err
			}
			defer syscall.Close(fd)
			return tk.Await(l.SockConnect(fd, "tcp", stalled))
		}),
	}
	for _, lookup := range []func(){
		func() { l.CreateConnection("tcp", "closed.loopbench.test:80", base) },
		func() {
			l.CreateDatagramEndpoint("udp", "", "datagram.loopbench.test:9", func() loopbench.DatagramProtocol { return loopbench.DatagramProtocolBase{} })
		},
	} {
		n := dns.queries()
		lookup()
		waitFor(t, l, func() bool { return dns.queries() > n })
	}
	for i, w := range waiting { // the iterations of the lookups ran meanwhile
		if w.Done() {
			t.Fatalf("connection %d to a listener that takes none is done", i)
		}
	}
	if _, err := l.CreateServer("tcp", "127.0.0.1:0", base); err != nil {
		t.Fatal(err)
	}
	if _, err := loopbench.StartServer(l, "tcp", "127.0.0.1:0", func(*loopbench.Task, *loopbench.StreamReader, *loopbench.StreamWriter) {}); err != nil {
		t.Fatal(err)
	}
	l.CreateConnection("tcp", stalled, base).Cancel("") // its callbacks never run
	l.CreateConnection("tcp", stalled, base)            // no iteration before the Close
}

// stalledListener returns the address of a listening socket whose accept
// queue is full (a backlog of 0, one connection queued and never
// accepted): the kernel drops further SYNs, so a connect to it stays in
// progress. stop closes it.
func stalledListener(t *testing.T) (addr string, stop func()) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(fd)
	var queued net.Conn
	stop = func() {
		if queued != nil {
			queued.Close()
		}
		unix.Close(fd)
	}
	err = unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	if err == nil {
		err = unix.Listen(fd, 0)
	}
	var sa unix.Sockaddr
	if err == nil {
		sa, err = unix.Getsockname(fd)
	}
	if err == nil {
		addr = fmt.Sprintf("127.0.0.1:%d", sa.(*unix.SockaddrInet4).Port)
		queued, err = net.DialTimeout("tcp", addr, 30*time.Second)
	}
	for err == nil { // wait until it is queued
		if _, err = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 30_000); err != unix.EINTR {
			break
		}
		err = nil
	}
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return addr, stop
}

// dnsStall makes net.DefaultResolver the Go resolver with its DNS
// queries sent nowhere: each waits until its context ends, and records
// why (context.Canceled: the lookup was abandoned; DeadlineExceeded: it
// timed out).
type dnsStall struct {
	prev    *net.Resolver
	release chan struct{}
	mu      sync.Mutex
	started int
	active  int
	ends    []error
}

func stallDNS() *dnsStall {
	d := &dnsStall{prev: net.DefaultResolver, release: make(chan struct{})}
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: d.dial}
	return d
}

func (d *dnsStall) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	d.mu.Lock()
	d.started++
	d.active++
	d.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-d.release:
	}
	d.mu.Lock()
	d.active--
	d.ends = append(d.ends, ctx.Err())
	d.mu.Unlock()
	return nil, errors.New("no DNS server here")
}

// queries returns how many queries were sent; idle whether none waits.
func (d *dnsStall) queries() int { d.mu.Lock(); defer d.mu.Unlock(); return d.started }
func (d *dnsStall) idle() bool   { d.mu.Lock(); defer d.mu.Unlock(); return d.active == 0 }

// wait waits, up to 30 seconds, until no query waits, and fails the test
// unless every query that ended since the last wait was cancelled.
func (d *dnsStall) wait(t *testing.T, when string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !d.idle() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.active > 0 {
		t.Fatalf("%s: %d DNS queries still waiting", when, d.active)
	}
	for _, err := range d.ends {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: a DNS query ended with %v, want it cancelled", when, err)
		}
	}
	d.ends = nil
}

// restore puts net.DefaultResolver back and ends any query still waiting.
func (d *dnsStall) restore() {
	select {
	case <-d.release:
	default:
		close(d.release)
	}
	net.DefaultResolver = d.prev
}
