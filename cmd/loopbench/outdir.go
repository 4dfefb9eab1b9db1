package main

import (
	"errors"
	"fmt"
	"os"
)

// newDir returns path, or path-2, path-3, ... when it exists.
func newDir(path string) string {
	p := path
	for i := 2; ; i++ {
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
		p = fmt.Sprintf("%s-%d", path, i)
	}
}

// refuseNonEmpty refuses an -out that exists and is not empty.
func refuseNonEmpty(out string) error {
	if entries, err := os.ReadDir(out); out != "" && err == nil && len(entries) > 0 {
		return usageError{fmt.Sprintf("-out %s exists and is not empty: name a new directory", out)}
	}
	return nil
}
