// Package loopbench is Python asyncio's event loop rebuilt in Go as several
// complete loops with interchangeable parts, so that the parts can be
// measured against each other on one API.
//
// A loop is a FIFO ready queue of callbacks (asyncio's _ready), a queue of
// timers (_scheduled, a heap in asyncio), a selector (_selector), and an
// iteration that ties them together exactly as asyncio's _run_once does.
// Every combination of
//
//	ready queue  ringbuffer (default), deque            impl/ringbuffer, impl/deque
//	timer queue  heap4ary (default), heap2ary, wheel    impl/heap4ary, impl/heap2ary, impl/wheel
//	selector     epoll (default), uring, poll, select   selectors
//
// is a working loop; Variants lists them and Config.String names them
// ("ready=ringbuffer/timers=heap4ary/selector=epoll"), which is also the
// sub-benchmark name, so benchstat can pivot on /ready, /timers or /selector.
//
// # The iteration
//
// Each iteration: (1) in lazy-cancel mode, drops cancelled timers (all of
// them, rebuilding the timer queue, when more than 100 are scheduled and
// more than half are cancelled; otherwise the cancelled ones at the head); (2) picks
// the select timeout: 0 when callbacks are ready or Stop was called, else
// the time to the earliest timer capped at 24 h, else block; (3) selects,
// then queues what other goroutines passed to CallSoonThreadsafe, then the
// callbacks of ready fds (with timeout 0 and no fd watched there is
// nothing a selector could report, so no system call is made: the
// thread-safe queue is read by its flag, and its wakeup fd is drained by
// the next blocking select); (4) queues every timer that is due, in
// deadline order, equal deadlines in scheduling order (asyncio leaves
// their order undefined); (5) runs exactly the callbacks queued now,
// skipping cancelled ones; what they schedule runs next iteration.
//
// The select timeout is kept to the nanosecond where the system can wait
// that finely (epoll_pwait2, io_uring_enter, ppoll, kqueue; select in
// microseconds) and
// rounded up where it cannot, never down: a 200 µs timer fires near
// 200 µs, not after a millisecond as in asyncio, libuv and libev, whose
// selectors wait in whole milliseconds, and the iteration that wakes finds
// it due (a timer is due before now plus the clock's resolution, 1 ns, as
// in asyncio's _run_once). See package selectors.
//
// asyncio appends a call_soon_threadsafe callback to _ready when it is
// made. For a call made while the loop waits in select, the case the call
// is for, that is the order above: before the fds' callbacks and the
// timers. A call made while callbacks run (or from the loop's own
// goroutine) is taken at the start of the next iteration's step 3, so it
// runs after every CallSoon callback queued before then, where asyncio's
// would run among them in the order of the calls: the ready queue has no
// lock, so another goroutine cannot append to it.
//
// The ready queue holds the CallSoon callbacks themselves. The callbacks of
// steps 3 and 4 are queued only between select and dispatch, so in
// asyncio's _ready they always follow the CallSoon callbacks the iteration
// started with; they wait in a list of their own and run right after
// those, which is the same order.
//
// # Checked against asyncio
//
// TestAsyncioDifferential (internal/asyncdiff) replays 200 seeded random
// schedules (call_soon, call_later and call_at with equal and negative
// delays, cancels, stop in callbacks, call_soon_threadsafe from another
// thread, a reader and a writer on a socketpair, futures' done callbacks,
// tasks awaiting futures and tasks and being cancelled, sleep(0)) under
// CPython's asyncio and on every variant, and requires the same order of
// callbacks. The loop clock is driven so that real time does not matter,
// and thread-safe calls come while the loop waits in select. Two orders
// differ from asyncio's, by choice: equal deadlines run in scheduling
// order (asyncio's heap leaves them undefined; the check imposes this
// order on asyncio), and a thread-safe call made while callbacks run is
// queued as described above.
//
// TestCoordinationDifferential does the same for the coordination
// primitives: 200 seeded schedules of tasks that acquire, release, wait,
// notify, set, clear, put and get, over Lock, Semaphore,
// BoundedSemaphore, Event, Condition, the three queues, Barrier,
// TaskGroup, WithTimeout, WaitFor, Wait and Shield, and cancel each other
// or are cancelled by timers at random points, must give the same trace
// of who got what, in which order, with which exception. The behaviour
// followed is Python 3.13's; on an older Python the check imposes it
// where it differs: Condition's Wait passes on a notification when
// cancelled; a Semaphore waiter leaving wakes as many as there are
// permits; a timeout ends in TimeoutError unless the task has more
// cancellations than when it entered; WaitFor waits in the awaiting task,
// as wait_for since 3.12; Uncancel bringing the count to zero withdraws a
// cancellation not delivered yet; a task group withdraws the cancellation
// a failing task requested of its task, and delivers again one the group
// swallowed. One order differs from asyncio's, by choice: a task group
// cancels its tasks in the order they were created (asyncio's follow the
// order of a set; the check imposes creation order on asyncio). Barrier's
// Abort and Reset take effect at once, where asyncio's are coroutines
// that first take the barrier's lock; no schedule has told the two apart.
// Semaphore's Value counts a permit promised to a woken waiter that has
// not run as not taken; asyncio's _value leaves it out.
//
// # Ownership and errors
//
// A Loop belongs to the goroutine that runs it. Only CallSoonThreadsafe,
// TryCallSoonThreadsafe, IsRunning, IsClosed and Cancel of a handle they
// return may be used from other goroutines; to stop a loop from
// elsewhere, pass its Stop to CallSoonThreadsafe.
// A panic in a callback is recovered and given to the exception handler with
// the callback's handle, and the loop goes on.
//
// After Close, the calls that return an error (RunForever, AddReader, ...)
// return ErrClosed, RemoveReader and RemoveWriter return false, and the
// scheduling calls that return a handle or a future (CallSoon, CallLater,
// CallAt, CallSoonThreadsafe, CreateFuture, CreateTask, RunInExecutor)
// panic with an error wrapping ErrClosed, as sending on a closed channel
// does. A goroutine that may race with Close uses TryCallSoonThreadsafe,
// which returns that error instead. RunUntilComplete is refused like any
// run (ErrClosed on a closed loop, ErrRunning inside a running one) and
// then leaves nothing scheduled, also for a future already done.
//
// A cancelled future or task fails with a *CancelledError, which carries
// the cancel message and which errors.Is matches to both ErrCancelled and
// context.Canceled.
//
// # Methods and functions
//
// The split is asyncio's. What asyncio has on the event loop is a method
// of *Loop (CallSoon, CreateServer, SockRecv, RunInExecutor, GetAddrInfo,
// ShutdownDefaultExecutor); what asyncio has on an object is a method of
// its Go type (Future.Cancel, Task.Cancel, StreamReader.ReadLine,
// Lock.Acquire, Queue.Get, Process.Wait). asyncio's module functions and
// classes are package functions (Gather, Sleep, WaitFor, Wait, Shield,
// WithTimeout, WithTaskGroup, OpenConnection, StartServer,
// CreateSubprocessExec, NewStreamReader, NewLock, NewQueue, Run). A call
// that suspends (a coroutine in asyncio) has one of two shapes: the loop
// and the low-level objects it hands out (servers, transports) return a
// *Future that any task can await, as asyncio's loop coroutines are
// awaited; everything else takes the awaiting *Task first and returns the
// result. A package function that does not suspend takes the *Loop when
// it needs one (Gather, Shield, StartServer). Task.Await is Python's await
// expression. The Go additions follow the same rule (AwaitValue,
// GatherValues, AwaitContext); Task.Sleep and Loop.NewStreamReader remain
// as deprecated spellings of Sleep and NewStreamReader.
//
// # Streams and subprocesses against asyncio
//
// TestStreamsDifferential runs scripted scenarios (partial reads,
// readuntil across chunks and past the limit, readexactly at the end,
// drain under a peer that does not read, write EOF, a kill with the pipes
// open, communicate after the exit, a pipe's limit, a second reader, a
// drain that the child's exit breaks) under CPython's asyncio and on every
// variant, over real sockets and pipes, and requires the same results and
// exception classes. Where loopbench differs, it is by choice, and the
// check maps one to the other:
//
//   - Read at the end of the stream returns io.EOF where asyncio returns
//     b"", on which a Go read loop would spin.
//   - ReadLine of a line over the limit drops it as asyncio does but
//     returns the *LimitOverrunError, which keeps Consumed, where asyncio
//     raises ValueError with its message.
//   - Errors are returned, not raised, each standing for asyncio's
//     exception: a Write after WriteEOF returns ErrTransportClosed
//     (RuntimeError), Drain on a connection already lost
//     ErrConnectionLost (ConnectionResetError), a second reader
//     ErrReadInProgress (RuntimeError), a broken pipe or a reset an
//     error that matches both ErrConnectionLost and syscall.EPIPE
//     (BrokenPipeError) or ECONNRESET (ConnectionResetError), as both
//     are asyncio's ConnectionError.
//   - A stream whose connection broke (SetException) still gives what
//     it had buffered, then the error, where asyncio raises at once and
//     the data is lost (a reset peer: asyncio's read raises
//     ConnectionResetError, loopbench's returns the bytes received
//     before the reset first).
//   - Communicate drains and closes stdin also without input, as asyncio
//     does since Python 3.12 (3.11 leaves it open when input is None).
//   - StreamWriter.CanWriteEOF is true with TLS too: there WriteEOF sends
//     close_notify and reading goes on, where asyncio's SSL transport
//     cannot write EOF.
//
// ReadUntil with several separators is Python 3.13's readuntil with a
// tuple, which older Pythons lack: the streams suite checks it against
// 3.13's documented behaviour (the match that ends first wins).
//
// # Typed results
//
// A future's result is an any, as the loop's machinery needs it: Gather,
// Wait and AsCompleted mix futures of different types, and every done
// callback takes a *Future. There is no Future[T]: Go methods cannot have
// type parameters, so the calls whose result type the caller chooses
// (RunInExecutor, RunUntilComplete, Task.Await) could not be typed as
// methods, and a typed twin of Future and of every call that returns one
// would double the API for the sake of one type assertion. The type is
// named where the value is taken instead: AwaitValue[T] and
// GatherValues[T] return T, or an error naming the type the result had
// rather than a failed assertion's panic.
//
// # Handles
//
// # TLS
//
// WithTLS puts crypto/tls between a transport and its protocol, in the
// loop's goroutine, as asyncio's sslproto does: CreateServer,
// CreateConnection, StartServer and OpenConnection take it (with
// WithServerName, WithHandshakeTimeout and WithShutdownTimeout, asyncio's
// server_hostname, ssl_handshake_timeout and ssl_shutdown_timeout), and
// Loop.StartTLS and StreamWriter.StartTLS upgrade a plain connection. The
// handshake runs on a helper goroutine (crypto/tls's handshake cannot
// stop half-way), at most SetTLSHandshakeWorkers of them at once; an open
// TLS connection has none.
//
// Handles are 16-byte values and scheduling a prebuilt func allocates
// nothing. CallSoon puts fn itself in the ready queue, and its handle names
// fn's 62-bit position there, which is never reused; timer and I/O handles name a slot
// of a loop-local free list and its generation, and a slot whose
// generation would wrap is retired. So Cancel is idempotent and a stale
// handle never cancels the callback that reuses its slot.
package loopbench

//go:generate go run ./internal/gen
