package loopbench

import (
	"errors"
	"syscall"
)

// Process is a child process with stream access to its pipes: asyncio's
// Process from create_subprocess_exec. Stdin, Stdout and Stderr are nil
// where the stream is not a pipe. Its methods are for the loop's
// goroutine; the waiting ones take the waiting task.
type Process struct {
	Stdin          *StreamWriter
	Stdout, Stderr *StreamReader
	t              *SubprocessTransport
}

// processProtocol feeds a Process's streams: asyncio's
// SubprocessStreamProtocol.
type processProtocol struct {
	SubprocessProtocolBase
	p *Process
}

func (pp *processProtocol) PipeDataReceived(fd int, data []byte) {
	if r := pp.reader(fd); r != nil {
		r.FeedData(data)
	}
}

func (pp *processProtocol) PipeConnectionLost(fd int, err error) {
	if r := pp.reader(fd); r != nil {
		if err != nil {
			r.SetException(err)
		} else {
			r.FeedEOF()
		}
	}
}

func (pp *processProtocol) reader(fd int) *StreamReader {
	switch fd {
	case 1:
		return pp.p.Stdout
	case 2:
		return pp.p.Stderr
	}
	return nil
}

// CreateSubprocessExec starts argv as SubprocessExec does, its standard
// streams inherited by default, and returns a Process whose piped streams
// are a StreamWriter (stdin) and StreamReaders (stdout, stderr), asyncio's
// create_subprocess_exec. A missing executable is an error.
func CreateSubprocessExec(t *Task, argv []string, opts ProcessOptions) (*Process, error) {
	l := t.fut.loop
	p := &Process{}
	pp := &processProtocol{p: p}
	st, err := l.spawn(pp, argv, opts, Inherit)
	if err != nil {
		return nil, err
	}
	p.t = st
	if w := st.pipes[0]; w != nil {
		w.flow = newFlow(l)
		p.Stdin = &StreamWriter{t: w, flow: w.flow}
	}
	for i, dst := range []**StreamReader{&p.Stdout, &p.Stderr} {
		if pipe := st.pipes[i+1]; pipe != nil {
			r := NewStreamReader(l, opts.Limit)
			r.feeder = pipe
			*dst = r
		}
	}
	return p, nil
}

// CreateSubprocessShell runs cmd with /bin/sh -c, as
// CreateSubprocessExec does: asyncio's create_subprocess_shell.
func CreateSubprocessShell(t *Task, cmd string, opts ProcessOptions) (*Process, error) {
	return CreateSubprocessExec(t, []string{"/bin/sh", "-c", cmd}, opts)
}

// Pid returns the child's process id.
func (p *Process) Pid() int { return p.t.pid }

// ReturnCode returns the exit status, or minus the signal that killed the
// child; ok is false while it runs.
func (p *Process) ReturnCode() (int, bool) { return p.t.ReturnCode() }

// Transport returns the child's SubprocessTransport.
func (p *Process) Transport() *SubprocessTransport { return p.t }

// Wait waits for the child to exit and returns its status (minus the
// signal that killed it). Waiting while the child fills a pipe nobody
// reads can wait forever, as in asyncio: use Communicate. A child whose
// exit could not be reaped returns 255, as in asyncio, with the error.
func (p *Process) Wait(t *Task) (int, error) {
	v, err := t.Await(p.t.Wait())
	if err != nil {
		if code, ok := p.t.ReturnCode(); ok {
			return code, err
		}
		return 0, err
	}
	return v.(int), nil
}

// Communicate writes input to the child's stdin and closes it, reads its
// stdout and stderr to the end, all at once (so that neither side blocks
// the other), and waits for it to exit: asyncio's communicate. It returns
// what the child wrote (nil for a stream that is not a pipe).
func (p *Process) Communicate(t *Task, input []byte) (stdout, stderr []byte, err error) {
	l := t.fut.loop
	var subs []Awaitable
	if p.Stdin != nil {
		subs = append(subs, l.CreateTask(func(t *Task) (any, error) {
			return nil, p.feedStdin(t, input)
		}))
	}
	read := func(r *StreamReader, out *[]byte) {
		if r != nil {
			subs = append(subs, l.CreateTask(func(t *Task) (any, error) {
				data, err := r.Read(t, -1)
				*out = data
				return nil, err
			}))
		}
	}
	read(p.Stdout, &stdout)
	read(p.Stderr, &stderr)
	if _, err := t.Await(Gather(l, subs...)); err != nil {
		return stdout, stderr, err
	}
	_, err = p.Wait(t)
	return stdout, stderr, err
}

// feedStdin writes input to the child's stdin, waits for it to be
// written and closes stdin: asyncio's _feed_stdin, which ignores
// BrokenPipeError and ConnectionResetError, so a child that exited or
// closed its stdin early is no error.
func (p *Process) feedStdin(t *Task, input []byte) error {
	var err error
	if len(input) > 0 {
		err = p.Stdin.Write(input)
	}
	if err == nil {
		err = p.Stdin.Drain(t)
	}
	p.Stdin.Close()
	if err != nil && !stdinGone(err) {
		return err
	}
	return nil
}

// stdinGone reports whether err says that the child's stdin is closed
// (the pipe is broken, reset, or already closed by the loop).
func stdinGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrTransportClosed)
}

// SendSignal sends sig to the child.
func (p *Process) SendSignal(sig syscall.Signal) error { return p.t.SendSignal(sig) }

// Terminate sends SIGTERM to the child.
func (p *Process) Terminate() error { return p.t.Terminate() }

// Kill sends SIGKILL to the child.
func (p *Process) Kill() error { return p.t.Kill() }
