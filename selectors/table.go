package selectors

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// reg is one registration: the events asked for and a generation that
// tells this registration of an fd from earlier ones.
type reg struct {
	ev  Events
	gen uint32
}

// table is the registrations a backend holds, indexed by fd. Every backend
// embeds it, so argument checking and errors are the same everywhere.
type table struct {
	name   string
	regs   []reg // gen 0 = not registered
	count  int
	gen    uint32
	closed bool
}

func (t *table) Name() string { return t.name }

func (t *table) errorf(op string, fd int, err error) error {
	return fmt.Errorf("selectors: %s %s fd %d: %w", t.name, op, fd, err)
}

// lookup returns the registration of fd, if any.
func (t *table) lookup(fd int) (reg, bool) {
	if fd < 0 || fd >= len(t.regs) || t.regs[fd].gen == 0 {
		return reg{}, false
	}
	return t.regs[fd], true
}

// check validates an operation on fd before the backend acts on it.
func (t *table) check(op string, fd int, ev Events, wantRegistered bool) error {
	switch _, ok := t.lookup(fd); {
	case t.closed:
		return t.errorf(op, fd, ErrClosed)
	case fd < 0:
		return t.errorf(op, fd, unix.EBADF)
	case op != "unregister" && !ev.valid():
		return t.errorf(op, fd, ErrBadEvents)
	case ok && !wantRegistered:
		return t.errorf(op, fd, ErrRegistered)
	case !ok && wantRegistered:
		return t.errorf(op, fd, ErrNotRegistered)
	}
	if op == "register" {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
			return t.errorf(op, fd, os.NewSyscallError("fcntl", err))
		}
	}
	return nil
}

// add records a registration and returns its generation.
func (t *table) add(fd int, ev Events) uint32 {
	for fd >= len(t.regs) {
		t.regs = append(t.regs, reg{})
	}
	t.regs[fd] = reg{ev: ev, gen: t.nextGen()}
	t.count++
	return t.regs[fd].gen
}

// nextGen returns a generation no live registration has.
func (t *table) nextGen() uint32 {
	t.gen++
	if t.gen == 0 {
		t.gen = 1
	}
	return t.gen
}

func (t *table) set(fd int, ev Events) { t.regs[fd].ev = ev }

func (t *table) drop(fd int) {
	t.regs[fd] = reg{}
	t.count--
}
