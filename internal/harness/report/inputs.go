package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// InputError is an input or output path a report cannot use. Its
// message names the path once.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// Inputs resolves a report's arguments to results files: a directory
// stands for its raw.txt. A missing path, or a directory without raw.txt,
// is an *InputError.
func Inputs(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, &InputError{fmt.Sprintf("%s: no such file or directory", a)}
		}
		if fi.IsDir() {
			raw := filepath.Join(a, "raw.txt")
			if _, err := os.Stat(raw); err != nil {
				return nil, &InputError{fmt.Sprintf("%s is a directory without raw.txt: name a run directory or a results file", a)}
			}
			a = raw
		}
		files = append(files, a)
	}
	return files, nil
}

// CheckDir checks that out may take the report of files: it is new or
// empty, and so never an input's directory; otherwise an *InputError
// (whose message starts with out).
func CheckDir(out string, files []string) error {
	for _, f := range files {
		if sameDir(out, filepath.Dir(f)) {
			return &InputError{fmt.Sprintf("%s holds the input %s: name a new directory", out, f)}
		}
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return &InputError{fmt.Sprintf("%s exists and is not empty: name a new directory", out)}
	}
	return nil
}

// sameDir reports whether a and b name one directory.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}
