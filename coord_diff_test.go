package loopbench_test

import (
	"flag"
	"testing"

	"github.com/loopbench/loopbench/internal/conform/asyncdiff"
)

var (
	coordSeeds = flag.Int("coord.seeds", 200, "how many seeded schedules TestCoordinationDifferential replays")
	coordSeed  = flag.Int("coord.seed", -1, "replay only this coordination seed (with -v, its schedule and traces are logged)")
	coordPy    = flag.String("coord.python", asyncdiff.Python, "the Python whose asyncio TestCoordinationDifferential compares with (3.11 or later)")
)

// TestCoordinationDifferential replays seeded random schedules of tasks
// over the coordination primitives (Lock, Semaphore, BoundedSemaphore,
// Event, Condition, Queue, LifoQueue, PriorityQueue, Barrier, TaskGroup,
// timeout, wait_for, wait, shield), cancelled at random points by timers and by
// each other, in CPython's asyncio and on every variant, odd seeds in
// lazy cancel mode, and requires the same trace of who got what, in which
// order, with which exception. See internal/conform/asyncdiff.
func TestCoordinationDifferential(t *testing.T) {
	diffRun[asyncdiff.CoordSchedule]{
		what: "the differential check of the coordination primitives", python: *coordPy,
		seeds: *coordSeeds, only: *coordSeed, seedFlag: "coord.seed",
		generate: asyncdiff.GenerateCoord, seedOf: func(s *asyncdiff.CoordSchedule) uint64 { return s.Seed },
		asyncio: asyncdiff.RunPythonCoord, replay: asyncdiff.ReplayCoord,
	}.run(t)
}
