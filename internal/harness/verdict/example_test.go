package verdict_test

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// One sample a side, as go test -bench writes by default: B/op 1 against
// 2 is setup amortised over b.N, not a regression; one allocation more per
// op is; the timing is undecided: one sample a side cannot reach alpha, so
// no slowdown could have been flagged.
func ExampleDecide() {
	v := verdict.Decide([]verdict.Pair{
		{Name: "X", Unit: "sec/op", Base: []float64{100e-9}, Head: []float64{130e-9}},
		{Name: "X", Unit: "B/op", Base: []float64{1}, Head: []float64{2}},
		{Name: "X", Unit: "allocs/op", Base: []float64{0}, Head: []float64{1}},
	}, verdict.Options{MinEffect: 0.05})
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		fmt.Printf("%s %s %s (%s) detectable %.3g\n", c.Unit, c.Rule, c.Status, c.Note, v.Detectable(c))
	}
	fmt.Println("exit", v.Exit())
	// Output:
	// sec/op u-test undecided (n=1+1 cannot reach p<0.05) detectable +Inf
	// B/op amortised ~ (amortised: medians within 8 B per op) detectable NaN
	// allocs/op amortised REGRESSION (amortised: more allocations) detectable NaN
	// exit 1
}

// Instruction counts whose repeats disagree are judged on their ranges.
func ExampleRuleOf() {
	base, head := []float64{1000, 1004}, []float64{1030, 1031}
	fmt.Println(verdict.RuleOf("instructions/op", true, base, head))
	fmt.Println(verdict.RuleOf("instructions/op", true, []float64{1000, 1000}, []float64{1030}))
	fmt.Println(verdict.RuleOf("sec/op", false, base, head))
	fmt.Println(verdict.RuleOf("allocs/op", false, base, head))
	v := verdict.Decide([]verdict.Pair{{Name: "X", Unit: "instructions/op", ExactUnit: true, Base: base, Head: head}}, verdict.Options{MinEffect: 0.01})
	fmt.Println(v.Comparisons[0].Status, "-", v.Comparisons[0].Note)
	// Output:
	// range
	// exact
	// u-test
	// amortised
	// REGRESSION - range: worse by 2.59% at least
}
