package load

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// TestSpinReported: with Spin, a loop polls for its next send instead of
// sleeping; the time it spent so is reported, within the run's wall
// time, and left out of the CPU the verdicts count. Every scheduled
// request is accounted for as without it.
func TestSpinReported(t *testing.T) {
	addr, _ := countingEcho(t, 0)
	cfg := Config{Addr: addr, Conns: 1, Size: 64, Rate: 200, Duration: 500 * time.Millisecond, Timeout: 5 * time.Second, Spin: 2 * time.Millisecond}
	rep := runBounded(t, context.Background(), cfg)
	checkAccounting(t, cfg, rep)
	if rep.Spin <= 0 || rep.Spin > rep.Wall {
		t.Fatalf("spin %v over a wall time of %v: want some, at most the wall time", rep.Spin, rep.Wall)
	}
	if rep.SpinFreeCores() >= rep.Cores() && rep.CPU > 0 {
		t.Errorf("%.3f cores without the spinning, %.3f with it", rep.SpinFreeCores(), rep.Cores())
	}
	cfg.Spin = 0
	if rep := runBounded(t, context.Background(), cfg); rep.Spin != 0 {
		t.Errorf("spin %v without -spin", rep.Spin)
	}
}

// TestLoopsShareTheRun: over two loops (two CPUs, here the same one),
// the request limit stops both at once: the arrivals are the limit, and
// every request the server read is accounted for.
func TestLoopsShareTheRun(t *testing.T) {
	allowed, err := cpu.Allowed()
	if err != nil || len(allowed) == 0 {
		t.Skip("no CPU affinity here:", err)
	}
	addr, read := countingEcho(t, 0)
	c := allowed[len(allowed)-1]
	rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 5, Size: 64, Duration: 20 * time.Second, Timeout: 5 * time.Second, Requests: 300, CPUs: []int{c, c}})
	if rep.Requests != 300 || rep.Errors != 0 {
		t.Fatalf("%d requests, %d errors %v; want 300 and none", rep.Requests, rep.Errors, rep.ErrorTexts)
	}
	if n := read.Load(); rep.Scheduled != n || rep.Answered != n {
		t.Errorf("%d scheduled, %d answered, the server read %d", rep.Scheduled, rep.Answered, n)
	}
	// The loops' parts merge into the run's result: its identity, the
	// real wall time, and every answer in the histograms once.
	if rep.Label != addr || rep.Conns != 5 || rep.Size != 64 || !rep.Balanced() || rep.Wall <= 0 || rep.CorrectedHist.TotalCount() != rep.Answered {
		t.Errorf("merged loops: label %q, %d conns of %d bytes, wall %v, %d latencies for %d answers", rep.Label, rep.Conns, rep.Size, rep.Wall, rep.CorrectedHist.TotalCount(), rep.Answered)
	}
}

// openFds counts the process's open file descriptors.
func openFds(t *testing.T) int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	return len(fds)
}

// leakFree runs body as a subtest (whose cleanups close its servers) and
// then fails unless the process is back to the descriptors and
// goroutines it had before, allowing those still closing some time.
func leakFree(t *testing.T, body func(t *testing.T)) {
	fds, goroutines := openFds(t), runtime.NumGoroutine()
	t.Run("runs", body)
	for try := 0; ; try++ {
		f, g := openFds(t), runtime.NumGoroutine()
		if f <= fds && g <= goroutines {
			return
		}
		if try == 100 {
			t.Fatalf("%d descriptors and %d goroutines after the runs, %d and %d before", f, g, fds, goroutines)
		}
		time.Sleep(50 * time.Millisecond) // goroutines and descriptors that are closing
	}
}

// TestNoLeaks: runs that redial, time out and are interrupted leave no
// descriptor and no goroutine behind once their server is gone.
func TestNoLeaks(t *testing.T) {
	leakFree(t, func(t *testing.T) {
		addr := faultServer(t, echoN(3, nil))
		runBounded(t, context.Background(), Config{Addr: addr, Conns: 3, Size: 64, Rate: 300, Duration: 200 * time.Millisecond, Timeout: 100 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		rep := runBounded(t, ctx, Config{Addr: addr, Conns: 3, Size: 64, Duration: 5 * time.Second, Timeout: time.Second})
		if !rep.Interrupted {
			t.Fatalf("not interrupted: %+v", rep)
		}
	})
}

// TestNoAllocationPerRequest: a request allocates nothing in steady
// state (sends, reads with their receive timestamps, timers): ten
// thousand more requests cost fewer than a thousand more allocations
// in the whole process. On Linux the receive lag is measured, for the
// answers the kernel stamped: some of the two runs' answers. How many is
// the kernel's to decide: it turns stamping on for the first socket that
// asks from a deferred work item, which a loaded machine runs late, so
// a short run may see none stamped (on an idle loopback most are; under
// two CPU hogs on a loaded 2-core machine 0 to 45 % were).
func TestNoAllocationPerRequest(t *testing.T) {
	addr, _ := countingEcho(t, 0)
	var lags, answers int64
	mallocs := func(n int64) uint64 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		rep := runBounded(t, context.Background(), Config{Addr: addr, Conns: 4, Size: 64, Duration: time.Minute, Timeout: 5 * time.Second, Requests: n})
		runtime.ReadMemStats(&b)
		lags, answers = lags+rep.ReceiveLagHist.TotalCount(), answers+rep.Answered
		return b.Mallocs - a.Mallocs
	}
	few, many := mallocs(1000), mallocs(11000)
	if many > few+1000 {
		t.Fatalf("%d allocations for 1000 requests, %d for 11000", few, many)
	}
	if runtime.GOOS == "linux" && lags == 0 {
		t.Errorf("no receive lag for %d answers", answers)
	}
}

// TestSpinCoversBusyConnections: with Spin longer than the interval
// between sends, the loop polls through the time a connection awaits
// its answer too (the schedule's next send is within Spin), instead of
// sleeping until the answer comes. Over one connection at 50 req/s to a
// server answering in 15 ms, spinning only while the connection is free
// would spin 5 ms of every 20 (a quarter of the window); covering the
// busy time too, it spins for all of it but the work. The work is a few
// hundred microseconds a request, more on a loaded machine, where the
// time a send or a read takes is counted as work and not as spin: at
// least 60 % leaves room for that on both sides.
func TestSpinCoversBusyConnections(t *testing.T) {
	addr, _ := countingEcho(t, 15*time.Millisecond)
	cfg := Config{Addr: addr, Conns: 1, Size: 64, Rate: 50, Duration: 400 * time.Millisecond, Timeout: 5 * time.Second, Spin: 25 * time.Millisecond}
	rep := runBounded(t, context.Background(), cfg)
	checkAccounting(t, cfg, rep)
	if rep.Errors != 0 || rep.Answered == 0 {
		t.Fatalf("%d answered, %d errors: %v", rep.Answered, rep.Errors, rep.ErrorTexts)
	}
	t.Logf("spun %v of a %v window", rep.Spin, rep.Duration)
	if rep.Spin < rep.Duration*6/10 {
		t.Fatalf("spun %v of a %v window: want nearly all of it, not the quarter the free time is", rep.Spin, rep.Duration)
	}
}

// TestSpinEndsWithTheWindow: a spin through busy connections stops when
// the window closes, though the answers it awaits come 300 ms later: the
// generator does not poll on while it only waits for answers. (Two
// connections: the second's first send comes from the schedule, which
// starts the spin; the first's from its dial.)
func TestSpinEndsWithTheWindow(t *testing.T) {
	addr, _ := countingEcho(t, 300*time.Millisecond)
	cfg := Config{Addr: addr, Conns: 2, Size: 64, Rate: 200, Duration: 50 * time.Millisecond, Timeout: 5 * time.Second, Spin: 10 * time.Millisecond}
	rep := runBounded(t, context.Background(), cfg)
	checkAccounting(t, cfg, rep)
	if rep.Spin <= 0 || rep.Spin >= 200*time.Millisecond {
		t.Fatalf("spun %v: want some, and none after the 50 ms window (the answers come at 300 ms)", rep.Spin)
	}
}
