package rounds_test

import (
	"context"
	"fmt"

	"github.com/loopbench/loopbench/internal/measure/machine"
	"github.com/loopbench/loopbench/internal/measure/rounds"
)

// Three cases, two rounds, each round in an order drawn from seed 1. The
// callback measures a case; here it only says which.
func ExampleRun() {
	cases := []string{"ringbuffer", "deque", "chan"}
	cfg := rounds.Config{
		Count:  2,
		Seed:   1,
		Sample: func() (machine.Sample, error) { return machine.Sample{}, machine.ErrUnsupported },
	}
	res, err := rounds.Run(context.Background(), cfg, cases, func(_ context.Context, s rounds.Step, c string) error {
		fmt.Printf("round %d: %s\n", s.Round+1, c)
		return nil
	})
	fmt.Println(res.Done, "of", res.Total, "measured;", err)
	// Output:
	// round 1: chan
	// round 1: ringbuffer
	// round 1: deque
	// round 2: ringbuffer
	// round 2: deque
	// round 2: chan
	// 6 of 6 measured; <nil>
}
