package valgrind_test

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/measure/valgrind"
)

// A counted window: under valgrind --tool=callgrind --instr-atstart=no
// only the loop between StartInstrumentation and StopInstrumentation is
// counted, and DumpStatsAt writes its counts to a numbered file named
// after it. Natively the requests do nothing.
func Example() {
	work := func(n int) (sum int) {
		for i := range n {
			sum += i
		}
		return sum
	}
	n := 1000
	valgrind.ZeroStats()
	valgrind.StartInstrumentation()
	sum := work(n)
	valgrind.StopInstrumentation()
	valgrind.DumpStatsAt(fmt.Sprintf("work N=%d", n))
	fmt.Println(sum, valgrind.Running())
	// Output: 499500 false
}
