package valgrind

import (
	"embed"
	"fmt"
)

//go:embed request_amd64.s request_arm64.s
var requestSource embed.FS

// RequestFunc is the name of the assembly function that issues a client
// request, as RequestSource declares it:
// func clientRequest(req, a1, a2, a3, a4, a5 uintptr) uintptr.
const RequestFunc = "clientRequest"

// RequestSource returns the Go assembly of the client request sequence
// for goarch (amd64 or arm64), for a program that cannot import this
// package (the standard library's testing package, patched by an
// overlay, see package overlay): false for any other architecture.
func RequestSource(goarch string) ([]byte, bool) {
	b, err := requestSource.ReadFile("request_" + goarch + ".s")
	return b, err == nil
}

// RequestConstants is Go source declaring the request codes a window
// issues (and RunningOnValgrind's), each name prefixed by prefix, and
// WindowPrefix and WindowsEnv as prefixWindowPrefix and
// prefixWindowsEnv: the same values as this package's, for a copy of the
// requests in another package.
func RequestConstants(prefix string) string {
	return fmt.Sprintf(`const (
	%[1]sRunningOnValgrind = %#[2]x
	%[1]sZeroStats         = %#[3]x
	%[1]sDumpStatsAt       = %#[4]x
	%[1]sStartInstr        = %#[5]x
	%[1]sStopInstr         = %#[6]x
	%[1]sWindowPrefix      = %[7]q
	%[1]sWindowsEnv        = %[8]q
)
`, prefix, requestRunningOnValgrind, requestZeroStats, requestDumpStatsAt, requestStartInstr, requestStopInstr, WindowPrefix, WindowsEnv)
}
