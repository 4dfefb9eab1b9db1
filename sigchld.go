package loopbench

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// sigchld is a loop's watch for children's exits where no pidfd can be
// had: os/signal relays SIGCHLD, and the loop reaps each of its children
// that exited, without blocking (asyncio's ThreadedChildWatcher waits in a
// thread per child instead; the loop keeps none).
type sigchld struct {
	mu   sync.Mutex
	ch   chan os.Signal
	done chan struct{}
	wg   sync.WaitGroup
}

// start starts the watch, once: on each SIGCHLD, and once at the start,
// loop c calls reap.
func (s *sigchld) start(c *core, reap func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		return
	}
	ch, done := make(chan os.Signal, 1), make(chan struct{})
	s.ch, s.done = ch, done
	signal.Notify(ch, syscall.SIGCHLD)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-ch:
				c.tryCallSoonThreadsafe(reap)
			case <-done:
				return
			}
		}
	}()
	// A child may have exited before the watch began.
	c.tryCallSoonThreadsafe(reap)
}

// stop ends the watch, at Close.
func (s *sigchld) stop() {
	s.mu.Lock()
	ch, done := s.ch, s.done
	s.ch = nil
	s.mu.Unlock()
	if ch == nil {
		return
	}
	signal.Stop(ch)
	close(done)
	s.wg.Wait()
}
