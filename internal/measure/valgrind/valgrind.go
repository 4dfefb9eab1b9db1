// Package valgrind issues valgrind client requests from Go assembly, as
// the Go runtime does (runtime/valgrind_amd64.s, _arm64.s): whether the
// process runs under valgrind, and callgrind's requests that bound a
// counted window (zero the counts, start and stop instrumentation, dump
// the counts under a name). Outside valgrind each request is a few
// register rotations that change nothing, and on architectures other
// than amd64 and arm64 a no-op: code that brackets a benchmark's loop
// with them runs unchanged natively.
//
// Run the program under
//
//	valgrind --tool=callgrind --instr-atstart=no
//
// and everything outside the windows runs at valgrind's uninstrumented
// speed and is not counted; each DumpStatsAt writes one numbered output
// file whose "desc: Trigger: Client Request:" line carries the name.
package valgrind

import (
	"os"
	"runtime"
)

// Request codes of valgrind.h and callgrind.h.
const (
	requestRunningOnValgrind = 0x1001
	callgrindBase            = uintptr('C')<<24 | uintptr('T')<<16 // VG_USERREQ_TOOL_BASE('C','T')
	requestDumpStats         = callgrindBase + 0
	requestZeroStats         = callgrindBase + 1
	requestDumpStatsAt       = callgrindBase + 3
	requestStartInstr        = callgrindBase + 4
	requestStopInstr         = callgrindBase + 5
)

// WindowsEnv is the environment variable, set to 1, with which a counter
// asks a test binary built with the gate's overlay of the testing
// package (package overlay) to count each benchmark's timed loop in a
// window; a benchmark may read it too (Windows), as loopbench's bench
// does to drive its clock-following loops by a virtual clock. A process
// under valgrind without it (a whole-process count, or a gate counting
// by the difference of two processes) zeroes and dumps no counts.
const WindowsEnv = "LOOPBENCH_CALLGRIND_WINDOWS"

// Windows reports whether the process counts windows: it runs under
// valgrind, asked to by WindowsEnv.
func Windows() bool { return os.Getenv(WindowsEnv) == "1" && Running() }

// SizingEnv is the environment variable, set to 1, with which a counter
// that lists benchmarks natively to size their windows (how many
// iterations fit its benchtime) asks a harness to run the work the windows
// will count: loopbench's bench then drives its clock-following loops by
// the virtual clock it uses under callgrind, so that a benchmark that
// natively waits on timers is sized by its work, not by its waits.
const SizingEnv = "LOOPBENCH_WINDOW_SIZING"

// Sizing reports whether the process runs natively to size windows
// (SizingEnv).
func Sizing() bool { return os.Getenv(SizingEnv) == "1" }

// Running reports whether the process runs under valgrind.
func Running() bool { return clientRequest(requestRunningOnValgrind, 0, 0, 0, 0, 0) != 0 }

// ZeroStats sets callgrind's counts to zero.
func ZeroStats() { clientRequest(requestZeroStats, 0, 0, 0, 0, 0) }

// StartInstrumentation makes callgrind count what runs from here on.
func StartInstrumentation() { clientRequest(requestStartInstr, 0, 0, 0, 0, 0) }

// StopInstrumentation makes callgrind stop counting: what runs from here
// on runs at valgrind's fast speed and leaves the counts as they are.
func StopInstrumentation() { clientRequest(requestStopInstr, 0, 0, 0, 0, 0) }

// DumpStats writes callgrind's counts to the next numbered output file
// and zeroes them.
func DumpStats() { clientRequest(requestDumpStats, 0, 0, 0, 0, 0) }

// DumpStatsAt is DumpStats with reason written in the file's desc line.
func DumpStatsAt(reason string) {
	b := append([]byte(reason), 0)
	clientRequest(requestDumpStatsAt, uintptrOf(b), 0, 0, 0, 0)
	runtime.KeepAlive(b)
}
