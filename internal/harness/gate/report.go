package gate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/verdict"
	"github.com/loopbench/loopbench/internal/measure/benchdata"
)

// JSONReport is gate's -format json output: compare's object
// (verdict.JSONReport) and what the gate ran.
type JSONReport struct {
	*verdict.JSONReport
	Gate *JSONGate `json:"gate,omitempty"`
}

// JSONGate is what a gate ran.
type JSONGate struct {
	Metric     string   `json:"metric"`
	BaseRev    string   `json:"base_rev"`
	BaseCommit string   `json:"base_commit"`
	HeadRev    string   `json:"head_rev"`
	HeadCommit string   `json:"head_commit"`
	Rounds     int      `json:"rounds"`
	BaseRuns   int      `json:"base_runs"`
	HeadRuns   int      `json:"head_runs"`
	Seed       uint64   `json:"seed"`
	Files      []string `json:"files"`
	// Widened: benchmarks counted again at wider windows (instructions).
	Widened []JSONWidened `json:"widened,omitempty"`
	// NotCounted: benchmarks the harness skipped when listed, not judged
	// (instructions).
	NotCounted []JSONNotCounted `json:"not_counted,omitempty"`
}

// JSONNotCounted is a benchmark not counted, and the reason its harness
// gave.
type JSONNotCounted struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// JSONWidened is a benchmark counted at Iters iterations a window after
// its counts at fewer could not decide it.
type JSONWidened struct {
	Name  string `json:"name"`
	Iters int    `json:"iters"`
}

// NewJSONReport is the report of a gate that exits with exit and
// message: the judgment j (nil when there is none) and, when res is not
// nil, what the gate ran as cfg asked.
func NewJSONReport(cfg Config, res *Result, j *verdict.Judgment, exit int, message string) *JSONReport {
	r := &JSONReport{JSONReport: verdict.NewJSONReport("gate", j, exit, message)}
	if res == nil {
		return r
	}
	metric := "wall"
	if cfg.Metric == "instructions" {
		metric = "instructions"
	}
	r.Gate = &JSONGate{Metric: metric, BaseRev: baseName(cfg, res), BaseCommit: res.Base.Commit, HeadRev: orTree(res.Head.Rev), HeadCommit: res.Head.Commit,
		Rounds: res.Rounds, BaseRuns: res.Base.Runs, HeadRuns: res.Head.Runs, Seed: cfg.Seed, Files: []string{}}
	for _, p := range []string{res.Base.Path, res.Head.Path, res.GatePath} {
		if _, serr := os.Stat(p); p != "" && serr == nil {
			r.Gate.Files = append(r.Gate.Files, p)
		}
	}
	for _, x := range res.Widened {
		r.Gate.Widened = append(r.Gate.Widened, JSONWidened(x))
	}
	for _, x := range res.NotCounted {
		r.Gate.NotCounted = append(r.Gate.NotCounted, JSONNotCounted{x.Name, x.Reason})
	}
	for _, x := range res.Nondeterministic {
		r.SetAside = append(r.SetAside, verdict.JSONSetAside{Side: x.Side, Name: x.Name, Reason: "repeats differ by more than -max-spread", Spread: x.Spread})
	}
	return r
}

// Write writes the report as every -format json report is written
// (verdict.WriteJSON).
func (r *JSONReport) Write(w io.Writer) error { return verdict.WriteJSON(w, r) }

// Failed is the error of a gate that could not finish: err with what
// each side's file holds. When no file holds a result and the gate
// created the output directory (created, from MissingDirs), it removes
// the gate's files and the directories, so a failed gate leaves nothing.
func Failed(res *Result, created []string, err error) error {
	held, measured := holdings(res)
	if !measured && len(created) > 0 {
		for _, p := range gateFiles(res) {
			if filepath.Dir(filepath.Clean(p)) == created[0] { // never a -baseline elsewhere
				os.Remove(p)
			}
		}
		held = ""
	}
	removeEmpty(created)
	return fmt.Errorf("%v%s", err, held)
}

// gateFiles are the files a gate may have written.
func gateFiles(res *Result) []string {
	if res == nil {
		return nil
	}
	return []string{res.Base.Path, res.Head.Path, res.GatePath}
}

// holdings says, after a failed gate, what each side's file holds (the
// benchmarks and runs in it, read back from the file), and whether any
// holds a result.
func holdings(res *Result) (string, bool) {
	if res == nil {
		return "", false
	}
	var parts []string
	measured := false
	for _, s := range []*Side{res.Base, res.Head} {
		if s == nil || s.Path == "" {
			continue
		}
		set, err := benchdata.ReadFile(s.Path, nil)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			parts = append(parts, fmt.Sprintf("%s holds no results", s.Path))
			continue
		}
		names := map[string]bool{}
		lines := 0
		for _, x := range set.Samples {
			names[x.Name] = true
			lines = max(lines, len(x.Values))
		}
		measured = true
		parts = append(parts, fmt.Sprintf("%s holds %s, up to %s each", s.Path, plural(len(names), "benchmark"), plural(lines, "run")))
	}
	if len(parts) == 0 {
		return "", measured
	}
	return " (" + strings.Join(parts, "; ") + ")", measured
}

// MissingDirs returns dir and those of its parents that do not exist yet,
// innermost first: what a gate creates.
func MissingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) || d == filepath.Dir(d) {
			return out
		}
		out = append(out, d)
	}
}

// removeEmpty removes the directories, innermost first, that are empty:
// a failed gate leaves no empty results directory behind.
func removeEmpty(dirs []string) {
	for _, d := range dirs {
		if entries, err := os.ReadDir(d); err == nil && len(entries) == 0 {
			os.Remove(d)
		}
	}
}

// OutName is the name of a gate's output directory, from the date and
// the revisions (base and head as given, "" their defaults), or for an
// A/A run head's alone.
func OutName(base, head string, aa bool, now time.Time) string {
	name := func(rev, def string) string {
		if rev == "" {
			rev = def
		}
		return strings.NewReplacer("/", "_", "~", "-", "^", "-", ":", "_").Replace(rev)
	}
	date := now.UTC().Format("2006-01-02")
	if aa {
		return "gate-" + date + "-aa-" + name(head, "worktree")
	}
	return "gate-" + date + "-" + name(base, "HEAD-1") + "-" + name(head, "worktree")
}

// Machine is the machine's configuration for the gate's files (Config's
// Machine) from run's: with the Go version of the toolchain that builds
// the binaries, and without run's own commit (each side has its own).
func Machine(run [][2]string) [][2]string {
	var out [][2]string
	for _, kv := range run {
		switch kv[0] {
		case "commit":
			continue
		case "go":
			if v, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
				kv[1] = strings.TrimSpace(string(v))
			}
		}
		out = append(out, kv)
	}
	return out
}
