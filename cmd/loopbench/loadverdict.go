package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/loadresult"
)

// farBehind is the share of the offered rate a run must achieve: below
// it the run fell far behind its schedule and fails (exit 1).
const farBehind = 0.9

// lateLag is the pacing lag p99 past which a run's generator sent late.
const lateLag = 100 * time.Microsecond

// loadVerdict fails the command for a run that measured nothing, had too
// many errors, fell far behind its offered rate, or was interrupted.
func loadVerdict(f loadFlags, reps []loadresult.Result) error {
	for i, rep := range reps {
		which := ""
		if f.count > 1 {
			which = fmt.Sprintf("run %d of %d: ", i+1, f.count)
		}
		switch {
		case rep.Interrupted:
			return fmt.Errorf("%sinterrupted after %v of %v: %s measured", which, rep.Elapsed.Round(time.Millisecond), rep.Duration, loadresult.Plural(rep.Scheduled, "request"))
		case rep.Requests == 0:
			return fmt.Errorf("%sno request completed in the window %s", which, errorsWhy(rep))
		case rep.ErrorRate() > f.maxErr:
			return fmt.Errorf("%serror rate %.2f%% is above -max-errors %s %s", which, 100*rep.ErrorRate(), f.maxErrors, errorsWhy(rep))
		case fellFarBehind(rep):
			return fmt.Errorf("%sfell behind: %.0f of %.0f req/s offered achieved (%.0f%%, below %.0f%%), %d of the window's %s unsent: %s",
				which, rep.Achieved, rep.Offered, 100*rep.Achieved/rep.Offered, 100*farBehind, rep.Unsent, loadresult.Plural(rep.Scheduled, "request"), behindCause(rep))
		}
	}
	if len(reps) < f.count {
		return fmt.Errorf("interrupted after %d of %d runs", len(reps), f.count)
	}
	return nil
}

// fellFarBehind reports whether an open-loop run that answered requests
// achieved less than farBehind of its offered rate.
func fellFarBehind(rep loadresult.Result) bool {
	return rep.Offered > 0 && rep.Requests > 0 && rep.Achieved < farBehind*rep.Offered
}

// behindCause names what limited a run that fell behind, and what to do.
func behindCause(rep loadresult.Result) string {
	switch {
	case rep.ServerWentAway() != "":
		return rep.ServerWentAway()
	case rep.CPUBound():
		return fmt.Sprintf("the generator's CPU limited it (it %s); add generators on other hosts (loopbench merge)", rep.CPUBusy())
	case load.FiguresOf(rep, rep.CPUs).ConnBound():
		return fmt.Sprintf("the connections limited it (%s, busy %.2f on average, one request outstanding on each); raise -conns", loadresult.Plural(rep.Conns, "connection"), rep.Concurrency())
	case rep.PacingLag.P99 > lateLag:
		return fmt.Sprintf("the generator sent late (pacing lag p99 %v): %s", loadresult.Sig3(rep.PacingLag.P99), lagCause(rep, false))
	}
	return fmt.Sprintf("the server limited it (uncorrected p50 %v over %s, busy %.2f on average)", loadresult.Sig3(rep.Uncorrected.P50), loadresult.Plural(rep.Conns, "connection"), rep.Concurrency())
}

// errorsWhy is a failed run's errors in parentheses, the most frequent
// named, and whether they say the server went away or did not echo.
func errorsWhy(rep loadresult.Result) string {
	why := fmt.Sprintf("(%s%s)", loadresult.Plural(rep.Errors, "error"), firstError(rep))
	if gone := rep.ServerWentAway(); gone != "" {
		return why + ": " + gone
	}
	if noEcho := notEcho(rep); noEcho != "" {
		why += ": " + noEcho
	}
	return why
}

// notEcho says, when the server's answers did not match its requests or
// no answer ever came, that load speaks an echo protocol; "" otherwise.
func notEcho(rep loadresult.Result) string {
	const echo = "load speaks loopbench's echo protocol (the server sends each request's bytes back: loopbench serve, gonet or any echo server; -proto http speaks HTTP/1.1)"
	if rep.Proto != "" {
		return ""
	}
	timedOut := rep.Answered == 0 && len(rep.ErrorTexts) > 0
	for _, e := range rep.ErrorTexts {
		if e.Text == load.NotEchoText {
			return rep.Addr + " answered with bytes that are not the echo of the request: " + echo
		}
		timedOut = timedOut && strings.HasSuffix(e.Text, "i/o timeout")
	}
	if timedOut {
		return "no answer came from " + rep.Addr + ": " + echo + ", and it echoed nothing"
	}
	return ""
}

func firstError(rep loadresult.Result) string {
	if len(rep.ErrorTexts) == 0 {
		return ""
	}
	return fmt.Sprintf(", the most frequent %dx %s", rep.ErrorTexts[0].Count, rep.ErrorTexts[0].Text)
}

// warnLoad warns when the run's figures describe the generator rather
// than the server; pinned tells whether -cpu pinned it. A run that fell
// far behind fails with its cause (loadVerdict) instead of the warnings
// that would name it.
func warnLoad(stderr io.Writer, rep loadresult.Result, pinned bool) {
	if lag := rep.PacingLag.P99; lag > lateLag {
		fmt.Fprintf(stderr, "loopbench load: warning: the generator sent its requests %v late at p99 (pacing lag), and the corrected latencies include it: %s\n", loadresult.Sig3(lag), lagCause(rep, pinned))
	}
	if fellFarBehind(rep) {
		return
	}
	if rep.Behind {
		cause := rep.ServerWentAway()
		if cause == "" {
			cause = "the server or the generator saturates; pin them apart with -cpu"
		}
		fmt.Fprintf(stderr, "loopbench load: warning: fell behind the schedule (%.0f of %.0f req/s): %s\n", rep.Achieved, rep.Offered, cause)
	}
	if rep.CPUBound() {
		fmt.Fprintf(stderr, "loopbench load: warning: the generator %s: a client this busy measures itself; add generators on other hosts (loopbench merge)\n", rep.CPUBusy())
	}
	if load.FiguresOf(rep, rep.CPUs).ConnBound() {
		fmt.Fprintf(stderr, "loopbench load: warning: connection-bound: the %s busy %.2f on average (achieved rate times mean uncorrected latency); raise -conns\n", connsWere(rep.Conns), rep.Concurrency())
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
		return fmt.Sprintf("its loops (%s) woke late or waited for their CPU, which other processes use (it kept only %.2f cores busy itself%s); give it a CPU of its own, or -spin", load.PacingMethod, busy, spun)
	}
	return fmt.Sprintf("its loops (%s) woke late or waited for a CPU, busy with the server or other processes (it kept only %.2f cores busy itself%s); pin it apart from the server with -cpu, or lower -rate", load.PacingMethod, busy, spun)
}
