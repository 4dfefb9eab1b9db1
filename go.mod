module github.com/loopbench/loopbench

go 1.26

require golang.org/x/sys v0.49.0 // indirect
