package index

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/report"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"golang.org/x/perf/benchfmt"
)

// Entry is what the index says of one directory of the results
// directory, read from what the run recorded.
type Entry struct {
	name string
	// NotRun says why the directory is not a run ("" for a run).
	NotRun string
	// date, host: "" when not recorded; byName when taken from the
	// directory's name (<date>-<host>-<commit>) instead.
	date, host             string
	dateByName, hostByName bool
	cpu, cores, memory     string
	kernel, goVersion      string
	commit, command        string
	shows                  []string // what it holds: workloads, peers, sweeps, load
	files                  []string // report.html, summary.md, raw.txt... present
	plots                  int      // its SVG files
	cited                  []citation
}

// runNamePattern finds the date in a results directory's name:
// <date>-<host>-<commit>[-suffix] (run, peers, the former
// scripts/bench.sh) or gate-<date>-<base>-<head> (gate).
var runNamePattern = regexp.MustCompile(`(?:^|-)(\d{4}-\d{2}-\d{2})-`)

// ErrNoRuns is the error of a directory that holds no directory to list.
var ErrNoRuns = errors.New("no run directories")

// Reader reads run directories.
type Reader struct {
	// Sweeps reads the load sweeps of results files as report reads them
	// (series, and their common SLO or 0); nil leaves sweeps undescribed.
	Sweeps func(files []string) ([]report.SweepSeries, time.Duration, error)
}

// Dir reads the run in dir: a benchmark run (raw.txt, as run,
// peers and the former scripts/bench.sh wrote it, or gate's gate.txt) or
// load results (load -out files, as scripts/netns-load.sh and scripts/k8s-load.sh
// collect them). A directory with none of them is not a run.
func (rd Reader) Dir(dir string) Entry {
	e := Entry{name: filepath.Base(dir)}
	entries, err := os.ReadDir(dir)
	if err != nil {
		e.NotRun = err.Error()
		return e
	}
	var files []string
	for _, f := range entries {
		switch {
		case f.IsDir():
		case strings.HasSuffix(f.Name(), ".svg"):
			e.plots++
		default:
			files = append(files, f.Name())
		}
	}
	for _, f := range []string{"report.html", "summary.md", "sweeps.md", "raw.txt", "gate.txt"} {
		if slices.Contains(files, f) {
			e.files = append(e.files, f)
		}
	}
	switch {
	case slices.Contains(files, "raw.txt"):
		e.readBench(filepath.Join(dir, "raw.txt"), rd.Sweeps)
	case slices.Contains(files, "gate.txt"):
		e.readBench(filepath.Join(dir, "gate.txt"), rd.Sweeps)
	default:
		e.readLoad(dir, files)
	}
	if e.NotRun == "" {
		e.fromName()
	}
	return e
}

// readBench reads a benchmark run's file (raw.txt, gate.txt) through
// benchdata: its configuration lines describe the machine and the run.
func (e *Entry) readBench(raw string, sweeps func([]string) ([]report.SweepSeries, time.Duration, error)) {
	s, err := benchdata.ReadFile(raw, nil)
	if err != nil {
		e.NotRun = filepath.Base(raw) + ": " + strings.TrimPrefix(err.Error(), raw+": ")
		return
	}
	get := func(keys ...string) string {
		for _, k := range keys {
			if v := s.Keys[k]; len(v) > 0 {
				return strings.Join(v, ", ")
			}
		}
		return ""
	}
	e.host, e.cpu, e.kernel, e.goVersion = get("machine-host", "host"), get("cpu"), get("kernel"), get("go")
	e.commit, e.command, e.memory = get("commit"), get("command"), get("machine-memory")
	switch {
	case get("machine-cores") != "":
		e.cores = get("machine-cores") + " cores"
	case get("gomaxprocs") != "":
		e.cores = "GOMAXPROCS " + get("gomaxprocs") + " (cores not recorded)"
	}
	e.shows = append(e.shows, workloadsLine(s))
	var peers []string
	for _, k := range s.KeyOrder {
		if name, ok := strings.CutPrefix(k, "peer-"); ok {
			peers = append(peers, fmt.Sprintf("%s (%s)", name, strings.Join(s.Keys[k], ", ")))
		}
	}
	if len(peers) > 0 {
		e.shows = append(e.shows, "peers: "+strings.Join(peers, ", "))
	}
	if line := sweepsLine(raw, sweeps); line != "" {
		e.shows = append(e.shows, line)
	}
}

// workloadsLine names the workloads of s and counts each one's cases
// (distinct benchmark names).
func workloadsLine(s *benchdata.Set) string {
	cases := map[string]map[string]bool{}
	for _, smp := range s.Samples {
		base, _ := benchfmt.Name(smp.Name).Parts()
		w := strings.TrimPrefix(string(base), "Benchmark")
		if cases[w] == nil {
			cases[w] = map[string]bool{}
		}
		cases[w][smp.Name] = true
	}
	var parts []string
	for _, w := range slices.Sorted(maps.Keys(cases)) {
		parts = append(parts, fmt.Sprintf("%s (%d)", w, len(cases[w])))
	}
	return fmt.Sprintf("workloads (cases): %s", strings.Join(parts, ", "))
}

// sweepsLine describes the load sweeps in raw, as sweeps reads them: the
// servers, their knees and the offered rates.
func sweepsLine(raw string, sweeps func([]string) ([]report.SweepSeries, time.Duration, error)) string {
	if sweeps == nil {
		return ""
	}
	series, slo, err := sweeps([]string{raw})
	if err != nil || len(series) == 0 {
		return ""
	}
	var knees []string
	lo, hi := series[0].Points[0].Offered, 0.0
	for _, s := range series {
		k := "no knee"
		switch {
		case s.Knee > 0 && s.LowerBound:
			k = fmt.Sprintf("at least %.0f req/s", s.Knee)
		case s.Knee > 0:
			k = fmt.Sprintf("%.0f req/s", s.Knee)
		}
		knees = append(knees, s.Name+" "+k)
		lo, hi = min(lo, s.Points[0].Offered), max(hi, s.Points[len(s.Points)-1].Offered)
	}
	at := ""
	if slo > 0 {
		at = " at the SLO " + slo.String()
	}
	return fmt.Sprintf("sweeps: %s, offered %s; knees%s: %s", loadresult.Plural(len(series), "server"), rateRange(lo, hi), at, strings.Join(knees, ", "))
}

// readLoad reads the load results among files (loadresult.Read finds
// them in any file, around other lines); the other files are left out.
func (e *Entry) readLoad(dir string, files []string) {
	var all []loadresult.Result
	for _, f := range files {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		rs, err := loadresult.Read(f, fh)
		fh.Close()
		if err == nil {
			all = append(all, rs...)
		}
	}
	if len(all) == 0 {
		e.NotRun = "no raw.txt, no gate.txt and no load result"
		return
	}
	e.describeLoad(all)
}

// describeLoad fills e from load results: the earliest window's date, the
// generators (their -name, the host name by default) and their CPUs, and
// what was loaded at which rates.
func (e *Entry) describeLoad(all []loadresult.Result) {
	start := all[0].WindowStart
	var gens, cpus, labels []string
	lo, hi, steps := all[0].Offered, 0.0, 0
	for _, r := range all {
		if r.WindowStart.Before(start) {
			start = r.WindowStart
		}
		gens = appendNew(gens, r.Name)
		cpus = appendNew(cpus, fmt.Sprint(r.CPUs))
		labels = appendNew(labels, fmt.Sprintf("%s at %s, %s, %d-byte messages", r.Label, r.Addr, loadresult.Plural(r.Conns, "conn"), r.Size))
		lo, hi = min(lo, r.Offered), max(hi, r.Offered)
		if r.Step != nil {
			steps = max(steps, *r.Step+1)
		}
	}
	e.date = start.UTC().Format(time.DateOnly)
	e.host = "generators " + strings.Join(gens, ", ")
	e.cores = strings.Join(cpus, ", ") + " usable CPUs per generator"
	shape := fmt.Sprintf("load: %s of %s; %s", loadresult.Plural(len(all), "result"), loadresult.Plural(len(gens), "generator"), strings.Join(labels, "; "))
	if steps > 0 {
		shape += "; a sweep of " + loadresult.Plural(steps, "step")
	}
	if hi > 0 {
		shape += fmt.Sprintf("; offered %s per generator", rateRange(lo, hi))
	}
	e.shows = append(e.shows, shape)
}

// fromName fills the date and host a run did not record from its
// directory's name, <date>-<host>-<short commit>[-suffix], as run and
// peers name it (and the former scripts/bench.sh did).
func (e *Entry) fromName() {
	m := runNamePattern.FindStringSubmatchIndex(e.name)
	if m == nil {
		return
	}
	date := e.name[m[2]:m[3]]
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return
	}
	if e.date == "" {
		e.date, e.dateByName = date, true
	}
	rest := e.name[m[1]:]
	if e.host == "" && m[0] == 0 && len(e.commit) >= 7 {
		if i := strings.Index(rest, "-"+e.commit[:7]); i > 0 {
			e.host, e.hostByName = rest[:i], true
		}
	}
}

// Runs reads every directory of dir that keep chooses (all when keep is
// nil), newest first (by date, then by name; undated ones last), and finds
// where docs cite each. A dir without such directories is an error.
func (rd Reader) Runs(dir string, docs []Doc, keep func(string) bool) ([]Entry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var runs []Entry
	for _, f := range entries {
		if f.IsDir() && !strings.HasPrefix(f.Name(), ".") && (keep == nil || keep(f.Name())) {
			e := rd.Dir(filepath.Join(dir, f.Name()))
			e.cited = citationsOf(docs, e.name)
			runs = append(runs, e)
		}
	}
	slices.SortStableFunc(runs, func(a, b Entry) int {
		if (a.date == "") != (b.date == "") { // undated last
			return strings.Compare(b.date, a.date)
		}
		return cmp.Or(strings.Compare(b.date, a.date), strings.Compare(b.name, a.name))
	})
	if len(runs) == 0 {
		return nil, ErrNoRuns
	}
	return runs, nil
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// rateRange is "R req/s" or "LO to HI req/s".
func rateRange(lo, hi float64) string {
	if lo == hi {
		return fmt.Sprintf("%.0f req/s", lo)
	}
	return fmt.Sprintf("%.0f to %.0f req/s", lo, hi)
}
