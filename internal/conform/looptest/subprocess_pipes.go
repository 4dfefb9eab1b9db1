package looptest

import (
	"bytes"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// testCommunicateAfterExit: Communicate with input to a child that has
// exited returns its output and no error, as asyncio's communicate, whose
// stdin feeder ignores BrokenPipeError and ConnectionResetError. The input
// is more than a pipe holds.
func testCommunicateAfterExit(t *testing.T, l *loopbench.Loop) {
	input := bytes.Repeat([]byte("x"), 1<<20)
	runTask(t, l, func(tk *loopbench.Task) error {
		for _, argv := range [][]string{{"sh", "-c", "echo gone"}, {"sh", "-c", "exec 0<&-; echo stdin closed; sleep 0.2"}} {
			p, err := loopbench.CreateSubprocessExec(tk, argv, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
			if err != nil {
				return err
			}
			first, err := p.Stdout.ReadLine(tk) // the child wrote this after it closed or let go of stdin
			if err != nil {
				return err
			}
			if argv[2] == "echo gone" {
				if _, err := p.Wait(tk); err != nil {
					return err
				}
			}
			out, errOut, err := p.Communicate(tk, input)
			code, _ := p.ReturnCode()
			if err != nil || len(out) != 0 || errOut != nil || code != 0 || len(first) == 0 {
				return errorf("%q: Communicate after stdin closed = %q, %q, %v; exit %d; want no output left and no error", argv, out, errOut, err, code)
			}
		}
		return nil
	})
}

// testCommunicateChildExitsEarly: a child that exits before it has read
// all its input breaks the pipe while Communicate drains it; Communicate
// still returns the output and no error.
func testCommunicateChildExitsEarly(t *testing.T, l *loopbench.Loop) {
	input := bytes.Repeat([]byte("y"), 1<<20)
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"head", "-c", "10"}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
		if err != nil {
			return err
		}
		out, _, err := p.Communicate(tk, input)
		code, _ := p.ReturnCode()
		if err != nil || string(out) != "yyyyyyyyyy" || code != 0 {
			return errorf("head -c 10 of 1 MiB: Communicate = %q, %v; exit %d", out, err, code)
		}
		return nil
	})
}

// testKillClosesStdin: a killed child's pipes, stdin included, are closed
// by the loop, so the protocol's ConnectionLost comes after the exit and
// no fd stays open (CPython's test_subprocess_kill): the loop watches the
// stdin pipe for its read end closing.
func testKillClosesStdin(t *testing.T, l *loopbench.Loop) {
	before := openFds(t)
	o := &orderProtocol{done: l.CreateFuture()}
	v, err := complete(t, l, l.SubprocessExec(func() loopbench.SubprocessProtocol { return o }, []string{"sleep", "30"}, loopbench.ProcessOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	tr := v.(*loopbench.SubprocessTransport)
	if err := tr.Kill(); err != nil {
		t.Fatal(err)
	}
	runTask(t, l, func(tk *loopbench.Task) error {
		if _, err := loopbench.WaitFor(tk, o.done, 10*time.Second); err != nil {
			return errorf("ConnectionLost after a kill with stdin open: %v; calls %q", err, o.calls)
		}
		return nil
	})
	if code, ok := tr.ReturnCode(); !ok || code != -int(syscall.SIGKILL) {
		t.Fatalf("return code %d, %v; want -9", code, ok)
	}
	for _, call := range []string{"pipe 0 lost", "pipe 1 lost", "pipe 2 lost", "exited"} {
		if !slices.Contains(o.calls, call) {
			t.Fatalf("calls %q, want %q among them", o.calls, call)
		}
	}
	if !tr.PipeTransport(0).IsClosing() {
		t.Fatal("stdin pipe not closing after ConnectionLost")
	}
	if after := openFds(t); after != before {
		t.Fatalf("%d fds open after the killed child's ConnectionLost, %d before", after, before)
	}
}

// testProcessKillStdin: with the stream API, Kill then Wait leaves the
// child's stdin closed by the loop, and stdout read to its end.
func testProcessKillStdin(t *testing.T, l *loopbench.Loop) {
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"cat"}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
		if err != nil {
			return err
		}
		if !p.Stdin.CanWriteEOF() {
			return errorf("a child's stdin: CanWriteEOF false")
		}
		p.Kill()
		if code, err := p.Wait(tk); code != -int(syscall.SIGKILL) || err != nil {
			return errorf("killed cat: exit %d (%v)", code, err)
		}
		if out, err := p.Stdout.Read(tk, -1); len(out) != 0 || err != nil {
			return errorf("killed cat's stdout: %q, %v", out, err)
		}
		closed := l.CreateTask(func(tk *loopbench.Task) (any, error) { return nil, p.Stdin.WaitClosed(tk) })
		if _, err := loopbench.WaitFor(tk, closed, 10*time.Second); err != nil || !p.Stdin.IsClosing() {
			return errorf("killed cat's stdin: WaitClosed %v, closing %v", err, p.Stdin.IsClosing())
		}
		return nil
	})
}

// testSubprocessLimit: ProcessOptions.Limit is the limit of the child's
// stdout and stderr streams (asyncio's limit=); SubprocessExec takes none.
func testSubprocessLimit(t *testing.T, l *loopbench.Loop) {
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"printf", "0123456789abcdef;"}, loopbench.ProcessOptions{Stdout: loopbench.Pipe, Limit: 8})
		if err != nil {
			return err
		}
		if _, err := p.Stdout.ReadUntil(tk, []byte(";")); !isLimitOverrun(err, 16) {
			return errorf("ReadUntil past a limit of 8: %v, want a LimitOverrunError at 16", err)
		}
		if _, _, err := p.Communicate(tk, nil); err != nil {
			return err
		}
		if _, err := loopbench.CreateSubprocessExec(tk, []string{"true"}, loopbench.ProcessOptions{Limit: -1}); err == nil {
			return errorf("Limit -1: no error")
		}
		_, err = tk.Await(l.SubprocessExec(func() loopbench.SubprocessProtocol { return &loopbench.SubprocessProtocolBase{} }, []string{"true"}, loopbench.ProcessOptions{Limit: 8}))
		if err == nil {
			return errorf("SubprocessExec with a Limit: no error")
		}
		return nil
	})
}
