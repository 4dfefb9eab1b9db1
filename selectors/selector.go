// Package selectors is the I/O readiness layer of the loop, asyncio's
// selectors module in Go: one Selector contract and five backends, chosen
// at run time by name among those the system has (Names, default first):
// epoll, uring (io_uring, where the kernel allows it), poll and select on
// Linux; kqueue, poll and select on macOS and the BSDs; poll on other
// Unix systems. A backend the kernel refuses is absent from Names, and
// New and Available say why in one line.
//
// The contract, which every backend honours and internal/conform/seltest checks:
//
//   - Register, Modify and Unregister take an fd and a non-empty set of
//     Events (Read, Write). Registering a registered fd, or modifying or
//     unregistering one that is not, is an error; so is an fd that is not
//     open. Unregister forgets the fd even when the kernel no longer knows
//     it (it was closed first), as asyncio's selectors do.
//   - Select waits up to timeout (negative: forever; 0: poll) and appends the
//     ready fds to buf[:0], each with the registered events that are ready.
//     It is level-triggered: an fd stays ready until it is drained. Errors
//     and hang-ups report as whatever the fd was registered for. (uring
//     learns of readiness on the thread that armed the fd's poll: a
//     zero-timeout Select made after the goroutine changed threads may
//     see a new readiness one call later than the others; see uringSel.)
//   - Timeouts are as fine as the system call allows, and Resolution says
//     how fine: nanoseconds for epoll (epoll_pwait2), uring (io_uring_enter's
//     timespec), kqueue (its timespec) and poll where ppoll exists (Linux, OpenBSD), microseconds for select
//     (its timeval), whole milliseconds for poll elsewhere and for epoll on
//     a kernel that refuses epoll_pwait2 (before Linux 5.11, or a seccomp
//     filter that does not know it), where epoll_wait is used instead, a
//     choice made once per process. A positive timeout is rounded up to
//     the resolution, never down: a 0.3 ms timer on a millisecond backend
//     waits 1 ms and never turns into a busy 0 ms poll. A Select never
//     returns before its timeout unless an fd is ready. EINTR is retried
//     with the time that remains.
//   - System call errors are *os.SyscallError; descriptors the selector
//     opens are close-on-exec.
//   - An fd closed without Unregister and reused by a new file never reports
//     events of the old file once Unregister, or Modify, has been called on
//     it (epoll and uring keep a generation per registration; kqueue drops
//     a closed fd's filters itself).
//   - Modify watches the file the fd names at the time of the call, also
//     when the fd was closed and reused without Unregister: epoll re-adds
//     an fd its set no longer holds, kqueue re-adds every filter asked
//     for, uring removes its poll and polls the fd anew, poll and select
//     watch the number. (Before that call the backends differ: poll and
//     select already watch the new file, epoll and kqueue do not, and
//     uring does from the next time it arms the fd's poll.) The loop
//     calls Modify whenever AddReader or AddWriter replaces a callback,
//     so that AddReader on a reused fd watches its new file with every
//     backend.
//   - A registration with Oneshot (and one of Read or Write) reports one
//     Select's event, then nothing until Modify arms it again: the kernel
//     disarms it (EPOLLONESHOT, EV_DISPATCH, uring's poll is not re-armed),
//     poll and select leave it out of their sets. A disarmed file whose fd
//     is closed never reports.
//   - select refuses fds >= FD_SETSIZE (1024; 256 on NetBSD) with
//     ErrFdTooLarge.
//
// Nanosecond waits are a deliberate departure from asyncio, libuv and
// libev, which all wait in whole milliseconds (epoll_wait, poll): there a
// 200 µs timer fires after a millisecond or more, here near 200 µs, as
// late as the kernel's wake-up makes it and no later. A loop thread that
// must wake on time also lowers its timer slack (internal/sys/cpu), which
// Linux otherwise adds to every wait (50 µs by default).
//
// A Selector is not safe for concurrent use; the loop owns it.
package selectors

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Events is a set of readiness conditions.
type Events uint32

// Readiness conditions, and Oneshot, which asks for one report.
const (
	Read Events = 1 << iota
	Write
	// Oneshot, with one of Read or Write, makes the registration report
	// one Select's event at most: after that it stays registered and
	// reports nothing until Modify arms it again (epoll's EPOLLONESHOT,
	// kqueue's EV_DISPATCH). Re-arming is one Modify, where a level-
	// triggered registration taken out and put back costs an Unregister
	// and a Register; and a file whose fd was closed while it was
	// disarmed never reports again, also when another fd keeps it open.
	Oneshot
)

func (e Events) String() string {
	name := map[Events]string{Read: "read", Write: "write", Read | Write: "read|write"}[e&^Oneshot]
	if name == "" {
		return fmt.Sprintf("Events(%d)", uint32(e))
	}
	if e&Oneshot != 0 {
		name += "|oneshot"
	}
	return name
}

// valid reports whether ev is a set the contract takes: Read, Write or
// both, or one of them with Oneshot.
func (e Events) valid() bool {
	switch e {
	case Read, Write, Read | Write, Read | Oneshot, Write | Oneshot:
		return true
	}
	return false
}

// Event is one ready fd.
type Event struct {
	Fd     int
	Events Events
}

// Selector is the readiness contract described in the package doc.
type Selector interface {
	Name() string
	Register(fd int, ev Events) error
	Modify(fd int, ev Events) error
	Unregister(fd int) error
	Select(timeout time.Duration, buf []Event) ([]Event, error)
	Close() error
	// Resolution is the granularity of Select's timeout: a positive
	// timeout is rounded up to a multiple of it.
	Resolution() time.Duration
}

// ThreadBound is implemented by a backend whose kernel requests stay tied
// to the thread that made them (uring: a poll completes in the task work
// of the thread that armed it, which wakes that thread). Its owner calls
// Rescheduled after its goroutine yielded and may have moved to another
// thread; the next Select then moves the
// requests to the thread it runs on, if that changed. Events are
// reported as before: a request moved is one armed anew.
type ThreadBound interface {
	Rescheduled()
}

// Errors the backends return, wrapped with the fd concerned.
var (
	ErrClosed        = errors.New("selector is closed")
	ErrRegistered    = errors.New("fd is already registered")
	ErrNotRegistered = errors.New("fd is not registered")
	ErrBadEvents     = errors.New("events must be a non-empty set of Read and Write, or one of them with Oneshot")
	ErrUnavailable   = errors.New("is not available here")
	ErrFdTooLarge    = errors.New("fd is too large for select (at or above FD_SETSIZE); use " + backends[0].name + " or poll")
)

// New returns the backend called name: one of Names().
func New(name string) (Selector, error) {
	b, err := find(name)
	if err != nil {
		return nil, err
	}
	return b.open()
}

// Available returns nil when New(name) may succeed here, else an error of
// one line saying why not: the name is unknown, or this system refuses
// the mechanism (uring where io_uring is missing or disabled).
func Available(name string) error {
	_, err := find(name)
	return err
}

// find returns the backend called name if the system has it.
func find(name string) (backend, error) {
	for _, b := range backends {
		if b.name != name {
			continue
		}
		if err := b.refused(); err != nil {
			return b, fmt.Errorf("selectors: %s %w: %w", name, ErrUnavailable, err)
		}
		return b, nil
	}
	return backend{}, fmt.Errorf("selectors: unknown selector %q (valid: %v)", name, Names())
}

// Names lists the backends available on this system, the default first.
func Names() []string {
	var names []string
	for _, b := range backends {
		if b.refused() == nil {
			names = append(names, b.name)
		}
	}
	return names
}

// Unavailable returns, for each backend of this system that the kernel
// refuses here, the line saying why (the error Available returns).
func Unavailable() []error {
	var errs []error
	for _, b := range backends {
		if _, err := find(b.name); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Default is the name of the preferred backend here.
func Default() string { return backends[0].name }

// backend is one entry of the system's list: its name, how to open it,
// and, for a mechanism the kernel may refuse, why it does (nil: it does
// not), asked once per process.
type backend struct {
	name  string
	open  func() (Selector, error)
	avail func() error
}

func (b backend) refused() error {
	if b.avail == nil {
		return nil
	}
	return b.avail()
}

// msTimeout converts a timeout into the milliseconds a system call takes:
// negative blocks (-1), anything else rounds up and is capped at MaxInt32.
func msTimeout(d time.Duration) int {
	if d < 0 {
		return -1
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return int(min(ms, math.MaxInt32))
}

// tsTimeout sets *ts to the timeout d and returns it, or nil (block) for
// a negative d: the timespec of ppoll, epoll_pwait2 and kevent. The
// caller keeps ts, so that the call does not allocate it.
func tsTimeout(d time.Duration, ts *unix.Timespec) *unix.Timespec {
	if d < 0 {
		return nil
	}
	*ts = unix.NsecToTimespec(int64(d))
	return ts
}

// tvTimeout sets *tv to the timeout d rounded up to whole microseconds
// and returns it, or nil (block) for a negative d: select's timeval.
func tvTimeout(d time.Duration, tv *unix.Timeval) *unix.Timeval {
	if d < 0 {
		return nil
	}
	us := (d + time.Microsecond - 1) / time.Microsecond
	*tv = unix.NsecToTimeval(int64(us * time.Microsecond))
	return tv
}

// nowaitResult is the result of a zero-timeout poll: n, or err as a
// syscall error of name.
func nowaitResult(name string, n int, err error) (int, error) {
	if err != nil {
		return 0, os.NewSyscallError(name, err)
	}
	return n, nil
}

// retry runs wait with the timeout d, again on EINTR with the time that
// remains (0 once it has passed), and wraps other errors as syscall
// errors of name. wait converts the timeout into its system call's unit.
func retry(name string, d time.Duration, wait func(rem time.Duration) (int, error)) (int, error) {
	var start time.Time
	if d > 0 {
		start = time.Now()
	}
	rem := d
	for {
		n, err := wait(rem)
		if err != unix.EINTR {
			if err != nil {
				return 0, os.NewSyscallError(name, err)
			}
			return n, nil
		}
		if d > 0 {
			rem = max(d-time.Since(start), 0)
		}
	}
}
