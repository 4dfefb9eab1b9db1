package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/loopbench/loopbench/internal/harness/loadresult"
)

// loadOutputs are load's -out file and -report directory, checked before
// anything is measured: a path that cannot be written is a usage error
// then, not a lost measurement at the end.
type loadOutputs struct {
	out string   // -out as given; "" none, "-" stdout
	tmp *os.File // -out's temporary file in its directory, renamed into place by finish
}

func openOutputs(f loadFlags) (*loadOutputs, error) {
	o := &loadOutputs{out: f.out}
	if f.out != "" && f.out != "-" {
		if fi, err := os.Stat(f.out); err == nil && fi.IsDir() {
			return nil, usageError{fmt.Sprintf("-out %s is a directory: name a file", f.out)}
		}
		tmp, err := os.CreateTemp(filepath.Dir(f.out), "."+filepath.Base(f.out)+".*")
		if err != nil {
			return nil, usageError{fmt.Sprintf("-out %s: %v", f.out, pathError(err))}
		}
		o.tmp = tmp
	}
	if f.reportDir != "" {
		if err := checkDir(f.reportDir); err != nil {
			o.abandon()
			return nil, usageError{fmt.Sprintf("-report %s: %v", f.reportDir, pathError(err))}
		}
	}
	return o, nil
}

// checkDir makes dir and checks that a file can be written in it.
func checkDir(dir string) error {
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

// pathError is err without the temporary file's name.
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// write writes the results: on stdout after what it printed for "-",
// else into -out.
func (o *loadOutputs) write(stdout io.Writer, rs []loadresult.Result) error {
	if o.out == "" {
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
	if err := os.Rename(tmp.Name(), o.out); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("-out: %w", err)
	}
	return nil
}

// abandon removes -out's temporary file when nothing was written to it.
func (o *loadOutputs) abandon() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
}
