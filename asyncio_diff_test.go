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
	diffSeeds = flag.Int("asyncdiff.seeds", 200, "how many seeded schedules TestAsyncioDifferential replays")
	diffSeed  = flag.Int("asyncdiff.seed", -1, "replay only this seed (with -v, its schedule and traces are logged)")
)

// TestAsyncioDifferential replays seeded random schedules (call_soon,
// call_later and call_at with equal and negative delays, cancels, stop in
// callbacks, call_soon_threadsafe from another thread, a reader and a
// writer on a socketpair, futures' done callbacks, tasks awaiting
// futures and tasks, cancelled, sleep(0)) in CPython's asyncio and on
// every variant, odd seeds in lazy cancel mode, and requires the same
// trace of what ran in what order. See internal/asyncdiff.
func TestAsyncioDifferential(t *testing.T) {
	if _, err := os.Stat(asyncdiff.Python); err != nil {
		t.Skipf("no %s (Debian: apt install python3): the differential check against asyncio is skipped", asyncdiff.Python)
	}
	var schedules []asyncdiff.Schedule
	for seed := range *diffSeeds {
		if *diffSeed < 0 || seed == *diffSeed {
			schedules = append(schedules, asyncdiff.Generate(uint64(seed)))
		}
	}
	want, err := asyncdiff.RunPython(asyncdiff.Python, schedules)
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
				got := replayOn(t, c, s)
				if *diffSeed >= 0 {
					js, _ := json.Marshal(s)
					t.Logf("schedule %s\nasyncio   %q\nloopbench %q", js, want[i], got)
				}
				if d := asyncdiff.Diff(want[i], got); d != "" {
					t.Errorf("seed %d, %v: %s (replay it with -asyncdiff.seed=%d -v)", s.Seed, c, d, s.Seed)
				}
			}
		})
	}
}

// replayOn replays s on a new loop of cfg under the driver.
func replayOn(t *testing.T, cfg loopbench.Config, s *asyncdiff.Schedule) []string {
	l, err := loopbench.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := asyncdiff.NewDriver(l)
	defer d.Close()
	loopbench.DriveForTest(l, d.Now, d.Wrap)
	got, err := asyncdiff.Replay(l, d, s)
	if err != nil {
		t.Errorf("seed %d, %v: %v", s.Seed, cfg, err)
	}
	return got
}
