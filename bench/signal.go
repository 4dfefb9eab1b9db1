package bench

import (
	"os"
	"syscall"

	"github.com/loopbench/loopbench"
)

// SignalNotify is a signal's delivery to a loop's handler: each operation
// sends SIGUSR1 to the process from a callback, and the loop, blocked in
// select meanwhile, wakes and runs the handler, which sends the next.
// The path: the runtime's handler, os/signal, the relaying goroutine,
// CallSoonThreadsafe, the loop's wakeup fd.
func SignalNotify(t Timer, l *loopbench.Loop, n int) error {
	left := n
	send := func() { syscall.Kill(os.Getpid(), syscall.SIGUSR1) }
	if err := l.AddSignalHandler(syscall.SIGUSR1, func() {
		if left--; left > 0 {
			l.CallSoon(send)
		} else {
			l.Stop()
		}
	}); err != nil {
		return err
	}
	defer l.RemoveSignalHandler(syscall.SIGUSR1)
	l.CallSoon(send)
	t.ResetTimer()
	err := l.RunForever()
	t.StopTimer()
	return err
}
