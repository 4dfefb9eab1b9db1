package servercost

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/peers"
	"github.com/loopbench/loopbench/selectors"
	"golang.org/x/perf/benchfmt"
)

// fakeRun is a run of loopbench's shapes alone (no peers, no servers)
// whose measurements are counted, not made: measure is called before
// each is written.
func fakeRun(count int, measure func()) (Config, *[]string, *bytes.Buffer, *bytes.Buffer) {
	var raw, errs bytes.Buffer
	var written []string
	cfg := Config{Proto: "echo", Count: count, Benchtime: time.Millisecond, Quick: true, NoEcho: true, Seed: 1,
		Raw: &raw, Out: benchfmt.NewWriter(&raw), Stderr: &errs,
		Cmd: Cmd{
			MeasureCase: func(bench.Case, time.Duration) (bench.Result, error) {
				measure()
				return bench.Result{N: 1, NsPerOp: 1}, nil
			},
			WriteCase: func(c bench.Case, _ bench.Result) error {
				written = append(written, c.Workload+"/"+c.Name())
				return nil
			},
		}}
	return cfg, &written, &raw, &errs
}

// shapesHere is the number of quick shapes loopbench runs on this
// kernel: all but uring's where it is refused.
func shapesHere() int {
	n := 0
	for _, s := range peers.Shapes(true) {
		if s.Selector == "" || selectors.Available(s.Selector) == nil {
			n++
		}
	}
	return n
}

// TestRunRounds: every shape loopbench runs is measured and written once
// a round, each round announced, after the header; a shape the kernel
// refuses is said in one line.
func TestRunRounds(t *testing.T) {
	cfg, written, raw, errs := fakeRun(2, func() {})
	out, err := Run(context.Background(), cfg)
	want := 2 * shapesHere()
	if err != nil || out.Measured != want || out.Failures != 0 || len(*written) != want {
		t.Fatalf("%+v %v, %d written; want %d measured", out, err, len(*written), want)
	}
	if !strings.Contains(errs.String(), "round 1 of 2\n") || !strings.Contains(errs.String(), "round 2 of 2\n") {
		t.Errorf("rounds not announced: %q", errs.String())
	}
	if refused := len(peers.Shapes(true)) - shapesHere(); strings.Count(errs.String(), "not measured: loopbench IOChain") != 2*refused {
		t.Errorf("want %d not-measured lines: %q", 2*refused, errs.String())
	}
	if !strings.HasSuffix(raw.String(), "Unit p50-ns better=lower\nUnit p99-ns better=lower\n") {
		t.Errorf("raw does not end with the units:\n%s", raw.String())
	}
}

// TestRunInterrupted: a run whose context ends after its first
// measurement stops there and says that the report covers what was
// measured.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, written, _, _ := fakeRun(3, cancel)
	out, err := Run(ctx, cfg)
	if err == nil || !strings.HasSuffix(err.Error(), ": the report covers what was measured") || out.Measured != 1 || len(*written) != 1 {
		t.Fatalf("%+v %v, %d written; want 1 measured and the interruption", out, err, len(*written))
	}
}
