package bench

import (
	"fmt"

	"github.com/loopbench/loopbench"
)

// callSoonBatch is the batch and window size of the CallSoon cases.
const callSoonBatch = 1000

// callSoonCases: CallSoon in batches, in a chain and with a window in
// flight, on every variant, with a slice and a channel pipeline as
// baselines.
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

// readyQueueCases: each bare ready queue's burst of pushes and pops.
func readyQueueCases(_ Options, add func(Case)) {
	params := fmt.Sprintf("batch=%d", callSoonBatch)
	add(Case{"ReadyQueue", "ready=ringbuffer", params, plain(func(t Timer, n int) error { RingBurst(t, n, callSoonBatch); return nil })})
	add(Case{"ReadyQueue", "ready=deque", params, plain(func(t Timer, n int) error { DequeBurst(t, n, callSoonBatch); return nil })})
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

// awaitCases: tasks awaiting futures, sleeping 0, stepping and being
// spawned, per ready queue, with goroutines and iter.Pull as baselines.
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
