package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/measure/echo"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// writeGenerator writes a fixed generator result to dir/name.txt, around
// a log line as a pod's output has, and returns the path.
func writeGenerator(t *testing.T, dir, name string, start time.Time, lat []int64, errs int64, cores float64) string {
	t.Helper()
	c, u, lag := loadresult.NewHistogram(), loadresult.NewHistogram(), loadresult.NewHistogram()
	for _, v := range lat {
		c.RecordValue(v * 1000)
		u.RecordValue(max(v*3/4, 1) * 1000)
		lag.RecordValue(v * 100)
	}
	d := 2 * time.Second
	n := int64(len(lat))
	rep := loadresult.Result{
		Requests: n, Scheduled: n + errs, Answered: n, Errors: errs, Offered: 10, Achieved: float64(len(lat)) / d.Seconds(),
		WindowStart: start, WindowEnd: start.Add(d), Elapsed: d, Duration: d, CPU: time.Duration(cores * float64(d)), Wall: d,
		CorrectedHist: c, UncorrectedHist: u, PacingLagHist: lag,
		Name: name, Label: "echo", Addr: "198.18.0.1:9000", Conns: 4, Size: 1024, CPUs: 1, PacingMethod: load.PacingMethod,
	}
	var b bytes.Buffer
	b.WriteString(name + ": 20 requests in 2s (the generator's own table)\n")
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".txt")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func latencies(base, n int64) []int64 {
	var out []int64
	for i := range n {
		out = append(out, base+i*base/10)
	}
	return out
}

// TestMergeGolden: merge on fixed inputs, in each format: windows that
// overlap, windows that do not (a warning), a generator with errors.
func TestMergeGolden(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a := writeGenerator(t, dir, "gen-0", t0, latencies(100, 20), 0, 0.4)
	b := writeGenerator(t, dir, "gen-1", t0.Add(20*time.Millisecond), latencies(200, 20), 3, 0.5)
	c := writeGenerator(t, dir, "gen-2", t0.Add(10*time.Millisecond), append(latencies(150, 19), 40_000), 0, 0.97)
	late := writeGenerator(t, dir, "gen-late", t0.Add(1500*time.Millisecond), latencies(100, 20), 0, 0.3)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"merge_table.golden", []string{"merge", a, b, c}},
		{"merge_json.golden", []string{"merge", "-format", "json", a, b, c}},
		{"merge_benchfmt.golden", []string{"merge", "-format", "benchfmt", a, b, c}},
		{"merge_apart.golden", []string{"merge", a, late}},
	} {
		var out, errb bytes.Buffer
		if err := run(tc.args, &out, &errb); err != nil {
			t.Fatalf("%s: %v %s", tc.golden, err, errb.String())
		}
		golden(t, tc.golden, strings.ReplaceAll(out.String()+"-- stderr --\n"+errb.String(), dir, "DIR"))
	}
}

// TestMergeBadFiles: a missing file, a file with no result and a
// truncated result each get one line naming the file and exit 2, and the
// good files are still merged and printed.
func TestMergeBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeGenerator(t, dir, "gen-0", time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC), latencies(100, 20), 0, 0.4)
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.txt")
	os.WriteFile(truncated, data[:len(data)-200], 0o644)
	notResult := filepath.Join(dir, "log.txt")
	os.WriteFile(notResult, []byte("just a log\n"), 0o644)
	micro := filepath.Join(dir, "micro.txt")
	os.WriteFile(micro, bytes.Replace(data, []byte(`"cpu_ns":`), []byte(`"p99_us":5,"cpu_ns":`), 1), 0o644)
	for _, bad := range []string{truncated, notResult, micro, filepath.Join(dir, "missing.txt")} {
		var out, errb bytes.Buffer
		err := run([]string{"merge", good, bad}, &out, &errb)
		if exitCode(err) != 2 || !strings.Contains(errb.String(), bad) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("merge with %s: exit %d, stderr %q; want 2 and one line naming it", filepath.Base(bad), exitCode(err), errb.String())
		}
		if !strings.Contains(out.String(), "1 generator: 10 req/s") || !strings.Contains(out.String(), "the windows' 20 requests = 20 answered") {
			t.Errorf("merge with %s: the good file was not reported: %q", filepath.Base(bad), out.String())
		}
	}
	var out, errb bytes.Buffer
	if err := run([]string{"merge"}, &out, &errb); exitCode(err) != 2 {
		t.Errorf("merge with no files: exit %d", exitCode(err))
	}
}

// TestLoadOutStartAt: two generators given one -start-at wait for it
// (neither window starts before it) and write results that merge into
// the sum of their requests.
func TestLoadOutStartAt(t *testing.T) {
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	dir := t.TempDir()
	at := time.Now().Add(300 * time.Millisecond).UTC()
	errc := make(chan error, 2)
	for i := range 2 {
		go func() {
			args := []string{"load", "-addr", g.Addr().String(), "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s",
				"-requests", "100", "-start-at", at.Format(time.RFC3339Nano), "-name", fmt.Sprintf("g%d", i), "-out", filepath.Join(dir, fmt.Sprintf("g%d.json", i))}
			errc <- run(args, &bytes.Buffer{}, &bytes.Buffer{})
		}()
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	var all []loadresult.Result
	for i := range 2 {
		rs, err := loadresult.ReadFile(filepath.Join(dir, fmt.Sprintf("g%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		if rs[0].WindowStart.Before(at) || rs[0].Name != fmt.Sprintf("g%d", i) {
			t.Fatalf("generator %d: window from %v, name %q; want from %v", i, rs[0].WindowStart, rs[0].Name, at)
		}
		all = append(all, rs...)
	}
	m, err := loadresult.MergeGenerators(all)
	if err != nil || m.Requests != all[0].Requests+all[1].Requests || m.Corrected.Max < all[0].Corrected.Max {
		t.Fatalf("merged %d requests (%v), generators %d + %d", m.Requests, err, all[0].Requests, all[1].Requests)
	}
	// -out with -count > 1, a bad -start-at: usage errors.
	for _, bad := range [][]string{{"-count", "2", "-out", "x"}, {"-start-at", "tomorrow"}} {
		err := run(append([]string{"load", "-addr", g.Addr().String()}, bad...), &bytes.Buffer{}, &bytes.Buffer{})
		if exitCode(err) != 2 {
			t.Errorf("load %q: exit %d, want 2", bad, exitCode(err))
		}
	}
}

// TestMergeRefusals: what merge cannot sum is refused, one line and exit
// 2, and nothing printed; -force merges it with a warning, and the JSON
// then has no common window rather than one that ends before it starts.
func TestMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a := writeGenerator(t, dir, "gen-0", t0, latencies(100, 20), 0, 0.4)
	b := writeGenerator(t, dir, "gen-1", t0, latencies(100, 20), 0, 0.4)
	apart := writeGenerator(t, dir, "gen-apart", t0.Add(5*time.Second), latencies(100, 20), 0, 0.4)
	copyOfA := filepath.Join(dir, "copy.txt")
	data, _ := os.ReadFile(a)
	os.WriteFile(copyOfA, data, 0o644)
	link := filepath.Join(dir, "link.txt")
	os.Symlink(a, link)
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte(strings.Replace(string(data), `"size_bytes":1024`, `"size_bytes":64`, 1)), 0o644)
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{a, b, a}, "refused: DIR/gen-0.txt is DIR/gen-0.txt given again"},
		{[]string{a, link}, "refused: DIR/link.txt is DIR/gen-0.txt given again"},
		{[]string{a, copyOfA}, "refused: gen-0: its result of the window from 10:00:00.000 is there twice"},
		{[]string{a, other}, `refused: gen-0: label "echo", 64 bytes; gen-0: label "echo", 1024 bytes: not the same run`},
		{[]string{a, apart}, "refused: the windows do not overlap (the latest starts at 10:00:05.000, the earliest ends at 10:00:02.000)"},
	} {
		var out, errb bytes.Buffer
		err := run(append([]string{"merge"}, c.files...), &out, &errb)
		msg := strings.ReplaceAll(errb.String(), dir, "DIR")
		if exitCode(err) != 2 || out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) || !strings.Contains(msg, "-force merges anyway") {
			t.Errorf("merge %q: exit %d, stdout %q, stderr %q; want 2, nothing, one line with %q", c.files, exitCode(err), out.String(), msg, c.want)
		}
	}
	var out, errb bytes.Buffer
	if err := run([]string{"merge", "-force", "-format", "json", a, apart}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if !strings.Contains(errb.String(), "warning: forced: the windows do not overlap") || strings.Contains(out.String(), "common_window") {
		t.Fatalf("forced:\n%s\n%s", errb.String(), out.String())
	}
}
