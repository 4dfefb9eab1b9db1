package looptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// RunSubprocess runs the subprocess suite on cfg.
func RunSubprocess(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"EchoOutput", testEchoOutput},
		{"StdinToEOF", testCatStdin},
		{"LargeOutputSlowReader", testLargeOutput},
		{"ExitCodes", testExitCodes},
		{"KilledBySignal", testKilled},
		{"MissingExecutable", testMissingExecutable},
		{"HundredChildren", testHundredChildren},
		{"ProtocolOrder", testSubprocessOrder},
		{"Shell", testShell},
		{"ReapFailed", testReapFailed},
		{"CommunicateAfterExit", testCommunicateAfterExit},
		{"CommunicateChildExitsEarly", testCommunicateChildExitsEarly},
		{"KillClosesStdin", testKillClosesStdin},
		{"ProcessKillClosesStdin", testProcessKillStdin},
		{"Limit", testSubprocessLimit},
	})
}

// testReapFailed: a child that something else in the process reaps first
// (here the test itself, after a SIGTERM) has lost its status: the return
// code is asyncio's 255, not an invented one, Wait says why, and the
// loop's logger warns.
func testReapFailed(t *testing.T, l *loopbench.Loop) {
	var log bytes.Buffer
	l.SetLogger(slog.New(slog.NewTextHandler(&log, nil)))
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"sleep", "30"}, loopbench.ProcessOptions{})
		if err != nil {
			return err
		}
		if err := syscall.Kill(p.Pid(), syscall.SIGTERM); err != nil {
			return err
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(p.Pid(), &ws, 0, nil); err != nil {
			return err
		}
		code, err := p.Wait(tk)
		if rc, ok := p.ReturnCode(); code != 255 || rc != 255 || !ok || !errors.Is(err, syscall.ECHILD) {
			return errorf("a child reaped elsewhere: Wait = %d, %v; ReturnCode = %d, %v; want 255 and ECHILD", code, err, rc, ok)
		}
		return nil
	})
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "could not be reaped") {
		t.Fatalf("log %q, want a warning", log.String())
	}
}

func testEchoOutput(t *testing.T, l *loopbench.Loop) {
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"echo", "hello", "world"}, loopbench.ProcessOptions{Stdout: loopbench.Pipe})
		if err != nil {
			return err
		}
		out, _, err := p.Communicate(tk, nil)
		code, _ := p.ReturnCode()
		if err != nil || string(out) != "hello world\n" || code != 0 {
			return errorf("echo: %q, exit %d, %v", out, code, err)
		}
		return nil
	})
}

func testCatStdin(t *testing.T, l *loopbench.Loop) {
	input := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB: more than a pipe holds
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"cat"}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
		if err != nil {
			return err
		}
		out, _, err := p.Communicate(tk, input)
		if err != nil || !bytes.Equal(out, input) {
			return errorf("cat: %d bytes back of %d, %v", len(out), len(input), err)
		}
		return nil
	})
}

// testLargeOutput: 8 MiB through a pipe to a slow reader: the stream
// pauses the pipe while its buffer is over twice its limit (the child
// blocks), and every byte arrives.
func testLargeOutput(t *testing.T, l *loopbench.Loop) {
	const total = 8 << 20
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"head", "-c", fmt.Sprint(total), "/dev/zero"}, loopbench.ProcessOptions{Stdout: loopbench.Pipe})
		if err != nil {
			return err
		}
		got, pausedSeen := 0, false
		for i := 0; ; i++ {
			if i%8 == 0 {
				if err := loopbench.Sleep(tk, time.Millisecond); err != nil { // a slow reader
					return err
				}
			}
			if pipe := p.Transport().PipeTransport(1); !pipe.IsReading() && !pipe.IsClosing() {
				pausedSeen = true
			}
			data, err := p.Stdout.Read(tk, 16<<10)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			got += len(data)
		}
		code, err := p.Wait(tk)
		if got != total || code != 0 || err != nil || !pausedSeen {
			return errorf("read %d of %d bytes, exit %d (%v); the pipe was paused: %v", got, total, code, err, pausedSeen)
		}
		return nil
	})
}

func testExitCodes(t *testing.T, l *loopbench.Loop) {
	runTask(t, l, func(tk *loopbench.Task) error {
		for _, c := range []struct {
			argv []string
			want int
		}{{[]string{"true"}, 0}, {[]string{"sh", "-c", "exit 3"}, 3}} {
			p, err := loopbench.CreateSubprocessExec(tk, c.argv, loopbench.ProcessOptions{})
			if err != nil {
				return err
			}
			if code, err := p.Wait(tk); code != c.want || err != nil {
				return errorf("%q: exit %d (%v), want %d", c.argv, code, err, c.want)
			}
		}
		return nil
	})
}

func testKilled(t *testing.T, l *loopbench.Loop) {
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"sleep", "30"}, loopbench.ProcessOptions{})
		if err != nil {
			return err
		}
		if _, ok := p.ReturnCode(); ok {
			return errorf("a running child has a return code")
		}
		p.Kill()
		if code, err := p.Wait(tk); code != -int(syscall.SIGKILL) || err != nil {
			return errorf("killed: exit %d (%v), want -9", code, err)
		}
		return nil
	})
}

func testMissingExecutable(t *testing.T, l *loopbench.Loop) {
	before := openFds(t)
	runTask(t, l, func(tk *loopbench.Task) error {
		_, err := loopbench.CreateSubprocessExec(tk, []string{"no-such-program-loopbench"}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe, Stderr: loopbench.Pipe})
		if err == nil || !strings.Contains(err.Error(), "no-such-program-loopbench") {
			return errorf("missing executable: %v", err)
		}
		_, err = loopbench.CreateSubprocessExec(tk, []string{"/no/such/path"}, loopbench.ProcessOptions{Stdout: loopbench.Pipe})
		if !errors.Is(err, os.ErrNotExist) {
			return errorf("missing path: %v", err)
		}
		return nil
	})
	if after := openFds(t); after != before {
		t.Fatalf("%d fds open after, %d before", after, before)
	}
}

func testHundredChildren(t *testing.T, l *loopbench.Loop) {
	before := openFds(t)
	runTask(t, l, func(tk *loopbench.Task) error {
		var ps []*loopbench.Process
		for i := range 100 {
			p, err := loopbench.CreateSubprocessExec(tk, []string{"sh", "-c", fmt.Sprintf("echo %d; exit %d", i, i%7)}, loopbench.ProcessOptions{Stdout: loopbench.Pipe})
			if err != nil {
				return err
			}
			ps = append(ps, p)
		}
		for i, p := range ps {
			out, _, err := p.Communicate(tk, nil)
			code, _ := p.ReturnCode()
			if err != nil || string(out) != fmt.Sprintf("%d\n", i) || code != i%7 {
				return errorf("child %d: %q, exit %d, %v", i, out, code, err)
			}
		}
		return nil
	})
	if after := openFds(t); after != before {
		t.Fatalf("%d fds open after 100 children, %d before", after, before)
	}
}

// orderProtocol records the calls a subprocess transport makes.
type orderProtocol struct {
	loopbench.SubprocessProtocolBase
	calls []string
	out   []byte
	done  *loopbench.Future
}

func (o *orderProtocol) ConnectionMade(*loopbench.SubprocessTransport) {
	o.calls = append(o.calls, "made")
}
func (o *orderProtocol) PipeDataReceived(fd int, data []byte) { o.out = append(o.out, data...) }
func (o *orderProtocol) PipeConnectionLost(fd int, err error) {
	o.calls = append(o.calls, fmt.Sprintf("pipe %d lost", fd))
}
func (o *orderProtocol) ProcessExited() { o.calls = append(o.calls, "exited") }
func (o *orderProtocol) ConnectionLost(err error) {
	o.calls = append(o.calls, "lost")
	o.done.SetResult(nil)
}

// testSubprocessOrder: the low-level API calls ConnectionMade first and
// ConnectionLost last, after the exit and every pipe.
func testSubprocessOrder(t *testing.T, l *loopbench.Loop) {
	o := &orderProtocol{done: l.CreateFuture()}
	v, err := complete(t, l, l.SubprocessExec(func() loopbench.SubprocessProtocol { return o }, []string{"sh", "-c", "echo out; echo err >&2"}, loopbench.ProcessOptions{Stdin: loopbench.DevNull}))
	if err != nil {
		t.Fatal(err)
	}
	tr := v.(*loopbench.SubprocessTransport)
	if tr.PipeTransport(0) != nil || tr.PipeTransport(1) == nil || tr.PipeTransport(2) == nil {
		t.Fatal("pipes: stdin is /dev/null, stdout and stderr pipes by default")
	}
	if _, err := complete(t, l, o.done); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(o.calls, ", ")
	if !strings.HasPrefix(got, "made, ") || !strings.HasSuffix(got, ", lost") || !strings.Contains(got, "exited") ||
		!strings.Contains(got, "pipe 1 lost") || !strings.Contains(got, "pipe 2 lost") || len(o.calls) != 5 {
		t.Fatalf("calls: %s", got)
	}
	if string(o.out) != "out\nerr\n" && string(o.out) != "err\nout\n" {
		t.Fatalf("output %q", o.out)
	}
}

func testShell(t *testing.T, l *loopbench.Loop) {
	runTask(t, l, func(tk *loopbench.Task) error {
		p, err := loopbench.CreateSubprocessShell(tk, "echo to-err >&2; echo to-out", loopbench.ProcessOptions{Stdout: loopbench.Pipe, Stderr: loopbench.Stdout})
		if err != nil {
			return err
		}
		out, errOut, err := p.Communicate(tk, nil)
		if err != nil || string(out) != "to-err\nto-out\n" || errOut != nil {
			return errorf("shell with stderr into stdout: %q %q %v", out, errOut, err)
		}
		return nil
	})
}
