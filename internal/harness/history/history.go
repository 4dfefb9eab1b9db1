// Package history finds where a series of saved instruction counts
// changed: the files `loopbench gate -metric instructions -save-only`
// writes, one a commit, read in commit order. For each benchmark and
// unit it splits the series into segments of one level (Detect) and
// names the first commit of each new level, with the change's size and
// the values before and after; `loopbench history` prints them and draws
// each benchmark's counts over the commits. Read reads the saves,
// Analyze finds the change points, Report.Write prints them.
//
// Counts repeat from process to process to within a fraction of a
// percent (the gate's A/As: instructions/op −0.28 to +0.31 %, est-cycles/op
// up to +0.58 %), so the method is a step detector of binary segmentation
// rather than a test on a distribution: a segment splits where the
// levels before and after differ by more than the minimum effect and
// the two sides' values do not overlap (see Detect).
package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
)

// Commit is one point of a history: the saves of one commit.
type Commit struct {
	Commit string   // the "commit" line of its files
	Time   string   // their "commit-time" line (RFC 3339), "" when absent
	Files  []string // the saves read for it, pooled when several
}

// Short is the commit abbreviated to 12 characters.
func (c Commit) Short() string {
	if len(c.Commit) > 12 {
		return c.Commit[:12]
	}
	return c.Commit
}

// Series is one benchmark's values in one unit over the commits.
type Series struct {
	Name, Unit string
	// At lists the commits (indices into History.Commits) that hold the
	// benchmark in this unit, in order; Values[i] are the values of
	// commit At[i] (every repeat of its saves).
	At     []int
	Values [][]float64
}

// History is the saves read in commit order.
type History struct {
	Commits []Commit
	Series  []*Series // in the order first seen
}

// FileError is a save that cannot be read or ordered.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Read reads one directory alone (ReadDir), or files in the order given
// (ReadFiles). Every error names the path at fault, bad input: a
// *FileError, or a directory named among several paths.
func Read(paths []string) (*History, error) {
	if fi, err := os.Stat(paths[0]); len(paths) == 1 && err == nil && fi.IsDir() {
		return ReadDir(paths[0])
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory: give one directory alone, or files", p)
		}
	}
	return ReadFiles(paths)
}

// ReadFiles reads saves in the order given, one a commit; consecutive
// saves of one commit are pooled into one point.
func ReadFiles(paths []string) (*History, error) {
	sets, err := readSets(paths)
	if err != nil {
		return nil, err
	}
	return build(sets), nil
}

// ReadDir reads every regular file of dir (not its subdirectories, nor
// files whose names start with "."), each a save, ordered by its
// commit-time line, then by name. A file without one cannot be placed:
// its error says to name the files in commit order instead.
func ReadDir(dir string) (*History, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &FileError{dir, unwrapPath(err)}
	}
	var paths []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	if len(paths) == 0 {
		return nil, &FileError{dir, errors.New("no saved counts in the directory")}
	}
	sets, err := readSets(paths)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		if len(s.Keys["commit-time"]) != 1 {
			return nil, &FileError{s.Path, errors.New("no commit-time line (a save from before gate recorded it): name the files in commit order instead of the directory")}
		}
	}
	// RFC 3339 times in UTC sort as text.
	sort.SliceStable(sets, func(a, b int) bool { return sets[a].Keys["commit-time"][0] < sets[b].Keys["commit-time"][0] })
	return build(sets), nil
}

// readSets reads each save, which must name one commit.
func readSets(paths []string) ([]*benchdata.Set, error) {
	sets := make([]*benchdata.Set, len(paths))
	for i, p := range paths {
		s, err := benchdata.ReadFile(p, nil)
		if err != nil {
			return nil, &FileError{p, readError(err)}
		}
		if err := oneCommit(s); err != nil {
			return nil, &FileError{p, err}
		}
		sets[i] = s
	}
	return sets, nil
}

// readError words benchdata's error for one line: without the path,
// which FileError adds.
func readError(err error) error {
	if errors.Is(err, benchdata.ErrNoResults) {
		return errors.New("no benchmark results: not a saved count file")
	}
	return unwrapPath(err)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// oneCommit checks that a save names one commit (a save is one side).
func oneCommit(s *benchdata.Set) error {
	switch c := s.Keys["commit"]; len(c) {
	case 0:
		return errors.New("no commit line: not a save of gate -save-only")
	case 1:
		return nil
	default:
		return fmt.Errorf("holds %d commits (%s): a save is one commit", len(c), strings.Join(c, ", "))
	}
}

// build makes the history of sets in order, pooling consecutive sets of
// one commit.
func build(sets []*benchdata.Set) *History {
	h := &History{}
	index := map[[2]string]*Series{}
	for _, s := range sets {
		commit := s.Keys["commit"][0]
		if n := len(h.Commits); n == 0 || h.Commits[n-1].Commit != commit {
			h.Commits = append(h.Commits, Commit{Commit: commit, Time: first(s.Keys["commit-time"])})
		}
		at := len(h.Commits) - 1
		h.Commits[at].Files = append(h.Commits[at].Files, s.Path)
		for _, smp := range s.Samples {
			k := [2]string{smp.Name, smp.Unit}
			sr := index[k]
			if sr == nil {
				sr = &Series{Name: smp.Name, Unit: smp.Unit}
				index[k] = sr
				h.Series = append(h.Series, sr)
			}
			if n := len(sr.At); n == 0 || sr.At[n-1] != at {
				sr.At = append(sr.At, at)
				sr.Values = append(sr.Values, nil)
			}
			sr.Values[len(sr.Values)-1] = append(sr.Values[len(sr.Values)-1], smp.Values...)
		}
	}
	return h
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}
