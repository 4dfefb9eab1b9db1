//go:build !amd64 && !arm64

package valgrind

// Supported says the requests reach valgrind on this architecture.
const Supported = false

// clientRequest is a no-op here: the request sequence is written for
// amd64 and arm64 only, so the process is never seen under valgrind.
func clientRequest(req, a1, a2, a3, a4, a5 uintptr) uintptr { return 0 }

// uintptrOf is unused off amd64 and arm64.
func uintptrOf([]byte) uintptr { return 0 }
