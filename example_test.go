package loopbench_test

import (
	"fmt"
	"time"

	"github.com/loopbench/loopbench"
)

// A loop runs callbacks in FIFO order, timers in deadline order, and stops
// after the iteration in which Stop is called.
func Example() {
	l, err := loopbench.New(loopbench.Config{}) // the default variant
	if err != nil {
		panic(err)
	}
	defer l.Close()
	l.CallLater(2*time.Millisecond, func() { fmt.Println("timer 2ms"); l.Stop() })
	l.CallLater(time.Millisecond, func() { fmt.Println("timer 1ms") })
	l.CallSoon(func() { fmt.Println("soon 1") })
	l.CallSoon(func() { fmt.Println("soon 2") })
	if err := l.RunForever(); err != nil {
		panic(err)
	}
	// Output:
	// soon 1
	// soon 2
	// timer 1ms
	// timer 2ms
}

// RunUntilComplete runs the loop until a future is done.
func ExampleLoop_RunUntilComplete() {
	l, _ := loopbench.New(loopbench.Config{Ready: "deque", Selector: "poll"})
	defer l.Close()
	f := l.CreateFuture()
	l.CallLater(time.Millisecond, func() { f.SetResult("done") })
	v, err := l.RunUntilComplete(f)
	fmt.Println(v, err)
	// Output: done <nil>
}

// Another goroutine hands work to a running loop with CallSoonThreadsafe,
// which wakes the loop from its blocking select.
func ExampleLoop_CallSoonThreadsafe() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	go l.CallSoonThreadsafe(func() {
		fmt.Println("from another goroutine")
		l.Stop()
	})
	l.RunForever()
	// Output: from another goroutine
}

// Variant names are what benchmarks and the CLI print.
func ExampleParseVariant() {
	cfg, err := loopbench.ParseVariant("ready=deque/selector=poll")
	fmt.Println(cfg, err)
	_, err = loopbench.ParseVariant("ready=list")
	fmt.Println(err)
	// Output:
	// ready=deque/timers=heap4ary/selector=poll <nil>
	// variant "ready=list": loopbench: unknown ready queue "list" (valid: ringbuffer, deque)
}
