package bench_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/sys/raceflag"
)

// TestOutputParses runs the benchmarks of this package once (the varied
// matrix: the names and units are made by the same code as the full one's,
// at a quarter of the time), in a child process of this test binary, and
// reads the output with golang.org/x/perf/benchfmt: no syntax error, every
// name made of key=value segments, and every unit with a known better
// direction. Under the race detector the child runs the pull-request set
// (-test.short: without the cases sized 10⁶, whose setups alone outlast
// go test's 10 min timeout on a loaded machine, and the Go runtime
// baselines); every workload still runs, and the name of every case of
// the whole matrix is checked without running it.
func TestOutputParses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every benchmark once")
	}
	for _, c := range bench.Cases(bench.Options{Every: true}) {
		if err := checkName(benchfmt.Name("Benchmark" + c.Workload + "/" + c.Name())); err != nil {
			t.Errorf("%s/%s: %v", c.Workload, c.Name(), err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=.", "-test.benchtime=1x", "-matrix=varied", "-test.short="+strconv.FormatBool(raceflag.Enabled))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("benchmarks failed: %v\n%s", err, out.String())
	}
	r := benchfmt.NewReader(bytes.NewReader(out.Bytes()), "bench.out")
	var results []*benchfmt.Result
	units := benchfmt.UnitMetadataMap{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", rec)
		case *benchfmt.UnitMetadata:
			units[rec.UnitMetadataKey] = rec
		case *benchfmt.Result:
			results = append(results, rec.Clone())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(results) < 50 {
		t.Fatalf("only %d results", len(results))
	}
	for _, res := range results {
		if err := checkName(res.Name); err != nil {
			t.Errorf("%s: %v", res.Name, err)
		}
		for _, v := range res.Values {
			if units.GetBetter(v.Unit) == 0 {
				t.Errorf("%s: unit %q has no better direction", res.Name, v.Unit)
			}
		}
	}
}

// checkName checks that every sub-benchmark part is /key=value, with the
// GOMAXPROCS suffix (and nothing else) after the last one: a name that
// itself ended in -<number> would lose it to benchstat.
func checkName(name benchfmt.Name) error {
	_, parts := name.Parts()
	for _, p := range parts {
		seg := string(p)
		if strings.HasPrefix(seg, "-") {
			continue // GOMAXPROCS
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(seg, "/"), "=")
		if !strings.HasPrefix(seg, "/") || !ok || k == "" || v == "" {
			return errors.New("part " + seg + " is not /key=value")
		}
	}
	return nil
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"CallSoon/ready=deque/batch=1000-2": true,
		"CallSoon/impl=slice/mode=batch":    true,
		"CallSoon/batch1000-2":              false,
		"CallSoon/ready=deque/batch=-2":     false,
		"CallSoon/ready=deque/1000-2":       false,
	} {
		if err := checkName(benchfmt.Name(name)); (err == nil) != ok {
			t.Errorf("checkName(%q) = %v", name, err)
		}
	}
}
