package bench

import (
	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/sock"
)

var nop = func() {}

// CallSoonBatch isolates CallSoon and dispatch: batch callbacks (a prebuilt
// func) are queued per iteration and run in the next one, so the
// iteration's own cost is spread over the batch.
func CallSoonBatch(t Timer, l *loopbench.Loop, n, batch int) error {
	return drive(t, l, n, batch, func(k int) {
		for range k {
			l.CallSoon(nop)
		}
	})
}

// CallSoonChain isolates the loop iteration: one callback in flight, each
// scheduling the next, so every callback costs a whole iteration with its
// select(0). One idle socket is watched, as asyncio's self-pipe always is:
// a loop that watches no fd makes no select(0) call at all.
func CallSoonChain(t Timer, l *loopbench.Loop, n int) error {
	a, b, err := sock.Socketpair()
	if err != nil {
		return err
	}
	defer sock.Close(a)
	defer sock.Close(b)
	if err := l.AddReader(a, nop); err != nil {
		return err
	}
	defer l.RemoveReader(a)
	left := n
	var next func()
	next = func() {
		if left--; left > 0 {
			l.CallSoon(next)
		} else {
			l.Stop()
		}
	}
	l.CallSoon(next)
	t.ResetTimer()
	err = l.RunForever()
	t.StopTimer()
	return err
}

// CallSoonInflight is callbacks re-posting themselves: w callbacks in
// flight, each scheduling itself again with CallSoon when it runs
// (asyncio's call_soon(self.cb) from the callback), n callbacks in all, so
// every iteration runs the w. The shape the peer programs run.
func CallSoonInflight(t Timer, l *loopbench.Loop, n, w int) error {
	left, done := n, false
	var cb func()
	cb = func() {
		if done {
			return
		}
		if left--; left <= 0 {
			done = true
			l.Stop()
			return
		}
		l.CallSoon(cb)
	}
	for range min(w, n) {
		l.CallSoon(cb)
	}
	t.ResetTimer()
	err := l.RunForever()
	t.StopTimer()
	return err
}

// SliceBatch is the floor of CallSoonBatch: the same callbacks appended to
// a slice of funcs and drained, batch at a time, with no loop.
func SliceBatch(t Timer, n, batch int) {
	fns := make([]func(), 0, batch)
	t.ResetTimer()
	for i := 0; i < n; i += batch {
		for range min(batch, n-i) {
			fns = append(fns, nop)
		}
		for _, f := range fns {
			f()
		}
		clear(fns)
		fns = fns[:0]
	}
	t.StopTimer()
}

// ChanBatch is the goroutine baseline of CallSoonBatch, impl=chan-pipeline:
// the callbacks are sent on a chan func() with room for batch that another
// goroutine consumes. It is a two-goroutine pipeline (producer and
// consumer run in parallel on two CPUs), not one thread's queue: its
// per-callback figure is a channel send and receive overlapped, not a
// loop's dispatch.
func ChanBatch(t Timer, n, batch int) {
	ch := make(chan func(), batch)
	done := make(chan struct{})
	go func() {
		for f := range ch {
			f()
		}
		close(done)
	}()
	t.ResetTimer()
	for range n {
		ch <- nop
	}
	close(ch)
	<-done
	t.StopTimer()
}
