//go:build amd64 || arm64

package valgrind

import "unsafe"

// Supported says the requests reach valgrind on this architecture.
const Supported = true

// clientRequest issues a valgrind client request; it returns 0 outside
// valgrind. Implemented in request_amd64.s and request_arm64.s.
//
//go:noescape
func clientRequest(req, a1, a2, a3, a4, a5 uintptr) uintptr

// uintptrOf is the address of b's first byte, for a request's argument.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
