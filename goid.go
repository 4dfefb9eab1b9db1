package loopbench

import "runtime"

// goid returns the current goroutine's id, read from the header line of its
// stack trace ("goroutine 123 [running]:"). It costs about a microsecond, so
// it is used only when a loop starts or stops running.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = len("goroutine ")
	var id uint64
	for i := prefix; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		id = id*10 + uint64(b[i]-'0')
	}
	return id
}
