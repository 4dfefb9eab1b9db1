//go:build unix

package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// termWidth is the width of the terminal w is, or 0 when w is not one.
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0
	}
	return int(ws.Col)
}
