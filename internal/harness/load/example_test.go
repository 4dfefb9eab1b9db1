package load_test

import (
	"context"
	"fmt"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/measure/echo"
)

func ExampleParseRates() {
	rates, _ := load.ParseRates("2000:10000:x1.4")
	fmt.Println(rates)
	_, err := load.ParseRates("2000:400:x1.4")
	fmt.Println(err)
	// Output:
	// [2000 2800 3920 5488 7683]
	// -sweep "2000:400:x1.4": end 400 is below the start 2000
}

func ExampleFindKnee() {
	c := load.Criteria{SLO: time.Millisecond, MaxErrors: 0.01}
	var steps []load.StepOutcome
	for _, s := range []load.Figures{
		{Offered: 2000, Achieved: 2000, P99: 200 * time.Microsecond},
		{Offered: 4000, Achieved: 3998, P99: 400 * time.Microsecond},
		{Offered: 8000, Achieved: 6100, P99: 40 * time.Millisecond},
		{Offered: 16000, Achieved: 6200, P99: 900 * time.Millisecond},
	} {
		steps = append(steps, load.StepOutcome{Offered: s.Offered, Verdict: c.Judge(s)})
	}
	fmt.Println(load.FindKnee(steps))
	// The generator was late at 4000 req/s: that step is left out, and
	// the server failed only at 8000, so its knee may be above 2000.
	steps[1].Verdict.Late = true
	fmt.Println(load.FindKnee(steps))
	// Output:
	// knee 4000 req/s
	// knee at least 2000 req/s: the generator was late at 4000 req/s: the server's knee may be higher
}

func ExampleFigures_ConnBound() {
	// Two connections to a server that answers in 50 ms send at most 40
	// req/s: asked for 200, both are always busy.
	f := load.Figures{Offered: 200, Achieved: 40, Concurrency: 2, Conns: 2, LatencyP50: 50 * time.Millisecond}
	fmt.Println(f.ConnBound())
	// Over ten connections the same figures keep two busy: the server's.
	f.Conns = 10
	fmt.Println(f.ConnBound())
	// Output:
	// true
	// false
}

func ExampleRun() {
	srv, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	// A closed loop over two connections, until 100 answers.
	rep, err := load.Run(context.Background(), load.Config{Addr: srv.Addr().String(), Conns: 2, Size: 64, Duration: time.Minute, Requests: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Requests, "requests,", rep.Errors, "errors")
	// Output: 100 requests, 0 errors
}

// A knee line's configuration carries each of the knee's fields on its
// own key, and KneeOf reads them back: here the generator was CPU-bound
// at the third step, its ceiling, so the knee is a lower bound.
func ExampleKneeOf() {
	k := load.FindKnee([]load.StepOutcome{{Offered: 1000}, {Offered: 2000}, {Offered: 4000, Verdict: load.Verdict{CPUBound: true}}})
	kv := map[string]string{}
	for _, c := range k.Config() {
		kv[c[0]] = c[1]
	}
	got := load.KneeOf(k.Rate, func(key string) string { return kv[key] })
	fmt.Println(got.LowerBound, got.Ceiling, got.LeftOut)
	fmt.Println(got.Note)
	// Output:
	// true 4000 0
	// the generator was CPU-bound at 4000 req/s: the server's knee may be higher
}
