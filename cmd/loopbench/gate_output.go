package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopbench/loopbench/internal/benchdata"
	"github.com/loopbench/loopbench/internal/gate"
)

// output writes the JSON report when -format json asks for it, and
// returns err, the gate's exit.
func (g gateFlags) output(stdout io.Writer, res *gate.Result, j *judgment, err error) error {
	if g.format != "json" {
		return err
	}
	r := newJSONReport("gate", j, err)
	if res != nil {
		metric := "wall"
		if g.instr.on() {
			metric = "instructions"
		}
		r.Gate = &jsonGate{Metric: metric, BaseRev: baseName(res, g), BaseCommit: res.Base.Commit, HeadRev: orTree(res.Head.Rev), HeadCommit: res.Head.Commit,
			Rounds: res.Rounds, BaseRuns: res.Base.Runs, HeadRuns: res.Head.Runs, Seed: g.seed, Files: []string{}}
		for _, p := range []string{res.Base.Path, res.Head.Path, res.GatePath} {
			if _, serr := os.Stat(p); p != "" && serr == nil {
				r.Gate.Files = append(r.Gate.Files, p)
			}
		}
		for _, x := range res.Widened {
			r.Gate.Widened = append(r.Gate.Widened, jsonWidened{x.Name, x.Iters})
		}
		for _, x := range res.NotCounted {
			r.Gate.NotCounted = append(r.Gate.NotCounted, jsonNotCounted{x.Name, x.Reason})
		}
		for _, x := range res.Nondeterministic {
			r.SetAside = append(r.SetAside, jsonSetAside{Side: x.Side, Name: x.Name, Reason: "repeats differ by more than -max-spread", Spread: x.Spread})
		}
	}
	if werr := r.write(stdout); werr != nil && err == nil {
		return exitError{2, werr}
	}
	return err
}

// failedGate is the exit of a gate that could not finish: err with what
// each side's file holds. When no file holds a result and the gate
// created the output directory (created, from missingDirs), it removes
// the gate's files and the directories, so a failed gate leaves nothing.
func failedGate(res *gate.Result, created []string, err error) error {
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
	return exitError{2, fmt.Errorf("%v%s", err, held)}
}

// gateFiles are the files a gate may have written.
func gateFiles(res *gate.Result) []string {
	if res == nil {
		return nil
	}
	return []string{res.Base.Path, res.Head.Path, res.GatePath}
}

// holdings says, after a failed gate, what each side's file holds (the
// benchmarks and runs in it, read back from the file), and whether any
// holds a result.
func holdings(res *gate.Result) (string, bool) {
	if res == nil {
		return "", false
	}
	var parts []string
	measured := false
	for _, s := range []*gate.Side{res.Base, res.Head} {
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

// missingDirs returns dir and those of its parents that do not exist yet,
// innermost first: what a gate creates.
func missingDirs(dir string) []string {
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
