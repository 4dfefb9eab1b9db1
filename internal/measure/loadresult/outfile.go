package loadresult

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// OutFile is load's -out: the results written into a temporary file in
// the target's directory, renamed into place when they are complete. It
// is created before anything is measured, so that a path that cannot be
// written fails then, not after the measurement.
type OutFile struct {
	path string   // as given; "" none, "-" the standard output
	tmp  *os.File // the temporary file, until Write renames it
}

// CreateOut checks path and opens its temporary file: "" writes nothing,
// "-" the stdout Write is given. The error names path.
func CreateOut(path string) (*OutFile, error) {
	o := &OutFile{path: path}
	if path == "" || path == "-" {
		return o, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("-out %s is a directory: name a file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("-out %s: %v", path, PathError(err))
	}
	o.tmp = tmp
	return o, nil
}

// Write writes the results, a line each: on stdout for "-", else into
// the file, which it renames into place.
func (o *OutFile) Write(stdout io.Writer, rs []Result) error {
	if o.path == "" {
		return nil
	}
	w := stdout
	if o.tmp != nil {
		w = o.tmp
	}
	for _, r := range rs {
		if err := r.Write(w); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
	}
	if o.tmp == nil {
		return nil
	}
	tmp := o.tmp
	o.tmp = nil
	tmp.Chmod(0o644)
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("-out: %w", err)
	}
	if err := os.Rename(tmp.Name(), o.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("-out: %w", err)
	}
	return nil
}

// Abandon removes the temporary file when nothing was written to it.
func (o *OutFile) Abandon() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
}

// CheckDir makes dir and checks that a file can be written in it.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	probe, err := os.CreateTemp(dir, ".loopbench-check-*")
	if err != nil {
		return err
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// PathError is err without the file's name: a temporary file's name
// says nothing to whoever named its directory.
func PathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteHgrmFile writes the results' merged corrected histogram to path
// as an .hgrm (WriteHgrm), when path is not "", and names it on w. The
// error names the flag, -hgrm.
func WriteHgrmFile(w io.Writer, path string, rs []Result) error {
	if path == "" {
		return nil
	}
	h := NewHistogram()
	for _, r := range rs {
		if r.CorrectedHist != nil {
			h.Merge(r.CorrectedHist)
		}
	}
	var buf bytes.Buffer
	if err := WriteHgrm(&buf, h); err != nil {
		return fmt.Errorf("-hgrm %s: %v", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-hgrm: %v", err)
	}
	fmt.Fprintf(w, "hgrm: %s\n", path)
	return nil
}

// ReadFile reads the results in the file name (Read).
func ReadFile(name string) ([]Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(name, f)
}

// SameFiles names the files given more than once, under any name.
func SameFiles(names []string) []string {
	var out []string
	var seen []os.FileInfo
	var seenName []string
	for _, n := range names {
		fi, err := os.Stat(n)
		if err != nil {
			continue // reading it names the problem
		}
		for i, s := range seen {
			if os.SameFile(fi, s) {
				out = append(out, fmt.Sprintf("%s is %s given again", n, seenName[i]))
				break
			}
		}
		seen, seenName = append(seen, fi), append(seenName, n)
	}
	return out
}
