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
