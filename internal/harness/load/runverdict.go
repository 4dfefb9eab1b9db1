package load

import (
	"fmt"
	"io"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// FarBehind is the share of the offered rate a run must achieve: below
// it the run fell far behind its schedule and fails (CheckRuns).
const FarBehind = 0.9

// RunLateLag is the pacing lag p99 past which a run's generator sent
// late.
const RunLateLag = 100 * time.Microsecond

// RunLimits are what the runs of `loopbench load` without a sweep are
// judged by.
type RunLimits struct {
	Count         int           // the runs asked for
	MaxErrors     float64       // the error rate above which a run fails
	MaxErrorsText string        // MaxErrors as given, for the message
	SLO           time.Duration // the corrected p99 a run must stay within
	SLOSet        bool          // SLO was given: the runs are judged against it
}

// CheckRuns fails for a run that measured nothing, had too many errors,
// fell far behind its offered rate, or was interrupted, and for runs
// fewer than asked for; the error is one line naming which and why.
func CheckRuns(reps []loadresult.Result, lim RunLimits) error {
	for i, rep := range reps {
		which := ""
		if lim.Count > 1 {
			which = fmt.Sprintf("run %d of %d: ", i+1, lim.Count)
		}
		switch {
		case rep.Interrupted:
			return fmt.Errorf("%sinterrupted after %v of %v: %s measured", which, rep.Elapsed.Round(time.Millisecond), rep.Duration, loadresult.Plural(rep.Scheduled, "request"))
		case rep.Requests == 0:
			return fmt.Errorf("%sno request completed in the window %s", which, ErrorsWhy(rep))
		case rep.ErrorRate() > lim.MaxErrors:
			return fmt.Errorf("%serror rate %.2f%% is above -max-errors %s %s", which, 100*rep.ErrorRate(), lim.MaxErrorsText, ErrorsWhy(rep))
		case fellFarBehind(rep):
			return fmt.Errorf("%sfell behind: %.0f of %.0f req/s offered achieved (%.0f%%, below %.0f%%), %d of the window's %s unsent: %s",
				which, rep.Achieved, rep.Offered, 100*rep.Achieved/rep.Offered, 100*FarBehind, rep.Unsent, loadresult.Plural(rep.Scheduled, "request"), behindCause(rep))
		}
	}
	if len(reps) < lim.Count {
		return fmt.Errorf("interrupted after %d of %d runs", len(reps), lim.Count)
	}
	return nil
}

// CheckSLO judges the runs against the SLO, when it was given, as a
// sweep judges a step: a corrected p99 over it is the error. Within it,
// one line on w says so; without an SLO, one line says the runs were not
// judged.
func CheckSLO(w io.Writer, reps []loadresult.Result, lim RunLimits) error {
	if len(reps) == 0 {
		return nil
	}
	p99Name := loadresult.P99Name(reps[0])
	if !lim.SLOSet {
		fmt.Fprintf(w, "loopbench load: not judged against an SLO (give -slo to fail a %s over it)\n", p99Name)
		return nil
	}
	c := Criteria{SLO: lim.SLO}
	var worst time.Duration
	for i, rep := range reps {
		p99 := rep.Corrected.P99
		worst = max(worst, p99)
		if c.Judge(FiguresOf(rep, 0)).OverSLO {
			which := ""
			if len(reps) > 1 {
				which = fmt.Sprintf("run %d of %d: ", i+1, len(reps))
			}
			return fmt.Errorf("%s%s %v is over -slo %v", which, loadresult.P99Name(rep), loadresult.Sig3(p99), lim.SLO)
		}
	}
	if len(reps) > 1 {
		fmt.Fprintf(w, "loopbench load: %s within -slo %v in each of %d runs (at most %v)\n", p99Name, lim.SLO, len(reps), loadresult.Sig3(worst))
		return nil
	}
	fmt.Fprintf(w, "loopbench load: %s %v within -slo %v\n", p99Name, loadresult.Sig3(worst), lim.SLO)
	return nil
}

// fellFarBehind reports whether an open-loop run that answered requests
// achieved less than FarBehind of its offered rate.
func fellFarBehind(rep loadresult.Result) bool {
	return rep.Offered > 0 && rep.Requests > 0 && rep.Achieved < FarBehind*rep.Offered
}

// behindCause names what limited a run that fell behind, and what to do.
func behindCause(rep loadresult.Result) string {
	switch {
	case rep.ServerWentAway() != "":
		return rep.ServerWentAway()
	case rep.CPUBound():
		return fmt.Sprintf("the generator's CPU limited it (it %s); add generators on other hosts (loopbench merge)", rep.CPUBusy())
	case FiguresOf(rep, rep.CPUs).ConnBound():
		return fmt.Sprintf("the connections limited it (%s, busy %.2f on average, one request outstanding on each); raise -conns", loadresult.Plural(rep.Conns, "connection"), rep.Concurrency())
	case rep.PacingLag.P99 > RunLateLag:
		return fmt.Sprintf("the generator sent late (pacing lag p99 %v): %s", loadresult.Sig3(rep.PacingLag.P99), lagCause(rep, false))
	}
	return fmt.Sprintf("the server limited it (uncorrected p50 %v over %s, busy %.2f on average)", loadresult.Sig3(rep.Uncorrected.P50), loadresult.Plural(rep.Conns, "connection"), rep.Concurrency())
}

// ErrorsWhy is a failed run's errors in parentheses, the most frequent
// named, and whether they say the server went away or did not echo.
func ErrorsWhy(rep loadresult.Result) string {
	why := fmt.Sprintf("(%s%s)", loadresult.Plural(rep.Errors, "error"), FirstError(rep))
	if gone := rep.ServerWentAway(); gone != "" {
		return why + ": " + gone
	}
	if noEcho := notEcho(rep); noEcho != "" {
		why += ": " + noEcho
	}
	return why
}

// echoProtocol says what load's echo protocol asks of a server.
const echoProtocol = "load speaks loopbench's echo protocol (the server sends each request's bytes back: loopbench serve, gonet or any echo server; -proto http speaks HTTP/1.1)"

// notEcho says, when the server's answers did not match their requests
// (Mismatched) or no answer ever came (every error a deadline passing:
// Expired), that load speaks an echo protocol; "" otherwise, and for
// HTTP. Both are typed counts, never the errors' text.
func notEcho(rep loadresult.Result) string {
	if rep.Proto != "" {
		return ""
	}
	if rep.Mismatched > 0 {
		return rep.Addr + " answered with bytes that are not the echo of the request: " + echoProtocol
	}
	if rep.Answered == 0 && rep.Errors > 0 && rep.Expired == rep.Errors {
		return "no answer came from " + rep.Addr + ": " + echoProtocol + ", and it echoed nothing"
	}
	return ""
}

// FirstError is ", the most frequent Nx TEXT" of a run's errors, or "".
func FirstError(rep loadresult.Result) string {
	if len(rep.ErrorTexts) == 0 {
		return ""
	}
	return fmt.Sprintf(", the most frequent %dx %s", rep.ErrorTexts[0].Count, rep.ErrorTexts[0].Text)
}
