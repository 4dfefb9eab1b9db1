package loopbench_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
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
	now := l.Time()
	l.CallAt(now+2*time.Millisecond, func() { fmt.Println("timer 2ms"); l.Stop() })
	l.CallAt(now+time.Millisecond, func() { fmt.Println("timer 1ms") })
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
	// loopbench: variant "ready=list": unknown ready queue "list" (valid: ringbuffer, deque)
}

// A task awaits a sleep and a gather of two other tasks; Run is
// asyncio.run: it creates the loop, runs the task and closes the loop.
func ExampleRun() {
	v, err := loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		l := t.Loop()
		if err := loopbench.Sleep(t, time.Millisecond); err != nil {
			return nil, err
		}
		square := func(n int) *loopbench.Task {
			return l.CreateTask(func(t *loopbench.Task) (any, error) {
				loopbench.Sleep(t, 0) // yield one iteration
				return n * n, nil
			})
		}
		return t.Await(loopbench.Gather(l, square(3), square(4)))
	})
	fmt.Println(v, err)
	// Output: [9 16] <nil>
}

// Cancelling a task cancels the future it awaits; the task may handle the
// cancellation and return normally.
func ExampleTask_Cancel() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	never := l.CreateFuture()
	task := l.CreateTask(func(t *loopbench.Task) (any, error) {
		_, err := t.Await(never)
		return "handled: " + err.Error(), nil
	})
	l.CallLater(time.Millisecond, func() { task.Cancel("shutting down") })
	fmt.Println(l.RunUntilComplete(task))
	// Output: handled: loopbench: cancelled: shutting down <nil>
}

// upper answers each read with its upper-case copy.
type upper struct {
	loopbench.ProtocolBase
	t *loopbench.Transport
}

func (p *upper) ConnectionMade(t *loopbench.Transport) { p.t = t }
func (p *upper) DataReceived(data []byte)              { p.t.Write(bytes.ToUpper(data)) }

// A protocol-style server: the loop calls the protocol's methods as data
// arrives; here a client on another goroutine talks to it.
func ExampleLoop_CreateServer() {
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	srv, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol { return new(upper) })
	if err != nil {
		panic(err)
	}
	go func() {
		c, _ := net.Dial("tcp", srv.Addr().String())
		c.Write([]byte("hello"))
		buf := make([]byte, 5)
		io.ReadFull(c, buf)
		c.Close()
		fmt.Println(string(buf))
		l.CallSoonThreadsafe(l.Stop)
	}()
	l.RunForever()
	// Output: HELLO
}
