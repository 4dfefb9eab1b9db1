package bench_test

import (
	"flag"
	"os"
	"testing"

	"github.com/loopbench/loopbench/bench"
)

// matrix selects the variants: each workload on the variants that differ
// in the part it exercises (varied, the default: about a quarter of the
// cases), or every workload on every variant (all).
var matrix = flag.String("matrix", "varied", "varied or all")

// orderSeed, when set, runs each workload's cases in an order drawn from it
// (bench.Shuffle); -test.shuffle orders the workloads themselves.
var orderSeed = flag.Uint64("order-seed", 0, "run each workload's cases in an order drawn from this seed (0: the matrix's order)")

// TestMain prints the custom units' metadata ahead of benchmark results, so
// benchstat knows which direction is better.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		bench.WriteUnits(os.Stdout)
	}
	os.Exit(m.Run())
}

// runWorkload runs the matrix's cases of workload w as sub-benchmarks
// (with -test.short the pull-request set, see bench.Options.Short), those
// that cannot be counted in callgrind windows skipped where windows are
// counted or sized, with the reason (bench.Uncounted). A case's setup (a
// loop with 10⁶ timers, 9990 socketpairs, dialled clients) is made once,
// on its first run, and shared by the runs the framework makes with
// growing b.N; it is closed after the last. The timer is reset after it,
// so that neither the timing of that first run nor the window a gate's
// overlay of the testing package counts (at -test.benchtime=1x that run
// is the one counted) holds the setup.
func runWorkload(b *testing.B, w string) {
	if *matrix != "all" && *matrix != "varied" {
		b.Fatalf("-matrix %q: want varied or all", *matrix)
	}
	cases := bench.Cases(bench.Options{Workloads: []string{w}, Every: *matrix == "all", Short: testing.Short()})
	if *orderSeed != 0 {
		cases = bench.Shuffle(cases, *orderSeed, 0)
	}
	for _, c := range cases {
		var run func(bench.Timer, int) error
		var cleanup func()
		b.Run(c.Name(), func(b *testing.B) {
			if why := bench.Uncounted(c); why != "" {
				b.Skip(why)
			}
			if run == nil {
				r, cl, err := c.Setup()
				if bench.Skippable(err) {
					b.Skip(err)
				}
				if err != nil {
					b.Fatal(err)
				}
				run, cleanup = r, cl
			}
			b.ReportAllocs()
			b.ResetTimer()
			if err := run(b, b.N); err != nil {
				b.Fatal(err)
			}
		})
		if cleanup != nil {
			cleanup()
		}
	}
}

// BenchmarkCallSoon: callbacks queued 1000 per iteration (mode=batch),
// 1000 in flight re-posting themselves (mode=inflight) and one in flight
// (mode=chain) on every variant; a bare slice of funcs
// (impl=slice) and a chan func() between a producer and a consumer goroutine
// (impl=chan-pipeline) as
// baselines.
func BenchmarkCallSoon(b *testing.B) { runWorkload(b, "CallSoon") }

// BenchmarkReadyQueue: the bare ready queues, called as the loop calls
// them, 1000 at a time: the per-callback difference between them is what
// CallSoon's batch mode shows through the loop.
func BenchmarkReadyQueue(b *testing.B) { runWorkload(b, "ReadyQueue") }

// BenchmarkRunOnce: one iteration run from outside, as asyncio's stop();
// run_forever() (op=stop-run) and RunUntilComplete of a done future
// (op=until-complete), against one iteration inside a run (op=in-run).
func BenchmarkRunOnce(b *testing.B) { runWorkload(b, "RunOnce") }

// BenchmarkTimers: with p timers pending, schedule+fire, schedule+cancel
// and a churn of mostly cancelled timeouts (the best cases); k timers from
// cold on a fresh loop, fired or cancelled (op=cold-fire, op=cold-cancel),
// and idle timeouts re-armed on random connections (op=churn-random), the
// natural uses; for each timer queue in eager and lazy cancel mode, with
// time.AfterFunc (and Stop+AfterFunc or Reset, impl=afterfunc-reset) as
// the baseline.
func BenchmarkTimers(b *testing.B) { runWorkload(b, "Timers") }

// BenchmarkIOChain: libevent's bench.c, p socketpairs and a active chains
// of one-byte writes, for each selector; us/write is the figure.
func BenchmarkIOChain(b *testing.B) { runWorkload(b, "IOChain") }

// BenchmarkEcho: 1 KiB round trips over loopback TCP with 1 and 10
// connections, protocol-style and task-style servers on each selector, and
// gonet (goroutine-per-connection on net) as the baseline; over TLS 1.3
// (style=tls) the same round trips on connections whose handshake is
// done, and full handshakes (op=handshake, ECDSA P-256, X25519), against
// gonet on crypto/tls.
func BenchmarkEcho(b *testing.B) { runWorkload(b, "Echo") }

// BenchmarkUDPEcho: 512-byte datagram round trips over loopback with 1
// and 10 clients, to a loop's datagram endpoint on each selector and to a
// net.UDPConn read by one goroutine (impl=udpconn), the baseline.
func BenchmarkUDPEcho(b *testing.B) { runWorkload(b, "UDPEcho") }

// BenchmarkSignal: a signal sent to the process, delivered to a loop's
// handler on each selector; and signalfd with the signal sent to a
// thread that blocks it (impl=signalfd-thread), the kernel's own path.
func BenchmarkSignal(b *testing.B) { runWorkload(b, "Signal") }

// BenchmarkSubprocess: a child that exits at once, spawned and waited for
// by a task on each selector, and by os/exec's Cmd.Run (impl=osexec).
func BenchmarkSubprocess(b *testing.B) { runWorkload(b, "Subprocess") }

// BenchmarkAwait: the task await round trip and the sleep(0) round trip,
// 100 tasks at a time, and task spawn+finish, 100 and 1000 tasks at a time
// (within and beyond the loop's pool of idle coroutines), for each ready
// queue; goroutines and channels (impl=goroutine) as the baseline, and
// three floors: the bare iter.Pull switch (impl=pull), the same switch
// stepped by a CallSoon callback (op=pullstep) and by two in a row, as an
// await takes (op=pullwake), with no Task or Future.
func BenchmarkAwait(b *testing.B) { runWorkload(b, "Await") }

// BenchmarkCoordination: a Queue ping-pong between two tasks, a Lock
// acquired and released by one task, and a Lock contended by four tasks
// that yield while they hold it, on each ready queue; the same shapes
// with a channel between two goroutines (impl=chan) and a sync.Mutex
// (impl=mutex).
func BenchmarkCoordination(b *testing.B) { runWorkload(b, "Coordination") }

// BenchmarkWakeup: how late a 200 µs timer fires on an idle loop, on each
// selector, and (Linux) how late clock_nanosleep wakes, the machine's
// floor; both on a locked thread with 1 ns timer slack. Lateness p50, p90
// and p99 in ns.
func BenchmarkWakeup(b *testing.B) { runWorkload(b, "Wakeup") }
