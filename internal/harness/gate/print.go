package gate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/callgrind"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
)

// header prints what the gate compared, how, and the files that hold
// what it measured.
func (jg *Judging) header(w io.Writer, cfg Config, res *Result) {
	if cfg.Metric == "instructions" {
		jg.instructionsHeader(w, cfg, res)
		return
	}
	fmt.Fprintf(w, "gate: base %s (%s) vs head %s (%s), %s of -bench %q -benchtime %s, seed %d\n",
		orTree(res.Base.Rev), shortCommit(res.Base.Commit), orTree(res.Head.Rev), shortCommit(res.Head.Commit), plural(res.Rounds, "round"), cfg.Bench, cfg.Benchtime, cfg.Seed)
	fmt.Fprintf(w, "files: %s, %s, %s\n\n", res.Base.Path, res.Head.Path, res.GatePath)
}

// instructionsHeader prints what an instruction gate compared and how it
// counted.
func (jg *Judging) instructionsHeader(w io.Writer, cfg Config, res *Result) {
	if jg.SaveOnly != "" {
		fmt.Fprintf(w, "gate: head %s (%s) counted alone for -save-only, instructions under callgrind of -bench %q\n", orTree(res.Head.Rev), shortCommit(res.Head.Commit), cfg.Bench)
		fmt.Fprintf(w, "files: %s\n\n", res.Head.Path)
		return
	}
	set := "full set"
	if cfg.Short {
		set = "-short set"
	}
	benchtime := cfg.Benchtime
	if res.Method == MethodWindow && cfg.Callgrind.WindowBenchtime != "" {
		benchtime = cfg.Callgrind.WindowBenchtime
	}
	fmt.Fprintf(w, "gate: base %s (%s) vs head %s (%s), instructions under callgrind of -bench %q (%s), counts sized by -benchtime %s, %d repeats (up to %d where they disagree)\n",
		baseName(cfg, res), shortCommit(res.Base.Commit), orTree(res.Head.Rev), shortCommit(res.Head.Commit), cfg.Bench, set, benchtime, cfg.Callgrind.Repeat, cfg.Callgrind.MaxRepeat)
	how := "each benchmark's timed loop, by client requests of the testing package patched by the gate's overlay (--instr-atstart=no)"
	if res.Method == MethodDifference {
		how = "the difference of two processes per benchmark (a binary issues no client requests)"
	}
	fmt.Fprintf(w, "counted: %s; simulated caches %s\n", how, strings.Join(callgrind.Flags[3:], " "))
	fmt.Fprintf(w, "files: %s, %s, %s\n\n", res.Base.Path, res.Head.Path, res.GatePath)
}

// finish lists the benchmarks widened, those not counted and those whose
// counts disagree here, and saves head's counts when asked. When no
// benchmark was counted there is nothing to judge: ErrNothingCounted.
func (jg *Judging) finish(w io.Writer, cfg Config, res *Result) error {
	if n := len(res.Widened); n > 0 {
		fmt.Fprintf(w, "widened (%d: repeats that still disagreed after -max-repeat counts, or sides the range rule could not tell apart; counted again on every side at %d times the iterations, judged on those counts alone):\n", n, Widen)
		for _, x := range res.Widened {
			fmt.Fprintf(w, "  %s at %d iterations\n", x.Name, x.Iters)
		}
	}
	printNotCounted(w, res.NotCounted)
	if jg.SaveOnly != "" {
		return saveHead(w, res, jg.SaveOnly)
	}
	if n := len(res.Nondeterministic); n > 0 {
		fmt.Fprintf(w, "counts that disagree (%d: repeats differ by more than -max-spread %s after up to -max-repeat %d counts; judged on their ranges):\n", n, jg.MaxSpread, cfg.Callgrind.MaxRepeat)
		for _, x := range res.Nondeterministic {
			fmt.Fprintf(w, "  %s %s spread %.3g%%\n", x.Side, x.Name, 100*x.Spread)
		}
	}
	for _, p := range []string{res.Base.Path, res.Head.Path} {
		if _, err := benchdata.ReadFile(p, nil); errors.Is(err, benchdata.ErrNoResults) {
			return ErrNothingCounted
		}
	}
	if jg.Save == "" {
		return nil
	}
	return saveHead(w, res, jg.Save)
}

// printNotCounted lists the benchmarks the harness skipped when listed,
// under each reason it gave: not counted, not judged.
func printNotCounted(w io.Writer, skipped []callgrind.Skipped) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(w, "not counted (%d: skipped by the benchmarks' harness when listed; not judged):\n", len(skipped))
	var reasons []string
	names := map[string][]string{}
	for _, s := range skipped {
		if _, ok := names[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		names[s.Reason] = append(names[s.Reason], s.Name)
	}
	for _, r := range reasons {
		label := r
		if label == "" {
			label = "no reason given"
		}
		fmt.Fprintf(w, "  %s (%d):\n", label, len(names[r]))
		for _, n := range names[r] {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
}

// saveHead copies head's counts to path.
func saveHead(w io.Writer, res *Result, path string) error {
	b, err := os.ReadFile(res.Head.Path)
	if err == nil {
		_, err = benchdata.ReadFile(res.Head.Path, nil)
	}
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("saving head's counts: %w", err)
	}
	fmt.Fprintf(w, "saved: %s\n", path)
	return nil
}

// baseName names the base side: the revision, or the saved baseline.
func baseName(cfg Config, res *Result) string {
	if cfg.Baseline != "" {
		return "baseline " + cfg.Baseline
	}
	return orTree(res.Base.Rev)
}

// orTree names a revision, "working tree" for "".
func orTree(rev string) string {
	if rev == "" {
		return "working tree"
	}
	return rev
}

// shortCommit abbreviates a side's commit to 12 digits, keeping "-dirty".
func shortCommit(commit string) string {
	c, dirty := strings.CutSuffix(commit, "-dirty")
	if len(c) > 12 {
		c = c[:12]
	}
	if dirty {
		return c + "-dirty"
	}
	return c
}
