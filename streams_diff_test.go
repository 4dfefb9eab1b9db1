package loopbench_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/conform/asyncdiff"
)

// TestStreamsDifferential runs the stream and subprocess scenarios of
// internal/conform/asyncdiff/streams.py under CPython's asyncio and on every
// variant, over real sockets and pipes, and requires the same trace of
// results and exception classes. Python 3.11 has no readuntil with
// several separators: ReadUntil's is checked against 3.13's documented
// behaviour in the streams suite instead (ReadUntilSeparators).
func TestStreamsDifferential(t *testing.T) {
	if _, err := os.Stat(asyncdiff.Python); err != nil {
		t.Skipf("no %s (Debian: apt install python3): the streams differential check against asyncio is skipped", asyncdiff.Python)
	}
	if len(streamScenarios) != len(asyncdiff.StreamScenarios) {
		t.Fatalf("%d Go scenarios for %d in streams.py", len(streamScenarios), len(asyncdiff.StreamScenarios))
	}
	want, err := asyncdiff.RunStreamScenarios(asyncdiff.Python, asyncdiff.StreamScenarios)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			for i, name := range asyncdiff.StreamScenarios {
				got := runStreamScenario(t, cfg, name, streamScenarios[name])
				if d := asyncdiff.Diff(want[i], got); d != "" {
					t.Errorf("%s: %s\nasyncio   %q\nloopbench %q", name, d, want[i], got)
				}
			}
		})
	}
}

// streamTrace is a scenario's trace, entries formatted as streams.py
// formats them.
type streamTrace struct{ entries []string }

func (tr *streamTrace) add(format string, args ...any) {
	tr.entries = append(tr.entries, fmt.Sprintf(format, args...))
}

// bytes records data read under label, or the error as asyncio's
// exception. io.EOF is asyncio's b"": loopbench's Read returns it at the
// end of the stream where asyncio returns no bytes.
func (tr *streamTrace) bytes(label string, data []byte, err error) {
	switch {
	case errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		tr.add("%s ", label)
	case err != nil:
		tr.add("%s %s", label, asyncioException(err))
	default:
		tr.add("%s %s", label, data)
	}
}

// value records a result (an int, or None for nil) or an error.
func (tr *streamTrace) value(label string, v any, err error) {
	switch {
	case err != nil:
		tr.add("%s %s", label, asyncioException(err))
	case v == nil:
		tr.add("%s None", label)
	default:
		tr.add("%s %v", label, v)
	}
}

// readLine is asyncio's readline: where loopbench's ReadLine returns the
// *LimitOverrunError of a line over the limit, asyncio raises ValueError
// with its message (see the package doc).
func (tr *streamTrace) readLine(tk *loopbench.Task, r *loopbench.StreamReader) {
	line, err := r.ReadLine(tk)
	if _, over := errors.AsType[*loopbench.LimitOverrunError](err); over {
		tr.add("readline ValueError")
		return
	}
	tr.bytes("readline", line, err)
}

// asyncioException names err as the asyncio exception it stands for,
// with the fields streams.py records.
func asyncioException(err error) string {
	if inc, ok := errors.AsType[*loopbench.IncompleteReadError](err); ok {
		exp := "None"
		if inc.Expected >= 0 {
			exp = fmt.Sprint(inc.Expected)
		}
		return fmt.Sprintf("IncompleteReadError partial=%s expected=%s", inc.Partial, exp)
	}
	if over, ok := errors.AsType[*loopbench.LimitOverrunError](err); ok {
		return fmt.Sprintf("LimitOverrunError consumed=%d", over.Consumed)
	}
	switch {
	case errors.Is(err, syscall.EPIPE): // a lost connection's too
		return "BrokenPipeError"
	case errors.Is(err, loopbench.ErrConnectionLost), errors.Is(err, syscall.ECONNRESET):
		return "ConnectionResetError"
	case errors.Is(err, loopbench.ErrReadInProgress):
		return "RuntimeError"
	case errors.Is(err, loopbench.ErrTransportClosed):
		// Write after WriteEOF: asyncio raises RuntimeError.
		return "RuntimeError"
	case errors.Is(err, loopbench.ErrTimeout):
		return "TimeoutError"
	}
	return fmt.Sprintf("unmapped error %T: %v", err, err)
}

// pyBool formats b as Python prints a bool.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// runStreamScenario runs one scenario on a new loop of cfg and returns
// its trace. A scenario still running after a minute is stopped (its
// task with the loop, which Close stops) and fails the test.
func runStreamScenario(t *testing.T, cfg loopbench.Config, name string, fn streamScenario) []string {
	l, err := loopbench.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tr := &streamTrace{}
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) { return nil, fn(tk, l, tr) })
	deadline := time.AfterFunc(time.Minute, func() { l.CallSoonThreadsafe(l.Stop) })
	defer deadline.Stop()
	if _, err := l.RunUntilComplete(task); err != nil {
		t.Errorf("%s on %v: %v", name, cfg, err)
	}
	return slices.Clip(tr.entries)
}
