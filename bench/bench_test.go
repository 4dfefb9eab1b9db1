package bench_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/echo"
	"github.com/loopbench/loopbench/selectors"
)

// TestMain prints the custom units' metadata ahead of benchmark results, so
// benchstat knows which direction is better.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		bench.WriteUnits(os.Stdout)
	}
	os.Exit(m.Run())
}

// run runs a sub-benchmark whose setup (a loop with 10⁶ timers, 10⁴
// socketpairs, dialled connections) is made once, on its first run, and
// shared by the runs the benchmark framework makes with growing b.N; the
// cleanup setup returns runs after the last one.
func run(b *testing.B, name string, setup func(b *testing.B) (func(), error), body func(b *testing.B)) {
	var cleanup func()
	b.Run(name, func(b *testing.B) {
		if cleanup == nil {
			c, err := setup(b)
			if err != nil {
				if errors.Is(err, bench.ErrFdLimit) || errors.Is(err, selectors.ErrFdTooLarge) {
					b.Skip(err)
				}
				b.Fatal(err)
			}
			cleanup = c
		}
		b.ReportAllocs()
		body(b)
	})
	if cleanup != nil {
		cleanup()
	}
}

// newLoop is a setup step: a loop for cfg, closed by the cleanup.
func newLoop(cfg loopbench.Config, l **loopbench.Loop) (func(), error) {
	var err error
	*l, err = loopbench.New(cfg)
	if err != nil {
		return nil, err
	}
	return func() { (*l).Close() }, nil
}

func check(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCallSoon: callbacks queued 1000 per iteration (mode=batch) and
// one in flight (mode=chain) on every variant; a bare slice of funcs
// (impl=slice) and a chan func() consumed by one goroutine (impl=chan) as
// baselines.
func BenchmarkCallSoon(b *testing.B) {
	const batch = 1000
	for _, cfg := range loopbench.Variants() {
		var l *loopbench.Loop
		setup := func(*testing.B) (func(), error) { return newLoop(cfg, &l) }
		run(b, fmt.Sprintf("%v/mode=batch/batch=%d", cfg, batch), setup, func(b *testing.B) {
			check(b, bench.CallSoonBatch(b, l, b.N, batch))
		})
		run(b, fmt.Sprintf("%v/mode=chain", cfg), setup, func(b *testing.B) {
			check(b, bench.CallSoonChain(b, l, b.N))
		})
	}
	b.Run(fmt.Sprintf("impl=slice/mode=batch/batch=%d", batch), func(b *testing.B) {
		b.ReportAllocs()
		bench.SliceBatch(b, b.N, batch)
	})
	b.Run(fmt.Sprintf("impl=chan/mode=batch/batch=%d", batch), func(b *testing.B) {
		b.ReportAllocs()
		bench.ChanBatch(b, b.N, batch)
	})
}

// BenchmarkReadyQueue: the bare ready queues, pushed and popped as the
// loop does, 1000 at a time: the per-callback difference between them is
// what CallSoon's batch mode shows through the loop.
func BenchmarkReadyQueue(b *testing.B) {
	const batch = 1000
	b.Run(fmt.Sprintf("ready=ringbuffer/batch=%d", batch), func(b *testing.B) {
		b.ReportAllocs()
		bench.RingBurst(b, b.N, batch)
	})
	b.Run(fmt.Sprintf("ready=deque/batch=%d", batch), func(b *testing.B) {
		b.ReportAllocs()
		bench.DequeBurst(b, b.N, batch)
	})
}

// timerPending are the sizes of the pending-timer sweep.
var timerPending = []int{1_000, 100_000, 1_000_000}

// BenchmarkTimers: with p timers pending, schedule+fire, schedule+cancel
// and a churn of mostly cancelled timeouts, for each heap in eager and lazy
// cancel mode; time.AfterFunc as the baseline.
func BenchmarkTimers(b *testing.B) {
	for _, p := range timerPending {
		for _, timers := range []string{"heap4ary", "heap2ary"} {
			for _, mode := range []string{"eager", "lazy"} {
				cfg := loopbench.Config{Timers: timers, TimerCancel: mode}
				var l *loopbench.Loop
				var hs []loopbench.TimerHandle
				setup := func(*testing.B) (func(), error) {
					cleanup, err := newLoop(cfg, &l)
					if err == nil {
						hs = bench.FillTimers(l, p)
					}
					return cleanup, err
				}
				run(b, fmt.Sprintf("%v/op=schedule-fire/p=%d", cfg, p), setup, func(b *testing.B) {
					check(b, bench.TimerScheduleFire(b, l, b.N))
				})
				run(b, fmt.Sprintf("%v/op=schedule-cancel/p=%d", cfg, p), setup, func(b *testing.B) {
					check(b, bench.TimerScheduleCancel(b, l, b.N))
				})
				run(b, fmt.Sprintf("%v/op=churn/p=%d", cfg, p), setup, func(b *testing.B) {
					check(b, bench.TimerChurn(b, l, b.N, hs))
				})
			}
		}
		benchAfterFunc(b, p)
	}
}

func benchAfterFunc(b *testing.B, p int) {
	var ts []*time.Timer
	setup := func(*testing.B) (func(), error) {
		var stop func()
		ts, stop = bench.FillAfterFuncs(p)
		return stop, nil
	}
	run(b, fmt.Sprintf("impl=afterfunc/op=schedule-fire/p=%d", p), setup, func(b *testing.B) {
		bench.AfterFuncScheduleFire(b, b.N)
	})
	run(b, fmt.Sprintf("impl=afterfunc/op=schedule-cancel/p=%d", p), setup, func(b *testing.B) {
		bench.AfterFuncScheduleCancel(b, b.N)
	})
	run(b, fmt.Sprintf("impl=afterfunc/op=churn/p=%d", p), setup, func(b *testing.B) {
		bench.AfterFuncChurn(b, b.N, ts)
	})
}

// BenchmarkIOChain: libevent's bench.c, p socketpairs and a active chains
// of one-byte writes, for each selector; us/write is the figure.
func BenchmarkIOChain(b *testing.B) {
	for _, sel := range selectors.Names() {
		for _, p := range []int{100, 1000, 9990} {
			cfg := loopbench.Config{Selector: sel}
			var l *loopbench.Loop
			var chain *bench.IOChain
			setup := func(*testing.B) (func(), error) {
				closeLoop, err := newLoop(cfg, &l)
				if err != nil {
					return nil, err
				}
				if chain, err = bench.NewIOChain(l, p); err != nil {
					closeLoop()
					return nil, err
				}
				return func() { chain.Close(); closeLoop() }, nil
			}
			for _, a := range []int{1, 100} {
				run(b, fmt.Sprintf("%v/p=%d/a=%d", cfg, p, a), setup, func(b *testing.B) {
					check(b, chain.Run(b, a, b.N))
				})
			}
		}
	}
}

// BenchmarkEcho: 1 KiB round trips over loopback TCP with 1 and 10
// connections, protocol-style and task-style servers on each selector, and
// gonet (goroutine-per-connection on net) as the baseline.
func BenchmarkEcho(b *testing.B) {
	const size = 1 << 10
	for _, conns := range []int{1, 10} {
		for _, sel := range selectors.Names() {
			for _, style := range []string{"protocol", "task"} {
				cfg := loopbench.Config{Selector: sel}
				var l *loopbench.Loop
				var clients *bench.EchoClients
				setup := func(*testing.B) (func(), error) {
					closeLoop, err := newLoop(cfg, &l)
					if err != nil {
						return nil, err
					}
					addr, err := bench.EchoServer(l, style)
					if err == nil {
						clients, err = bench.DialEcho(addr, conns, size)
					}
					if err != nil {
						closeLoop()
						return nil, err
					}
					return func() { clients.Close(); closeLoop() }, nil
				}
				run(b, fmt.Sprintf("%v/style=%s/size=%d/conns=%d", cfg, style, size, conns), setup, func(b *testing.B) {
					check(b, clients.Run(b, b.N, bench.ServeOn(l)))
				})
			}
		}
		var clients *bench.EchoClients
		setup := func(*testing.B) (func(), error) {
			g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, err
			}
			if clients, err = bench.DialEcho(g.Addr().String(), conns, size); err != nil {
				g.Close()
				return nil, err
			}
			return func() { clients.Close(); g.Close() }, nil
		}
		run(b, fmt.Sprintf("impl=gonet/size=%d/conns=%d", size, conns), setup, func(b *testing.B) {
			check(b, clients.Run(b, b.N, bench.ServeGoroutines))
		})
	}
}

// BenchmarkAwait: the task await round trip, the sleep(0) round trip and
// task spawn+finish, 100 tasks at a time, for each ready queue; goroutines
// and channels (impl=goroutine) as the baseline.
func BenchmarkAwait(b *testing.B) {
	const tasks = 100
	for _, ready := range []string{"ringbuffer", "deque"} {
		cfg := loopbench.Config{Ready: ready}
		var l *loopbench.Loop
		setup := func(*testing.B) (func(), error) { return newLoop(cfg, &l) }
		run(b, fmt.Sprintf("%v/op=await/tasks=%d", cfg, tasks), setup, func(b *testing.B) {
			check(b, bench.Await(b, l, tasks, b.N))
		})
		run(b, fmt.Sprintf("%v/op=sleep0/tasks=%d", cfg, tasks), setup, func(b *testing.B) {
			check(b, bench.Sleep0(b, l, tasks, b.N))
		})
		run(b, fmt.Sprintf("%v/op=spawn/batch=%d", cfg, tasks), setup, func(b *testing.B) {
			check(b, bench.Spawn(b, l, b.N, tasks))
		})
	}
	b.Run(fmt.Sprintf("impl=goroutine/op=await/tasks=%d", tasks), func(b *testing.B) {
		b.ReportAllocs()
		bench.GoroutineAwait(b, tasks, b.N)
	})
	b.Run(fmt.Sprintf("impl=goroutine/op=spawn/batch=%d", tasks), func(b *testing.B) {
		b.ReportAllocs()
		bench.GoroutineSpawn(b, b.N, tasks)
	})
}
