//go:build arm64

#include "textflag.h"

// The client request sequence of valgrind.h for arm64: X4 holds the
// address of the six argument words, X3 the value returned when not under
// valgrind (0); the rotations of X12 (a full turn) followed by
// orr x10, x10, x10 are the marker valgrind recognises, and it leaves the
// result in X3.

// func clientRequest(req, a1, a2, a3, a4, a5 uintptr) uintptr
TEXT ·clientRequest(SB), NOSPLIT, $0-56
	MOVD $req+0(FP), R4
	MOVD ZR, R3
	ROR $3, R12; ROR $13, R12
	ROR $51, R12; ROR $61, R12
	ORR R10, R10
	MOVD R3, ret+48(FP)
	RET
