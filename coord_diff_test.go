package loopbench_test

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/asyncdiff"
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
// order, with which exception. See internal/asyncdiff.
func TestCoordinationDifferential(t *testing.T) {
	if _, err := os.Stat(*coordPy); err != nil {
		t.Skipf("no %s (Debian: apt install python3): the differential check of the coordination primitives is skipped", *coordPy)
	}
	var schedules []asyncdiff.CoordSchedule
	for seed := range *coordSeeds {
		if *coordSeed < 0 || seed == *coordSeed {
			schedules = append(schedules, asyncdiff.GenerateCoord(uint64(seed)))
		}
	}
	want, err := asyncdiff.RunPythonCoord(*coordPy, schedules)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			for i := range schedules {
				s := &schedules[i]
				c := cfg
				if s.Seed%2 == 1 {
					c.TimerCancel = "lazy"
				}
				got := replayCoordOn(t, c, s)
				if *coordSeed >= 0 {
					js, _ := json.Marshal(s)
					t.Logf("schedule %s\nasyncio   %q\nloopbench %q", js, want[i], got)
				}
				if d := asyncdiff.Diff(want[i], got); d != "" {
					t.Errorf("seed %d, %v: %s (replay it with -coord.seed=%d -v)", s.Seed, c, d, s.Seed)
				}
			}
		})
	}
}

// replayCoordOn replays s on a new loop of cfg under the driver.
func replayCoordOn(t *testing.T, cfg loopbench.Config, s *asyncdiff.CoordSchedule) []string {
	l, err := loopbench.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := asyncdiff.NewDriver(l)
	defer d.Close()
	loopbench.DriveForTest(l, d.Now, d.Wrap)
	got, err := asyncdiff.ReplayCoord(l, d, s)
	if err != nil {
		t.Errorf("seed %d, %v: %v", s.Seed, cfg, err)
	}
	return got
}
