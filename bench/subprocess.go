package bench

import (
	"os/exec"

	"github.com/loopbench/loopbench"
)

// spawnArgv is the child of the Subprocess workload: it exits at once.
var spawnArgv = []string{"true"}

// SubprocessSpawnWait starts a child and waits for its exit, n times in a
// task, its streams on /dev/null: the loop's pipes, pidfd and reaping.
func SubprocessSpawnWait(t Timer, l *loopbench.Loop, n int) error {
	quiet := loopbench.ProcessOptions{Stdin: loopbench.DevNull, Stdout: loopbench.DevNull, Stderr: loopbench.DevNull}
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) {
		for range n {
			p, err := loopbench.CreateSubprocessExec(tk, spawnArgv, quiet)
			if err != nil {
				return nil, err
			}
			if _, err := p.Wait(tk); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	t.ResetTimer()
	_, err := l.RunUntilComplete(task)
	t.StopTimer()
	return err
}

// OSExecSpawnWait is the baseline: os/exec's Cmd.Run, a goroutine's
// blocking wait.
func OSExecSpawnWait(t Timer, n int) error {
	t.ResetTimer()
	for range n {
		if err := exec.Command(spawnArgv[0]).Run(); err != nil {
			return err
		}
	}
	t.StopTimer()
	return nil
}
