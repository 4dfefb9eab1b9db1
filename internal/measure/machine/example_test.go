package machine_test

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/measure/machine"
)

// FormatBytes writes a machine's memory as runs record it.
func ExampleFormatBytes() {
	fmt.Println(machine.FormatBytes(8131168 * 1024))
	fmt.Println(machine.FormatBytes(1536))
	// Output:
	// 7.8 GiB
	// 1.5 KiB
}

// Description is what a run records of its machine, beside goos, goarch,
// cpu, kernel and go.
func ExampleDescription() {
	for _, kv := range machine.Description() {
		fmt.Println(kv[0])
	}
}
