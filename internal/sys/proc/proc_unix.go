//go:build unix

// Package proc is the system-call layer of the loop's subprocesses:
// pipes, starting a child on given descriptors, a pidfd that becomes
// readable when the child exits, reaping it without blocking, and
// signals. Errors are wrapped as *os.SyscallError.
package proc

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrNoPidFD means the system has no pidfd_open (only Linux 5.3 and later
// has it): the caller watches for SIGCHLD instead.
var ErrNoPidFD = errors.New("proc: no pidfd on this system")

// DevNull opens /dev/null for reading and writing, close-on-exec.
func DevNull() (int, error) {
	fd, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("open", err)
	}
	return fd, nil
}

// Start starts path with argv on the descriptors fds (standard input,
// output and error of the child), in dir with env (nil: this process's).
func Start(path string, argv []string, fds [3]int, dir string, env []string) (int, error) {
	if env == nil {
		env = os.Environ()
	}
	attr := &syscall.ProcAttr{Dir: dir, Env: env, Files: []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])}}
	pid, err := syscall.ForkExec(path, argv, attr)
	if err != nil {
		return -1, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return pid, nil
}

// Reap collects pid's exit without blocking: done is false while it
// runs; code is its exit status, or minus the signal that killed it (as
// asyncio's returncode).
func Reap(pid int) (done bool, code int, err error) {
	var ws unix.WaitStatus
	for {
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return false, 0, os.NewSyscallError("wait4", err)
		case got == 0:
			return false, 0, nil
		case ws.Signaled():
			return true, -int(ws.Signal()), nil
		}
		return true, ws.ExitStatus(), nil
	}
}

// WaitBlocking collects pid's exit, waiting for it: what Close does after
// killing a child, so that none is left a zombie.
func WaitBlocking(pid int) {
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
			return
		}
	}
}

// Signal sends sig to process pid; a process already gone is no error.
func Signal(pid int, sig syscall.Signal) error {
	if err := unix.Kill(pid, sig); err != nil && err != unix.ESRCH {
		return os.NewSyscallError("kill", err)
	}
	return nil
}

// Close closes fd.
func Close(fd int) { unix.Close(fd) }

// Read and Write are the pipes' non-blocking I/O; they return
// unix.EAGAIN (unwrapped) when the pipe is not ready.
func Read(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Read(fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil && err != unix.EAGAIN {
			return 0, os.NewSyscallError("read", err)
		}
		return max(n, 0), err
	}
}

// Write writes to the non-blocking pipe fd.
func Write(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Write(fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil && err != unix.EAGAIN {
			return 0, os.NewSyscallError("write", err)
		}
		return max(n, 0), err
	}
}

// IsAgain reports whether err means "not ready".
func IsAgain(err error) bool { return err == unix.EAGAIN }
