// Package loopbench is Python asyncio's event loop rebuilt in Go as several
// complete loops with interchangeable parts, so that the parts can be
// measured against each other on one API.
//
// A loop is a FIFO ready queue of callbacks (asyncio's _ready), a queue of
// timers (_scheduled), a selector (_selector), and an iteration that ties
// them together as asyncio's _run_once does. Every combination of
//
//	ready queue  ringbuffer (default), deque            impl/ringbuffer, impl/deque
//	timer queue  heap4ary (default), heap2ary, wheel    impl/heap4ary, impl/heap2ary, impl/wheel
//	selector     epoll (default), uring, poll, select   selectors
//
// is a working loop. Variants lists them. Config.String names them
// ("ready=ringbuffer/timers=heap4ary/selector=epoll"), and the name is
// also the sub-benchmark name, so benchstat can pivot on /ready, /timers
// or /selector. Config.TimerCancel chooses the cancel policy of timers.
//
// # The iteration
//
// Each iteration drops cancelled timers (lazy-cancel mode only), waits in
// the selector until the earliest timer, queues thread-safe calls, ready
// fds and due timers, and runs exactly the callbacks queued at that point.
// Timers run in deadline order, equal deadlines in scheduling order.
// The select timeout is rounded up to what the system can wait, never
// down.
//
// # Ownership and errors
//
// A Loop belongs to the goroutine that runs it. Only CallSoonThreadsafe,
// TryCallSoonThreadsafe, IsRunning, IsClosed and Cancel of a handle they
// return may be used from other goroutines. To stop a loop from
// elsewhere, pass its Stop to CallSoonThreadsafe. A panic in a callback is
// recovered and given to the exception handler with the callback's
// handle, and the loop goes on.
//
// After Close, the calls that return an error (RunForever, AddReader, ...)
// return ErrClosed, and RemoveReader and RemoveWriter return false. The
// scheduling calls that return a handle or a future (CallSoon, CallLater,
// CallAt, CallSoonThreadsafe, CreateFuture, CreateTask, RunInExecutor)
// panic with an error wrapping ErrClosed, as sending on a closed channel
// does. A goroutine that may race with Close uses TryCallSoonThreadsafe,
// which returns that error instead. RunUntilComplete is refused like any
// run (ErrClosed on a closed loop, ErrRunning inside a running one) and
// then leaves nothing scheduled, also for a future already done.
//
// A cancelled future or task fails with a *CancelledError. It carries the
// cancel message, and errors.Is matches it to both ErrCancelled and
// context.Canceled.
//
// # Methods and functions
//
// The split is asyncio's. What asyncio has on the event loop is a method
// of *Loop (CallSoon, CreateServer, SockRecv). What asyncio has on an
// object is a method of its Go type (Future.Cancel, Lock.Acquire,
// Queue.Get). asyncio's module functions and classes are package
// functions (Gather, Sleep, WaitFor, OpenConnection, NewLock, Run).
//
// A call that suspends (a coroutine in asyncio) has one of two shapes. The
// loop and the low-level objects it hands out (servers, transports) return
// a *Future that any task can await. Everything else takes the awaiting
// *Task first and returns the result. SockRecvInto and SockSendAll have
// both shapes: the Loop methods return a future, and the package functions
// of the same names are asyncio's coroutines awaited where they are
// called, which make no future. A package function that does not
// suspend takes the *Loop when it needs one (Gather, Shield, StartServer).
// Task.Await is Python's await expression. The Go additions (AwaitValue,
// GatherValues, AwaitContext) follow the same rule. Task.Sleep and
// Loop.NewStreamReader remain as deprecated spellings of Sleep and
// NewStreamReader.
//
// docs/design-notes.md gives the reasons: the cancel policies, the
// iteration step by step, handles, typed results, TLS, and where the loop
// differs from asyncio by choice, as the differential tests check.
package loopbench

//go:generate go run ./internal/gen
