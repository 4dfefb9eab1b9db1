package selectors_test

import (
	"errors"
	"runtime"
	"slices"
	"testing"

	"github.com/loopbench/loopbench/internal/conform/seltest"
	"github.com/loopbench/loopbench/selectors"
	"golang.org/x/sys/unix"
)

// fuzzPairs is the number of socketpairs an op sequence plays with.
const fuzzPairs = 4

// FuzzOps runs sequences of operations on every backend of Names at once,
// over the same socketpairs (registrations, modifications, removals,
// one-byte writes, drains, half-closes and zero-timeout Selects), and
// checks that every backend answers as the default one does: the same
// errors, and after each Select the same ready fds with the same events,
// each within what its fd was registered for. The test keeps to one
// thread, so that io_uring completes a poll in the write that makes its
// fd ready, as epoll sees it at once.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0x00, 0x03, 0x05, 0x04, 0x05})
	f.Add([]byte{0x08, 0x10, 0x0b, 0x05, 0x09, 0x05, 0x0a, 0x05, 0x0e, 0x05})
	f.Add([]byte{0x18, 0x1b, 0x1e, 0x05, 0x1a, 0x05, 0x18, 0x05, 0x1c, 0x05, 0x19, 0x05})
	f.Add([]byte{0x40, 0x48, 0x50, 0x58, 0x03, 0x0b, 0x13, 0x1b, 0x05, 0x04, 0x0c, 0x05, 0x06, 0x05})
	f.Fuzz(func(t *testing.T, ops []byte) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var sels []selectors.Selector
		for _, name := range selectors.Names() {
			s, err := selectors.New(name)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sels = append(sels, s)
		}
		var fds, peers [fuzzPairs]int
		for i := range fds {
			fds[i], peers[i] = seltest.Pair(t)
		}
		regs := map[int]selectors.Events{}
		for step, b := range ops {
			i, ev := int(b>>3)%fuzzPairs, selectors.Events(1+(b>>5)%3)
			fd := fds[i]
			switch b % 8 {
			case 0:
				fuzzAgree(t, step, sels, func(s selectors.Selector) error { return s.Register(fd, ev) })
				if _, ok := regs[fd]; !ok {
					regs[fd] = ev
				}
			case 1, 7:
				fuzzAgree(t, step, sels, func(s selectors.Selector) error { return s.Modify(fd, ev) })
				if _, ok := regs[fd]; ok {
					regs[fd] = ev
				}
			case 2:
				fuzzAgree(t, step, sels, func(s selectors.Selector) error { return s.Unregister(fd) })
				delete(regs, fd)
			case 3:
				unix.Write(peers[i], []byte{b})
			case 4:
				unix.Read(fd, make([]byte, 64))
			case 5:
				fuzzSelect(t, step, sels, regs)
			case 6:
				unix.Shutdown(peers[i], unix.SHUT_WR)
			}
		}
		fuzzSelect(t, len(ops), sels, regs)
	})
}

// fuzzAgree applies op to every selector and fails unless all return the
// same kind of error (or none).
func fuzzAgree(t *testing.T, step int, sels []selectors.Selector, op func(selectors.Selector) error) {
	t.Helper()
	kind := func(err error) error {
		for _, k := range []error{selectors.ErrRegistered, selectors.ErrNotRegistered, selectors.ErrBadEvents} {
			if errors.Is(err, k) {
				return k
			}
		}
		return err
	}
	want := kind(op(sels[0]))
	for _, s := range sels[1:] {
		if got := kind(op(s)); got != want {
			t.Fatalf("step %d: %s returned %v, %s %v", step, s.Name(), got, sels[0].Name(), want)
		}
	}
}

// fuzzSelect makes a zero-timeout Select on every selector and fails
// unless all report the same ready fds and events, within what each fd
// was registered for.
func fuzzSelect(t *testing.T, step int, sels []selectors.Selector, regs map[int]selectors.Events) {
	t.Helper()
	var want []selectors.Event
	for i, s := range sels {
		got, err := s.Select(0, nil)
		if err != nil {
			t.Fatalf("step %d: %s: %v", step, s.Name(), err)
		}
		slices.SortFunc(got, func(a, b selectors.Event) int { return a.Fd - b.Fd })
		for _, e := range got {
			if e.Events == 0 || e.Events&^regs[e.Fd] != 0 {
				t.Fatalf("step %d: %s reported %v for fd %d, registered for %v", step, s.Name(), e.Events, e.Fd, regs[e.Fd])
			}
		}
		if i == 0 {
			want = got
		} else if !slices.Equal(got, want) {
			t.Fatalf("step %d: %s reported %v, %s %v", step, s.Name(), got, sels[0].Name(), want)
		}
	}
}
