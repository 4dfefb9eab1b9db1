//go:build amd64

#include "textflag.h"

// The client request sequence of valgrind.h's VALGRIND_DO_CLIENT_REQUEST
// for amd64: AX holds the address of the six argument words (the request
// and its five arguments, contiguous in the frame), DX the value returned
// when not under valgrind (0); the four rotations of DI (a full turn:
// they change nothing) followed by xchg %rbx,%rbx are the marker valgrind
// recognises, and it leaves the result in DX.

// func clientRequest(req, a1, a2, a3, a4, a5 uintptr) uintptr
TEXT ·clientRequest(SB), NOSPLIT, $0-56
	LEAQ req+0(FP), AX
	XORL DX, DX
	ROLQ $3, DI; ROLQ $13, DI
	ROLQ $61, DI; ROLQ $51, DI
	XCHGQ BX, BX
	MOVQ DX, ret+48(FP)
	RET
