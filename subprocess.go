package loopbench

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/loopbench/loopbench/internal/sys/proc"
)

// Redirect says what a child's standard stream is connected to.
type Redirect int

const (
	// Default is the call's own default: Pipe for SubprocessExec, Inherit
	// for CreateSubprocessExec, as in asyncio.
	Default Redirect = iota
	// Pipe connects the stream to a pipe of the loop's.
	Pipe
	// DevNull connects it to /dev/null.
	DevNull
	// Inherit leaves it this process's.
	Inherit
	// Stdout sends stderr where stdout goes (for Stderr only).
	Stdout
)

// ProcessOptions are how a child is started.
type ProcessOptions struct {
	Stdin, Stdout, Stderr Redirect
	Dir                   string   // working directory; "" is this process's
	Env                   []string // environment; nil is this process's
	// Limit is the buffer limit of the StreamReaders CreateSubprocessExec
	// makes for stdout and stderr, asyncio's limit=; 0 is
	// DefaultStreamLimit. SubprocessExec has no streams and takes none.
	Limit int
}

// SubprocessProtocol receives a child's output and life: asyncio's
// SubprocessProtocol. The transport calls its methods on the loop's
// goroutine.
type SubprocessProtocol interface {
	// ConnectionMade is called once the child is started.
	ConnectionMade(t *SubprocessTransport)
	// PipeDataReceived is called with what the child wrote to its stdout
	// (fd 1) or stderr (fd 2); data is valid only during the call.
	PipeDataReceived(fd int, data []byte)
	// PipeConnectionLost is called when one of the child's pipes closes.
	PipeConnectionLost(fd int, err error)
	// ProcessExited is called when the child exits.
	ProcessExited()
	// ConnectionLost is called last, once the child exited and every pipe
	// closed.
	ConnectionLost(err error)
}

// SubprocessProtocolBase implements every SubprocessProtocol method as a
// no-op. Embed it and override what you need.
type SubprocessProtocolBase struct{}

// ConnectionMade does nothing.
func (SubprocessProtocolBase) ConnectionMade(*SubprocessTransport) {}

// PipeDataReceived does nothing.
func (SubprocessProtocolBase) PipeDataReceived(int, []byte) {}

// PipeConnectionLost does nothing.
func (SubprocessProtocolBase) PipeConnectionLost(int, error) {}

// ProcessExited does nothing.
func (SubprocessProtocolBase) ProcessExited() {}

// ConnectionLost does nothing.
func (SubprocessProtocolBase) ConnectionLost(error) {}

// SubprocessTransport is a child process driven by the loop: asyncio's
// subprocess transport. Its exit is seen through a pidfd the selector
// watches (a SIGCHLD watcher where the system has none), never by a
// goroutine blocked in wait; the child is reaped as it exits. Its methods
// are for the loop's goroutine.
type SubprocessTransport struct {
	loop     *Loop
	pid      int
	proto    SubprocessProtocol
	pipes    [3]*PipeTransport
	open     int // pipes not yet lost
	pidfd    int
	exited   bool // reaped
	reported bool // ProcessExited called
	code     int
	reapErr  error // the child exited but could not be reaped: its status is lost
	finished bool
	closed   bool
	exitWait []*Future
}

// lostReturnCode is the return code of a child whose exit could not be
// reaped (something else in the process collected it): asyncio's 255.
const lostReturnCode = 255

// SubprocessExec starts argv[0] (looked up in PATH unless it holds a
// slash) with arguments argv, its standard streams as opts says (pipes by
// default), and returns a future whose result is the *SubprocessTransport;
// protocol comes from factory. A missing executable fails the future and
// leaves nothing open.
func (l *Loop) SubprocessExec(factory func() SubprocessProtocol, argv []string, opts ProcessOptions) *Future {
	f := l.CreateFuture()
	if opts.Limit != 0 {
		f.SetException(errors.New("loopbench: ProcessOptions.Limit is CreateSubprocessExec's: SubprocessExec has no streams"))
		return f
	}
	t, err := l.spawn(factory(), argv, opts, Pipe)
	if err != nil {
		f.SetException(err)
		return f
	}
	f.SetResult(t)
	return f
}

// spawn starts the child and sets up its pipes and exit watch.
func (l *Loop) spawn(proto SubprocessProtocol, argv []string, opts ProcessOptions, def Redirect) (*SubprocessTransport, error) {
	if l.c.closed.Load() {
		return nil, closedError("SubprocessExec")
	}
	if opts.Limit < 0 {
		return nil, fmt.Errorf("loopbench: ProcessOptions.Limit %d: want 0 (the default) or more", opts.Limit)
	}
	path, err := commandPath(argv)
	if err != nil {
		return nil, err
	}
	std, err := openStdio([3]Redirect{opts.Stdin, opts.Stdout, opts.Stderr}, def)
	if err != nil {
		return nil, err
	}
	pid, err := proc.Start(path, argv, std.child, opts.Dir, opts.Env)
	if err != nil {
		std.close()
		return nil, fmt.Errorf("loopbench: %w", err)
	}
	std.closeChildEnds()
	return l.newSubprocessTransport(pid, proto, std.parent), nil
}

// commandPath returns the executable of argv: argv[0] looked up in PATH
// unless it holds a slash.
func commandPath(argv []string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("loopbench: SubprocessExec with no command")
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("loopbench: %w", err)
		}
		path = p
	}
	return path, nil
}

// stdio is a child's standard streams as they are set up: the fds the
// child gets, the parent's ends of its pipes (-1 where there is none),
// and the fds opened for the child alone (its pipe ends and /dev/null),
// which the parent closes once the child has started.
type stdio struct {
	child, parent [3]int
	childOnly     []int
}

// openStdio opens the child's standard streams as red says (def where it
// says Default). On error it closes what it opened.
func openStdio(red [3]Redirect, def Redirect) (*stdio, error) {
	s := &stdio{parent: [3]int{-1, -1, -1}}
	for i, r := range red {
		if r == Default {
			r = def
		}
		if err := s.open(i, r); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// open sets up the child's standard stream i as r says.
func (s *stdio) open(i int, r Redirect) error {
	switch r {
	case Pipe:
		p, c, err := proc.Pipe(i != 0)
		if err != nil {
			return err
		}
		s.parent[i], s.child[i] = p, c
		s.childOnly = append(s.childOnly, c)
	case DevNull:
		fd, err := proc.DevNull()
		if err != nil {
			return err
		}
		s.child[i] = fd
		s.childOnly = append(s.childOnly, fd)
	case Inherit:
		s.child[i] = i
	case Stdout:
		if i != 2 {
			return fmt.Errorf("loopbench: Stdout is a redirect for Stderr only")
		}
		s.child[i] = s.child[1]
	default:
		return fmt.Errorf("loopbench: unknown redirect %d", r)
	}
	return nil
}

// closeChildEnds closes the fds opened for the child alone, once it has
// them.
func (s *stdio) closeChildEnds() {
	for _, fd := range s.childOnly {
		proc.Close(fd)
	}
}

// close closes every fd opened: the child did not start.
func (s *stdio) close() {
	s.closeChildEnds()
	for _, fd := range s.parent {
		if fd >= 0 {
			proc.Close(fd)
		}
	}
}

// newSubprocessTransport makes the transport of the child pid, with pipe
// transports on the parent's ends of its pipes (-1: none), and starts
// watching its exit; ConnectionMade and reading follow on the next
// iteration.
func (l *Loop) newSubprocessTransport(pid int, proto SubprocessProtocol, parent [3]int) *SubprocessTransport {
	t := &SubprocessTransport{loop: l, pid: pid, proto: proto, pidfd: -1}
	for i, fd := range parent {
		if fd >= 0 {
			t.pipes[i] = newPipeTransport(t.loop, t, fd, i, i == 0)
			t.open++
		}
	}
	l.c.children().running[t] = struct{}{}
	t.watchExit()
	l.CallSoon(func() {
		proto.ConnectionMade(t)
		for _, p := range t.pipes {
			if p != nil {
				p.startReading()
			}
		}
	})
	return t
}

// watchExit watches for the child's exit with a pidfd, or with the
// loop's SIGCHLD watcher when there is none.
func (t *SubprocessTransport) watchExit() {
	if !t.loop.c.forceSigchld {
		if fd, err := proc.PidFD(t.pid); err == nil {
			t.pidfd = fd
			if err := t.loop.AddReader(fd, t.exitReady); err == nil {
				return
			}
			proc.Close(fd)
			t.pidfd = -1
		}
	}
	c := t.loop.c
	c.children().watch.start(c, c.reapChildren)
}

// exitReady reaps the child once its pidfd says it exited.
func (t *SubprocessTransport) exitReady() { t.reap() }

// reap collects the child's exit if it has exited. When it cannot be
// reaped (wait4 fails: another part of the process collected it), its
// status is lost: the return code is lostReturnCode, as asyncio reports,
// Wait fails with the reason, and the loop's logger warns.
func (t *SubprocessTransport) reap() {
	done, code, err := proc.Reap(t.pid)
	if err != nil {
		t.reapErr = fmt.Errorf("loopbench: child %d exited but could not be reaped, its status is lost (return code %d): %w", t.pid, lostReturnCode, err)
		t.loop.c.logger.Warn(t.reapErr.Error())
		t.processExited(lostReturnCode)
		return
	}
	if done {
		t.processExited(code)
	}
}

// processExited records the exit, tells the protocol and the waiters,
// and finishes once the pipes are closed too.
func (t *SubprocessTransport) processExited(code int) {
	if t.exited {
		return
	}
	t.exited, t.code = true, code
	if t.pidfd >= 0 {
		t.loop.RemoveReader(t.pidfd)
		proc.Close(t.pidfd)
		t.pidfd = -1
	}
	t.loop.CallSoon(func() {
		t.reported = true
		t.proto.ProcessExited()
		for _, w := range t.exitWait {
			t.completeWait(w)
		}
		t.exitWait = nil
		t.tryFinish()
	})
}

// pipeData hands what the child wrote on stdFd to the protocol.
func (t *SubprocessTransport) pipeData(stdFd int, data []byte) {
	t.proto.PipeDataReceived(stdFd, data)
}

func (t *SubprocessTransport) pipeLost(p *PipeTransport, err error) {
	t.open--
	t.proto.PipeConnectionLost(p.stdFd, err)
	t.tryFinish()
}

func (t *SubprocessTransport) tryFinish() {
	if t.finished || !t.reported || t.open > 0 {
		return
	}
	t.finished = true
	delete(t.loop.c.children().running, t)
	t.proto.ConnectionLost(nil)
}

// Pid returns the child's process id.
func (t *SubprocessTransport) Pid() int { return t.pid }

// ReturnCode returns the child's exit status, or minus the signal that
// killed it (as asyncio's returncode); ok is false while it runs. A child
// whose exit could not be reaped has lostReturnCode, 255, as in asyncio.
func (t *SubprocessTransport) ReturnCode() (code int, ok bool) { return t.code, t.exited }

// PipeTransport returns the pipe of the child's standard stream fd (0, 1
// or 2), or nil when that stream is not a pipe.
func (t *SubprocessTransport) PipeTransport(fd int) *PipeTransport {
	if fd < 0 || fd > 2 {
		return nil
	}
	return t.pipes[fd]
}

// Wait returns a future completed with the exit status (an int) once the
// child exits; it fails when the exit could not be reaped (see
// ReturnCode).
func (t *SubprocessTransport) Wait() *Future {
	f := t.loop.CreateFuture()
	if t.exited {
		t.completeWait(f)
		return f
	}
	t.exitWait = append(t.exitWait, f)
	return f
}

func (t *SubprocessTransport) completeWait(f *Future) {
	if t.reapErr != nil {
		f.SetException(t.reapErr)
		return
	}
	f.SetResult(t.code)
}

// SendSignal sends sig to the child; a child that already exited is no
// error.
func (t *SubprocessTransport) SendSignal(sig syscall.Signal) error {
	if t.exited {
		return nil
	}
	return proc.Signal(t.pid, sig)
}

// Terminate sends SIGTERM to the child.
func (t *SubprocessTransport) Terminate() error { return t.SendSignal(syscall.SIGTERM) }

// Kill sends SIGKILL to the child.
func (t *SubprocessTransport) Kill() error { return t.SendSignal(syscall.SIGKILL) }

// Close closes the child's pipes and kills it if it still runs, as
// asyncio's close does; the exit is still reaped and reported.
func (t *SubprocessTransport) Close() {
	if t.closed {
		return
	}
	t.closed = true
	for _, p := range t.pipes {
		if p != nil {
			p.lost(nil)
		}
	}
	if !t.exited {
		t.Kill()
	}
}

// childSet is the loop's part that holds its children, running or not
// yet reported, and its SIGCHLD watch where there is one.
type childSet struct {
	running map[*SubprocessTransport]struct{}
	watch   sigchld
}

// children is the loop's set of children.
func (c *core) children() *childSet { return c.parts[partChildren].(*childSet) }

// reapChildren reaps every child of the loop that exited and has no pidfd.
func (c *core) reapChildren() {
	for t := range c.children().running {
		if !t.exited && t.pidfd < 0 {
			t.reap()
		}
	}
}

// closePart kills and reaps every child still running and closes what
// they hold, at the loop's Close: no zombie, no fd is left.
func (s *childSet) closePart() {
	for t := range s.running {
		for _, p := range t.pipes {
			if p != nil && !p.closed {
				p.closed = true
				proc.Close(p.fd)
			}
		}
		if !t.exited {
			proc.Signal(t.pid, syscall.SIGKILL)
			proc.WaitBlocking(t.pid)
			t.exited = true
		}
		if t.pidfd >= 0 {
			proc.Close(t.pidfd)
		}
	}
	s.running = nil
	s.watch.stop()
}
