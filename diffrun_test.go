package loopbench_test

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/conform/asyncdiff"
)

// diffRun is one differential check against CPython's asyncio: seeded
// schedules of type S replayed by python in one process and on every
// variant, odd seeds in lazy cancel mode, their traces compared.
type diffRun[S any] struct {
	what     string // what is checked, for the skip line
	python   string
	seeds    int    // schedules 0..seeds-1
	only     int    // replay only this seed when >= 0, logging its traces
	seedFlag string // the flag that replays one seed, for the failure hint
	generate func(seed uint64) S
	seedOf   func(*S) uint64
	asyncio  func(python string, schedules []S) ([][]string, error)
	replay   func(l *loopbench.Loop, d *asyncdiff.Driver, s *S) ([]string, error)
}

// run runs the check as subtests of t, one per variant.
func (r diffRun[S]) run(t *testing.T) {
	if _, err := os.Stat(r.python); err != nil {
		t.Skipf("no %s (Debian: apt install python3): %s is skipped", r.python, r.what)
	}
	var schedules []S
	for seed := range r.seeds {
		if r.only < 0 || seed == r.only {
			schedules = append(schedules, r.generate(uint64(seed)))
		}
	}
	want, err := r.asyncio(r.python, schedules)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range loopbench.Variants() {
		t.Run(cfg.String(), func(t *testing.T) {
			t.Parallel()
			for i := range schedules {
				s := &schedules[i]
				seed, c := r.seedOf(s), cfg
				if seed%2 == 1 {
					c.TimerCancel = "lazy"
				}
				got := r.replayOn(t, c, s)
				if r.only >= 0 {
					js, _ := json.Marshal(s)
					t.Logf("schedule %s\nasyncio   %q\nloopbench %q", js, want[i], got)
				}
				if d := asyncdiff.Diff(want[i], got); d != "" {
					t.Errorf("seed %d, %v: %s (replay it with -%s=%d -v)", seed, c, d, r.seedFlag, seed)
				}
			}
		})
	}
}

// replayOn replays s on a new loop of cfg under the driver, on one OS
// thread from the loop's creation to its close: the uring selector's
// polls complete on the thread that armed them, so one thread makes a
// send visible to the next zero-timeout select at once, as it is with
// epoll (and the loop's coroutines must be created under the lock they
// run under).
func (r diffRun[S]) replayOn(t *testing.T, cfg loopbench.Config, s *S) []string {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l, err := loopbench.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := asyncdiff.NewDriver(l)
	defer d.Close()
	loopbench.DriveForTest(l, d.Now, d.Wrap)
	got, err := r.replay(l, d, s)
	if err != nil {
		t.Errorf("seed %d, %v: %v", r.seedOf(s), cfg, err)
	}
	return got
}
