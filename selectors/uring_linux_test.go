//go:build linux

package selectors

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/sys/sock"
	"golang.org/x/sys/unix"
)

// openUring opens a uring selector closed at the end of the test, or
// skips the test with the line saying why the kernel refuses io_uring.
func openUring(t *testing.T) *uringSel {
	t.Helper()
	if err := Available("uring"); err != nil {
		t.Skip(err)
	}
	s, err := newUring()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// pair is a non-blocking socketpair closed at the end of the test.
func pair(t *testing.T) (a, b int) {
	t.Helper()
	a, b, err := sock.Socketpair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(a); unix.Close(b) })
	return a, b
}

func write(t *testing.T, fd int, p string) {
	t.Helper()
	if n, err := unix.Write(fd, []byte(p)); err != nil || n != len(p) {
		t.Fatalf("write fd %d: %d, %v", fd, n, err)
	}
}

func selectSorted(t *testing.T, s Selector, d time.Duration) []Event {
	t.Helper()
	evs, err := s.Select(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(evs, func(a, b Event) int { return a.Fd - b.Fd })
	return evs
}

// TestUringRefused plays kernels that refuse io_uring_setup: uring is
// absent from Names, and Available and New say why in one line.
func TestUringRefused(t *testing.T) {
	saved, savedAvail := uringSetup, uringAvail
	t.Cleanup(func() { uringSetup, uringAvail = saved, savedAvail })
	for _, c := range []struct {
		errno unix.Errno
		why   string
	}{
		{unix.EPERM, "sysctl kernel.io_uring_disabled, or a seccomp filter"},
		{unix.ENOSYS, "a kernel before 5.1, or an emulator without io_uring"},
	} {
		calls := 0
		uringSetup = func(uint32, *uringParams) (int, error) { calls++; return -1, c.errno }
		uringAvail = sync.OnceValue(probeUring)
		if got := Names(); slices.Contains(got, "uring") || !slices.Equal(got, []string{"epoll", "poll", "select"}) {
			t.Errorf("%v: Names() = %v, want epoll, poll, select", c.errno, got)
		}
		_, err := New("uring")
		msg := c.errno.Error()
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "selectors: uring is not available here: io_uring_setup: "+msg+" ("+c.why+")") {
			t.Errorf("%v: New(uring) = %v; want one line naming io_uring_setup, %q and why", c.errno, err, msg)
		}
		if !errors.Is(err, c.errno) || Available("uring") == nil {
			t.Errorf("%v: the error does not wrap the errno, or Available(uring) is nil", c.errno)
		}
		if calls != 1 {
			t.Errorf("%v: io_uring_setup asked %d times; want once per process", c.errno, calls)
		}
	}
}

// TestUringCloexec: the ring's fd is close-on-exec.
func TestUringCloexec(t *testing.T) {
	s := openUring(t)
	flags, err := unix.FcntlInt(uintptr(s.ring.fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Fatalf("F_GETFD of the ring = %#x, %v; want FD_CLOEXEC", flags, err)
	}
}

// TestUringStaleCompletion: the poll of an fd that fired is still in the
// completion ring, unreaped, when the fd is closed, unregistered and its
// number registered again for a new file: that completion carries the
// old generation and is dropped; only the new file reports.
func TestUringStaleCompletion(t *testing.T) {
	s := openUring(t)
	a, b := pair(t)
	keep, err := unix.FcntlInt(uintptr(a), unix.F_DUPFD_CLOEXEC, 100) // the old file stays open
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(keep)
	if err := s.Register(a, Read); err != nil {
		t.Fatal(err)
	}
	if evs := selectSorted(t, s, 0); len(evs) != 0 { // arms the poll
		t.Fatalf("Select = %v before any write", evs)
	}
	write(t, b, "old") // the poll completes; nothing reaps it yet
	unix.Close(a)
	if err := s.Unregister(a); err != nil {
		t.Fatal(err)
	}
	c, d := pair(t)
	if c != a {
		t.Skipf("fd %d was not reused (got %d)", a, c)
	}
	if err := s.Register(c, Read); err != nil {
		t.Fatal(err)
	}
	if evs := selectSorted(t, s, 10*time.Millisecond); len(evs) != 0 {
		t.Fatalf("Select = %v; the old file's completion was reported for the new one", evs)
	}
	write(t, d, "new")
	if evs := selectSorted(t, s, time.Second); !slices.Equal(evs, []Event{{c, Read}}) {
		t.Fatalf("Select = %v, want fd %d readable", evs, c)
	}
}

// TestUringClosedWithoutUnregister: a registered fd closed without
// Unregister, whose poll is armed again after it fired, reports nothing
// and does not fail Select; Modify after the number is reused watches the
// new file.
func TestUringClosedWithoutUnregister(t *testing.T) {
	s := openUring(t)
	a, b := pair(t)
	s.Register(a, Read)
	write(t, b, "x")
	if evs := selectSorted(t, s, time.Second); !slices.Equal(evs, []Event{{a, Read}}) {
		t.Fatalf("Select = %v", evs)
	}
	unix.Close(a) // the poll is armed again on a closed fd: EBADF, left idle
	for range 3 {
		if evs := selectSorted(t, s, 0); len(evs) != 0 {
			t.Fatalf("Select = %v after the fd was closed", evs)
		}
	}
	if s.st[a] != uringIdle {
		t.Fatalf("state of the closed fd = %d, want idle", s.st[a])
	}
	c, d := pair(t)
	if c != a {
		t.Skipf("fd %d was not reused (got %d)", a, c)
	}
	if err := s.Modify(c, Read); err != nil {
		t.Fatal(err)
	}
	write(t, d, "y")
	if evs := selectSorted(t, s, time.Second); !slices.Equal(evs, []Event{{c, Read}}) {
		t.Fatalf("Select after Modify = %v, want fd %d readable", evs, c)
	}
}

// TestUringGrows registers more fds than the first ring's completion
// queue holds: the selector opens a larger ring, arms every registration
// there, reports every ready fd once per Select and keeps reporting them
// (level-triggered) until they are drained.
func TestUringGrows(t *testing.T) {
	s := openUring(t)
	first := s.ring.cqSize
	var ready []Event
	var readers []int
	for i := range 3 * uringFirstSQ {
		a, b := pair(t)
		if err := s.Register(a, Read); err != nil {
			t.Fatal(err)
		}
		readers = append(readers, a)
		if i%5 == 0 {
			write(t, b, "g")
			ready = append(ready, Event{a, Read})
		}
	}
	for range 2 {
		if evs := selectSorted(t, s, time.Second); !slices.Equal(evs, ready) {
			t.Fatalf("Select = %d events, want %d: %v", len(evs), len(ready), evs)
		}
	}
	if s.ring.cqSize <= first || s.ring.sqSize < uint32(len(readers)) {
		t.Fatalf("ring of %d SQ / %d CQ entries for %d fds; the first CQ had %d", s.ring.sqSize, s.ring.cqSize, len(readers), first)
	}
	for _, e := range ready {
		unix.Read(e.Fd, make([]byte, 4))
	}
	if evs := selectSorted(t, s, 0); len(evs) != 0 {
		t.Fatalf("Select after draining = %v", evs)
	}
}

// TestUringOneEnterPerSelect runs the IOChain shape (libevent's bench.c:
// P socketpairs, each reader reads its byte and writes one to the next
// pair, A chains in flight) on the selector alone and counts the
// io_uring_enter calls: in the steady state, each Select makes exactly
// one, which submits the fired polls again and waits. A wait that a
// signal ends before any completion is the only other call, counted
// apart.
func TestUringOneEnterPerSelect(t *testing.T) {
	const p, active, warm, iters = 40, 4, 20, 400
	s := openUring(t)
	var rd, wr []int
	for range p {
		a, b := pair(t)
		rd, wr = append(rd, a), append(wr, b)
		if err := s.Register(a, Read); err != nil {
			t.Fatal(err)
		}
	}
	index := map[int]int{}
	for i, fd := range rd {
		index[fd] = i
	}
	for i := range active {
		write(t, wr[i*p/active], "c")
	}
	var buf []Event
	var one [1]byte
	var enters, rewaits uint64
	for i := range warm + iters {
		if i == warm {
			enters, rewaits = s.enters, s.rewaits
		}
		evs, err := s.Select(-1, buf)
		if err != nil || len(evs) == 0 {
			t.Fatalf("Select %d = %v, %v", i, evs, err)
		}
		for _, e := range evs {
			if n, _ := unix.Read(e.Fd, one[:]); n != 1 {
				t.Fatalf("fd %d reported readable, read %d", e.Fd, n)
			}
			write(t, wr[(index[e.Fd]+1)%p], "c")
		}
		buf = evs
	}
	got, again := s.enters-enters, s.rewaits-rewaits
	t.Logf("%d Selects: %d io_uring_enter calls, %d of them waits again after a signal", iters, got, again)
	if got-again != iters {
		t.Fatalf("%d io_uring_enter calls (%d waits again) for %d Selects; want one each", got, again, iters)
	}
}

// TestUringEINTR sends signals to the thread waiting in io_uring_enter:
// the wait goes on with the time that remains, and the Select returns no
// event and no error, not before its timeout.
func TestUringEINTR(t *testing.T) {
	s := openUring(t)
	a, _ := pair(t)
	const d = 50 * time.Millisecond
	for try := range 20 {
		s.Register(a, Read) // a request to submit: the kernel hides an interrupted wait then
		rewaits := s.rewaits
		tid := make(chan int)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := <-tid
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
					unix.Tgkill(unix.Getpid(), t, unix.SIGURG) // the runtime's own preemption signal: harmless
				}
			}
		}()
		evs, el, err := selectOnThread(s, d, tid)
		close(stop)
		wg.Wait()
		if err != nil || len(evs) != 0 || el < d {
			t.Fatalf("Select(%v) = %v, %v after %v; want no event, no error, not before the timeout", d, evs, err, el)
		}
		s.Unregister(a)
		if s.rewaits > rewaits {
			t.Logf("try %d: %d waits again after a signal", try, s.rewaits-rewaits)
			return
		}
	}
	t.Fatal("no signal interrupted a wait in 20 tries")
}

// selectOnThread runs a Select on a goroutine locked to its thread, whose
// id it sends on tid first, and returns what it returned and how long it
// took.
func selectOnThread(s *uringSel, d time.Duration, tid chan<- int) ([]Event, time.Duration, error) {
	type result struct {
		evs []Event
		err error
		el  time.Duration
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		start := time.Now()
		evs, err := s.Select(d, nil)
		done <- result{evs, err, time.Since(start)}
	}()
	r := <-done
	return r.evs, r.el, r.err
}

// TestErrorsAsRegistered: an error (the write end of a pipe whose reader
// is gone) or a hang-up (a pipe or socket whose peer is gone) reports as
// the events the fd was registered for, whichever they are, with uring
// as with epoll.
func TestErrorsAsRegistered(t *testing.T) {
	for _, name := range []string{"epoll", "uring"} {
		if err := Available(name); err != nil {
			t.Log(err)
			continue
		}
		for _, c := range []struct {
			what   string
			end    int // 0: the pipe's read end is registered and its write end closed; 1: the reverse
			ev     Events
			socket bool
		}{
			{"error, registered for read", 1, Read, false},
			{"error, registered for write", 1, Write, false},
			{"hang-up, registered for read", 0, Read, false},
			{"hang-up, registered for write", 0, Write, false},
			{"socket hang-up, registered for write", 0, Write, true},
		} {
			t.Run(name+"/"+c.what, func(t *testing.T) {
				s, err := New(name)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				var p [2]int
				if c.socket {
					p[0], p[1] = pair(t)
				} else if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
					t.Fatal(err)
				}
				fd, other := p[c.end], p[1-c.end]
				defer unix.Close(fd)
				if err := s.Register(fd, c.ev); err != nil {
					t.Fatal(err)
				}
				if c.ev == Write && c.socket {
					for { // fill the socket, so that only the hang-up makes it ready
						if _, err := unix.Write(fd, make([]byte, 65536)); err != nil {
							break
						}
					}
				}
				if evs := selectSorted(t, s, 0); !(len(evs) == 0 || c.end == 1 && c.ev == Write) {
					t.Fatalf("Select before = %v", evs)
				}
				unix.Close(other)
				if evs := selectSorted(t, s, time.Second); !slices.Equal(evs, []Event{{fd, c.ev}}) {
					t.Fatalf("Select = %v, want fd %d %v", evs, fd, c.ev)
				}
			})
		}
	}
}

// TestUringUnregisterReleasesFile: a poll request holds its file, so
// Unregister removes it at once; a listening socket unregistered and then
// closed refuses connections, as with epoll. (The removal completes on
// the thread that armed the poll: the test keeps to one thread.)
func TestUringUnregisterReleasesFile(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := openUring(t)
	for _, name := range []string{"unregister", "close"} {
		ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		loopback := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
		if err := unix.Bind(ln, loopback); err != nil {
			t.Fatal(err)
		}
		if err := unix.Listen(ln, 8); err != nil {
			t.Fatal(err)
		}
		sa, _ := unix.Getsockname(ln)
		if err := s.Register(ln, Read); err != nil {
			t.Fatal(err)
		}
		if evs := selectSorted(t, s, 0); len(evs) != 0 { // arms the poll
			t.Fatalf("Select = %v", evs)
		}
		if name == "close" {
			s.Close() // the selector's Close releases it too
		} else if err := s.Unregister(ln); err != nil {
			t.Fatal(err)
		}
		unix.Close(ln)
		c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = unix.Connect(c, sa)
		unix.Close(c)
		if err != unix.ECONNREFUSED {
			t.Fatalf("after %s and close, connect to the listener: %v; want ECONNREFUSED", name, err)
		}
	}
}
