package bench

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/echo"
	"github.com/loopbench/loopbench/internal/rounds"
	"github.com/loopbench/loopbench/selectors"
)

// Case is one benchmark of the matrix: Workload/Variant/Params is its
// sub-benchmark name, and Setup prepares it (a loop with 10⁶ timers,
// socketpairs, connected clients) and returns the operation to time and
// what to close afterwards. go test and the CLI run the same cases.
type Case struct {
	Workload string // one of Workloads
	Variant  string // Config.String(), or impl=<baseline>, or ready=<queue> for the bare queues
	Params   string // key=value segments, "/"-separated
	Setup    func() (run func(t Timer, n int) error, cleanup func(), err error)
}

// Shuffle returns round's order of cases as loopbench run measures them
// (internal/rounds.Order): a permutation drawn from seed and round, so
// that a run's order can be replayed from its recorded seed. Measured in
// one fixed order, a case always follows the same one and pays for what
// it leaves (garbage, cache state).
func Shuffle(cases []Case, seed uint64, round int) []Case {
	out := make([]Case, len(cases))
	for i, j := range rounds.Order(seed, round, len(cases)) {
		out[i] = cases[j]
	}
	return out
}

// Name is the sub-benchmark name: Variant/Params.
func (c Case) Name() string {
	if c.Params == "" {
		return c.Variant
	}
	return c.Variant + "/" + c.Params
}

// Workloads are the workload names, in the order the matrix runs them.
var Workloads = []string{"CallSoon", "ReadyQueue", "RunOnce", "Timers", "IOChain", "Echo", "UDPEcho", "Signal", "Subprocess", "Await", "Coordination", "Wakeup"}

// Options select the matrix.
type Options struct {
	Variants  []loopbench.Config // nil: every variant (see Every)
	Workloads []string           // nil: all
	Quick     bool               // fewer sizes, for a short pass
	// Every runs every workload on every variant. Without it a workload
	// runs on the variants that differ in the part it exercises, the other
	// parts at their defaults, which is a quarter of the time or less.
	Every bool
	// Short is the pull-request set: without the cases sized 10⁶ and the
	// Go runtime's baselines (impl=...), which a change of loopbench
	// cannot make slower and which take most of the time, and without
	// Wakeup, whose work is waiting on the real clock (see nightlyOnly).
	Short bool
}

// Cases returns the matrix: each workload on every variant (o.Every) or on
// the variants that differ in the part it exercises, the other parts at
// their defaults (CallSoon: every variant; Timers: the heaps; IOChain and
// Echo: the selectors; Await and Coordination: the ready queues), timers in both cancel
// modes, restricted to o.Variants when given, plus the baselines.
func Cases(o Options) []Case {
	var cs []Case
	add := func(c Case) { cs = append(cs, c) }
	want := func(w string) bool { return o.Workloads == nil || slices.Contains(o.Workloads, w) }
	if want("CallSoon") {
		callSoonCases(o, add)
	}
	if want("ReadyQueue") {
		readyQueueCases(add)
	}
	if want("RunOnce") {
		runOnceCases(o, add)
	}
	if want("Timers") {
		timerCases(o, add)
	}
	if want("IOChain") {
		ioChainCases(o, add)
	}
	if want("Echo") {
		echoCases(o, add)
	}
	if want("UDPEcho") {
		udpEchoCases(o, add)
	}
	if want("Signal") {
		signalCases(o, add)
	}
	if want("Subprocess") {
		subprocessCases(o, add)
	}
	if want("Await") {
		awaitCases(o, add)
	}
	if want("Coordination") {
		coordinationCases(o, add)
	}
	if want("Wakeup") {
		wakeupCases(o, add)
	}
	if o.Short {
		cs = slices.DeleteFunc(cs, nightlyOnly)
	}
	return cs
}

// variants returns the configs of o.Variants (or all) whose parts other
// than the varied ones are at the default, with extra applied.
func variants(o Options, vary func(loopbench.Config) loopbench.Config) []loopbench.Config {
	if o.Every {
		vary = func(c loopbench.Config) loopbench.Config { return c }
	}
	var out []loopbench.Config
	seen := map[string]bool{}
	for _, v := range loopbench.Variants() {
		c := vary(v)
		if seen[c.String()] {
			continue
		}
		seen[c.String()] = true
		if o.Variants == nil || slices.ContainsFunc(o.Variants, func(x loopbench.Config) bool { return x.String() == c.String() }) {
			out = append(out, c)
		}
	}
	return out
}

// onLoop is a Setup that makes a loop for cfg, prepares it with prep, and
// closes both afterwards.
func onLoop(cfg loopbench.Config, prep func(l *loopbench.Loop) (func(Timer, int) error, func(), error)) func() (func(Timer, int) error, func(), error) {
	return func() (func(Timer, int) error, func(), error) {
		l, err := loopbench.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		run, cleanup, err := prep(l)
		if err != nil {
			l.Close()
			return nil, nil, err
		}
		return run, func() {
			if cleanup != nil {
				cleanup()
			}
			l.Close()
		}, nil
	}
}

// cold is the Setup of a from-cold case: it draws the delays, so that
// they are drawn outside any counted window.
func cold(run func(Timer, int) error) func() (func(Timer, int) error, func(), error) {
	return func() (func(Timer, int) error, func(), error) { drawColdDelays(); return run, nil, nil }
}

// plain is a Setup with nothing to prepare.
func plain(run func(Timer, int) error) func() (func(Timer, int) error, func(), error) {
	return func() (func(Timer, int) error, func(), error) { return run, nil, nil }
}

const callSoonBatch = 1000

func callSoonCases(o Options, add func(Case)) {
	for _, cfg := range variants(o, func(c loopbench.Config) loopbench.Config { return c }) {
		add(Case{"CallSoon", cfg.String(), fmt.Sprintf("mode=batch/batch=%d", callSoonBatch), onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return CallSoonBatch(t, l, n, callSoonBatch) }, nil, nil
		})})
		add(Case{"CallSoon", cfg.String(), "mode=chain", onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return CallSoonChain(t, l, n) }, nil, nil
		})})
		add(Case{"CallSoon", cfg.String(), fmt.Sprintf("mode=inflight/w=%d", callSoonBatch), onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return CallSoonInflight(t, l, n, callSoonBatch) }, nil, nil
		})})
	}
	params := fmt.Sprintf("mode=batch/batch=%d", callSoonBatch)
	add(Case{"CallSoon", "impl=slice", params, plain(func(t Timer, n int) error { SliceBatch(t, n, callSoonBatch); return nil })})
	add(Case{"CallSoon", "impl=chan-pipeline", params, plain(func(t Timer, n int) error { ChanBatch(t, n, callSoonBatch); return nil })})
}

// runOnceCases: one iteration run from outside the loop, the natural way,
// against one iteration inside a run, per loop type.
func runOnceCases(o Options, add func(Case)) {
	queues := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Ready: c.Ready} })
	ops := []struct {
		op  string
		run func(Timer, *loopbench.Loop, int) error
	}{
		{"stop-run", RunOnceStopRun},
		{"until-complete", RunOnceUntilComplete},
		{"in-run", RunOnceInRun},
	}
	for _, cfg := range queues {
		for _, op := range ops {
			add(Case{"RunOnce", cfg.String(), "op=" + op.op, onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
				return func(t Timer, n int) error { return op.run(t, l, n) }, nil, nil
			})})
		}
	}
}

func readyQueueCases(add func(Case)) {
	params := fmt.Sprintf("batch=%d", callSoonBatch)
	add(Case{"ReadyQueue", "ready=ringbuffer", params, plain(func(t Timer, n int) error { RingBurst(t, n, callSoonBatch); return nil })})
	add(Case{"ReadyQueue", "ready=deque", params, plain(func(t Timer, n int) error { DequeBurst(t, n, callSoonBatch); return nil })})
}

func timerCases(o Options, add func(Case)) {
	pending := []int{1_000, 100_000, 1_000_000}
	if o.Quick {
		pending = []int{1_000, 100_000}
	}
	heaps := variants(o, func(c loopbench.Config) loopbench.Config {
		return loopbench.Config{Timers: c.Timers}
	})
	for _, p := range pending {
		for _, h := range heaps {
			for _, mode := range []string{"eager", "lazy"} {
				cfg := h
				cfg.TimerCancel = mode
				timerOps(cfg, p, add)
			}
		}
		afterFuncOps(p, add)
	}
	naturalTimerCases(o, heaps, add)
}

// naturalTimerCases: timers from cold at k = 10³, 10⁵, 10⁶ and idle
// timeouts on random connections at p = 10⁴, 10⁵, 10⁶, on each heap in
// both cancel modes, with time.AfterFunc as the baseline.
func naturalTimerCases(o Options, heaps []loopbench.Config, add func(Case)) {
	ks, ps := []int{1_000, 100_000, 1_000_000}, []int{10_000, 100_000, 1_000_000}
	if o.Quick {
		ks, ps = ks[:2], ps[:2]
	}
	eachHeap := func(f func(cfg loopbench.Config)) {
		for _, h := range heaps {
			for _, mode := range []string{"eager", "lazy"} {
				cfg := h
				cfg.TimerCancel = mode
				f(cfg)
			}
		}
	}
	for _, k := range ks {
		eachHeap(func(cfg loopbench.Config) {
			add(Case{"Timers", cfg.String(), fmt.Sprintf("op=cold-fire/k=%d", k), cold(func(t Timer, n int) error { return TimerColdFire(t, cfg, k, n) })})
			add(Case{"Timers", cfg.String(), fmt.Sprintf("op=cold-cancel/k=%d", k), plain(func(t Timer, n int) error { return TimerColdCancel(t, cfg, k, n) })})
		})
		add(Case{"Timers", "impl=afterfunc", fmt.Sprintf("op=cold-fire/k=%d", k), cold(func(t Timer, n int) error { AfterFuncColdFire(t, k, n); return nil })})
		add(Case{"Timers", "impl=afterfunc", fmt.Sprintf("op=cold-cancel/k=%d", k), plain(func(t Timer, n int) error { AfterFuncColdCancel(t, k, n); return nil })})
	}
	for _, p := range ps {
		eachHeap(func(cfg loopbench.Config) {
			add(Case{"Timers", cfg.String(), fmt.Sprintf("op=churn-random/p=%d", p), onClockLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
				hs, idx := FillTimers(l, p), RandomIndices(p, churnIndices)
				return func(t Timer, n int) error {
					return guardPending(func() error { return TimerChurnRandom(t, l, n, hs, idx) })
				}, nil, nil
			})})
		})
		for _, b := range []struct {
			impl  string
			churn func(Timer, int, []*time.Timer, []uint32)
		}{{"afterfunc", AfterFuncChurnRandom}, {"afterfunc-reset", AfterFuncResetChurnRandom}} {
			impl, churn := b.impl, b.churn
			add(Case{"Timers", "impl=" + impl, fmt.Sprintf("op=churn-random/p=%d", p), func() (func(Timer, int) error, func(), error) {
				ts, stop := FillAfterFuncs(p)
				idx := RandomIndices(p, churnIndices)
				return func(t Timer, n int) error { return guardPending(func() error { churn(t, n, ts, idx); return nil }) }, stop, nil
			}})
		}
	}
}

func timerOps(cfg loopbench.Config, p int, add func(Case)) {
	ops := []struct {
		op  string
		run func(Timer, *loopbench.Loop, int, []loopbench.TimerHandle) error
	}{
		{"schedule-fire", func(t Timer, l *loopbench.Loop, n int, _ []loopbench.TimerHandle) error {
			return TimerScheduleFire(t, l, n)
		}},
		{"schedule-cancel", func(t Timer, l *loopbench.Loop, n int, _ []loopbench.TimerHandle) error {
			return TimerScheduleCancel(t, l, n)
		}},
		{"churn", func(t Timer, l *loopbench.Loop, n int, hs []loopbench.TimerHandle) error {
			return TimerChurn(t, l, n, hs)
		}},
	}
	for _, op := range ops {
		add(Case{"Timers", cfg.String(), fmt.Sprintf("op=%s/p=%d", op.op, p), onClockLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			hs := FillTimers(l, p)
			return func(t Timer, n int) error { return guardPending(func() error { return op.run(t, l, n, hs) }) }, nil, nil
		})})
	}
}

func afterFuncOps(p int, add func(Case)) {
	ops := []struct {
		op  string
		run func(Timer, int, []*time.Timer)
	}{
		{"schedule-fire", func(t Timer, n int, _ []*time.Timer) { AfterFuncScheduleFire(t, n) }},
		{"schedule-cancel", func(t Timer, n int, _ []*time.Timer) { AfterFuncScheduleCancel(t, n) }},
		{"churn", AfterFuncChurn},
	}
	for _, op := range ops {
		add(Case{"Timers", "impl=afterfunc", fmt.Sprintf("op=%s/p=%d", op.op, p), func() (func(Timer, int) error, func(), error) {
			ts, stop := FillAfterFuncs(p)
			return func(t Timer, n int) error { return guardPending(func() error { op.run(t, n, ts); return nil }) }, stop, nil
		}})
	}
}

func ioChainCases(o Options, add func(Case)) {
	pairs := []int{100, 1000, 9990}
	if o.Quick {
		pairs = []int{100, 1000}
	}
	sels := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} })
	modes := []struct {
		mode string
		run  func(c *IOChain, t Timer, active, n int) error
	}{
		{"run", (*IOChain).Run},
		{"once", (*IOChain).RunOnce},
	}
	for _, cfg := range sels {
		for _, p := range pairs {
			for _, a := range []int{1, 100} {
				for _, m := range modes {
					add(Case{"IOChain", cfg.String(), fmt.Sprintf("p=%d/a=%d/mode=%s", p, a, m.mode), onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
						chain, err := NewIOChain(l, p)
						if err != nil {
							return nil, nil, err
						}
						return func(t Timer, n int) error { return m.run(chain, t, a, n) }, chain.Close, nil
					})})
				}
			}
		}
	}
}

const echoSize = 1 << 10

func echoCases(o Options, add func(Case)) {
	conns := []int{1, 10}
	if o.Quick {
		conns = []int{10}
	}
	sels := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} })
	for _, k := range conns {
		for _, cfg := range sels {
			for _, style := range []string{"protocol", "task", "stream"} {
				add(Case{"Echo", cfg.String(), fmt.Sprintf("style=%s/size=%d/conns=%d", style, echoSize, k), onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
					addr, err := EchoServer(l, style)
					if err != nil {
						return nil, nil, err
					}
					clients, err := DialEcho(addr, k, echoSize)
					if err != nil {
						return nil, nil, err
					}
					return func(t Timer, n int) error { return clients.Run(t, n, ServeOn(l)) }, clients.Close, nil
				})})
			}
		}
		add(Case{"Echo", "impl=gonet", fmt.Sprintf("size=%d/conns=%d", echoSize, k), func() (func(Timer, int) error, func(), error) {
			g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, nil, err
			}
			clients, err := DialEcho(g.Addr().String(), k, echoSize)
			if err != nil {
				g.Close()
				return nil, nil, err
			}
			return func(t Timer, n int) error { return clients.Run(t, n, ServeGoroutines) }, func() { clients.Close(); g.Close() }, nil
		}})
	}
	tlsEchoCases(sels, conns, add)
}

// udpEchoSize is the datagram size of UDPEcho.
const udpEchoSize = 512

// udpEchoCases: datagram round trips over loopback to a loop's datagram
// endpoint on each selector, and to a net.UDPConn read by one goroutine.
func udpEchoCases(o Options, add func(Case)) {
	conns := []int{1, 10}
	if o.Quick {
		conns = []int{10}
	}
	sels := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} })
	for _, k := range conns {
		params := fmt.Sprintf("size=%d/conns=%d", udpEchoSize, k)
		for _, cfg := range sels {
			add(Case{"UDPEcho", cfg.String(), params, onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
				v, err := l.RunUntilComplete(echo.ServeUDP(l, "udp", "127.0.0.1:0"))
				if err != nil {
					return nil, nil, err
				}
				clients, err := DialEchoNet("udp", v.(*loopbench.DatagramTransport).LocalAddr().String(), k, udpEchoSize)
				if err != nil {
					return nil, nil, err
				}
				return func(t Timer, n int) error { return clients.Run(t, n, ServeOn(l)) }, clients.Close, nil
			})})
		}
		add(Case{"UDPEcho", "impl=udpconn", params, func() (func(Timer, int) error, func(), error) {
			s, err := echo.ServeUDPConn("udp", "127.0.0.1:0")
			if err != nil {
				return nil, nil, err
			}
			clients, err := DialEchoNet("udp", s.Addr().String(), k, udpEchoSize)
			if err != nil {
				s.Close()
				return nil, nil, err
			}
			return func(t Timer, n int) error { return clients.Run(t, n, ServeGoroutines) }, func() { clients.Close(); s.Close() }, nil
		}})
	}
}

// signalCases: a signal's delivery to a loop's handler on each selector,
// and (on Linux) the signalfd path as far as a Go process can take it.
func signalCases(o Options, add func(Case)) {
	for _, cfg := range variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} }) {
		add(Case{"Signal", cfg.String(), "op=deliver", onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return SignalNotify(t, l, n) }, nil, nil
		})})
	}
	addSignalfdBaseline(add)
}

// subprocessCases: a child spawned and waited for, on each selector, and
// with os/exec.
func subprocessCases(o Options, add func(Case)) {
	for _, cfg := range variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Selector: c.Selector} }) {
		add(Case{"Subprocess", cfg.String(), "op=spawn-wait", onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
			return func(t Timer, n int) error { return SubprocessSpawnWait(t, l, n) }, nil, nil
		})})
	}
	add(Case{"Subprocess", "impl=osexec", "op=spawn-wait", plain(func(t Timer, n int) error { return OSExecSpawnWait(t, n) })})
}

const awaitTasks = 100

// spawnBatches are the tasks created per iteration by op=spawn: within the
// loop's pool of idle coroutines (128), and beyond it, where most tasks
// start a goroutine.
func spawnBatches(o Options) []int {
	if o.Quick {
		return []int{awaitTasks}
	}
	return []int{awaitTasks, 1000}
}

func awaitCases(o Options, add func(Case)) {
	queues := variants(o, func(c loopbench.Config) loopbench.Config { return loopbench.Config{Ready: c.Ready} })
	type op struct {
		params string
		run    func(Timer, *loopbench.Loop, int) error
	}
	for _, cfg := range queues {
		ops := []op{
			{fmt.Sprintf("op=await/tasks=%d", awaitTasks), func(t Timer, l *loopbench.Loop, n int) error { return Await(t, l, awaitTasks, n) }},
			{fmt.Sprintf("op=sleep0/tasks=%d", awaitTasks), func(t Timer, l *loopbench.Loop, n int) error { return Sleep0(t, l, awaitTasks, n) }},
			{fmt.Sprintf("op=pullstep/tasks=%d", awaitTasks), func(t Timer, l *loopbench.Loop, n int) error { return PullStep(t, l, awaitTasks, n) }},
			{fmt.Sprintf("op=pullwake/tasks=%d", awaitTasks), func(t Timer, l *loopbench.Loop, n int) error { return PullWake(t, l, awaitTasks, n) }},
		}
		for _, batch := range spawnBatches(o) {
			ops = append(ops, op{fmt.Sprintf("op=spawn/batch=%d", batch), func(t Timer, l *loopbench.Loop, n int) error { return Spawn(t, l, n, batch) }})
		}
		for _, op := range ops {
			add(Case{"Await", cfg.String(), op.params, onLoop(cfg, func(l *loopbench.Loop) (func(Timer, int) error, func(), error) {
				return func(t Timer, n int) error { return op.run(t, l, n) }, nil, nil
			})})
		}
	}
	add(Case{"Await", "impl=goroutine", fmt.Sprintf("op=await/tasks=%d", awaitTasks), plain(func(t Timer, n int) error { GoroutineAwait(t, awaitTasks, n); return nil })})
	for _, batch := range spawnBatches(o) {
		add(Case{"Await", "impl=goroutine", fmt.Sprintf("op=spawn/batch=%d", batch), plain(func(t Timer, n int) error { GoroutineSpawn(t, n, batch); return nil })})
	}
	add(Case{"Await", "impl=pull", fmt.Sprintf("op=await/tasks=%d", awaitTasks), plain(func(t Timer, n int) error { PullAwait(t, awaitTasks, n); return nil })})
}

// Skippable reports whether err means the case cannot run on this machine
// (too few fds, or an fd beyond what select handles) rather than failed.
func Skippable(err error) bool {
	return errors.Is(err, ErrFdLimit) || errors.Is(err, selectors.ErrFdTooLarge)
}
