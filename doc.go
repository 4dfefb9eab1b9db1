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
//	selector     epoll (default), poll, select          selectors
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
// the time to the earliest timer capped at 24 h, else block; (3) selects and
// queues the callbacks of ready fds, then what other goroutines passed to
// CallSoonThreadsafe (with timeout 0 and no fd watched there is nothing a
// selector could report, so no system call is made: the thread-safe queue
// is read by its flag, and its wakeup fd is drained by the next blocking
// select); (4) queues every timer that is due, in deadline order,
// equal deadlines in scheduling order; (5) runs exactly the callbacks queued
// now, skipping cancelled ones; what they schedule runs next iteration.
//
// The ready queue holds the CallSoon callbacks themselves. The callbacks of
// steps 3 and 4 are queued only between select and dispatch, so in
// asyncio's _ready they always follow the CallSoon callbacks the iteration
// started with; they wait in a list of their own and run right after
// those, which is the same order.
//
// # Ownership and errors
//
// A Loop belongs to the goroutine that runs it. Only CallSoonThreadsafe,
// IsRunning, IsClosed and Cancel of a handle returned by CallSoonThreadsafe
// may be used from other goroutines; to stop a loop from elsewhere, pass
// its Stop to CallSoonThreadsafe.
// A panic in a callback is recovered and given to the exception handler with
// the callback's handle, and the loop goes on.
//
// After Close, the calls that return an error (RunForever, AddReader, ...)
// return ErrClosed, RemoveReader and RemoveWriter return false, and the
// scheduling calls that return a handle or a future (CallSoon, CallLater,
// CallAt, CallSoonThreadsafe, CreateFuture, CreateTask, RunInExecutor)
// panic with an error wrapping ErrClosed, as sending on a closed channel
// does.
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
