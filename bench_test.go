package loopbench_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/impl/deque"
	"github.com/loopbench/loopbench/impl/ringbuffer"
)

// drive runs l until b.N operations are done: each iteration, one driver
// callback calls ops(n) for a batch of up to batch operations and
// schedules itself again, so a batch costs one loop iteration and one
// select(0), as in a busy asyncio program. The timer runs only inside
// RunForever.
func drive(b *testing.B, l *loopbench.Loop, batch int, ops func(n int)) {
	left := b.N
	var driver func()
	driver = func() {
		n := min(batch, left)
		left -= n
		ops(n)
		if left > 0 {
			l.CallSoon(driver)
		} else {
			l.CallSoon(l.Stop)
		}
	}
	l.CallSoon(driver)
	b.ReportAllocs()
	b.ResetTimer()
	if err := l.RunForever(); err != nil {
		b.Fatal(err)
	}
}

func newLoop(b *testing.B, cfg loopbench.Config) *loopbench.Loop {
	l, err := loopbench.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

// BenchmarkCallSoon is the cost per callback of CallSoon plus its dispatch
// through the loop, 1000 queued per iteration, for each ready queue; and
// the same work on a bare slice of funcs (impl=slice), the floor.
func BenchmarkCallSoon(b *testing.B) {
	const batch = 1000
	fn := func() {}
	for _, ready := range []string{"ringbuffer", "deque"} {
		cfg := loopbench.Config{Ready: ready}
		b.Run(fmt.Sprintf("%v/batch=%d", cfg, batch), func(b *testing.B) {
			l := newLoop(b, cfg)
			drive(b, l, batch, func(n int) {
				for range n {
					l.CallSoon(fn)
				}
			})
		})
	}
	b.Run(fmt.Sprintf("impl=slice/batch=%d", batch), func(b *testing.B) {
		fns := make([]func(), 0, batch)
		b.ReportAllocs()
		for i := 0; i < b.N; i += batch {
			for range min(batch, b.N-i) {
				fns = append(fns, fn)
			}
			for _, f := range fns {
				f()
			}
			clear(fns)
			fns = fns[:0]
		}
	})
}

// BenchmarkReadyQueue is the cost per item of the bare ready queues,
// pushed and popped the way the loop does (TryPush, Push when it declines,
// Pop),
// 1000 per burst: the figure the loop's CallSoon difference between ready
// queues is compared with. Each queue is driven by concrete code, not
// through an interface, as in the loop.
func BenchmarkReadyQueue(b *testing.B) {
	const batch = 1000
	b.Run(fmt.Sprintf("ready=ringbuffer/batch=%d", batch), func(b *testing.B) {
		var q ringbuffer.Ring
		b.ReportAllocs()
		for i := 0; i < b.N; i += batch {
			for j := range uint32(batch) {
				if !q.TryPush(j) {
					q.Push(j)
				}
			}
			for range batch {
				q.Pop()
			}
		}
	})
	b.Run(fmt.Sprintf("ready=deque/batch=%d", batch), func(b *testing.B) {
		var q deque.Deque
		b.ReportAllocs()
		for i := 0; i < b.N; i += batch {
			for j := range uint32(batch) {
				if !q.TryPush(j) {
					q.Push(j)
				}
			}
			for range batch {
				q.Pop()
			}
		}
	})
}

// BenchmarkTimers measures CallLater(d)+Cancel with p timers pending, in
// eager and lazy cancel mode and for each heap, and time.AfterFunc+Stop
// with p AfterFuncs pending (impl=afterfunc) as the baseline.
func BenchmarkTimers(b *testing.B) {
	fn := func() {}
	for _, p := range []int{1_000, 100_000} {
		for _, timers := range []string{"heap4ary", "heap2ary"} {
			for _, mode := range []string{"eager", "lazy"} {
				cfg := loopbench.Config{Timers: timers, TimerCancel: mode}
				b.Run(fmt.Sprintf("%v/op=schedule-cancel/p=%d", cfg, p), func(b *testing.B) {
					l := newLoop(b, cfg)
					for i := range p {
						l.CallLater(time.Hour+time.Duration(i)*time.Microsecond, fn)
					}
					d := 0
					drive(b, l, 1000, func(n int) {
						for range n {
							d = (d + 7919) % p
							l.CallLater(time.Hour+time.Duration(d)*time.Microsecond, fn).Cancel()
						}
					})
				})
			}
		}
		b.Run(fmt.Sprintf("impl=afterfunc/op=schedule-cancel/p=%d", p), func(b *testing.B) {
			pending := make([]*time.Timer, p)
			for i := range pending {
				pending[i] = time.AfterFunc(time.Hour+time.Duration(i)*time.Microsecond, fn)
			}
			defer func() {
				for _, t := range pending {
					t.Stop()
				}
			}()
			d := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				d = (d + 7919) % p
				time.AfterFunc(time.Hour+time.Duration(d)*time.Microsecond, fn).Stop()
			}
		})
	}
}
