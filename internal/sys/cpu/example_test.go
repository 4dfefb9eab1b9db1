package cpu_test

import (
	"fmt"
	"runtime"

	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// A loop thread that must wake on time locks itself to its OS thread and
// lowers that thread's timer slack before it starts waiting.
func ExampleLowerTimerSlack() {
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // the slack is the thread's; the thread ends with the goroutine
		done <- cpu.LowerTimerSlack()
	}()
	fmt.Println(<-done)
	// Output: <nil>
}
