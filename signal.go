package loopbench

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signalHandlers are a loop's signal handlers. Each signal has a channel
// os/signal relays it to and a goroutine that passes it to the loop with
// CallSoonThreadsafe, where the handler runs, in an iteration. asyncio
// wakes its loop through a self-pipe the C handler writes; here the Go
// runtime's handler feeds os/signal, and the loop's own wakeup fd does the
// rest. (A signalfd would need the signal blocked in every thread of the
// process, which the Go runtime does not allow: a process-directed signal
// goes to its handler, never to the signalfd. See the Signal workload.)
type signalHandlers struct {
	mu   sync.Mutex
	byID map[syscall.Signal]*sigWatch
}

// sigWatch relays one signal. fn is read and written on the loop's
// goroutine only.
type sigWatch struct {
	fn   func()
	ch   chan os.Signal
	done chan struct{}
	wg   sync.WaitGroup
}

// AddSignalHandler runs fn on the loop, in an iteration, each time the
// process receives sig: asyncio's add_signal_handler. A second handler
// for the same signal replaces the first. SIGKILL, SIGSTOP and signals
// that are not a syscall.Signal of this system are errors. Signals that
// arrive together each run their handler; the system merges repeats of
// one signal that arrive before the first is handled.
func (l *Loop) AddSignalHandler(sig os.Signal, fn func()) error {
	s, err := checkSignal(sig)
	if err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("loopbench: AddSignalHandler(%v, nil)", sig)
	}
	if l.c.closed.Load() {
		return closedError("AddSignalHandler")
	}
	h := l.c.signals()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID == nil {
		h.byID = map[syscall.Signal]*sigWatch{}
	}
	if w := h.byID[s]; w != nil {
		w.fn = fn
		return nil
	}
	w := &sigWatch{fn: fn, ch: make(chan os.Signal, 8), done: make(chan struct{})}
	h.byID[s] = w
	signal.Notify(w.ch, s)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-w.ch:
				l.c.tryCallSoonThreadsafe(func() { l.runSignal(s, w) })
			case <-w.done:
				return
			}
		}
	}()
	return nil
}

// runSignal runs the handler of s, unless it was removed since.
func (l *Loop) runSignal(s syscall.Signal, w *sigWatch) {
	h := l.c.signals()
	h.mu.Lock()
	current := h.byID[s] == w
	h.mu.Unlock()
	if current {
		w.fn()
	}
}

// RemoveSignalHandler removes the handler of sig and restores Go's
// handling of it (the default action, unless something else in the
// process asked os/signal for it); true only if there was a handler.
func (l *Loop) RemoveSignalHandler(sig os.Signal) bool {
	s, err := checkSignal(sig)
	if err != nil {
		return false
	}
	h := l.c.signals()
	h.mu.Lock()
	w := h.byID[s]
	delete(h.byID, s)
	h.mu.Unlock()
	if w == nil {
		return false
	}
	w.stop()
	return true
}

func (w *sigWatch) stop() {
	signal.Stop(w.ch)
	close(w.done)
	w.wg.Wait()
}

// signals is the loop's part that holds its signal handlers.
func (c *core) signals() *signalHandlers { return c.parts[partSignals].(*signalHandlers) }

// closePart removes every handler, at Close.
func (h *signalHandlers) closePart() {
	h.mu.Lock()
	ws := h.byID
	h.byID = nil
	h.mu.Unlock()
	for _, w := range ws {
		w.stop()
	}
}

// checkSignal accepts the signals a handler may be added for.
func checkSignal(sig os.Signal) (syscall.Signal, error) {
	s, ok := sig.(syscall.Signal)
	switch {
	case !ok:
		return 0, fmt.Errorf("loopbench: signal %v (%T) is not a syscall.Signal", sig, sig)
	case s == syscall.SIGKILL || s == syscall.SIGSTOP:
		return 0, fmt.Errorf("loopbench: signal %v cannot be caught", s)
	case s <= 0 || s >= maxSignal:
		return 0, fmt.Errorf("loopbench: invalid signal number %d", int(s))
	}
	return s, nil
}

// maxSignal bounds the signal numbers of the systems loopbench runs on
// (Linux has 64, the BSDs and macOS fewer).
const maxSignal = 65
