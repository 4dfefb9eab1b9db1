package loopbench

import (
	"errors"
	"log/slog"
	"syscall"
	"testing"
	"time"
)

// TestSigchldFallback: where no pidfd can be had, the loop reaps its
// children on SIGCHLD: exits are seen, with their codes.
func TestSigchldFallback(t *testing.T) {
	eachConfig(t, func(t *testing.T, l *Loop, _ *recordingSelector) {
		l.c.forceSigchld = true
		var waits []*Future
		for _, code := range []string{"0", "5"} {
			v, err := l.RunUntilComplete(l.SubprocessExec(func() SubprocessProtocol { return SubprocessProtocolBase{} },
				[]string{"sh", "-c", "exit " + code}, ProcessOptions{Stdin: DevNull, Stdout: DevNull, Stderr: DevNull}))
			if err != nil {
				t.Fatal(err)
			}
			tr := v.(*SubprocessTransport)
			if tr.pidfd >= 0 {
				t.Fatal("a pidfd with the fallback forced")
			}
			waits = append(waits, tr.Wait())
		}
		stop := time.AfterFunc(30*time.Second, func() { l.CallSoonThreadsafe(l.Stop) })
		defer stop.Stop()
		v, err := l.RunUntilComplete(Gather(l, waits[0], waits[1]))
		if err != nil {
			t.Fatal(err)
		}
		if codes := v.([]any); codes[0] != 0 || codes[1] != 5 {
			t.Fatalf("exit codes %v, want 0 and 5", codes)
		}
	})
}

// TestCloseReapsChildren: Close kills and reaps a child still running:
// no zombie is left, in either exit watch.
func TestCloseReapsChildren(t *testing.T) {
	for _, sigchld := range []bool{false, true} {
		l, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		l.c.forceSigchld = sigchld
		v, err := l.RunUntilComplete(l.SubprocessExec(func() SubprocessProtocol { return SubprocessProtocolBase{} },
			[]string{"sleep", "60"}, ProcessOptions{Stdin: Pipe, Stdout: Pipe, Stderr: DevNull}))
		if err != nil {
			t.Fatal(err)
		}
		pid := v.(*SubprocessTransport).Pid()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("sigchld %v: child %d still exists after Close (kill 0: %v)", sigchld, pid, err)
		}
	}
}

// TestSigchldReapFailed: the SIGCHLD watch reports a child reaped
// elsewhere as the pidfd watch does: return code 255, Wait fails with
// ECHILD.
func TestSigchldReapFailed(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.c.forceSigchld = true
	l.SetLogger(slog.New(slog.DiscardHandler))
	v, err := l.RunUntilComplete(l.SubprocessExec(func() SubprocessProtocol { return SubprocessProtocolBase{} },
		[]string{"sleep", "60"}, ProcessOptions{Stdin: DevNull, Stdout: DevNull, Stderr: DevNull}))
	if err != nil {
		t.Fatal(err)
	}
	tr := v.(*SubprocessTransport)
	syscall.Kill(tr.Pid(), syscall.SIGTERM)
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(tr.Pid(), &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(30*time.Second, func() { l.CallSoonThreadsafe(l.Stop) })
	defer stop.Stop()
	_, err = l.RunUntilComplete(tr.Wait())
	if code, ok := tr.ReturnCode(); code != 255 || !ok || !errors.Is(err, syscall.ECHILD) {
		t.Fatalf("Wait = %v, ReturnCode = %d, %v; want ECHILD and 255", err, code, ok)
	}
}
