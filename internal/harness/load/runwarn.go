package load

import (
	"fmt"
	"io"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// WarnRun writes a line on w for each way the run's figures describe the
// generator rather than the server; pinned tells whether -cpu pinned it.
// A run that fell far behind fails with its cause (CheckRuns) instead of
// the warnings that would name it.
func WarnRun(w io.Writer, rep loadresult.Result, pinned bool) {
	if lag := rep.PacingLag.P99; lag > RunLateLag {
		fmt.Fprintf(w, "loopbench load: warning: the generator sent its requests %v late at p99 (pacing lag), and the corrected latencies include it: %s\n", loadresult.Sig3(lag), lagCause(rep, pinned))
	}
	if fellFarBehind(rep) {
		return
	}
	if rep.Behind {
		cause := rep.ServerWentAway()
		if cause == "" {
			cause = "the server or the generator saturates; pin them apart with -cpu"
		}
		fmt.Fprintf(w, "loopbench load: warning: fell behind the schedule (%.0f of %.0f req/s): %s\n", rep.Achieved, rep.Offered, cause)
	}
	if rep.CPUBound() {
		fmt.Fprintf(w, "loopbench load: warning: the generator %s: a client this busy measures itself; add generators on other hosts (loopbench merge)\n", rep.CPUBusy())
	}
	if FiguresOf(rep, rep.CPUs).ConnBound() {
		fmt.Fprintf(w, "loopbench load: warning: connection-bound: the %s busy %.2f on average (achieved rate times mean uncorrected latency); raise -conns\n", connsWere(rep.Conns), rep.Concurrency())
	}
}

// connsWere is "the 1 connection was", "the 10 connections were".
func connsWere(n int) string {
	if n == 1 {
		return "1 connection was"
	}
	return loadresult.Plural(n, "connection") + " were"
}

// lagCause names why the generator sent late, then what to do. The CPU
// it counts leaves spinning out (-spin keeps a CPU busy by choice); rep's
// CPUs and Loops say what its loops can use.
func lagCause(rep loadresult.Result, pinned bool) string {
	busy, spun := rep.SpinFreeCores(), ""
	if rep.Spin > 0 {
		spun = ", spinning left out"
	}
	switch {
	case rep.CPUBound():
		return fmt.Sprintf("it %s%s, so it cannot keep the schedule; lower -rate or add generators on other hosts (loopbench merge)", rep.CPUBusy(), spun)
	case pinned:
		return fmt.Sprintf("its loops (%s) woke late or waited for their CPU, which other processes use (it kept only %.2f cores busy itself%s); give it a CPU of its own, or -spin", PacingMethod, busy, spun)
	}
	return fmt.Sprintf("its loops (%s) woke late or waited for a CPU, busy with the server or other processes (it kept only %.2f cores busy itself%s); pin it apart from the server with -cpu, or lower -rate", PacingMethod, busy, spun)
}
