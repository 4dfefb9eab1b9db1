package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/machine"
	"golang.org/x/perf/benchfmt"
)

func gonet(t *testing.T) string {
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g.Addr().String()
}

// sweepArgs is a short sweep of two steps against addr: both run
// whatever their verdicts (the sweep stops after two failed steps).
func sweepArgs(addr string, more ...string) []string {
	return append([]string{"load", "-addr", addr, "-conns", "1", "-size", "64", "-warmup", "50ms", "-duration", "200ms", "-timeout", "500ms", "-sweep", "100,200", "-slo", "1s"}, more...)
}

// kneeOf is the knee of steps as load.FindKnee finds it, from their
// printed verdicts: the highest met before a generator-limited one. The
// tests check the knee printed against it, not against a machine's
// speed.
func kneeOf(offered []float64, verdicts []string) float64 {
	knee := 0.0
	for i, v := range verdicts {
		if strings.Contains(v, "generator") {
			break
		}
		if v == "met" {
			knee = offered[i]
		}
	}
	return knee
}

// TestLoadSweepOutputs: a sweep's benchmark lines carry a /rate= key per
// step and the knee line, every unit with its direction; -out holds a
// result per step; -report draws sweep.svg.
func TestLoadSweepOutputs(t *testing.T) {
	addr, dir := gonet(t), t.TempDir()
	out, errs, code := runOut(sweepArgs(addr, "-format", "benchfmt", "-out", filepath.Join(dir, "s.json"), "-report", filepath.Join(dir, "rep"))...)
	if code != 0 || strings.Count(errs, "\nstep ")+1 != 2 {
		t.Fatalf("exit %d\n%s\n%s", code, errs, out)
	}
	var verdicts []string
	for _, l := range strings.Split(errs, "\n") {
		if _, v, ok := strings.Cut(l, " cores: "); ok && strings.HasPrefix(l, "step ") {
			verdicts = append(verdicts, v)
		}
	}
	var rates []string
	var knee *benchfmt.Result
	for _, rec := range readBench(t, out) {
		if strings.HasPrefix(string(rec.Name), "LoadKnee/") {
			knee = rec
			continue
		}
		_, parts := rec.Name.Parts()
		rates = append(rates, string(parts[len(parts)-2]))
	}
	if strings.Join(rates, " ") != "/rate=100 /rate=200" || knee == nil || knee.Values[0].Value != kneeOf([]float64{100, 200}, verdicts) || knee.GetConfig("knee") == "" {
		t.Fatalf("steps %q, verdicts %q, knee %v:\n%s", rates, verdicts, knee, out)
	}
	rs, err := loadresult.ReadFile(filepath.Join(dir, "s.json"))
	if err != nil || len(rs) != 2 || *rs[1].Step != 1 || rs[1].Offered != 200 || rs[0].SLO != time.Second {
		t.Fatalf("-out: %d results, %v", len(rs), err)
	}
	for _, r := range rs {
		if r.Series == nil || r.Series.Check(r) != nil {
			t.Fatalf("-out: step %d's series %v", *r.Step, r.Series)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "rep", "sweep.svg")); err != nil || fi.Size() == 0 {
		t.Fatalf("-report: %v", err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "rep", "series.svg"))
	if err != nil || strings.Count(string(svg), " req/s offered: throughput<") != 2 {
		t.Fatalf("-report's series.svg: %v, want a row per step", err)
	}
	out, _, code = runOut(sweepArgs(addr, "-format", "json")...)
	var js struct {
		Sweep struct {
			Knee struct {
				Rate       float64 `json:"rate_rps"`
				LowerBound bool    `json:"lower_bound"`
			} `json:"knee"`
			Steps []struct {
				Step      int     `json:"step"`
				Verdict   string  `json:"verdict"`
				Offered   float64 `json:"offered_rps"`
				PacingLag struct {
					P99 *int64 `json:"p99_ns"`
				} `json:"pacing_lag"`
			} `json:"steps"`
		} `json:"sweep"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != 0 || len(js.Sweep.Steps) != 2 || js.Sweep.Steps[1].Offered != 200 || js.Sweep.Steps[0].PacingLag.P99 == nil {
		t.Fatalf("json (exit %d, %v):\n%s", code, err, out)
	}
	steps := js.Sweep.Steps
	if want := kneeOf([]float64{100, 200}, []string{steps[0].Verdict, steps[1].Verdict}); js.Sweep.Knee.Rate != want || js.Sweep.Knee.LowerBound != (want == 200) {
		t.Fatalf("json knee %+v, want %v from the verdicts:\n%s", js.Sweep.Knee, want, out)
	}
}

// TestLoadSweepTableGolden fixes a sweep and checks its table.
func TestLoadSweepTableGolden(t *testing.T) {
	cfg := load.Config{Label: "loopbench", Conns: 10, Size: 1024, Warmup: time.Second, Duration: 5 * time.Second}
	c := load.Criteria{SLO: time.Millisecond, MaxErrors: 0.01}
	var sw load.Sweep
	for i, step := range []struct {
		offered, achieved float64
		p99               time.Duration
	}{{2000, 2000, 180 * time.Microsecond}, {2800, 2799, 240 * time.Microsecond}, {3920, 3700, 2400 * time.Microsecond}, {5488, 3710, 900 * time.Millisecond}} {
		rep := loadresult.Result{Offered: step.offered, Achieved: step.achieved, Scheduled: 100, Answered: 100,
			Corrected:   loadresult.Latencies{P50: step.p99 / 3, P90: step.p99 / 2, P99: step.p99, P999: step.p99 * 2, Max: step.p99 * 3},
			Uncorrected: loadresult.Latencies{P50: step.p99 / 4, P90: step.p99 / 3, P99: step.p99 / 2, P999: step.p99, Max: step.p99 * 2},
			PacingLag:   loadresult.Latencies{P99: 21 * time.Microsecond}, CPU: time.Second, Wall: 4 * time.Second}
		sw.Steps = append(sw.Steps, load.Step{Index: i, Result: rep, Verdict: c.Judge(load.FiguresOf(rep, 2))})
	}
	sw.Stop = "the server fell behind on two steps in a row, the last at 5488 req/s"
	sw.Knee = load.FindKnee(sw.Outcomes())
	var out bytes.Buffer
	if err := (load.Output{Format: "table", Config: cfg}).WriteSweep(&out, c, sw); err != nil {
		t.Fatal(err)
	}
	golden(t, "load_sweep_table.golden", out.String())
}

// TestLoadPathsCheckedFirst: an -out or -report that cannot be written
// is exit 2 before any connection is opened.
func TestLoadPathsCheckedFirst(t *testing.T) {
	var accepted atomic.Int64
	addr := serveLoopback(t, func(c net.Conn) {
		accepted.Add(1)
		c.Close()
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, bad := range [][]string{{"-out", filepath.Join(dir, "no", "such", "dir", "g.json")}, {"-out", dir}, {"-report", filepath.Join(file, "rep")}} {
		_, errs, code := runOut(append([]string{"load", "-addr", addr, "-duration", "100ms"}, bad...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, bad[0]+" ") {
			t.Errorf("%q: exit %d, %q; want 2 and one line naming %s", bad, code, errs, bad[0])
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("%d connections opened before the paths were checked", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

// TestLoadSweepGenerators: two generators sweep together from one
// -start-at, each step in its slot, and merge merges their sweeps step by
// step, the rates summed, with the knee of the merged curve. Sweeps that
// a loaded machine kept from overlapping (merge refuses them: a step
// started late) run again, three times at most.
func TestLoadSweepGenerators(t *testing.T) {
	addr := gonet(t)
	var dir, out, errs string
	var at time.Time
	var code int
	for attempt := 1; ; attempt++ {
		dir = t.TempDir()
		at = sweepTogether(t, addr, dir)
		out, errs, code = runOut("merge", "-format", "json", filepath.Join(dir, "g0.json"), filepath.Join(dir, "g1.json"))
		if attempt == 3 || !strings.Contains(errs, "the windows do not overlap") {
			break
		}
		t.Logf("attempt %d: %s", attempt, errs)
	}
	period := 50*time.Millisecond + 200*time.Millisecond + 200*time.Millisecond + 500*time.Millisecond
	for i := range 2 {
		rs, err := loadresult.ReadFile(filepath.Join(dir, fmt.Sprintf("g%d.json", i)))
		if err != nil || len(rs) != 2 {
			t.Fatalf("g%d: %d results, %v", i, len(rs), err)
		}
		for k, r := range rs {
			if slot := at.Add(time.Duration(k)*period + 50*time.Millisecond); r.WindowStart.Before(slot) {
				t.Errorf("g%d step %d: window from %v, before its slot %v", i, k, r.WindowStart, slot)
			}
		}
	}
	var js struct {
		Generators []string `json:"generators"`
		Knee       struct {
			Rate float64 `json:"rate_rps"`
		} `json:"knee"`
		Steps []struct {
			Offered float64 `json:"offered_rps"`
			Gens    int     `json:"generators"`
			Verdict string  `json:"verdict"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != 0 || len(js.Steps) != 2 || js.Steps[1].Offered != 400 || js.Steps[1].Gens != 2 {
		t.Fatalf("merge (exit %d, %v, %s):\n%s", code, err, errs, out)
	}
	if want := kneeOf([]float64{200, 400}, []string{js.Steps[0].Verdict, js.Steps[1].Verdict}); js.Knee.Rate != want {
		t.Fatalf("merged knee %v, want %v from the merged steps' verdicts:\n%s", js.Knee.Rate, want, out)
	}
	mergeInterrupted(t, filepath.Join(dir, "g0.json"), filepath.Join(dir, "g1.json"))
}

// sweepTogether runs two generators, g0 and g1, sweeping 100 and 200
// req/s from one -start-at 300 ms ahead, into dir/g0.json and
// dir/g1.json, and returns the start.
func sweepTogether(t *testing.T, addr, dir string) time.Time {
	at := time.Now().Add(300 * time.Millisecond).UTC()
	errc := make(chan error, 2)
	for i := range 2 {
		go func() {
			args := []string{"load", "-addr", addr, "-conns", "1", "-size", "64", "-warmup", "50ms", "-duration", "200ms", "-timeout", "200ms",
				"-sweep", "100,200", "-slo", "1s", "-start-at", at.Format(time.RFC3339Nano), "-name", fmt.Sprintf("g%d", i), "-out", filepath.Join(dir, fmt.Sprintf("g%d.json", i))}
			var errb bytes.Buffer
			if err := run(args, &bytes.Buffer{}, &errb); err != nil {
				errc <- fmt.Errorf("%v: %s", err, errb.String())
				return
			}
			errc <- nil
		}()
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	return at
}

// mergeInterrupted marks g1's steps interrupted, as a loopbench that kept
// an interrupted step in -out wrote them: merge leaves its second step
// out with one warning, and refuses a first step with one line (exit 2).
func mergeInterrupted(t *testing.T, g0, g1 string) {
	b, err := os.ReadFile(g1)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	for i := 1; i >= 0; i-- {
		lines[i] = strings.Replace(lines[i], `"interrupted":false`, `"interrupted":true`, 1)
		if err := os.WriteFile(g1, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := runOut("merge", g0, g1)
		switch {
		case i == 1 && (code != 0 || !strings.HasSuffix(errs, "loopbench merge: warning: step 2 was interrupted in g1: the merged sweep ends before it\n") || !strings.Contains(out, "1 step merged")):
			t.Fatalf("step 2 interrupted: exit %d\n%s\n%s", code, errs, out)
		case i == 0 && (code != 2 || errs != "loopbench merge: step 1 was interrupted in g1: no step to merge\n"):
			t.Fatalf("step 1 interrupted: exit %d, %q", code, errs)
		}
	}
}

// TestReportSweeps: report over the sweeps of two servers and a merged
// sweep draws them on one plot at the chosen percentile, each at every
// percentile, and tables their knees; a bad -percentile is exit 2.
func TestReportSweeps(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, label := range []string{"fast", "slow"} {
		cfg := load.Config{Label: label, Conns: 1, Size: 64}
		var sw load.Sweep
		for k, rate := range []float64{1000, 2000, 4000} {
			rep := loadresult.Result{Offered: rate, Achieved: rate / float64(1+i*k), Corrected: loadresult.Latencies{P50: time.Duration(100*(1+k*i)) * time.Microsecond,
				P90: 200 * time.Microsecond, P99: time.Duration(300*(1+4*k*i)) * time.Microsecond, P999: time.Millisecond, Max: 2 * time.Millisecond}}
			sw.Steps = append(sw.Steps, load.Step{Index: k, Result: rep, Verdict: load.Criteria{SLO: time.Millisecond}.Judge(load.FiguresOf(rep, 0))})
		}
		sw.Knee = load.FindKnee(sw.Outcomes())
		var b bytes.Buffer
		if err := (load.Output{Format: "benchfmt", Config: cfg, Base: machine.RunConfig(), CPUs: load.UsableCPUs()}).WriteSweep(&b, load.Criteria{SLO: time.Millisecond}, sw); err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, label+".txt"))
		os.WriteFile(files[i], b.Bytes(), 0o644)
	}
	out, errs, code := runOut(append([]string{"report", "-o", filepath.Join(dir, "rep"), "-percentile", "p99.9"}, files...)...)
	if code != 0 || !strings.Contains(out, "| fast | ≥ 4000 | every step up to the last was met") || !strings.Contains(out, "| slow | 1000 |") {
		t.Fatalf("exit %d\n%s\n%s", code, errs, out)
	}
	for _, f := range []string{"sweeps.svg", "sweep-1.svg", "sweep-2.svg", "sweeps.md"} {
		if fi, err := os.Stat(filepath.Join(dir, "rep", f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if svg, _ := os.ReadFile(filepath.Join(dir, "rep", "sweeps.svg")); !bytes.Contains(svg, []byte("corrected p99.9")) {
		t.Error("sweeps.svg is not drawn at p99.9")
	}
	if _, errs, code := runOut("report", "-percentile", "p42", files[0]); code != 2 || !strings.Contains(errs, `-percentile "p42": want one of p50, p90, p99, p99.9, max`) {
		t.Fatalf("-percentile p42: exit %d, %q", code, errs)
	}
}

// TestLoadSweepInterrupted: Ctrl-C in a sweep leaves the step it came in
// out of the table and -out (no step of zeros), says which, and fails.
func TestLoadSweepInterrupted(t *testing.T) {
	addr, dir := gonet(t), t.TempDir()
	interruptAfter(t, 450*time.Millisecond)
	outFile := filepath.Join(dir, "s.json")
	out, errs, code := runOut("load", "-addr", addr, "-conns", "1", "-size", "64", "-warmup", "50ms", "-duration", "200ms", "-timeout", "500ms",
		"-sweep", "100,200,300,400", "-slo", "1s", "-out", outFile)
	var k int
	if _, err := fmt.Sscanf(errs[strings.Index(errs, "interrupted in step "):], "interrupted in step %d of 4", &k); code != 1 || err != nil {
		t.Fatalf("exit %d, %v\nstderr %s\nstdout %s", code, err, errs, out)
	}
	rs, err := loadresult.ReadFile(outFile)
	if k == 1 {
		if _, serr := os.Stat(outFile); !os.IsNotExist(serr) || out != "" {
			t.Fatalf("interrupted in step 1: -out %v, stdout %q", serr, out)
		}
		return
	}
	if err != nil || len(rs) != k-1 {
		t.Fatalf("interrupted in step %d: -out holds %d steps, %v; want %d", k, len(rs), err, k-1)
	}
	for _, r := range rs {
		if r.Interrupted || r.Requests == 0 {
			t.Errorf("-out step %d: interrupted %v, %d requests", *r.Step+1, r.Interrupted, r.Requests)
		}
	}
	if !strings.Contains(out, fmt.Sprintf("\nstopped: interrupted in step %d (%d req/s), which is left out\n", k, 100*k)) || !strings.HasPrefix(out, fmt.Sprintf("%s: %s over", addr, loadresult.Plural(k-1, "step"))) {
		t.Fatalf("table:\n%s", out)
	}
}
