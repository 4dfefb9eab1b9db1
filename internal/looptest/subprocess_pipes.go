package looptest

import (
	"bytes"
	"testing"

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
