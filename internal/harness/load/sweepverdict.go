package load

import (
	"fmt"
	"io"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// WriteStepLines writes a sweep's step as it ends, of steps in all: its
// figures and verdict on one line, then whether it was measured again
// and whether it started late (past 10 ms) after its slot.
func WriteStepLines(w io.Writer, s Step, steps int) {
	r := s.Result
	fmt.Fprintf(w, "step %d of %d: %.0f req/s offered, %.0f achieved, p99 %v, pacing lag p99 %v, receive lag p99 %v, %v CPU per request, connections busy %.2f of %d, %.2f cores: %v\n",
		s.Index+1, steps, r.Offered, r.Achieved, loadresult.Sig3(r.Corrected.P99), loadresult.Sig3(r.PacingLag.P99), loadresult.Sig3(r.ReceiveLag.P99), loadresult.Sig3(r.CPUPerRequest()), r.Concurrency(), r.Conns, r.Cores(), s.Verdict)
	if s.Remeasured {
		fmt.Fprintf(w, "loopbench load: step %d was measured again: the generator was late in the first measurement\n", s.Index+1)
	}
	if s.StartedLate > 10*time.Millisecond {
		fmt.Fprintf(w, "loopbench load: warning: step %d started %v after its slot (the previous step overran): its window no longer lines up with other generators'\n", s.Index+1, loadresult.Sig3(s.StartedLate))
	}
}

// CheckSweep fails a sweep of steps rates that was interrupted (the step
// it was interrupted in left out) or whose first step completed no
// request; the error is one line.
func CheckSweep(sw Sweep, steps int) error {
	switch {
	case sw.Interrupted && len(sw.Steps) == 0:
		return fmt.Errorf("interrupted in step 1 of %d: nothing measured", steps)
	case sw.Interrupted:
		return fmt.Errorf("interrupted in step %d of %d, which is left out: the output covers the steps before", len(sw.Steps)+1, steps)
	case sw.Steps[0].Result.Requests == 0:
		return fmt.Errorf("no request completed in the first step %s", ErrorsWhy(sw.Steps[0].Result))
	}
	return nil
}

// StepResults are the sweep's steps as results, each marked as its step
// (loadresult.Result.AsStep) with the criteria it ran under.
func (sw Sweep) StepResults(c Criteria) []loadresult.Result {
	rs := make([]loadresult.Result, len(sw.Steps))
	for i, s := range sw.Steps {
		rs[i] = s.Result.AsStep(s.Index, c.SLO, c.MaxErrors)
	}
	return rs
}
