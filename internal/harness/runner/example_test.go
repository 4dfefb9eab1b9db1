package runner_test

import (
	"fmt"
	"os"
	"time"

	"github.com/loopbench/loopbench/internal/harness/runner"
	"golang.org/x/perf/benchfmt"
)

func ExamplePlan() {
	fmt.Println(runner.Plan(232, 3, 100*time.Millisecond))
	// Output:
	// 232 cases × 3 rounds × 100ms: 1m10s of timed loops, plus each case's setup and calibration; the time left is estimated from the measurements as they complete
}

func ExampleWriter_Write() {
	w := runner.NewWriter(benchfmt.NewWriter(os.Stdout))
	w.Write("EchoFloor/conns=1-2", 1000, []benchfmt.Value{{Value: 12.5, Unit: "ns/op"}, {Value: 0, Unit: "B/op"}})
	// Output:
	// BenchmarkEchoFloor/conns=1-2 1000 12.5 ns/op 0 B/op
}
