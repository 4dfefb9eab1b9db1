package loopbench_test

import (
	"flag"
	"testing"

	"github.com/loopbench/loopbench/internal/conform/asyncdiff"
)

var (
	diffSeeds = flag.Int("asyncdiff.seeds", 200, "how many seeded schedules TestAsyncioDifferential replays")
	diffSeed  = flag.Int("asyncdiff.seed", -1, "replay only this seed (with -v, its schedule and traces are logged)")
)

// TestAsyncioDifferential replays seeded random schedules (call_soon,
// call_later and call_at with equal and negative delays, cancels, stop in
// callbacks, call_soon_threadsafe from another thread, a reader and a
// writer on a socketpair, futures' done callbacks, tasks awaiting
// futures and tasks, cancelled, sleep(0)) in CPython's asyncio and on
// every variant, odd seeds in lazy cancel mode, and requires the same
// trace of what ran in what order. See internal/conform/asyncdiff.
func TestAsyncioDifferential(t *testing.T) {
	diffRun[asyncdiff.Schedule]{
		what: "the differential check against asyncio", python: asyncdiff.Python,
		seeds: *diffSeeds, only: *diffSeed, seedFlag: "asyncdiff.seed",
		generate: asyncdiff.Generate, seedOf: func(s *asyncdiff.Schedule) uint64 { return s.Seed },
		asyncio: asyncdiff.RunPython, replay: asyncdiff.Replay,
	}.run(t)
}
