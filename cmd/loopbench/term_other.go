//go:build !unix

package main

import "io"

// termWidth is 0 where the terminal's width is not read: every column.
func termWidth(io.Writer) int { return 0 }
