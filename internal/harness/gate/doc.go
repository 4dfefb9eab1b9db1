// Package gate measures two revisions of a Go module's benchmarks
// interleaved, for `loopbench gate`: it builds each revision's test binary
// once, in a temporary git worktree, and then runs rounds in which each
// binary runs the benchmarks once, in an order drawn at random per round,
// so that the machine's drift hits both sides alike. It writes what it
// measures as it goes. Judging then decides on the files with package
// verdict, as compare does: it prints what the gate ran, the verdict's
// table, a sequential gate's looks (Sequential) and an A/A run's noise
// floors (Calibrate); JSONReport is the same as one object.
//
// Settings are the command line's settings: Check refuses bad ones
// before anything runs, and Config and Judging describe the run;
// Judging.Gate runs it (Run) and judges it (Judge). Progress keeps a
// gate's log short where it is not a terminal.
package gate
