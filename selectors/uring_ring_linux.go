//go:build linux

package selectors

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI the uring backend uses (include/uapi/linux/io_uring.h),
// laid out as the kernel lays it out on every architecture: the 64-bit
// fields fall on 8-byte offsets, so 386 and arm, where Go aligns uint64
// to 4 bytes, get the same layout (the size checks below hold there too).

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  uringOffsets
	cqOff                                                                  uringOffsets
}

// uringOffsets is struct io_sqring_offsets (head, tail, ring_mask,
// ring_entries, flags, dropped, array) or struct io_cqring_offsets (head,
// tail, ring_mask, ring_entries, overflow, cqes, flags): the ring fields'
// byte offsets in their mmap, in the order the kernel declares them.
type uringOffsets struct {
	head, tail, mask, entries, f4, f5, f6, resv1 uint32
	userAddr                                     uint64
}

// uringSQE is struct io_uring_sqe, with the fields a poll request uses.
type uringSQE struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64 // POLL_REMOVE: the user_data of the poll to remove
	len         uint32 // POLL_ADD: 0 = one-shot
	pollEvents  uint32 // poll32_events
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

// uringCQE is struct io_uring_cqe.
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// uringGeteventsArg is struct io_uring_getevents_arg: io_uring_enter's
// argument with IORING_ENTER_EXT_ARG, whose ts points at a
// __kernel_timespec.
type uringGeteventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64
}

// The layouts are the kernel's: a size or an offset of a 64-bit field
// that differs fails to compile.
var (
	_ [120 - unsafe.Sizeof(uringParams{})]byte
	_ [unsafe.Sizeof(uringParams{}) - 120]byte
	_ [64 - unsafe.Sizeof(uringSQE{})]byte
	_ [unsafe.Sizeof(uringSQE{}) - 64]byte
	_ [16 - unsafe.Sizeof(uringCQE{})]byte
	_ [24 - unsafe.Sizeof(uringGeteventsArg{})]byte
	_ [unsafe.Sizeof(uringGeteventsArg{}) - 24]byte
	_ [unsafe.Offsetof(uringParams{}.sqOff) - 40]byte
	_ [40 - unsafe.Offsetof(uringParams{}.sqOff)]byte
	_ [unsafe.Offsetof(uringParams{}.cqOff) - 80]byte
	_ [80 - unsafe.Offsetof(uringParams{}.cqOff)]byte
	_ [unsafe.Offsetof(uringSQE{}.userData) - 32]byte
	_ [32 - unsafe.Offsetof(uringSQE{}.userData)]byte
	_ [unsafe.Offsetof(uringGeteventsArg{}.ts) - 16]byte
	_ [16 - unsafe.Offsetof(uringGeteventsArg{}.ts)]byte
)

const (
	uringOpPollAdd    = 6 // IORING_OP_POLL_ADD
	uringOpPollRemove = 7 // IORING_OP_POLL_REMOVE

	uringSetupCQSize    = 1 << 3 // IORING_SETUP_CQSIZE
	uringSetupClamp     = 1 << 4 // IORING_SETUP_CLAMP
	uringSetupSubmitAll = 1 << 7 // IORING_SETUP_SUBMIT_ALL (5.18)
	uringSetupCoopTask  = 1 << 8 // IORING_SETUP_COOP_TASKRUN (5.19)
	uringSetupTaskFlag  = 1 << 9 // IORING_SETUP_TASKRUN_FLAG (5.19)

	uringFeatSingleMmap = 1 << 0 // IORING_FEAT_SINGLE_MMAP (5.4)
	uringFeatNoDrop     = 1 << 1 // IORING_FEAT_NODROP (5.5)
	uringFeatExtArg     = 1 << 8 // IORING_FEAT_EXT_ARG (5.11)

	uringEnterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS
	uringEnterExtArg    = 1 << 3 // IORING_ENTER_EXT_ARG

	uringSQCQOverflow = 1 << 1 // IORING_SQ_CQ_OVERFLOW, in the SQ ring's flags
	uringSQTaskRun    = 1 << 2 // IORING_SQ_TASKRUN: completions wait in the thread's task work

	uringOffSQRing = 0          // IORING_OFF_SQ_RING
	uringOffCQRing = 0x8000000  // IORING_OFF_CQ_RING
	uringOffSQEs   = 0x10000000 // IORING_OFF_SQES

	uringMaxEntries = 32768 // IORING_MAX_ENTRIES: the largest SQ
)

// uringSetupFunc is io_uring_setup(2); tests replace it to play a kernel
// that refuses io_uring.
type uringSetupFunc func(entries uint32, p *uringParams) (int, error)

func sysUringSetup(entries uint32, p *uringParams) (int, error) {
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// uringRing is one io_uring instance: its fd and the shared rings mapped
// into the process. The SQ ring's index array is filled once with the
// identity, so the SQE at tail&mask is the one submitted.
type uringRing struct {
	fd             int
	sqMem          []byte // both rings: the kernel maps them at once (SINGLE_MMAP)
	sqeMem         []byte
	sqHead, sqTail *uint32
	sqFlags        *uint32
	cqHead, cqTail *uint32
	sqMask, sqSize uint32
	cqMask, cqSize uint32
	sqes           []uringSQE
	cqes           []uringCQE
	tail           uint32 // the SQ tail written so far, published by publish
}

// uringWhy says what a refusal of io_uring_setup means.
func uringWhy(err error) error {
	switch {
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%w (a kernel before 5.1, or an emulator without io_uring)", err)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%w (sysctl kernel.io_uring_disabled, or a seccomp filter)", err)
	}
	return err
}

// uringSetupFlags are the setup flags a ring asks for, the newest
// kernel's first: each kernel takes the first set it knows (an older one
// refuses the others with EINVAL).
//
// COOP_TASKRUN: a poll that completes while the loop's thread runs does
// not interrupt it (an inter-processor interrupt, a VM exit on a guest)
// to post the completion; the thread posts it at its next system call.
// TASKRUN_FLAG says so in the SQ ring's flags, so that a zero-timeout
// Select enters the kernel then, and sees the completion all the same.
var uringSetupFlags = []uint32{
	uringSetupCQSize | uringSetupClamp | uringSetupSubmitAll | uringSetupCoopTask | uringSetupTaskFlag, // 5.19
	uringSetupCQSize | uringSetupClamp | uringSetupSubmitAll,                                           // 5.18
	uringSetupCQSize | uringSetupClamp,
}

// newRing sets up a ring of sq submission entries and cq completion
// entries (the kernel clamps both to its maxima) and maps it.
func newRing(setup uringSetupFunc, sq, cq uint32) (*uringRing, error) {
	var p uringParams
	var fd int
	var err error
	for _, flags := range uringSetupFlags {
		p = uringParams{flags: flags, cqEntries: cq}
		if fd, err = setup(sq, &p); !errors.Is(err, unix.EINVAL) {
			break
		}
	}
	if err != nil {
		return nil, os.NewSyscallError("io_uring_setup", uringWhy(err))
	}
	r := &uringRing{fd: fd}
	if need := uint32(uringFeatSingleMmap | uringFeatNoDrop | uringFeatExtArg); p.features&need != need {
		unix.Close(fd)
		return nil, fmt.Errorf("io_uring lacks IORING_FEAT_EXT_ARG, NODROP or SINGLE_MMAP (features %#x; Linux 5.11 or later has them)", p.features)
	}
	// io_uring_setup opens its fd close-on-exec; say so again, as the
	// contract asks of every descriptor the selectors open.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	if err := r.mmap(&p); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// mmap maps the rings (one mapping) and the SQE array, and
// points the ring's fields into them.
func (r *uringRing) mmap(p *uringParams) error {
	sqLen := int(p.sqOff.f6 + p.sqEntries*4) // up to the end of the index array
	cqLen := int(p.cqOff.f5 + p.cqEntries*uint32(unsafe.Sizeof(uringCQE{})))
	var err error
	prot, flags := unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE
	if r.sqMem, err = unix.Mmap(r.fd, uringOffSQRing, max(sqLen, cqLen), prot, flags); err != nil {
		return os.NewSyscallError("mmap", err)
	}
	if r.sqeMem, err = unix.Mmap(r.fd, uringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(uringSQE{})), prot, flags); err != nil {
		return os.NewSyscallError("mmap", err)
	}
	u32 := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&r.sqMem[off])) }
	r.sqHead, r.sqTail, r.sqFlags = u32(p.sqOff.head), u32(p.sqOff.tail), u32(p.sqOff.f4)
	r.sqMask, r.sqSize = *u32(p.sqOff.mask), p.sqEntries
	r.cqHead, r.cqTail = u32(p.cqOff.head), u32(p.cqOff.tail)
	r.cqMask, r.cqSize = *u32(p.cqOff.mask), p.cqEntries
	index := unsafe.Slice(u32(p.sqOff.f6), p.sqEntries)
	for i := range index {
		index[i] = uint32(i)
	}
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&r.sqMem[p.cqOff.f5])), p.cqEntries)
	r.tail = atomic.LoadUint32(r.sqTail)
	return nil
}

// close unmaps the rings and closes the ring's fd, which cancels every
// request still in flight.
func (r *uringRing) close() error {
	for _, m := range [][]byte{r.sqeMem, r.sqMem} {
		if m != nil {
			unix.Munmap(m)
		}
	}
	r.sqes, r.cqes, r.sqeMem, r.sqMem = nil, nil, nil, nil
	return os.NewSyscallError("close", unix.Close(r.fd))
}

// push writes an SQE at the tail, unpublished; false when the SQ is full.
func (r *uringRing) push(op uint8, fd int32, addr uint64, events uint32, userData uint64) bool {
	if r.tail-atomic.LoadUint32(r.sqHead) >= r.sqSize {
		return false
	}
	r.sqes[r.tail&r.sqMask] = uringSQE{opcode: op, fd: fd, addr: addr, pollEvents: events, userData: userData}
	r.tail++
	return true
}

// publish makes the SQEs pushed so far visible to the kernel.
func (r *uringRing) publish() { atomic.StoreUint32(r.sqTail, r.tail) }

// unsubmitted is the number of published SQEs the kernel has not taken.
func (r *uringRing) unsubmitted() uint32 { return r.tail - atomic.LoadUint32(r.sqHead) }

// heldBack reports, from one read of the SQ ring's flags, completions the
// kernel holds back: because the CQ was full (NODROP), or in the
// thread's task work (COOP_TASKRUN). An io_uring_enter with GETEVENTS
// posts them.
func (r *uringRing) heldBack() bool {
	return atomic.LoadUint32(r.sqFlags)&(uringSQCQOverflow|uringSQTaskRun) != 0
}

// enter is io_uring_enter(2). raw makes the call without telling the
// scheduler, for calls that cannot block (no wait), as nowait_linux.go
// explains.
func (r *uringRing) enter(submit, minComplete, flags uint32, arg *uringGeteventsArg, raw bool) (int, unix.Errno) {
	var argp, argsz uintptr
	if arg != nil {
		argp, argsz = uintptr(unsafe.Pointer(arg)), unsafe.Sizeof(*arg)
	}
	call := unix.Syscall6
	if raw {
		call = syscall.RawSyscall6
	}
	n, _, e := call(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(minComplete), uintptr(flags), argp, argsz)
	return int(n), e
}

// uringAvail reports, once per process, why this system refuses io_uring
// (nil: it does not), by setting up a small ring and closing it. Tests
// replace it together with uringSetup.
var (
	uringSetup uringSetupFunc = sysUringSetup
	uringAvail                = sync.OnceValue(probeUring)
)

func probeUring() error {
	r, err := newRing(uringSetup, 2, 4)
	if err != nil {
		return err
	}
	return r.close()
}

// pollEvents32 is a poll mask as the SQE's poll32_events holds it: the
// kernel swaps its 16-bit halves on big-endian systems.
func pollEvents32(m uint32) uint32 {
	if bigEndian {
		return m<<16 | m>>16
	}
	return m
}

var bigEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 0 }()
